/* cgm_gpu_launch: checks the grid, builds the kernarg segment (explicit
 * arguments, __local sizes turned into LDS offsets, hidden arguments), the
 * dispatch packet and private memory in guest memory, runs the dispatch on
 * the Southern Islands emulator and records it (see gpu_driver.h). */
#include "tracegen/gpu/gpu_driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/events.h"
#include "cgm/guest.h"
#include "tracegen/si/si_emu.h"
#include "tracegen/si/si_record.h"
#include "tracegen/x86/mem.h"
#include "tracegen/x86/process.h"
#include "tracegen/x86/recorder.h"

#define LDS_MAX 65536u
/* A kernel that runs this many wavefront instructions is taken to hang. */
#define LAUNCH_INSTRUCTION_LIMIT (1ull << 36)

/* Checks the grid G (work-items) and L (work-group sizes; all 0: the
 * driver picks) of DIMS dimensions; fills GRID and GROUP (unused
 * dimensions 1). */
static int check_grid(const struct si_kernel *k, unsigned dims, const uint64_t gin[3],
                      const uint64_t lin[3], uint32_t grid[3], uint32_t group[3])
{
    uint64_t g[3] = { 1, 1, 1 }, l[3] = { 1, 1, 1 };
    if (dims < 1 || dims > 3) {
        fprintf(stderr, "tracegen: gpu: launch %s: dims must be 1..3, not %u\n", k->name, dims);
        return -EINVAL;
    }
    int pick = 1;
    for (unsigned i = 0; i < dims; i++) {
        g[i] = gin[i];
        l[i] = lin[i];
        pick &= lin[i] == 0;
    }
    if (pick) { /* the largest power of two up to 64 dividing the x size */
        for (unsigned i = 1; i < dims; i++)
            l[i] = 1;
        for (l[0] = 64; l[0] > 1 && g[0] % l[0]; l[0] /= 2)
            ;
    }
    uint64_t items = 1, max = k->max_flat_workgroup_size ? k->max_flat_workgroup_size : 256;
    for (unsigned i = 0; i < 3; i++) {
        if (!g[i] || !l[i] || g[i] > UINT32_MAX || g[i] % l[i]) {
            fprintf(stderr, "tracegen: gpu: launch %s: dimension %u: global size %llu is not a "
                    "positive multiple of the work-group size %llu (or too large)\n", k->name, i,
                    (unsigned long long)g[i], (unsigned long long)l[i]);
            return -EINVAL;
        }
        items *= l[i];
        grid[i] = (uint32_t)g[i];
        group[i] = (uint32_t)l[i];
    }
    if (items > max) {
        fprintf(stderr, "tracegen: gpu: launch %s: work-group of %llu work-items, at most %llu\n",
                k->name, (unsigned long long)items, (unsigned long long)max);
        return -EINVAL;
    }
    return 0;
}

/* Writes the global offsets into the kernarg segment's hidden arguments. */
static void set_global_offsets(const struct si_kernel *k, uint8_t *kernarg, size_t len,
                               const uint64_t offset[3])
{
    static const char *const kinds[3] = { "hidden_global_offset_x", "hidden_global_offset_y",
                                          "hidden_global_offset_z" };
    for (size_t i = 0; i < k->nargs; i++)
        for (unsigned d = 0; d < 3; d++)
            if (!strcmp(k->args[i].value_kind, kinds[d]) && k->args[i].size <= 8 &&
                k->args[i].offset + (size_t)k->args[i].size <= len)
                memcpy(kernarg + k->args[i].offset, &offset[d], k->args[i].size);
}

/* Turns each __local pointer argument's requested size into an LDS offset
 * after the kernel's fixed LDS; returns the dynamic LDS bytes, or -1. */
static long place_local_args(const struct si_kernel *k, uint8_t *args, size_t args_bytes)
{
    uint64_t next = k->kd.group_segment_fixed_size;
    for (size_t i = 0; i < k->nargs; i++) {
        const struct si_kernel_arg *a = &k->args[i];
        if (a->is_hidden || strcmp(a->address_space, "local") != 0)
            continue;
        if (a->size != 4 && a->size != 8) {
            fprintf(stderr, "tracegen: gpu: launch %s: __local argument %zu has %u bytes\n",
                    k->name, i, a->size);
            return -1;
        }
        if ((uint64_t)a->offset + a->size > args_bytes) {
            fprintf(stderr, "tracegen: gpu: launch %s: argument %zu (__local) lies past the %zu "
                    "argument bytes given\n", k->name, i, args_bytes);
            return -1;
        }
        uint64_t want = 0;
        memcpy(&want, args + a->offset, a->size);
        next = (next + 15) & ~15ull;
        uint32_t at = (uint32_t)next;
        next += want;
        if (next > LDS_MAX) {
            fprintf(stderr, "tracegen: gpu: launch %s: __local arguments need %llu bytes of "
                    "LDS, at most %u\n", k->name, (unsigned long long)next, LDS_MAX);
            return -1;
        }
        memset(args + a->offset, 0, a->size);
        memcpy(args + a->offset, &at, 4);
    }
    return (long)(next - k->kd.group_segment_fixed_size);
}

