/* Shared by the OpenCL workload set (traces/opencl/workloads.list): one
 * SIZE argument selects the input (none: the small one make test runs; the
 * list names each program's study input), a region of interest from the
 * first buffer to the last read, the result checked on the CPU, and an
 * output that is the same natively (PoCL) and under tracegen. */
#ifndef CGM_CL_SET_H
#define CGM_CL_SET_H

#include "cl_common.h"

/* argv[1], else DEF; in [LO, HI], a multiple of MULT, a power of two if POW2. */
static inline int cl_size_arg(int argc, char **argv, int def, int lo, int hi, int mult, int pow2)
{
    int n = argc > 1 ? atoi(argv[1]) : def;
    if (argc > 2 || n < lo || n > hi || n % mult || (pow2 && (n & (n - 1)))) {
        fprintf(stderr, "usage: %s [SIZE: %d..%d, a multiple of %d%s; default %d]\n", argv[0], lo,
                hi, mult, pow2 ? ", a power of two" : "", def);
        exit(2);
    }
    return n;
}

static inline void cl_arg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
    cl_check(clSetKernelArg(k, i, size, value), "clSetKernelArg");
}
#define CL_ARG(k, i, v) cl_arg((k), (i), sizeof(v), &(v))

static inline void cl_run(struct cl_env *env, cl_kernel k, cl_uint dims, const size_t *global,
                          const size_t *local)
{
    cl_check(clEnqueueNDRangeKernel(env->q, k, dims, NULL, global, local, 0, NULL, NULL),
             "clEnqueueNDRangeKernel");
}

static inline void cl_read(struct cl_env *env, cl_mem m, size_t bytes, void *host)
{
    cl_check(clEnqueueReadBuffer(env->q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL),
             "clEnqueueReadBuffer");
}

/* Deterministic 32-bit integers (the same generator as cl_frand). */
static inline uint32_t cl_urand(void)
{
    cl_seed = cl_seed * 1664525u + 1013904223u;
    return cl_seed >> 8;
}

/* Zeroed memory, as the twins' static arrays are. A large block is
 * calloc's: musl maps fresh pages, zero already, and touches nothing. A
 * small one is malloc's and memset's: musl's calloc would read a heap block
 * a word at a time to skip zeroing what is zero (about a guest instruction
 * for every three bytes), where memset is one string instruction. The empty
 * asm keeps the compiler from making calloc of the two again; the function
 * is not inlined so that its callers still know (attribute malloc) that the
 * block aliases nothing, as calloc's would. */
static __attribute__((malloc, noinline, unused)) void *cl_alloc(size_t bytes)
{
    void *p = bytes >= (128u << 10) ? calloc(1, bytes) : malloc(bytes);
    if (!p)
        cl_check(CL_OUT_OF_HOST_MEMORY, "malloc");
    if (bytes >= (128u << 10))
        return p;
    __asm__ volatile("" : "+r"(p));
    return memset(p, 0, bytes);
}

/* An FNV-1a hash of BYTES's 64-bit words (a word at a time: a byte at a
 * time would cost the guest 5 instructions a byte, more than some programs'
 * own work), the same on every device. Work the twins do not do (they
 * print no result to compare): a function of its own, cl_result_*, which
 * bench-opencl-twins counts apart. */
static __attribute__((noinline, unused)) uint64_t cl_result_hash(const void *v, size_t bytes)
{
    uint64_t h = 1469598103934665603ull, w, w4[4];
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32) {   /* four words an iteration: the same hash */
        memcpy(w4, (const char *)v + i, 32);
        h = (h ^ w4[0]) * 1099511628211ull;
        h = (h ^ w4[1]) * 1099511628211ull;
        h = (h ^ w4[2]) * 1099511628211ull;
        h = (h ^ w4[3]) * 1099511628211ull;
    }
    for (; i + 8 <= bytes; i += 8) {
        memcpy(&w, (const char *)v + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    w = 0;
    memcpy(&w, (const char *)v + i, bytes - i);
    return (h ^ w) * 1099511628211ull;
}

/* Exact results: their size and hash. */
static inline int cl_finish_exact(const char *what, const void *v, size_t bytes, int ok)
{
    printf("%s: %zu bytes, hash %016llx\n%s\n", what, bytes,
           (unsigned long long)cl_result_hash(v, bytes), ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

#endif
