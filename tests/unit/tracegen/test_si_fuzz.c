/* Differential kernel fuzzer: random well-defined OpenCL C kernels
 * (tests/unit/si_kernel_gen.c) run on PoCL natively and, compiled for
 * gfx600 with the Makefile's kernel flags, on the SI emulator with the same
 * inputs; every output must agree bit for bit -- integers, and floats and
 * doubles too, since the generator uses only operations whose IEEE results
 * are exact and keeps every value away from denormals, infinities and NaNs.
 * Kernels come in batches of one source, so clang, ld.lld and PoCL compile
 * once per batch.
 *
 * CGM_SI_FUZZ_KERNELS (default 240), CGM_SI_FUZZ_BATCH (default 60),
 * CGM_SI_FUZZ_SEED (default 1) and CGM_SI_FUZZ_FIRST (the first kernel's
 * index, default 0) choose the kernels; CGM_SI_FUZZ_SOURCE names a file
 * to run in place of their source (to minimise a kernel by hand); make validate runs
 * thousands (tests/validate/si_kernel_fuzz.sh).  A mismatch prints the
 * kernel's seed and index and leaves its source, with the prelude, in
 * CGM_SI_FUZZ_KEEP (default the test's temporary folder, then kept). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tracegen/si/si_emu.h"
#include "tests/unit/run_program.h"
#include "tests/unit/si_files.h"
#include "tests/unit/si_harness.h"
#include "tests/unit/si_kernel_gen.h"

#ifdef CGM_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
#endif

enum { NBUF = 7, MAX_REPORTED = 20 };

/* Buffers of one launch, in argument order: ia fa da io fo dout acc. */
struct buffers {
    void *p[NBUF];
    size_t bytes[NBUF];
};

static unsigned env_unsigned(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v && *v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

static void buffers_init(struct buffers *b, const struct si_test_gen_kernel *k)
{
    size_t n = k->inputs, items = k->items;
    const size_t bytes[NBUF] = { n * 4, n * 4, n * 8, items * 4 * SI_TEST_GEN_INTS,
                                 items * 4 * SI_TEST_GEN_FLOATS, items * 8 * SI_TEST_GEN_DOUBLES,
                                 4 * SI_TEST_GEN_ACC };
    for (int i = 0; i < NBUF; i++) {
        b->bytes[i] = bytes[i];
        b->p[i] = calloc(1, bytes[i]);
        assert_non_null(b->p[i]);
    }
    si_test_gen_inputs(k, b->p[0], b->p[1], b->p[2]);
    int32_t *acc = b->p[6];
    for (int i = 0; i < SI_TEST_GEN_ACC; i++)
        acc[i] = (int32_t)(k->input_seed >> (i % 32)) & 0xff;
}

static void buffers_free(struct buffers *b)
{
    for (int i = 0; i < NBUF; i++)
        free(b->p[i]);
}

/* ---- the emulator ------------------------------------------------------------------ */

static const uint64_t ARENA_BASE = 0x7f0000000000ull;

/* Which opcodes the kernels executed, to say how much of the emulator a
 * run reached. */
static unsigned char executed[CGM_SI_OPCODE_COUNT];

static void count_opcode(void *ctx, const struct si_step *s)
{
    (void)ctx;
    if (s->inst->opcode < CGM_SI_OPCODE_COUNT)
        executed[s->inst->opcode] = 1;
}

static int run_emulator(const struct si_program *prog, const struct si_test_gen_kernel *gk,
                        struct buffers *b, char *err, size_t errlen)
{
    const struct si_kernel *k = si_program_kernel(prog, gk->name);
    if (!k) {
        snprintf(err, errlen, "no kernel %s in the code object", gk->name);
        return -1;
    }
    size_t total = prog->image_size + 4096 * 4;
    for (int i = 0; i < NBUF; i++)
        total += b->bytes[i] + 256;
    struct si_test_arena a;
    si_test_arena_init(&a, ARENA_BASE, total + (1 << 20));
    uint64_t code = si_test_place_code(&a, prog);
    uint8_t kernarg[256];
    memset(kernarg, 0, sizeof kernarg);
    size_t explicit_bytes = 0;
    unsigned e = 0;
    for (size_t i = 0; i < k->nargs; i++) {
        const struct si_kernel_arg *ka = &k->args[i];
        if (ka->is_hidden)
            continue;
        assert_true(ka->offset + ka->size <= sizeof kernarg);
        if (e < NBUF) {
            uint64_t at = si_test_alloc(&a, b->bytes[e]);
            memcpy(si_test_host(&a, at), b->p[e], b->bytes[e]);
            memcpy(kernarg + ka->offset, &at, 8);
        } else if (e == NBUF) {
            memcpy(kernarg + ka->offset, &gk->si, 4);
        } else {
            memcpy(kernarg + ka->offset, &gk->sf, 4);
        }
        if (ka->offset + ka->size > explicit_bytes)
            explicit_bytes = ka->offset + ka->size;
        e++;
    }
    assert_int_equal(e, NBUF + 2);
    struct si_launch l;
    si_test_launch_init(&l, prog, k, code, gk->dims, gk->grid, gk->group);
    si_test_launch_place(&l, &a, kernarg, explicit_bytes);
    struct si_memory mem = si_test_memory(&a);
    const struct si_observer obs = { NULL, count_opcode, NULL, NULL };
    int rc = si_run(&l, &mem, &obs, NULL, err, errlen);
    if (rc == 0) {
        /* the buffers follow the code in allocation order */
        for (unsigned i = 0, done = 0; i < k->nargs && done < NBUF; i++) {
            if (k->args[i].is_hidden)
                continue;
            uint64_t at;
            memcpy(&at, kernarg + k->args[i].offset, 8);
            memcpy(b->p[done], si_test_host(&a, at), b->bytes[done]);
            done++;
        }
    }
    si_test_arena_free(&a);
    return rc;
}

/* ---- PoCL --------------------------------------------------------------------------- */

#define CL_OK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) fail_msg("%s: %d", #call, e_); } while (0)

struct pocl {
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue q;
};

static void pocl_open(struct pocl *c)
{
    cl_platform_id plat;
    cl_int e;
    CL_OK(clGetPlatformIDs(1, &plat, NULL));
    CL_OK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &c->dev, NULL));
    c->ctx = clCreateContext(NULL, 1, &c->dev, NULL, NULL, &e);
    CL_OK(e);
    c->q = clCreateCommandQueue(c->ctx, c->dev, 0, &e);
    CL_OK(e);
}