_Static_assert(CGM_EVF_GPU_LAUNCH_GRID_Z == CGM_EVF_GPU_LAUNCH_GRID_X + 2 &&
                   CGM_EVF_GPU_LAUNCH_GROUP_Z == CGM_EVF_GPU_LAUNCH_GROUP_X + 2,
               "a launch's grid and group sizes are three consecutive fields each");

static void launch_events(struct x86_thread *t, uint32_t id, uint32_t kernel,
                          const struct si_launch *l, uint64_t scratch, uint64_t kernarg_bytes)
{
    struct cgm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = CGM_EV_GPU_LAUNCH;
    ev.f[CGM_EVF_GPU_LAUNCH_LAUNCH] = id;
    ev.f[CGM_EVF_GPU_LAUNCH_KERNEL] = kernel;
    ev.f[CGM_EVF_GPU_LAUNCH_DIMS] = l->dims;
    for (int i = 0; i < 3; i++) {
        ev.f[CGM_EVF_GPU_LAUNCH_GRID_X + i] = l->grid[i];
        ev.f[CGM_EVF_GPU_LAUNCH_GROUP_X + i] = l->group[i];
    }
    ev.f[CGM_EVF_GPU_LAUNCH_LDS_BYTES] = l->kernel->kd.group_segment_fixed_size + l->dynamic_lds;
    gpu_record(t, &ev);
    memset(&ev, 0, sizeof ev);
    ev.type = CGM_EV_GPU_LAUNCH_MEM;
    ev.f[CGM_EVF_GPU_LAUNCH_MEM_LAUNCH] = id;
    ev.f[CGM_EVF_GPU_LAUNCH_MEM_SCRATCH_BYTES] = scratch;
    ev.f[CGM_EVF_GPU_LAUNCH_MEM_ARGS_BYTES] = kernarg_bytes;
    gpu_record(t, &ev);
}

/* Runs the dispatch with the recorder attached when tracing. */
static int run(struct x86_process *p, struct gpu_driver *d, const struct gpu_program *g,
               uint32_t program, const struct si_launch *l, uint32_t id, char *err,
               size_t errlen)
{
    struct si_memory mem = gpu_si_memory(p);
    struct si_run_stats st;
    struct si_recorder *r = NULL;
    if (p->rec && x86_rec_recording(p->rec)) {   /* --roi-only: work-groups inside the ROI */
        r = si_recorder_create(x86_rec_writer(p->rec), g->table, g->ntable, g->code_address, id,
                               GPU_GROUP_STREAM_BASE + d->next_group_stream);
        if (!r) {
            snprintf(err, errlen, "out of memory for the recorder");
            return -1;
        }
        si_recorder_section(r, program);
    }
    int rc = si_run(l, &mem, r ? si_recorder_observer(r) : NULL, &st, err, errlen);
    if (r) {
        d->next_group_stream += si_recorder_streams(r);
        char why[256];
        if (si_recorder_finish(r, why, sizeof why) < 0 && rc == 0) {
            snprintf(err, errlen, "recording failed: %s", why);
            rc = -1;
        }
    }
    return rc;
}

/* A launch of kernel KH over the NDRange ND (dims, offsets, sizes) with
 * the explicit argument bytes at ARGS_ADDR. */
