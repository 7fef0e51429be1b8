/* The GPU calls other than launch: availability, code-object loading,
 * kernel lookup, buffers, copies and waits (see gpu_driver.h). */
#include "tracegen/gpu/gpu_driver.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/guest.h"
#include "cgm/nearest.h"
#include "tracegen/si/si_record.h"
#include "tracegen/x86/mem.h"
#include "tracegen/x86/process.h"
#include "tracegen/x86/recorder.h"

#define COPY_CHUNK (1u << 20)

int gpu_is_syscall(uint64_t nr)
{
    return nr >= (uint64_t)CGM_SYSCALL_GPU_BASE && nr <= (uint64_t)CGM_SYSCALL_GPU_LAST;
}

/* Reads the guest's file PATH whole into a fresh buffer. */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && (uint64_t)n <= GPU_MAX_BINARY_BYTES && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc(n ? (size_t)n : 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Loads the code object BIN (LEN bytes, named NAME in messages; the
 * program keeps it) into guest memory and records it: handle or -errno,
 * with the loader's message also in WHY when given. */
long gpu_load_image(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                    const char *name, uint8_t *bin, size_t len, char *why, size_t whylen)
{
    char err[1024];
    if (why && whylen)
        why[0] = 0;
    if (d->nprograms == GPU_MAX_PROGRAMS) {
        fprintf(stderr, "tracegen: gpu: load %s: at most %d programs\n", name, GPU_MAX_PROGRAMS);
        free(bin);
        return -EMFILE;
    }
    struct gpu_program *g = calloc(1, sizeof *g);
    if (!g) {
        free(bin);
        return -ENOMEM;
    }
    g->binary = bin;
    g->binary_len = len;
    if (si_program_load_memory(bin, len, name, &g->prog, err, sizeof err) < 0) {
        fprintf(stderr, "tracegen: gpu: load: %s\n", err);
        if (why)
            snprintf(why, whylen, "%s", err);
        free(bin);
        free(g);
        return -ENOEXEC;
    }
    uint32_t handle = d->nprograms + 1;
    /* The image lives in guest memory: kernels read their constants and
     * the dispatch reads descriptors from there. */
    g->code_len = (g->prog.image_size + GPAGE_MASK) & ~GPAGE_MASK;
    g->code_address = gpu_guest_map(p, g->code_len, GPROT_R | GPROT_W);
    if (g->code_address)
        si_program_relocate(&g->prog, g->code_address);
    if (!g->code_address ||
        gmem_copy_out(p->mem, g->code_address, g->prog.image, g->prog.image_size, 1, NULL) < 0 ||
        gmem_protect(p->mem, g->code_address, g->code_len, GPROT_R) < 0 ||
        si_static_table(&g->prog, &g->table, &g->ntable) < 0) {
        fprintf(stderr, "tracegen: gpu: load %s: out of guest memory for the image\n", name);
        si_program_free(&g->prog);
        free(bin);
        free(g);
        return -ENOMEM;
    }
    if (p->rec && si_static_write(x86_rec_writer(p->rec), GPU_STATIC_STREAM_BASE + handle,
                                  handle, g->table, g->ntable) < 0) {
        fprintf(stderr, "tracegen: gpu: load %s: cannot write its static table: %s\n", name,
                cgm_writer_error(x86_rec_writer(p->rec)));
        free(g->table);
        si_program_free(&g->prog);
        free(bin);
        free(g);
        return -EIO;
    }
    d->programs[d->nprograms++] = g;
    gpu_record_map(t, g->code_address, g->code_len, CGM_GPU_MAP_CODE, 0);
    x86_rec_event_fields(t->rec, CGM_EV_GPU_LOAD, handle, g->prog.image_size, 0, 0);
    return handle;
}

static long gpu_load(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                     uint64_t path_addr)
{
    char path[PATH_MAX];
    if (gmem_read_str(p->mem, path, path_addr, sizeof path) < 0) {
        fprintf(stderr, "tracegen: gpu: load: bad path pointer 0x%llx\n",
                (unsigned long long)path_addr);
        return -EFAULT;
    }
    if (access(path, R_OK) < 0) {
        int e = errno;
        fprintf(stderr, "tracegen: gpu: load %s: %s\n", path, strerror(e));
        return -e;
    }
    size_t len;
    uint8_t *bin = read_file(path, &len);
    if (!bin) {
        fprintf(stderr, "tracegen: gpu: load %s: cannot read it (or larger than %u MiB)\n",
                path, GPU_MAX_BINARY_BYTES >> 20);
        return -EIO;
    }
    return gpu_load_image(p, t, d, path, bin, len, NULL, 0);
}

/* A code object in guest memory (clCreateProgramWithBinary). */
static long gpu_load_binary(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                            uint64_t addr, uint64_t len)
{
    if (!len || len > GPU_MAX_BINARY_BYTES) {
        fprintf(stderr, "tracegen: gpu: load binary: size %llu is not between 1 and %u MiB\n",
                (unsigned long long)len, GPU_MAX_BINARY_BYTES >> 20);
        return -EINVAL;
    }
    long rc;
    uint8_t *bin = gpu_copy_in_new(p, addr, len, "load binary", &rc);
    if (!bin)
        return rc;
    char name[64];
    snprintf(name, sizeof name, "<binary of %llu bytes>", (unsigned long long)len);
    return gpu_load_image(p, t, d, name, bin, len, NULL, 0);
}

/* Section "si.kernel.HANDLE": what the kernel needs of a compute unit. */
static int write_kernel_info(struct cgm_writer *w, uint32_t handle, uint32_t program,
                             const struct si_kernel *k)
{
    struct cgm_si_kernel_info info;
    memset(&info, 0, sizeof info);
    info.kernel = handle;
    info.program = program;
    snprintf(info.name, sizeof info.name, "%s", k->name);
    info.entry = (uint32_t)k->entry;
    info.vgprs = k->setup.vgprs;
    info.sgprs = k->setup.sgprs;
    info.lds_bytes = k->kd.group_segment_fixed_size;
    info.private_bytes = k->kd.private_segment_fixed_size;
    char text[CGM_SI_KERNEL_TEXT_MAX], name[CGM_STREAM_NAME_MAX];
    size_t len = cgm_si_kernel_info_encode(text, &info);
    snprintf(name, sizeof name, CGM_SI_KERNEL_PREFIX "%u", handle);
    return cgm_writer_add_section(w, GPU_KERNEL_STREAM_BASE + handle, name, text, len);
}

static long gpu_kernel(struct x86_process *p, struct gpu_driver *d, uint64_t program,
                       uint64_t name_addr)
{
    char name[SI_NAME_MAX];
    if (program < 1 || program > d->nprograms) {
        fprintf(stderr, "tracegen: gpu: kernel: %lld is not a program handle\n",
                (long long)program);
        return -EBADF;
    }
    if (gmem_read_str(p->mem, name, name_addr, sizeof name) < 0) {
        fprintf(stderr, "tracegen: gpu: kernel: bad name pointer 0x%llx (or longer than %d)\n",
                (unsigned long long)name_addr, SI_NAME_MAX - 1);
        return -EFAULT;
    }
    const struct gpu_program *g = d->programs[program - 1];
    const struct si_kernel *k = si_program_kernel(&g->prog, name);
    if (!k) {
        struct cgm_nearest near = { NULL, 0 };
        for (size_t i = 0; i < g->prog.nkernels; i++)
            cgm_nearest_offer(&near, name, g->prog.kernels[i].name);
        fprintf(stderr, "tracegen: gpu: kernel: no kernel '%s' in %s", name, g->prog.path);
        if (near.best)
            fprintf(stderr, " (did you mean '%s'?)", near.best);
        fprintf(stderr, "; its kernels:");
        for (size_t i = 0; i < g->prog.nkernels; i++)
            fprintf(stderr, "%s %s", i ? "," : "", g->prog.kernels[i].name);
        fprintf(stderr, "%s\n", g->prog.nkernels ? "" : " none");
        return -ENOENT;
    }
    for (uint32_t i = 0; i < d->nkernels; i++)
        if (d->kernels[i].k == k)
            return i + 1;
    if (d->nkernels == GPU_MAX_KERNELS) {
        fprintf(stderr, "tracegen: gpu: kernel: at most %d kernels\n", GPU_MAX_KERNELS);
        return -EMFILE;
    }
    d->kernels[d->nkernels].program = (uint32_t)program;
    d->kernels[d->nkernels].k = k;
    uint32_t handle = ++d->nkernels;
    if (p->rec && write_kernel_info(x86_rec_writer(p->rec), handle, (uint32_t)program, k) < 0) {
        fprintf(stderr, "tracegen: gpu: kernel %s: cannot write its description: %s\n", name,
                cgm_writer_error(x86_rec_writer(p->rec)));
        d->nkernels--;
        return -EIO;
    }
    return handle;
}

static long gpu_alloc(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                      uint64_t bytes)
{
    if (!bytes || bytes > (1ull << 40)) {
        fprintf(stderr, "tracegen: gpu: alloc: bad size %llu\n", (unsigned long long)bytes);
        return -EINVAL;
    }
    if (d->nallocs == d->allocs_cap) {
        size_t cap = d->allocs_cap ? 2 * d->allocs_cap : 64;
        struct gpu_alloc *v = realloc(d->allocs, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        d->allocs = v;
        d->allocs_cap = cap;
    }
    uint64_t at = gpu_guest_map(p, bytes, GPROT_R | GPROT_W);
    if (!at) {
        fprintf(stderr, "tracegen: gpu: alloc: out of guest memory for %llu bytes\n",
                (unsigned long long)bytes);
        return -ENOMEM;
    }
    d->allocs[d->nallocs].addr = at;
    d->allocs[d->nallocs].len = (bytes + GPAGE_MASK) & ~GPAGE_MASK;
    d->nallocs++;
    x86_rec_event_fields(t->rec, CGM_EV_GPU_ALLOC, at, bytes, 0, 0);
    return (long)at;
}

static long gpu_free(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                     uint64_t addr)
{
    for (size_t i = 0; i < d->nallocs; i++)
        if (d->allocs[i].addr == addr) {
            gmem_unmap(p->mem, addr, d->allocs[i].len);
            d->allocs[i] = d->allocs[--d->nallocs];
            x86_rec_event_fields(t->rec, CGM_EV_GPU_FREE, addr, 0, 0, 0);
            return 0;
        }
    fprintf(stderr, "tracegen: gpu: free: 0x%llx was not returned by cgm_gpu_alloc\n",
            (unsigned long long)addr);
    return -EINVAL;
}

static long gpu_copy(struct x86_process *p, struct x86_thread *t, uint64_t dst, uint64_t src,
                     uint64_t bytes, uint8_t event)
{
    if (bytes && (dst < src + bytes && src < dst + bytes)) {
        fprintf(stderr, "tracegen: gpu: copy: ranges 0x%llx and 0x%llx of %llu bytes overlap\n",
                (unsigned long long)dst, (unsigned long long)src, (unsigned long long)bytes);
        return -EINVAL;
    }
    uint8_t *tmp = malloc(COPY_CHUNK);
    if (!tmp)
        return -ENOMEM;
    for (uint64_t done = 0; done < bytes;) {
        size_t n = bytes - done < COPY_CHUNK ? (size_t)(bytes - done) : COPY_CHUNK;
        uint64_t fault = 0;
        if (gmem_copy_in(p->mem, tmp, src + done, n, &fault) < 0 ||
            gmem_copy_out(p->mem, dst + done, tmp, n, 0, &fault) < 0) {
            fprintf(stderr, "tracegen: gpu: copy of %llu bytes from 0x%llx to 0x%llx: "
                    "address 0x%llx is not mapped (or not writable)\n",
                    (unsigned long long)bytes, (unsigned long long)src,
                    (unsigned long long)dst, (unsigned long long)fault);
            free(tmp);
            return -EFAULT;
        }
        done += n;
    }
    free(tmp);
    x86_rec_event_fields(t->rec, event, dst, src, bytes, 0);
    return 0;
}

static long gpu_wait(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d)
{
    /* launches ran at their call; the host learns of their end here */
    while (d->waited < d->launches)
        x86_rec_event_fields(t->rec, CGM_EV_GPU_DONE, ++d->waited, 0, 0, 0);
    x86_rec_event_fields(t->rec, CGM_EV_GPU_WAIT, ++p->seq, 0, 0, 0);
    return 0;
}

long gpu_syscall(struct x86_process *p, struct x86_thread *t, uint64_t nr, const uint64_t a[6])
{
    if (nr == (uint64_t)CGM_SYSCALL_GPU_AVAILABLE)
        return 1;
    if (!p->gpu && !(p->gpu = calloc(1, sizeof *p->gpu)))
        return -ENOMEM;
    struct gpu_driver *d = p->gpu;
    switch (nr - (uint64_t)CGM_SYSCALL_GPU_BASE) {
    case 1: return gpu_load(p, t, d, a[0]);
    case 2: return gpu_kernel(p, d, a[0], a[1]);
    case 3: return gpu_alloc(p, t, d, a[0]);
    case 4: return gpu_free(p, t, d, a[0]);
    case 5: return gpu_copy(p, t, a[0], a[1], a[2], CGM_EV_GPU_COPY);
    case 6: return gpu_launch(p, t, d, a);
    case 7: return gpu_wait(p, t, d);
    case 8: return gpu_load_binary(p, t, d, a[0], a[1]);
    case 9: return gpu_build(p, t, d, a);
    case 10: return gpu_query(p, d, a);
    case 11: return gpu_launch_nd(p, t, d, a);
    case 12: return gpu_copy(p, t, a[0], a[1], a[2], CGM_EV_GPU_COPY_ASYNC);
    case 13: return gpu_compile(p, a);
    case 14: return gpu_link(p, t, d, a);
    default: return -ENOSYS;
    }
}

void gpu_driver_destroy(struct gpu_driver *d)
{
    if (!d)
        return;
    for (uint32_t i = 0; i < d->nprograms; i++) {
        free(d->programs[i]->table);
        free(d->programs[i]->binary);
        si_program_free(&d->programs[i]->prog);
        free(d->programs[i]);
    }
    free(d->allocs);
    free(d);
}