static void pocl_close(struct pocl *c)
{
    clReleaseCommandQueue(c->q);
    clReleaseContext(c->ctx);
}

static cl_program pocl_build(struct pocl *c, const char *src)
{
    cl_int e;
    cl_program prog = clCreateProgramWithSource(c->ctx, 1, &src, NULL, &e);
    CL_OK(e);
    /* unoptimised: half PoCL's time, and a reference that relies on no
     * optimisation (the kernels have no undefined behaviour to exploit) */
    if (clBuildProgram(prog, 1, &c->dev, "-cl-std=CL1.2 -cl-opt-disable -w", NULL, NULL) !=
        CL_SUCCESS) {
        static char log[1 << 16];
        clGetProgramBuildInfo(prog, c->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fail_msg("PoCL cannot build the batch: %s", log);
    }
    return prog;
}

static void run_pocl(struct pocl *c, cl_program prog, const struct si_test_gen_kernel *gk,
                     struct buffers *b)
{
    cl_int e;
    cl_kernel k = clCreateKernel(prog, gk->name, &e);
    CL_OK(e);
    cl_mem mem[NBUF];
    for (int i = 0; i < NBUF; i++) {
        mem[i] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b->bytes[i],
                                b->p[i], &e);
        CL_OK(e);
        CL_OK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &mem[i]));
    }
    CL_OK(clSetKernelArg(k, NBUF, 4, &gk->si));
    CL_OK(clSetKernelArg(k, NBUF + 1, 4, &gk->sf));
    const size_t grid[2] = { gk->grid[0], gk->grid[1] }, group[2] = { gk->group[0], gk->group[1] };
    CL_OK(clEnqueueNDRangeKernel(c->q, k, gk->dims, NULL, grid, group, 0, NULL, NULL));
    for (int i = 3; i < NBUF; i++)
        CL_OK(clEnqueueReadBuffer(c->q, mem[i], CL_TRUE, 0, b->bytes[i], b->p[i], 0, NULL, NULL));
    CL_OK(clFinish(c->q));
    for (int i = 0; i < NBUF; i++)
        clReleaseMemObject(mem[i]);
    clReleaseKernel(k);
}

/* ---- compiling for gfx600 ------------------------------------------------------------ */

