/* Shared by the OpenCL workloads: plain OpenCL 1.2 host code, the same
 * binary run natively (the host's platform, PoCL) and under tracegen (the
 * guest platform). Kernel sources NAME.cl are read from the first folder of
 * $CGM_CL_SOURCES (folders separated by ':', default
 * traces/kernels:traces/opencl/kernels) that holds one, and built with
 * clBuildProgram. The twins' inputs come from the same generator as the
 * cgm/guest.h twins in traces/gpu/. */
#ifndef CGM_CL_COMMON_H
#define CGM_CL_COMMON_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/guest.h"

struct cl_env {
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue q;
};

static inline void cl_check(cl_int e, const char *what)
{
    if (e != CL_SUCCESS) {
        printf("FAIL: %s: OpenCL error %d\n", what, e);
        exit(1);
    }
}

/* The first platform's first device. */
static inline void cl_setup(struct cl_env *env)
{
    cl_check(clGetPlatformIDs(1, &env->platform, NULL), "clGetPlatformIDs");
    cl_check(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &env->device, NULL),
             "clGetDeviceIDs");
    cl_int e;
    env->ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &e);
    cl_check(e, "clCreateContext");
    env->q = clCreateCommandQueue(env->ctx, env->device, 0, &e);
    cl_check(e, "clCreateCommandQueue");
}

/* Opens NAME.cl in the first folder of the source path that has it. */
static inline FILE *cl_open_source(const char *name, char *path, size_t size)
{
    const char *dirs = getenv("CGM_CL_SOURCES");
    if (!dirs)
        dirs = "traces/kernels:traces/opencl/kernels";
    for (const char *d = dirs; *d;) {
        size_t len = strcspn(d, ":");
        snprintf(path, size, "%.*s/%s.cl", (int)len, d, name);
        FILE *f = fopen(path, "rb");
        if (f)
            return f;
        d += len + (d[len] == ':');
    }
    printf("FAIL: no %s.cl in %s\n", name, dirs);
    exit(1);
}

/* Builds NAME.cl with OPTIONS; on failure prints the build log. */
static inline cl_program cl_build_with(struct cl_env *env, const char *name, const char *options)
{
    char path[4096];
    FILE *f = cl_open_source(name, path, sizeof path);
    static char src[1 << 16];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    const char *s = src;
    cl_int e;
    cl_program p = clCreateProgramWithSource(env->ctx, 1, &s, &n, &e);
    cl_check(e, "clCreateProgramWithSource");
    e = clBuildProgram(p, 1, &env->device, options, NULL, NULL);
    if (e != CL_SUCCESS) {
        static char log[1 << 16];
        clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("FAIL: building %s (%d):\n%s\n", path, e, log);
        exit(1);
    }
    return p;
}

static inline cl_program cl_build(struct cl_env *env, const char *name)
{
    return cl_build_with(env, name, "");
}

static inline cl_kernel cl_kernel_of(cl_program p, const char *name)
{
    cl_int e;
    cl_kernel k = clCreateKernel(p, name, &e);
    cl_check(e, name);
    return k;
}

static inline cl_mem cl_buffer(struct cl_env *env, cl_mem_flags flags, size_t bytes, void *host)
{
    cl_int e;
    cl_mem m = clCreateBuffer(env->ctx, flags, bytes, host, &e);
    cl_check(e, "clCreateBuffer");
    return m;
}

/* The twins' generator (traces/gpu/gpu_common.h). */
static uint32_t cl_seed = 12345;
static inline float cl_frand(void)
{
    cl_seed = cl_seed * 1664525u + 1013904223u;
    return (float)(cl_seed >> 8) / 16777216.0f;
}

static inline int cl_close(const char *what, const float *got, const float *want, size_t n,
                           float tol)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= tol * (1.0f + fabsf(want[i])))) {
            printf("%s[%zu]: GPU %.9g, CPU %.9g\n", what, i, (double)got[i], (double)want[i]);
            return 0;
        }
    return 1;
}

/* The sum of N values. Work the twins do not do (they print no result to
 * compare): a function of its own, cl_result_*, which bench-opencl-twins
 * counts apart. */
static __attribute__((noinline, unused)) double cl_result_sum(const float *v, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    return sum;
}

/* What the run computed, the same natively and under tracegen: the sum of
 * the values to 5 significant digits (the devices round differently in
 * the last bits), and PASS when the CPU's check agrees. */
static inline int cl_finish(const char *what, const float *v, size_t n, int ok)
{
    printf("%s: %zu values, sum %.5g\n%s\n", what, n, cl_result_sum(v, n), ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

#endif