static long launch(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d, uint64_t kh,
                   const struct cgm_gpu_ndrange *nd, uint64_t args_addr, uint64_t args_bytes)
{
    if (kh < 1 || kh > d->nkernels) {
        fprintf(stderr, "tracegen: gpu: launch: %lld is not a kernel handle\n", (long long)kh);
        return -EBADF;
    }
    const struct gpu_kernel_ref *ref = &d->kernels[kh - 1];
    const struct si_kernel *k = ref->k;
    const struct gpu_program *g = d->programs[ref->program - 1];
    struct si_launch l;
    memset(&l, 0, sizeof l);
    l.program = &g->prog;
    l.kernel = k;
    l.code_address = g->code_address;
    l.dims = (unsigned)nd->dims;
    l.max_instructions = LAUNCH_INSTRUCTION_LIMIT;
    int rc = nd->dims == l.dims ? check_grid(k, l.dims, nd->global, nd->local, l.grid, l.group)
                                : -EINVAL;
    if (rc == -EINVAL && nd->dims != l.dims)
        fprintf(stderr, "tracegen: gpu: launch %s: dims must be 1..3, not %llu\n", k->name,
                (unsigned long long)nd->dims);
    if (rc)
        return rc;
    if (args_bytes > GPU_MAX_ARGS_BYTES) {
        fprintf(stderr, "tracegen: gpu: launch %s: %llu argument bytes, at most %d\n", k->name,
                (unsigned long long)args_bytes, GPU_MAX_ARGS_BYTES);
        return -EINVAL;
    }
    uint8_t args[GPU_MAX_ARGS_BYTES];
    if (args_bytes && gmem_copy_in(p->mem, args, args_addr, args_bytes, NULL) < 0) {
        fprintf(stderr, "tracegen: gpu: launch %s: bad argument pointer 0x%llx\n", k->name,
                (unsigned long long)args_addr);
        return -EFAULT;
    }
    uint64_t groups = (uint64_t)(l.grid[0] / l.group[0]) * (l.grid[1] / l.group[1]) *
                      (l.grid[2] / l.group[2]);
    if (p->rec && groups > GPU_MAX_GROUP_STREAMS - d->next_group_stream) {
        fprintf(stderr, "tracegen: gpu: launch %s: %llu work-groups would exceed the trace's "
                "%u work-group streams (%u used)\n", k->name, (unsigned long long)groups,
                GPU_MAX_GROUP_STREAMS, d->next_group_stream);
        return -E2BIG;
    }
    uint64_t explicit_end = 0;
    for (size_t i = 0; i < k->nargs; i++)
        if (!k->args[i].is_hidden && k->args[i].offset + (uint64_t)k->args[i].size > explicit_end)
            explicit_end = k->args[i].offset + (uint64_t)k->args[i].size;
    if (args_bytes < explicit_end) {
        fprintf(stderr, "tracegen: gpu: launch %s: its explicit arguments take %llu bytes, "
                "%llu given\n", k->name, (unsigned long long)explicit_end,
                (unsigned long long)args_bytes);
        return -EINVAL;
    }
    long dyn = place_local_args(k, args, args_bytes);
    if (dyn < 0)
        return -EINVAL;
    l.dynamic_lds = (uint32_t)dyn;
    size_t ka_cap = k->kernarg_segment_size > args_bytes ? k->kernarg_segment_size : args_bytes;
    uint8_t *kernarg = calloc(1, ka_cap + 256);
    size_t ka_len = kernarg ? si_build_kernarg(k, args, args_bytes, kernarg, ka_cap + 256) : 0;
    if (!ka_len) {
        fprintf(stderr, "tracegen: gpu: launch %s: %llu explicit argument bytes do not fit the "
                "kernel's argument layout (explicit arguments end before the hidden ones)\n",
                k->name, (unsigned long long)args_bytes);
        free(kernarg);
        return -EINVAL;
    }
    set_global_offsets(k, kernarg, ka_len, nd->offset);
    /* One guest region per launch: kernarg segment, dispatch packet,
     * private memory; unmapped when the dispatch ends. */
    uint64_t ka_off = 0, pk_off = (ka_len + 63) & ~63ull, sc_off = pk_off + 64;
    uint64_t scratch = si_scratch_bytes(&l);
    uint64_t region_len = (sc_off + scratch + GPAGE_MASK) & ~GPAGE_MASK;
    uint64_t region = gpu_guest_map(p, region_len, GPROT_R | GPROT_W);
    if (!region) {
        fprintf(stderr, "tracegen: gpu: launch %s: out of guest memory for %llu bytes of "
                "kernarg and private memory\n", k->name, (unsigned long long)region_len);
        free(kernarg);
        return -ENOMEM;
    }
    l.kernarg_address = region + ka_off;
    l.packet_address = region + pk_off;
    l.scratch_address = region + sc_off;
    uint8_t packet[64];
    si_fill_packet(&l, packet);
    gmem_copy_out(p->mem, l.kernarg_address, kernarg, ka_len, 1, NULL);
    gmem_copy_out(p->mem, l.packet_address, packet, sizeof packet, 1, NULL);
    free(kernarg);

    uint32_t id = ++d->launches;
    gpu_record_map(t, region, region_len, CGM_GPU_MAP_LAUNCH, id);
    launch_events(t, id, (uint32_t)kh, &l, scratch, ka_len);
    char err[1024];
    rc = run(p, d, g, ref->program, &l, id, err, sizeof err);
    gmem_unmap(p->mem, region, region_len);
    if (rc < 0) {
        fprintf(stderr, "tracegen: gpu: launch %u of %s failed: %s\n", id, k->name, err);
        return -EFAULT;
    }
    return 0;
}

long gpu_launch(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                const uint64_t a[6])
{
    struct cgm_gpu_ndrange nd;
    memset(&nd, 0, sizeof nd);
    nd.dims = a[1];
    if (nd.dims >= 1 && nd.dims <= 3 &&
        (gmem_copy_in(p->mem, nd.global, a[2], nd.dims * 8, NULL) < 0 ||
         (a[3] && gmem_copy_in(p->mem, nd.local, a[3], nd.dims * 8, NULL) < 0))) {
        fprintf(stderr, "tracegen: gpu: launch: bad global/local pointer\n");
        return -EFAULT;
    }
    return launch(p, t, d, a[0], &nd, a[4], a[5]);
}

long gpu_launch_nd(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                   const uint64_t a[6])
{
    struct cgm_gpu_ndrange nd;
    if (gmem_copy_in(p->mem, &nd, a[1], sizeof nd, NULL) < 0) {
        fprintf(stderr, "tracegen: gpu: launch: bad NDRange pointer 0x%llx\n",
                (unsigned long long)a[1]);
        return -EFAULT;
    }
    return launch(p, t, d, a[0], &nd, a[2], a[3]);
}