/* NAME as a path (run_program executes paths): itself when it has a '/',
 * else the first match in $PATH. */
static void command_path(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s", name);
    if (strchr(name, '/'))
        return;
    const char *path = getenv("PATH");
    char *dirs = strdup(path ? path : "/usr/bin:/bin");
    for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
        char cand[1024];
        snprintf(cand, sizeof cand, "%s/%s", d, name);
        if (access(cand, X_OK) == 0) {
            snprintf(out, n, "%s", cand);
            break;
        }
    }
    free(dirs);
}

/* clang with the Makefile's KERNEL_FLAGS ($CGM_KERNEL_FLAGS), then ld.lld. */
static void compile_gfx600(const char *cl, const char *co)
{
    const char *clang = getenv("CGM_KERNEL_CLANG"), *flags = getenv("CGM_KERNEL_FLAGS");
    if (!flags || !*flags)
        fail_msg("CGM_KERNEL_FLAGS is not set: run this test through make");
    char obj[1200];
    snprintf(obj, sizeof obj, "%s.o", co);
    char *words = strdup(flags);
    char *argv[64];
    int n = 0;
    char clang_path[1024], ld_path[1024];
    command_path(clang && *clang ? clang : "clang", clang_path, sizeof clang_path);
    command_path("ld.lld", ld_path, sizeof ld_path);
    argv[n++] = clang_path;
    for (char *w = strtok(words, " "); w && n < 58; w = strtok(NULL, " "))
        argv[n++] = w;
    argv[n++] = "-c";
    argv[n++] = (char *)cl;
    argv[n++] = "-o";
    argv[n++] = obj;
    argv[n] = NULL;
    struct run_options opt = { .timeout = 600 };
    struct run_result *r = run_program(argv, &opt);
    if (r->status != 0)
        fail_msg("clang for gfx600 failed on %s: %s", cl, r->err);
    run_result_free(r);
    char *ld[] = { ld_path, "-shared", obj, "-o", (char *)co, NULL };
    r = run_program(ld, &opt);
    if (r->status != 0)
        fail_msg("ld.lld failed on %s: %s", obj, r->err);
    run_result_free(r);
    free(words);
}

/* ---- comparison ---------------------------------------------------------------------- */

static const char *const BUFFER_NAMES[NBUF] = { "ia", "fa", "da", "io", "fo", "dout", "acc" };

/* The first differing element of the outputs, or -1. */
static int first_difference(const struct buffers *ref, const struct buffers *got, int *buf,
                            size_t *element)
{
    for (int i = 3; i < NBUF; i++) {
        size_t step = (i == 5) ? 8 : 4;
        for (size_t j = 0; j < ref->bytes[i] / step; j++)
            if (memcmp((const char *)ref->p[i] + j * step, (const char *)got->p[i] + j * step,
                       step) != 0) {
                *buf = i;
                *element = j;
                return 0;
            }
    }
    return -1;
}

static void describe(char *out, size_t n, const struct buffers *b, int buf, size_t j)
{
    const char *p = (const char *)b->p[buf];
    if (buf == 4) {
        float f;
        memcpy(&f, p + 4 * j, 4);
        snprintf(out, n, "%a", (double)f);
    } else if (buf == 5) {
        double d;
        memcpy(&d, p + 8 * j, 8);
        snprintf(out, n, "%a", d);
    } else {
        int32_t v;
        memcpy(&v, p + 4 * j, 4);
        snprintf(out, n, "%d", v);
    }
}

static void keep_kernel(const char *dir, uint64_t seed, unsigned index, char *path, size_t n)
{
    struct si_test_text t = { 0 };
    struct si_test_gen_kernel k;
    si_test_gen_prelude(&t);
    si_test_gen_kernel(seed, index, &t, &k);
    snprintf(path, n, "%s/fuzz_%llu_%u.cl", dir, (unsigned long long)seed, index);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(t.s, f);
        fclose(f);
    }
    si_test_text_free(&t);
}

