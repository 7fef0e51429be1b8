/* The emulator against an outside reference: each case runs one kernel on
 * PoCL (Debian's CPU OpenCL, compiling the same .cl source with its own
 * builtins) and on the Southern Islands emulator (the gfx600 code object),
 * with the same inputs; integer outputs must be bit-exact, float outputs
 * within the case's relative tolerance. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracegen/si/si_emu.h"
#include "tests/unit/si_files.h"
#include "tests/unit/si_harness.h"

#ifdef CGM_ASAN
/* PoCL's own allocations are not ours to account for. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
#endif

enum arg_kind { ARG_BUF, ARG_SCALAR, ARG_LOCAL };
enum check { CHECK_NONE, CHECK_EXACT, CHECK_F32, CHECK_F64 };

struct arg {
    enum arg_kind kind;
    size_t bytes;                 /* buffer/local size, or scalar size */
    void (*init)(void *p, size_t bytes, uint64_t scalar);
    uint64_t scalar;              /* scalar value bits, or init parameter */
    enum check check;
};

struct kcase {
    const char *source;           /* under tests/data/si/kernels or traces/kernels */
    const char *kernel;
    unsigned dims;
    size_t grid[3], group[3];
    double tol, atol;             /* |PoCL - emulator| <= tol * |PoCL| + atol */
    int nargs;
    struct arg args[12];
};

/* ---- input generators (deterministic) ------------------------------------- */

static uint32_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* Floats in steps of 0.01 from LO: STEPS values. */
static void fill_f32_steps(void *p, size_t n, uint64_t seed, uint32_t steps, float lo)
{
    float *f = p;
    for (size_t i = 0; i < n / 4; i++)
        f[i] = (float)(next(&seed) % steps) / 100.0f + lo;
}

static void fill_f32(void *p, size_t n, uint64_t seed)
{
    fill_f32_steps(p, n, seed, 20000, -100.0f);
}

static void fill_f32_pos(void *p, size_t n, uint64_t seed)
{
    fill_f32_steps(p, n, seed, 5000, 0.01f);
}

static void fill_f64(void *p, size_t n, uint64_t seed)
{
    double *d = p;
    for (size_t i = 0; i < n / 8; i++)
        d[i] = (double)(next(&seed) % 1000000) / 3333.0 - 150.0;
}

static void fill_i32(void *p, size_t n, uint64_t seed)
{
    int32_t *v = p;
    for (size_t i = 0; i < n / 4; i++) {
        v[i] = (int32_t)next(&seed) >> (next(&seed) % 31);
        if (v[i] == INT32_MIN) v[i] = 3;
    }
}

static void fill_small(void *p, size_t n, uint64_t seed)
{
    int32_t *v = p;
    for (size_t i = 0; i < n / 4; i++)
        v[i] = (int32_t)(next(&seed) % 1000) + 1;
}

static void fill_zero(void *p, size_t n, uint64_t seed) { (void)seed; memset(p, 0, n); }

static void fill_three(void *p, size_t n, uint64_t seed)
{
    int32_t *v = p;
    (void)seed;
    for (size_t i = 0; i < n / 4; i++)
        v[i] = 3;
}

static void fill_bits(void *p, size_t n, uint64_t seed)
{
    int32_t *v = p;
    for (size_t i = 0; i < n / 4; i++)
        v[i] = (int32_t)(next(&seed) % 3 == 0);
}

/* Every third node: used for both the frontier and the visited set, so
 * frontier nodes are visited and their costs are not rewritten mid-launch. */
static void fill_third(void *p, size_t n, uint64_t seed)
{
    int32_t *v = p;
    (void)seed;
    for (size_t i = 0; i < n / 4; i++)
        v[i] = (int32_t)(i % 3 == 0);
}

/* CSR row starts with three edges per node; edge targets below 256. */
static void fill_csr_start(void *p, size_t n, uint64_t seed)
{
    int32_t *v = p;
    (void)seed;
    for (size_t i = 0; i < n / 4; i++)
        v[i] = 3 * (int32_t)i;
}

static void fill_node(void *p, size_t n, uint64_t seed)
{
    int32_t *v = p;
    for (size_t i = 0; i < n / 4; i++)
        v[i] = (int32_t)(next(&seed) % 256);
}

