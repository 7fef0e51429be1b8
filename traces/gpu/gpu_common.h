/* Shared by the GPU workloads: loading the code objects, packing kernel
 * arguments as the kernarg segment lays them out, and checking results.
 * Code objects are read from $CGM_KERNELS, else $CGM_BUILD/kernels, else
 * build/kernels (the paths are the host's: tracegen opens them; the guest
 * sees the variables tracegen's --env gives it).
 * Region of interest (cgm_roi_begin/end): from the first GPU buffer to the
 * last copy back, the parallel section seed 000 Sec. 3.4.1 times; set-up
 * before it and the CPU's check of the result after it stay outside
 * (hotspot: the time steps after the first). */
#ifndef CGM_GPU_COMMON_H
#define CGM_GPU_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/guest.h"

static inline void gpu_die(const char *what, long rc)
{
    printf("FAIL: %s (%ld)\n", what, rc);
    exit(1);
}

/* Kernel NAME of code object PROGRAM.co. */
static inline long gpu_get_kernel(const char *program, const char *name)
{
    static char path[4096];
    const char *dir = getenv("CGM_KERNELS"), *build = getenv("CGM_BUILD");
    if (dir)
        snprintf(path, sizeof path, "%s/%s.co", dir, program);
    else
        snprintf(path, sizeof path, "%s/kernels/%s.co", build ? build : "build", program);
    /* each code object is loaded once */
    static char loaded[8][64];
    static long handles[8];
    long prog = 0;
    for (int i = 0; i < 8 && handles[i] > 0; i++)
        if (!strcmp(loaded[i], program))
            prog = handles[i];
    if (!prog) {
        prog = cgm_gpu_load(path);
        if (prog < 0)
            gpu_die(path, prog);
        for (int i = 0; i < 8; i++)
            if (!handles[i]) {
                snprintf(loaded[i], sizeof loaded[i], "%s", program);
                handles[i] = prog;
                break;
            }
    }
    long k = cgm_gpu_kernel(prog, name);
    if (k < 0)
        gpu_die(name, k);
    return k;
}

/* Explicit kernel arguments: each at its natural alignment. */
struct gpu_args {
    _Alignas(8) unsigned char b[256];
    size_t n;
};

static inline void gpu_arg(struct gpu_args *a, const void *v, size_t size)
{
    a->n = (a->n + size - 1) / size * size;
    memcpy(a->b + a->n, v, size);
    a->n += size;
}
static inline void arg_ptr(struct gpu_args *a, const void *p) { uint64_t v = (uint64_t)(uintptr_t)p; gpu_arg(a, &v, 8); }
static inline void arg_int(struct gpu_args *a, int v) { gpu_arg(a, &v, 4); }
static inline void arg_float(struct gpu_args *a, float v) { gpu_arg(a, &v, 4); }
/* A __local pointer: the slot holds the bytes wanted (see cgm/guest.h). */
static inline void arg_local(struct gpu_args *a, unsigned bytes) { gpu_arg(a, &bytes, 4); }

static inline void gpu_run(long kernel, unsigned dims, size_t gx, size_t gy, size_t lx, size_t ly,
                    const struct gpu_args *a)
{
    size_t global[3] = { gx, gy, 1 }, local[3] = { lx, ly, 1 };
    int rc = cgm_gpu_launch(kernel, dims, global, local, a->b, a->n);
    if (rc < 0)
        gpu_die("launch", rc);
}

static inline void *gpu_buffer(size_t bytes)
{
    void *p = cgm_gpu_alloc(bytes);
    if (!p)
        gpu_die("cgm_gpu_alloc", 0);
    return p;
}

/* Deterministic inputs. */
static uint32_t gpu_seed = 12345;
static inline float gpu_frand(void)
{
    gpu_seed = gpu_seed * 1664525u + 1013904223u;
    return (float)(gpu_seed >> 8) / 16777216.0f;
}

/* Relative-or-absolute tolerance check of N floats; prints the first miss. */
static inline int gpu_close(const char *what, const float *got, const float *want, size_t n, float tol)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= tol * (1.0f + fabsf(want[i])))) {
            printf("%s[%zu]: GPU %.9g, CPU %.9g\n", what, i, (double)got[i], (double)want[i]);
            return 0;
        }
    return 1;
}

static inline int gpu_finish(int ok)
{
    puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

/* Natively there is no GPU: say so and succeed, so the binary still runs. */
static inline void gpu_require(void)
{
    if (!cgm_gpu_available()) {
        puts("SKIP: no GPU (run under tracegen)");
        exit(0);
    }
}

#endif