/* ---- the run ------------------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pocl_and_emulator_agree(void **state)
{
    (void)state;
    unsigned total = env_unsigned("CGM_SI_FUZZ_KERNELS", 240);
    unsigned batch = env_unsigned("CGM_SI_FUZZ_BATCH", 60);
    uint64_t seed = env_unsigned("CGM_SI_FUZZ_SEED", 1);
    unsigned from = env_unsigned("CGM_SI_FUZZ_FIRST", 0);
    const char *alternative = getenv("CGM_SI_FUZZ_SOURCE");
    if (batch == 0)
        batch = 1;
    char tmp[] = "/tmp/cgm_si_fuzz_XXXXXX";
    assert_non_null(mkdtemp(tmp));
    const char *keep = getenv("CGM_SI_FUZZ_KEEP");
    if (!keep || !*keep)
        keep = tmp;
    struct pocl c;
    pocl_open(&c);
    unsigned mismatches = 0, faults = 0, ran = 0;
    double t_gfx600 = 0, t_pocl = 0, t_emu = 0, t0;
    for (unsigned first = from; first < from + total; first += batch) {
        unsigned n = from + total - first < batch ? from + total - first : batch;
        struct si_test_text src = { 0 };
        struct si_test_gen_kernel *ks = calloc(n, sizeof *ks);
        assert_non_null(ks);
        si_test_gen_prelude(&src);
        for (unsigned i = 0; i < n; i++)
            si_test_gen_kernel(seed, first + i, &src, &ks[i]);
        if (alternative) {          /* a hand-minimised source with the same launches */
            si_test_text_free(&src);
            src.s = si_test_read_file(alternative, &src.len);
            if (!src.s)
                fail_msg("cannot read %s", alternative);
        }
        char cl[1100], co[1100];
        snprintf(cl, sizeof cl, "%s/batch.cl", tmp);
        snprintf(co, sizeof co, "%s/batch.co", tmp);
        FILE *f = fopen(cl, "w");
        assert_non_null(f);
        fputs(src.s, f);
        fclose(f);
        t0 = now();
        compile_gfx600(cl, co);
        t_gfx600 += now() - t0;
        struct si_program prog;
        char err[1024];
        if (si_program_load(co, &prog, err, sizeof err))
            fail_msg("%s", err);
        t0 = now();
        cl_program pp = pocl_build(&c, src.s);
        t_pocl += now() - t0;
        for (unsigned i = 0; i < n; i++) {
            struct buffers ref, got;
            buffers_init(&ref, &ks[i]);
            buffers_init(&got, &ks[i]);
            t0 = now();
            run_pocl(&c, pp, &ks[i], &ref);
            t_pocl += now() - t0;
            char path[1200];
            int buf;
            size_t j;
            t0 = now();
            int rc = run_emulator(&prog, &ks[i], &got, err, sizeof err);
            t_emu += now() - t0;
            if (rc) {
                faults++;
                keep_kernel(keep, seed, first + i, path, sizeof path);
                if (faults + mismatches <= MAX_REPORTED)
                    print_error("seed %llu kernel %u (%s): the emulator stopped: %s\n",
                                (unsigned long long)seed, first + i, path, err);
            } else if (first_difference(&ref, &got, &buf, &j) == 0) {
                mismatches++;
                keep_kernel(keep, seed, first + i, path, sizeof path);
                char r[64], g[64];
                describe(r, sizeof r, &ref, buf, j);
                describe(g, sizeof g, &got, buf, j);
                if (faults + mismatches <= MAX_REPORTED)
                    print_error("seed %llu kernel %u (%s): %s[%zu]: PoCL %s, emulator %s\n",
                                (unsigned long long)seed, first + i, path, BUFFER_NAMES[buf], j,
                                r, g);
            }
            ran++;
            buffers_free(&ref);
            buffers_free(&got);
        }
        clReleaseProgram(pp);
        si_program_free(&prog);
        free(ks);
        si_test_text_free(&src);
    }
    pocl_close(&c);
    unsigned opcodes = 0;
    for (unsigned i = 0; i < CGM_SI_OPCODE_COUNT; i++)
        opcodes += executed[i];
    print_message("%u kernels of seed %llu: %u mismatches, %u emulator faults; %u opcodes "
                  "executed (seconds: clang and ld.lld %.1f, PoCL %.1f, emulator %.1f)\n", ran,
                  (unsigned long long)seed, mismatches, faults, opcodes, t_gfx600, t_pocl, t_emu);
    if (mismatches || faults)
        fail_msg("%u of %u kernels differ or fault (sources kept in %s)", mismatches + faults,
                 ran, keep);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    setenv("POCL_MAX_PTHREAD_COUNT", "2", 0);
    setenv("POCL_KERNEL_CACHE", "0", 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pocl_and_emulator_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