/* ---- the emulator side ------------------------------------------------------- */

enum { ARENA = 64 << 20 };
static const uint64_t BASE = 0x200000000ull;

/* Runs the case on the emulator from the code object kernels/CO (under
 * $CGM_BUILD); the buffers' final contents go to outputs. */
static void run_emulator(const struct kcase *kc, const char *co, void **inputs, void **outputs)
{
    struct si_program prog;
    if (si_test_load_kernels(co, &prog))
        fail_msg("cannot load %s", co);
    const struct si_kernel *k = si_program_kernel(&prog, kc->kernel);
    if (!k)
        fail_msg("%s: no kernel %s", co, kc->kernel);
    struct si_test_arena ar;
    si_test_arena_init(&ar, BASE, ARENA);
    struct si_memory mem = si_test_memory(&ar);
    uint32_t grid[3], group[3];
    for (int d = 0; d < 3; d++) {
        grid[d] = (uint32_t)kc->grid[d];
        group[d] = (uint32_t)kc->group[d];
    }
    struct si_launch l;
    si_test_launch_init(&l, &prog, k, si_test_place_code(&ar, &prog), kc->dims, grid, group);
    /* the explicit arguments at the metadata's offsets; __local ones get
     * LDS offsets after the kernel's fixed LDS */
    uint8_t kernarg[512];
    memset(kernarg, 0, sizeof kernarg);
    size_t kernarg_bytes = 0;
    uint64_t guest[12] = { 0 };
    uint32_t lds_offset = (k->kd.group_segment_fixed_size + 15u) & ~15u;
    int explicit_index = 0;
    for (size_t i = 0; i < k->nargs && explicit_index < kc->nargs; i++) {
        const struct si_kernel_arg *ka = &k->args[i];
        if (ka->is_hidden)
            continue;
        const struct arg *a = &kc->args[explicit_index];
        assert_true(ka->offset + ka->size <= sizeof kernarg);
        if (ka->offset + ka->size > kernarg_bytes)
            kernarg_bytes = ka->offset + ka->size;
        if (a->kind == ARG_BUF) {
            guest[explicit_index] = si_test_alloc(&ar, a->bytes);
            memcpy(si_test_host(&ar, guest[explicit_index]), inputs[explicit_index], a->bytes);
            memcpy(kernarg + ka->offset, &guest[explicit_index], 8);
        } else if (a->kind == ARG_SCALAR) {
            memcpy(kernarg + ka->offset, &a->scalar, a->bytes);
        } else {
            memcpy(kernarg + ka->offset, &lds_offset, 4);
            lds_offset += (uint32_t)((a->bytes + 15) & ~(size_t)15);
        }
        explicit_index++;
    }
    assert_int_equal(explicit_index, kc->nargs);
    l.dynamic_lds = lds_offset - k->kd.group_segment_fixed_size;
    si_test_launch_place(&l, &ar, kernarg, kernarg_bytes);
    char err[512];
    if (si_run(&l, &mem, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    for (int i = 0; i < kc->nargs; i++)
        if (kc->args[i].kind == ARG_BUF)
            memcpy(outputs[i], si_test_host(&ar, guest[i]), kc->args[i].bytes);
    si_test_arena_free(&ar);
    si_program_free(&prog);
}

/* ---- the PoCL side ----------------------------------------------------------- */

#define CL_OK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) fail_msg("%s: %d", #call, e_); } while (0)

static void run_pocl(const struct kcase *kc, const char *cl_path, void **inputs, void **outputs)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_int e;
    CL_OK(clGetPlatformIDs(1, &plat, NULL));
    CL_OK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CL_OK(e);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    CL_OK(e);
    char *src = si_test_read_file(cl_path, NULL);
    assert_non_null(src);
    const char *srcs[1] = { src };
    cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, NULL, &e);
    CL_OK(e);
    if (clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fail_msg("PoCL build of %s failed: %s", cl_path, log);
    }
    cl_kernel k = clCreateKernel(prog, kc->kernel, &e);
    CL_OK(e);
    cl_mem bufs[12] = { 0 };
    for (int i = 0; i < kc->nargs; i++) {
        const struct arg *a = &kc->args[i];
        if (a->kind == ARG_BUF) {
            bufs[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a->bytes,
                                     inputs[i], &e);
            CL_OK(e);
            CL_OK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &bufs[i]));
        } else if (a->kind == ARG_SCALAR) {
            CL_OK(clSetKernelArg(k, (cl_uint)i, a->bytes, &a->scalar));
        } else {
            CL_OK(clSetKernelArg(k, (cl_uint)i, a->bytes, NULL));
        }
    }
    CL_OK(clEnqueueNDRangeKernel(q, k, kc->dims, NULL, kc->grid, kc->group, 0, NULL, NULL));
    for (int i = 0; i < kc->nargs; i++)
        if (kc->args[i].kind == ARG_BUF)
            CL_OK(clEnqueueReadBuffer(q, bufs[i], CL_TRUE, 0, kc->args[i].bytes, outputs[i], 0,
                                      NULL, NULL));
    CL_OK(clFinish(q));
    for (int i = 0; i < kc->nargs; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(src);
}

