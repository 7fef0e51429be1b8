/* cgm_gpu_query: what an OpenCL platform asks of the device, a program and a
 * kernel (include/cgm/guest.h, enum cgm_gpu_query_what). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgm/guest.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/mem.h"
#include "tracegen/x86/process.h"

/* The device the platform describes. The emulator runs one work-group at a
 * time, so the compute-unit count is only what clGetDeviceInfo reports:
 * replay's default (gpu.compute_units = 8) decides nothing at replay time. */
#define GPU_REPORTED_CUS 8
#define GPU_WAVEFRONT    64
#define GPU_LDS_BYTES    65536u
#define GPU_MAX_GROUP    256

/* Copies the answer (LEN bytes) to the guest's BUF, at most CAP of it. */
static long answer(struct x86_process *p, uint64_t buf, uint64_t cap, const void *v, size_t len)
{
    size_t n = cap < len ? (size_t)cap : len;
    if (n && gmem_copy_out(p->mem, buf, v, n, 0, NULL) < 0) {
        fprintf(stderr, "tracegen: gpu: query: bad buffer 0x%llx of %llu bytes\n",
                (unsigned long long)buf, (unsigned long long)cap);
        return -EFAULT;
    }
    return (long)len;
}

static const struct gpu_program *program_of(const struct gpu_driver *d, uint64_t h)
{
    if (h < 1 || h > d->nprograms) {
        fprintf(stderr, "tracegen: gpu: query: %lld is not a program handle\n", (long long)h);
        return NULL;
    }
    return d->programs[h - 1];
}

static const struct si_kernel *kernel_of(const struct gpu_driver *d, uint64_t h)
{
    if (h < 1 || h > d->nkernels) {
        fprintf(stderr, "tracegen: gpu: query: %lld is not a kernel handle\n", (long long)h);
        return NULL;
    }
    return d->kernels[h - 1].k;
}

/* The explicit argument INDEX of K (hidden ones come after them all). */
static const struct si_kernel_arg *explicit_arg(const struct si_kernel *k, uint64_t index)
{
    for (size_t i = 0, n = 0; i < k->nargs; i++)
        if (!k->args[i].is_hidden && n++ == index)
            return &k->args[i];
    return NULL;
}

static void describe_kernel(const struct si_kernel *k, struct cgm_gpu_kernel_info *ki)
{
    memset(ki, 0, sizeof *ki);
    for (size_t i = 0; i < k->nargs; i++) {
        const struct si_kernel_arg *a = &k->args[i];
        if (a->is_hidden)
            continue;
        ki->nargs++;
        if (a->offset + a->size > ki->args_bytes)
            ki->args_bytes = a->offset + a->size;
    }
    ki->max_workgroup_size = k->max_flat_workgroup_size && k->max_flat_workgroup_size < GPU_MAX_GROUP
                                 ? k->max_flat_workgroup_size : GPU_MAX_GROUP;
    ki->lds_bytes = k->kd.group_segment_fixed_size;
    ki->private_bytes = k->kd.private_segment_fixed_size;
}

static void describe_arg(const struct si_kernel_arg *a, struct cgm_gpu_kernel_arg *ka)
{
    memset(ka, 0, sizeof *ka);
    ka->offset = a->offset;
    ka->size = a->size;
    if (!strcmp(a->address_space, "local"))
        ka->kind = CGM_GPU_ARG_LOCAL;
    else if (!strcmp(a->value_kind, "global_buffer"))
        ka->kind = CGM_GPU_ARG_GLOBAL;
    else
        ka->kind = CGM_GPU_ARG_VALUE;
    ka->is_constant = !strcmp(a->address_space, "constant");
    snprintf(ka->name, sizeof ka->name, "%s", a->name);
    snprintf(ka->type_name, sizeof ka->type_name, "%s", a->type_name);
}

long gpu_query(struct x86_process *p, struct gpu_driver *d, const uint64_t a[6])
{
    uint64_t what = a[0], h = a[1], index = a[2], buf = a[3], cap = a[4];
    switch (what) {
    case CGM_GPU_Q_DEVICE: {
        struct cgm_gpu_device_info di = {
            .compute_units = GPU_REPORTED_CUS, .wavefront_size = GPU_WAVEFRONT,
            .lds_bytes = GPU_LDS_BYTES, .max_workgroup_size = GPU_MAX_GROUP, .doubles = 1,
            .max_args_bytes = GPU_MAX_ARGS_BYTES,
        };
        return answer(p, buf, cap, &di, sizeof di);
    }
    case CGM_GPU_Q_PROGRAM_BINARY: {
        const struct gpu_program *g = program_of(d, h);
        return g ? answer(p, buf, cap, g->binary, g->binary_len) : -EBADF;
    }
    case CGM_GPU_Q_KERNEL_NAME: {
        const struct gpu_program *g = program_of(d, h);
        if (!g)
            return -EBADF;
        if (index >= g->prog.nkernels)
            return -ENOENT;
        const char *name = g->prog.kernels[index].name;
        return answer(p, buf, cap, name, strlen(name) + 1);
    }
    case CGM_GPU_Q_KERNEL_INFO: {
        const struct si_kernel *k = kernel_of(d, h);
        if (!k)
            return -EBADF;
        struct cgm_gpu_kernel_info ki;
        describe_kernel(k, &ki);
        return answer(p, buf, cap, &ki, sizeof ki);
    }
    case CGM_GPU_Q_KERNEL_ARG: {
        const struct si_kernel *k = kernel_of(d, h);
        if (!k)
            return -EBADF;
        const struct si_kernel_arg *arg = explicit_arg(k, index);
        if (!arg)
            return -ENOENT;
        struct cgm_gpu_kernel_arg ka;
        describe_arg(arg, &ka);
        return answer(p, buf, cap, &ka, sizeof ka);
    }
    default:
        fprintf(stderr, "tracegen: gpu: query: %llu is not a query\n", (unsigned long long)what);
        return -EINVAL;
    }
}
