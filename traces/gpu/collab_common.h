/* The collaborative CPU-GPU workloads (seed 000 Sec. 3.3.2): CPU threads and
 * the GPU split one computation.  Command line: THREADS CPU_PERCENT MODE
 *   THREADS      CPU worker threads (1..16), each created only if its
 *                slice of the CPU's share is not empty; 0 with CPU_PERCENT
 *                0 is the GPU-only version (the seed's non-collaborative
 *                twin: the same kernels on the same data)
 *   CPU_PERCENT  share of the work the CPU threads take (0..100), rounded to
 *                the GPU's granularity; the GPU takes the rest
 *   MODE         copy:  inputs live in host memory and are copied to GPU
 *                       buffers and the GPU's results back (cgm_gpu_copy)
 *                share: host and GPU work on the same cgm_gpu_alloc memory
 * The GPU part is launched first, the CPU threads work while it runs, then
 * the host waits for the GPU and checks the whole result serially.  The
 * region of interest runs from the copies to the GPU (none when sharing) to
 * the copies back after the join and the wait: seed 000 Sec. 4.4.1's "just
 * before the first clSetKernelArg() to just after the join after clFinish()"
 * when sharing. */
#ifndef CGM_COLLAB_COMMON_H
#define CGM_COLLAB_COMMON_H

#include <pthread.h>

#include "gpu_common.h"

struct collab {
    int threads, cpu_percent, share;
};

static inline struct collab collab_args(int argc, char **argv)
{
    struct collab c = { 2, 50, 1 };
    if (argc > 1) c.threads = atoi(argv[1]);
    if (argc > 2) c.cpu_percent = atoi(argv[2]);
    if (argc > 3) c.share = strcmp(argv[3], "copy") != 0;
    if (c.threads < 0 || c.threads > 16 || c.cpu_percent < 0 || c.cpu_percent > 100 ||
        (!c.threads && c.cpu_percent) || (argc > 3 && strcmp(argv[3], "copy") && strcmp(argv[3], "share"))) {
        fprintf(stderr, "usage: %s [THREADS 1..16, or 0: GPU only] [CPU_PERCENT 0..100, 0 with no threads] "
                "[copy|share]\n", argv[0]);
        exit(2);
    }
    /* One format for every version, so the GPU-only one runs the same host
     * code as the collaborative one at 0% CPU share. */
    printf("%d CPU threads, %d%% on the CPU, %s\n", c.threads, c.cpu_percent,
           c.share ? "pointer sharing" : "copies");
    return c;
}

/* Units of work the CPU takes out of TOTAL, a multiple of GRAIN (the GPU's
 * part must fill whole work-groups). */
static inline int collab_cpu_units(const struct collab *c, int total, int grain)
{
    int n = (int)((long)total * c->cpu_percent / 100);
    n = (n + grain / 2) / grain * grain;
    return n > total ? total : n;
}

typedef void (*collab_fn)(void *ctx, int lo, int hi);

struct collab_slice {
    collab_fn fn;
    void *ctx;
    int lo, hi;
};

static inline void *collab_thread(void *arg)
{
    struct collab_slice *s = arg;
    s->fn(s->ctx, s->lo, s->hi);
    return NULL;
}

/* Runs FN over [0, UNITS) split evenly over the CPU threads. A thread whose
 * slice is empty is not created, as a work-sharing runtime starts no worker
 * for an empty partition: at 0% CPU share the program is its GPU-only
 * version (seed 000 Sec. 4.4.1 checks that the two take the same time; with
 * kernels of a few microseconds, idle workers created while the kernel runs
 * would lengthen it through their own memory traffic). */
static inline void collab_cpu(const struct collab *c, int units, collab_fn fn, void *ctx)
{
    pthread_t tid[16];
    struct collab_slice s[16];
    int started = 0;
    for (int t = 0; t < c->threads; t++) {
        struct collab_slice *x = &s[started];
        x->fn = fn;
        x->ctx = ctx;
        x->lo = (int)((long)units * t / c->threads);
        x->hi = (int)((long)units * (t + 1) / c->threads);
        if (x->lo == x->hi)
            continue;
        if (pthread_create(&tid[started], NULL, collab_thread, x))
            gpu_die("pthread_create", 0);
        started++;
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

/* GPU memory for a host array: the array itself when sharing; otherwise a
 * GPU buffer that receives a copy of it. */
static inline void *collab_to_gpu(const struct collab *c, void *host, size_t bytes, int copy_in)
{
    if (c->share)
        return host;
    void *g = gpu_buffer(bytes);
    if (copy_in && cgm_gpu_copy(g, host, bytes) < 0)
        gpu_die("copy to the GPU", 0);
    return g;
}

/* Host memory: GPU-visible when sharing. */
static inline void *collab_host(const struct collab *c, size_t bytes)
{
    void *p = c->share ? gpu_buffer(bytes) : calloc(1, bytes);
    if (!p)
        gpu_die("allocation", 0);
    return p;
}

/* Brings the GPU's part [off, off + bytes) of an output back (copy mode). */
static inline void collab_from_gpu(const struct collab *c, void *host, const void *gpu,
                                   size_t off, size_t bytes)
{
    if (!c->share && bytes &&
        cgm_gpu_copy((char *)host + off, (const char *)gpu + off, bytes) < 0)
        gpu_die("copy from the GPU", 0);
}

#endif