/* ---- comparison ---------------------------------------------------------------- */

static void compare(const struct kcase *kc, int i, const void *ref, const void *got)
{
    const struct arg *a = &kc->args[i];
    size_t n = a->bytes;
    if (a->check == CHECK_EXACT) {
        const int32_t *r = ref, *g = got;
        for (size_t j = 0; j < n / 4; j++)
            if (r[j] != g[j])
                fail_msg("%s arg %d [%zu]: PoCL %d (0x%x), emulator %d (0x%x)", kc->kernel, i, j,
                         r[j], (unsigned)r[j], g[j], (unsigned)g[j]);
    } else if (a->check == CHECK_F32 || a->check == CHECK_F64) {
        size_t step = a->check == CHECK_F32 ? 4 : 8;
        for (size_t j = 0; j < n / step; j++) {
            double r = step == 4 ? ((const float *)ref)[j] : ((const double *)ref)[j];
            double g = step == 4 ? ((const float *)got)[j] : ((const double *)got)[j];
            if (isnan(r) && isnan(g))
                continue;
            if (!(fabs(r - g) <= kc->tol * fabs(r) + kc->atol))
                fail_msg("%s arg %d [%zu]: PoCL %.17g, emulator %.17g (tolerance %g rel + %g)",
                         kc->kernel, i, j, r, g, kc->tol, kc->atol);
        }
    }
}

static void run_case(const struct kcase *kc)
{
    const char *root = getenv("CGM_ROOT");
    char cl[1024], co[1024];
    const char *name = strrchr(kc->source, '/') ? strrchr(kc->source, '/') + 1 : kc->source;
    int is_test = strncmp(kc->source, "tests/", 6) == 0;
    snprintf(cl, sizeof cl, "%s/%s", root ? root : ".", kc->source);
    snprintf(co, sizeof co, "%s%.*s", is_test ? "test/" : "", (int)(strlen(name) - 3), name);
    void *in[12] = { 0 }, *ref[12] = { 0 }, *got[12] = { 0 };
    for (int i = 0; i < kc->nargs; i++) {
        const struct arg *a = &kc->args[i];
        if (a->kind != ARG_BUF)
            continue;
        in[i] = calloc(1, a->bytes);
        ref[i] = calloc(1, a->bytes);
        got[i] = calloc(1, a->bytes);
        if (a->init)
            a->init(in[i], a->bytes, a->scalar + (uint64_t)i * 7919);
    }
    run_pocl(kc, cl, in, ref);
    run_emulator(kc, co, in, got);
    for (int i = 0; i < kc->nargs; i++)
        if (kc->args[i].kind == ARG_BUF)
            compare(kc, i, ref[i], got[i]);
    for (int i = 0; i < kc->nargs; i++) {
        free(in[i]);
        free(ref[i]);
        free(got[i]);
    }
}

#define BUF(bytes, init, seed, check) { ARG_BUF, (bytes), (init), (seed), (check) }
#define SCALAR(size, bits) { ARG_SCALAR, (size), NULL, (bits), CHECK_NONE }
#define LOCAL(bytes) { ARG_LOCAL, (bytes), NULL, 0, CHECK_NONE }
#define F32BITS(x) ((uint64_t)(union { float f; uint32_t u; }){ (x) }.u)
#define F64BITS(x) ((union { double d; uint64_t u; }){ (x) }.u)

static const char BASIC[] = "tests/data/si/kernels/basic.cl";

static void basic_kernels(void **state)
{
    (void)state;
    const struct kcase cases[] = {
        { BASIC, "vector_add", 1, { 1024 }, { 256 }, 0, 0, 4,
          { BUF(4096, fill_f32, 1, CHECK_NONE), BUF(4096, fill_f32, 2, CHECK_NONE),
            BUF(4096, fill_zero, 0, CHECK_F32), SCALAR(4, 1000) } },
        { BASIC, "saxpy", 1, { 512 }, { 64 }, 1e-6, 2e-5, 3,
          { SCALAR(4, F32BITS(0.37f)), BUF(2048, fill_f32, 3, CHECK_NONE),
            BUF(2048, fill_f32, 4, CHECK_F32) } },
        { BASIC, "reduce_sum", 1, { 2048 }, { 256 }, 0, 0, 3,
          { BUF(8192, fill_small, 5, CHECK_NONE), BUF(4, fill_zero, 0, CHECK_EXACT),
            LOCAL(1024) } },
        { BASIC, "collatz_steps", 1, { 512 }, { 128 }, 0, 0, 2,
          { BUF(2048, fill_small, 6, CHECK_NONE), BUF(2048, fill_zero, 0, CHECK_EXACT) } },
        { BASIC, "int_mix", 1, { 256 }, { 64 }, 0, 0, 3,
          { BUF(1024, fill_i32, 7, CHECK_NONE), BUF(1024, fill_i32, 8, CHECK_NONE),
            BUF(8192, fill_zero, 0, CHECK_EXACT) } },
        { BASIC, "daxpy", 1, { 256 }, { 64 }, 1e-14, 1e-13, 3,
          { SCALAR(8, F64BITS(-1.25)), BUF(2048, fill_f64, 9, CHECK_NONE),
            BUF(2048, fill_f64, 10, CHECK_F64) } },
        { BASIC, "private_array", 1, { 128 }, { 64 }, 0, 0, 2,
          { BUF(512, fill_small, 11, CHECK_NONE), BUF(512, fill_zero, 0, CHECK_EXACT) } },
        { BASIC, "matmul", 2, { 32, 32 }, { 8, 8 }, 1e-5, 0.5, 4,
          { BUF(4096, fill_f32, 12, CHECK_NONE), BUF(4096, fill_f32, 13, CHECK_NONE),
            BUF(4096, fill_zero, 0, CHECK_F32), SCALAR(4, 32) } },
        { BASIC, "ids", 2, { 16, 8 }, { 4, 4 }, 0, 0, 1,
          { BUF(16 * 8 * 24, fill_zero, 0, CHECK_EXACT) } },
        { BASIC, "float_math", 1, { 256 }, { 64 }, 2e-6, 1e-6, 2,
          { BUF(1024, fill_f32_pos, 14, CHECK_NONE), BUF(4096, fill_zero, 0, CHECK_F32) } },
        { BASIC, "wide_mix", 1, { 256 }, { 64 }, 0, 0, 4,
          { BUF(2048, fill_i32, 19, CHECK_NONE), BUF(2048, fill_i32, 20, CHECK_NONE),
            BUF(16384, fill_zero, 0, CHECK_EXACT), BUF(4096, fill_zero, 0, CHECK_F64) } },
        { BASIC, "histogram", 1, { 2048 }, { 256 }, 0, 0, 3,
          { BUF(8192, fill_small, 15, CHECK_NONE), BUF(256, fill_zero, 0, CHECK_EXACT),
            BUF(256, fill_zero, 0, CHECK_EXACT) } },
        { BASIC, "call_function", 1, { 256 }, { 128 }, 0, 0, 2,
          { BUF(1024, fill_i32, 16, CHECK_NONE), BUF(1024, fill_zero, 0, CHECK_EXACT) } },
        { BASIC, "double_div_sqrt", 1, { 256 }, { 64 }, 0, 0, 4,
          { BUF(2048, fill_f64, 17, CHECK_NONE), BUF(2048, fill_f64, 18, CHECK_NONE),
            BUF(2048, fill_zero, 0, CHECK_F64), BUF(2048, fill_zero, 0, CHECK_F64) } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

static const char BACKPROP[] = "traces/kernels/backprop.cl", LUD[] = "traces/kernels/lud.cl",
                  KMEANS[] = "traces/kernels/kmeans.cl", HOTSPOT[] = "traces/kernels/hotspot.cl",
                  NW[] = "traces/kernels/nw.cl", BFS[] = "traces/kernels/bfs.cl";

/* The GPU-only workload kernels, one launch each on random state. */
static void workload_kernels(void **state)
{
    (void)state;
    enum { HID = 16, IN = 64, N = 64, NODES = 256 };
    const struct kcase cases[] = {
        { BACKPROP, "bp_layerforward", 2, { HID, IN }, { 16, 16 }, 1e-6, 1e-5, 6,
          { BUF((IN + 1) * 4, fill_f32, 20, CHECK_NONE),
            BUF((IN + 1) * (HID + 1) * 4, fill_f32, 21, CHECK_NONE),
            BUF(IN / 16 * HID * 4, fill_zero, 0, CHECK_F32), LOCAL(16 * 4), LOCAL(256 * 4),
            SCALAR(4, HID) } },
        { BACKPROP, "bp_adjust_weights", 2, { HID, IN }, { 16, 16 }, 1e-6, 1e-4, 5,
          { BUF((HID + 1) * 4, fill_f32, 22, CHECK_NONE), BUF((IN + 1) * 4, fill_f32, 23, CHECK_NONE),
            BUF((IN + 1) * (HID + 1) * 4, fill_f32, 24, CHECK_F32),
            BUF((IN + 1) * (HID + 1) * 4, fill_f32, 25, CHECK_F32), SCALAR(4, HID) } },
        { LUD, "lud_scale", 1, { N }, { 64 }, 1e-6, 0, 3,
          { BUF(N * N * 4, fill_f32_pos, 26, CHECK_F32), SCALAR(4, N), SCALAR(4, 3) } },
        { LUD, "lud_update", 2, { N, N }, { 16, 16 }, 1e-6, 1e-3, 3,
          { BUF(N * N * 4, fill_f32, 27, CHECK_F32), SCALAR(4, N), SCALAR(4, 3) } },
        { KMEANS, "kmeans_swap", 1, { 256 }, { 64 }, 0, 0, 4,
          { BUF(256 * 8 * 4, fill_f32, 28, CHECK_NONE), BUF(256 * 8 * 4, fill_zero, 0, CHECK_F32),
            SCALAR(4, 256), SCALAR(4, 8) } },
        { KMEANS, "kmeans_assign", 1, { 256 }, { 64 }, 0, 0, 6,
          { BUF(256 * 8 * 4, fill_f32, 29, CHECK_NONE), BUF(5 * 8 * 4, fill_f32, 30, CHECK_NONE),
            BUF(256 * 4, fill_zero, 0, CHECK_EXACT), SCALAR(4, 256), SCALAR(4, 5),
            SCALAR(4, 8) } },
        { HOTSPOT, "hotspot_step", 2, { N, N }, { 16, 16 }, 1e-6, 1e-4, 11,
          { BUF(N * N * 4, fill_f32_pos, 31, CHECK_NONE), BUF(N * N * 4, fill_f32_pos, 32, CHECK_NONE),
            BUF(N * N * 4, fill_zero, 0, CHECK_F32), SCALAR(4, N), SCALAR(4, N),
            SCALAR(4, F32BITS(0.5f)), SCALAR(4, F32BITS(1.5f)), SCALAR(4, F32BITS(1.25f)),
            SCALAR(4, F32BITS(30.0f)), SCALAR(4, F32BITS(0.01f)), SCALAR(4, F32BITS(80.0f)) } },
        { NW, "nw_diagonal", 1, { N }, { 64 }, 0, 0, 5,
          { BUF((N + 1) * (N + 1) * 4, fill_small, 33, CHECK_EXACT),
            BUF((N + 1) * (N + 1) * 4, fill_i32, 34, CHECK_NONE), SCALAR(4, N), SCALAR(4, 40),
            SCALAR(4, 10) } },
        { BFS, "bfs_expand", 1, { NODES }, { 64 }, 0, 0, 7,
          { BUF((NODES + 1) * 4, fill_csr_start, 0, CHECK_NONE),
            BUF(NODES * 3 * 4, fill_node, 35, CHECK_NONE), BUF(NODES * 4, fill_third, 0, CHECK_EXACT),
            BUF(NODES * 4, fill_zero, 0, CHECK_EXACT), BUF(NODES * 4, fill_third, 0, CHECK_NONE),
            BUF(NODES * 4, fill_three, 0, CHECK_EXACT), SCALAR(4, NODES) } },
        { BFS, "bfs_advance", 1, { NODES }, { 64 }, 0, 0, 5,
          { BUF(NODES * 4, fill_bits, 38, CHECK_EXACT), BUF(NODES * 4, fill_bits, 39, CHECK_EXACT),
            BUF(NODES * 4, fill_bits, 40, CHECK_EXACT), BUF(4, fill_zero, 0, CHECK_EXACT),
            SCALAR(4, NODES) } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

static const char CB[] = "traces/kernels/collab_backprop.cl",
                  BMM[] = "traces/kernels/block_matmul.cl",
                  EDGE[] = "traces/kernels/edge_detect.cl", KNN[] = "traces/kernels/knn.cl",
                  WRITE[] = "traces/kernels/write.cl";

/* The collaborative workloads' GPU kernels, each on a part of its data. */
static void collaborative_kernels(void **state)
{
    (void)state;
    enum { HID = 16, IN = 64, N = 64, W = 48, H = 40, NR = 1000 };
    const struct kcase cases[] = {
        { CB, "cb_adjust_weights", 2, { HID, 32 }, { 16, 16 }, 1e-6, 1e-4, 6,
          { BUF((HID + 1) * 4, fill_f32, 50, CHECK_NONE), BUF((IN + 1) * 4, fill_f32, 51, CHECK_NONE),
            BUF((IN + 1) * (HID + 1) * 4, fill_f32, 52, CHECK_F32),
            BUF((IN + 1) * (HID + 1) * 4, fill_f32, 53, CHECK_F32), SCALAR(4, HID),
            SCALAR(4, 16) } },
        { BMM, "block_matmul", 2, { N, 32 }, { 16, 16 }, 1e-5, 1.0, 5,
          { BUF(N * N * 4, fill_f32, 54, CHECK_NONE), BUF(N * N * 4, fill_f32, 55, CHECK_NONE),
            BUF(N * N * 4, fill_zero, 0, CHECK_F32), SCALAR(4, N), SCALAR(4, 16) } },
        { EDGE, "edge_detect", 2, { W, 32 }, { 16, 16 }, 1e-6, 1e-3, 6,
          { BUF(W * H * 4, fill_f32_pos, 56, CHECK_NONE), BUF(9 * 4, fill_f32, 57, CHECK_NONE),
            BUF(W * H * 4, fill_zero, 0, CHECK_F32), SCALAR(4, W), SCALAR(4, H), SCALAR(4, 8) } },
        { KNN, "knn_distance", 1, { 768 }, { 256 }, 2e-7, 1e-6, 6,
          { BUF(NR * 8, fill_f32, 58, CHECK_NONE), BUF(NR * 4, fill_zero, 0, CHECK_F32),
            SCALAR(4, NR), SCALAR(4, 300), SCALAR(4, F32BITS(30.5f)), SCALAR(4, F32BITS(-90.25f)) } },
        { WRITE, "write_array", 1, { 4096 }, { 256 }, 0, 0, 3,
          { BUF(5000 * 4, fill_zero, 0, CHECK_EXACT), SCALAR(4, 600), SCALAR(4, 77) } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

int main(void)
{
    setenv("POCL_MAX_PTHREAD_COUNT", "2", 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(basic_kernels),
        cmocka_unit_test(workload_kernels),
        cmocka_unit_test(collaborative_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
