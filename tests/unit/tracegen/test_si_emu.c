/* The Southern Islands emulator runs kernels compiled from
 * tests/data/si/kernels/basic.cl on data set up here; every result is checked
 * against the same computation done on the CPU in this file.  Integer results
 * must match exactly; float results exactly where IEEE arithmetic fixes them,
 * else within the stated relative tolerance (hardware-style approximations
 * and fused multiply-add). */
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
#include "tests/unit/si_harness.h"

/* Guest memory above 4 GiB, so kernels use 64-bit addresses. */
enum { ARENA = 32 << 20 };
static const uint64_t BASE = 0x100000000ull;

/* basic.co and half.co, both mapped into guest memory. */
struct fixture {
    struct si_program prog, half;
    struct si_test_arena arena;
    struct si_memory mem;
    uint64_t code, half_code;
};

static int setup(void **state)
{
    static struct fixture f;
    if (si_test_load_kernels("test/basic", &f.prog) || si_test_load_kernels("test/half", &f.half))
        return -1;
    si_test_arena_init(&f.arena, BASE, ARENA);
    f.mem = si_test_memory(&f.arena);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    si_program_free(&f->prog);
    si_program_free(&f->half);
    si_test_arena_free(&f->arena);
    return 0;
}

/* Fresh memory per test: the code object images first (for s_getpc users). */
static void reset(struct fixture *f)
{
    f->arena.used = 0;
    f->code = si_test_place_code(&f->arena, &f->prog);
    f->half_code = si_test_place_code(&f->arena, &f->half);
}

static uint64_t alloc(struct fixture *f, uint64_t bytes) { return si_test_alloc(&f->arena, bytes); }
static void *host(struct fixture *f, uint64_t guest) { return si_test_host(&f->arena, guest); }

struct launch_args {
    const char *kernel;
    unsigned dims;
    uint32_t grid[3], group[3];
    const void *args;
    size_t args_bytes;
    uint32_t dynamic_lds;
};

static int launch(struct fixture *f, const struct launch_args *a, struct si_run_stats *stats,
                  const struct si_observer *obs, char *err, size_t errlen)
{
    const struct si_program *prog = &f->prog;
    uint64_t code = f->code;
    const struct si_kernel *k = si_program_kernel(prog, a->kernel);
    if (!k) {
        prog = &f->half;
        code = f->half_code;
        k = si_program_kernel(prog, a->kernel);
    }
    assert_non_null(k);
    struct si_launch l;
    si_test_launch_init(&l, prog, k, code, a->dims, a->grid, a->group);
    l.dynamic_lds = a->dynamic_lds;
    si_test_launch_place(&l, &f->arena, a->args, a->args_bytes);
    return si_run(&l, &f->mem, obs, stats, err, errlen);
}

static void run_ok(struct fixture *f, const struct launch_args *a, struct si_run_stats *stats)
{
    char err[512];
    if (launch(f, a, stats, NULL, err, sizeof err))
        fail_msg("%s", err);
}

/* Runs KERNEL(const uint *in, uint *out) on the N values of IN in 1-D groups
 * of GROUP, in fresh memory; returns OUT as the kernel left it. */
static const uint32_t *run_map_u32(struct fixture *f, const char *kernel, const uint32_t *in,
                                   uint32_t n, uint32_t group)
{
    reset(f);
    uint64_t s = alloc(f, n * 4), o = alloc(f, n * 4);
    memcpy(host(f, s), in, n * 4);
    struct { uint64_t s, o; } args = { s, o };
    struct launch_args la = { kernel, 1, { n }, { group }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    return host(f, o);
}

static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static float rngf(float lo, float hi) { return lo + (hi - lo) * (float)(rng() >> 8) / 16777216.0f; }

static void assert_close(double got, double want, double rel, const char *what, size_t i)
{
    double tol = rel * fmax(fabs(want), 1e-30);
    if (!(fabs(got - want) <= tol))
        fail_msg("%s[%zu]: got %.9g want %.9g (tolerance %.3g)", what, i, got, want, tol);
}

/* ---- tests ------------------------------------------------------------------ */

static void vector_add(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 1000, GRID = 1024 };
    uint64_t a = alloc(f, GRID * 4), b = alloc(f, GRID * 4), c = alloc(f, GRID * 4);
    float *ha = host(f, a), *hb = host(f, b), *hc = host(f, c);
    for (int i = 0; i < GRID; i++) {
        ha[i] = rngf(-100, 100);
        hb[i] = rngf(-100, 100);
        hc[i] = -7.0f;
    }
    struct { uint64_t a, b, c; uint32_t n; } args = { a, b, c, N };
    struct launch_args la = { "vector_add", 1, { GRID }, { 256 }, &args, 28, 0 };
    struct si_run_stats st;
    run_ok(f, &la, &st);
    for (int i = 0; i < N; i++)
        if (hc[i] != ha[i] + hb[i])
            fail_msg("c[%d] = %g, want %g", i, hc[i], ha[i] + hb[i]);
    for (int i = N; i < GRID; i++)
        assert_true(hc[i] == -7.0f);       /* the if (i < n) guard held */
    assert_int_equal(st.groups, GRID / 256);
    assert_int_equal(st.waves, GRID / 64);
    assert_true(st.wave_instructions > 0);
}

static void saxpy_and_daxpy(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 512 };
    uint64_t x = alloc(f, N * 4), y = alloc(f, N * 4);
    float *hx = host(f, x), *hy = host(f, y), y0[N];
    for (int i = 0; i < N; i++) {
        hx[i] = rngf(-10, 10);
        hy[i] = y0[i] = rngf(-10, 10);
    }
    struct { float alpha; uint32_t pad; uint64_t x, y; } sa = { 1.75f, 0, x, y };
    struct launch_args la = { "saxpy", 1, { N }, { 64 }, &sa, sizeof sa, 0 };
    run_ok(f, &la, NULL);
    for (int i = 0; i < N; i++) {
        double mag = fabs(1.75 * hx[i]) + fabs(y0[i]);
        if (fabs(hy[i] - (1.75 * hx[i] + y0[i])) > 1.2e-7 * mag)
            fail_msg("saxpy[%d]: got %.9g want %.9g", i, hy[i], 1.75 * hx[i] + y0[i]);
    }

    uint64_t dx = alloc(f, N * 8), dy = alloc(f, N * 8);
    double *hdx = host(f, dx), *hdy = host(f, dy), dy0[N];
    for (int i = 0; i < N; i++) {
        hdx[i] = rngf(-10, 10) / 3.0;
        hdy[i] = dy0[i] = rngf(-10, 10) / 7.0;
    }
    struct { double alpha; uint64_t x, y; } da = { -2.5 / 3.0, dx, dy };
    struct launch_args ld = { "daxpy", 1, { N }, { 128 }, &da, sizeof da, 0 };
    run_ok(f, &ld, NULL);
    /* Fused or not, the result is within an ulp or two of the terms' magnitude. */
    for (int i = 0; i < N; i++) {
        double mag = fabs(da.alpha * hdx[i]) + fabs(dy0[i]);
        if (fabs(hdy[i] - (da.alpha * hdx[i] + dy0[i])) > 4.5e-16 * mag)
            fail_msg("daxpy[%d]: got %.17g want %.17g", i, hdy[i], da.alpha * hdx[i] + dy0[i]);
    }
}

static void reduce_sum_lds_barrier_atomic(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 4096, WG = 256 };
    uint64_t in = alloc(f, N * 4), out = alloc(f, 4);
    int32_t *hin = host(f, in), *hout = host(f, out);
    int64_t want = 0;
    for (int i = 0; i < N; i++) {
        hin[i] = (int32_t)(rng() % 2001) - 1000;
        want += hin[i];
    }
    *hout = 0;
    struct { uint64_t in, out, tmp; } args = { in, out, 0 };
    struct launch_args la = { "reduce_sum", 1, { N }, { WG }, &args, sizeof args, WG * 4 };
    run_ok(f, &la, NULL);
    assert_int_equal(*hout, (int32_t)want);
}

static void collatz_divergence(void **state)
{
    enum { N = 256 };
    uint32_t hs[N];
    for (int i = 0; i < N; i++)
        hs[i] = 1 + (uint32_t)i * 37u;
    const uint32_t *ho = run_map_u32(*state, "collatz_steps", hs, N, 64);
    for (int i = 0; i < N; i++) {
        uint32_t x = hs[i], n = 0;
        while (x != 1u && n < 1000u) {
            x = (x & 1u) ? 3u * x + 1u : x / 2u;
            n++;
        }
        assert_int_equal(ho[i], n);
    }
}

static void integer_mix(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 320 };   /* 5 waves of a 64-item group: partial last group not needed */
    uint64_t a = alloc(f, N * 4), b = alloc(f, N * 4), o = alloc(f, N * 32);
    int32_t *ha = host(f, a), *hb = host(f, b), *ho = host(f, o);
    for (int i = 0; i < N; i++) {
        ha[i] = (int32_t)rng();
        hb[i] = (int32_t)(rng() >> (rng() % 31));
        if (i % 7 == 0) hb[i] = -hb[i];
        if (ha[i] == INT32_MIN) ha[i] = 5;
    }
    struct { uint64_t a, b, o; } args = { a, b, o };
    struct launch_args la = { "int_mix", 1, { N }, { 64 }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    for (int i = 0; i < N; i++) {
        int32_t x = ha[i], y = hb[i] | 1;
        uint32_t ux = (uint32_t)x;
        int32_t want[8] = { x / y, x % y, x >> (y & 31), (int32_t)(ux >> (y & 31)),
                            (int32_t)(((int64_t)x * y) >> 32), __builtin_popcount(ux),
                            ux ? __builtin_clz(ux) : 32, (x < y ? x : y) ^ (x > y ? x : y) };
        for (int k = 0; k < 8; k++)
            if (ho[8 * i + k] != want[k])
                fail_msg("int_mix item %d result %d: got %d want %d (a=%d b=%d)", i, k,
                         ho[8 * i + k], want[k], x, y);
    }
}

static void private_memory(void **state)
{
    enum { N = 192 };
    uint32_t hs[N];
    for (int i = 0; i < N; i++)
        hs[i] = rng() % 1000;
    const uint32_t *ho = run_map_u32(*state, "private_array", hs, N, 192);
    for (int i = 0; i < N; i++) {
        uint32_t v[32], acc = 0;
        for (int k = 0; k < 32; k++) v[k] = hs[i] * (uint32_t)(k + 1);
        for (int k = 0; k < 32; k++) acc += v[(hs[i] + (uint32_t)k * 7u) & 31u];
        assert_int_equal(ho[i], acc);
    }
}

static void matmul_2d(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { S = 32 };
    uint64_t A = alloc(f, S * S * 4), B = alloc(f, S * S * 4), C = alloc(f, S * S * 4);
    float *ha = host(f, A), *hb = host(f, B), *hc = host(f, C);
    for (int i = 0; i < S * S; i++) {
        ha[i] = rngf(-1, 1);
        hb[i] = rngf(-1, 1);
    }
    struct { uint64_t a, b, c; int32_t n; } args = { A, B, C, S };
    struct launch_args la = { "matmul", 2, { S, S }, { 8, 8 }, &args, 28, 0 };
    run_ok(f, &la, NULL);
    for (int r = 0; r < S; r++)
        for (int col = 0; col < S; col++) {
            double acc = 0, mag = 0;
            for (int k = 0; k < S; k++) {
                acc += (double)ha[r * S + k] * hb[k * S + col];
                mag += fabs((double)ha[r * S + k] * hb[k * S + col]);
            }
            /* float accumulation of 32 terms: error bounded by 32 ulps of the magnitude */
            if (fabs(hc[r * S + col] - acc) > 32 * 6e-8 * mag)
                fail_msg("C[%d][%d] = %g want %g", r, col, hc[r * S + col], acc);
        }
}

static void work_item_functions(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { GX = 16, GY = 8, LX = 4, LY = 4 };
    uint64_t o = alloc(f, GX * GY * 6 * 4);
    uint32_t *ho = host(f, o);
    struct { uint64_t o; } args = { o };
    struct launch_args la = { "ids", 2, { GX, GY }, { LX, LY }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    for (uint32_t y = 0; y < GY; y++)
        for (uint32_t x = 0; x < GX; x++) {
            uint32_t *r = &ho[6 * (y * GX + x)];
            assert_int_equal(r[0], x % LX);
            assert_int_equal(r[1], y % LY);
            assert_int_equal(r[2], x / LX);
            assert_int_equal(r[3], y / LY);
            assert_int_equal(r[4], GX / LX);
            assert_int_equal(r[5], 2);
        }
}

static void float_functions(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 256 };
    uint64_t x = alloc(f, N * 4), o = alloc(f, N * 16);
    float *hx = host(f, x), *ho = host(f, o);
    for (int i = 0; i < N; i++)
        hx[i] = rngf(0.001f, 50.0f);
    struct { uint64_t x, o; } args = { x, o };
    struct launch_args la = { "float_math", 1, { N }, { 64 }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    for (int i = 0; i < N; i++) {
        float v = hx[i];
        assert_close(ho[4 * i + 0], sqrtf(v), 2e-7, "sqrt", (size_t)i);
        assert_close(ho[4 * i + 1], expf(-v), 4e-6, "exp", (size_t)i);
        assert_close(ho[4 * i + 2], v / (v + 1.0f), 2e-7, "div", (size_t)i);
        assert_true(ho[4 * i + 3] == floorf(v * 3.5f));
    }
}

/* x / y must be the IEEE quotient: random operands, and operands that take
 * the scaling paths of v_div_scale/v_div_fmas (huge or tiny ratios). */
static void double_division_is_ieee(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 256 };
    uint64_t x = alloc(f, N * 8), y = alloc(f, N * 8), q = alloc(f, N * 8), r = alloc(f, N * 8);
    double *hx = host(f, x), *hy = host(f, y), *hq = host(f, q), *hr = host(f, r);
    static const double special[][2] = {
        { 1.0, 3.0 }, { 2.0, 0.0 }, { -2.0, 0.0 }, { 0.0, 0.0 }, { 0.0, 5.0 },
        { 1e300, 1e-300 }, { 1e-300, 1e300 }, { 1e-310, 3.0 }, { 3.0, 1e-310 },
        { 1e308, 0.5 }, { 5e-324, 2.0 }, { 1.5, 1e308 }, { -7.0, 1e-5 },
    };
    size_t ns = sizeof special / sizeof special[0];
    for (size_t i = 0; i < N; i++) {
        if (i < ns) {
            hx[i] = special[i][0];
            hy[i] = special[i][1];
        } else {
            hx[i] = ldexp((double)(rng() | 1) / 4294967296.0, (int)(rng() % 200) - 100);
            hy[i] = ldexp((double)(rng() | 1) / 4294967296.0, (int)(rng() % 200) - 100);
            if (rng() & 1) hy[i] = -hy[i];
        }
    }
    struct { uint64_t x, y, q, r; } args = { x, y, q, r };
    struct launch_args la = { "double_div_sqrt", 1, { N }, { 64 }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    unsigned bad = 0;
    for (size_t i = 0; i < N; i++) {
        double want = hx[i] / hy[i];
        int same = (isnan(want) && isnan(hq[i])) || memcmp(&want, &hq[i], 8) == 0;
        if (!same && bad++ < 8)
            print_message("%.17g / %.17g: got %.17g want %.17g\n", hx[i], hy[i], hq[i], want);
        double root = sqrt(hx[i]);
        if (!((isnan(root) && isnan(hr[i])) || memcmp(&root, &hr[i], 8) == 0) && bad++ < 8)
            print_message("sqrt(%.17g): got %.17g want %.17g\n", hx[i], hr[i], root);
    }
    assert_int_equal(bad, 0);
}

static uint32_t mix_step_cpu(uint32_t x, uint32_t k)
{
    uint32_t a[8];
    for (int i = 0; i < 8; i++)
        a[i] = x * (uint32_t)(i + 3) + k;
    return a[(x ^ k) & 7] ^ (x >> 3);
}

/* A kernel that calls a function: getpc/swappc/setpc and the callee's stack. */
static void function_calls(void **state)
{
    enum { N = 256 };
    uint32_t hin[N];
    for (int i = 0; i < N; i++)
        hin[i] = rng();
    const uint32_t *hout = run_map_u32(*state, "call_function", hin, N, 128);
    for (int i = 0; i < N; i++) {
        uint32_t x = hin[i];
        for (uint32_t k = 0; k < 4; k++)
            x = mix_step_cpu(x, k);
        assert_int_equal(hout[i], x);
    }
}

/* LDS and global atomics: per-group histograms merged into global bins. */
static void lds_and_global_atomics(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 2048 };
    uint64_t d = alloc(f, N * 4), b = alloc(f, 64 * 4), m = alloc(f, 64 * 4);
    uint32_t *hd = host(f, d), *hb = host(f, b), *hm = host(f, m);
    uint32_t want_b[64] = { 0 }, want_m[64] = { 0 };
    for (int i = 0; i < N; i++) {
        hd[i] = rng() % 100000;
        want_b[hd[i] & 63]++;
        if (hd[i] > want_m[hd[i] & 63])
            want_m[hd[i] & 63] = hd[i];
    }
    struct { uint64_t d, b, m; } args = { d, b, m };
    struct launch_args la = { "histogram", 1, { N }, { 256 }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(hb[i], want_b[i]);
        assert_int_equal(hm[i], want_m[i]);
    }
}

/* Brute-force half rounding: every finite half value is a candidate; the
 * nearest wins, ties go to the even code; past the largest finite value the
 * round-to-nearest result is infinity at 65520 and beyond. */
static double half_value(unsigned code)
{
    unsigned e = (code >> 10) & 0x1f, m = code & 0x3ff;
    double v = e ? ldexp(1024 + m, (int)e - 25) : ldexp(m, -24);
    return code & 0x8000 ? -v : v;
}

static unsigned half_model(float f, int toward_zero)
{
    if (isnan(f))
        return 0x7e00;                  /* any NaN: the caller checks NaN-ness only */
    unsigned sign = signbit(f) ? 0x8000 : 0;
    if (isinf(f))
        return sign | 0x7c00;           /* exact in every rounding mode */
    double a = fabs((double)f);
    unsigned lo = 0, hi = 0x7bff;       /* largest code with value <= a */
    if (a >= half_value(0x7bff)) {
        lo = 0x7bff;
    } else {
        while (lo < hi) {
            unsigned mid = (lo + hi + 1) / 2;
            if (half_value(mid) <= a) lo = mid; else hi = mid - 1;
        }
    }
    if (toward_zero || half_value(lo) == a)
        return sign | lo;
    double below = half_value(lo), above = lo == 0x7bff ? 65536.0 : half_value(lo + 1);
    unsigned up = lo + 1;               /* 0x7c00 is infinity */
    if (a - below < above - a) return sign | lo;
    if (a - below > above - a) return sign | up;
    return sign | ((lo & 1) ? up : lo);
}

static void half_conversions(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 512 };
    uint64_t in = alloc(f, N * 4), h = alloc(f, N * 2),
             back = alloc(f, N * 4), packed = alloc(f, N * 4);
    float *hin = host(f, in), *hback = host(f, back);
    uint16_t *hh = host(f, h);
    uint32_t *hp = host(f, packed);
    static const float edge[] = { 0.0f, -0.0f, 1.0f, 65504.0f, 65519.0f, 65520.0f, 65535.0f,
                                  1e9f, -1e9f, 5.9604645e-8f, 2.9802322e-8f, 1e-8f, 6.1035156e-5f,
                                  1.00048828125f, 1.00146484375f, 3.0e-5f };
    size_t ne = sizeof edge / sizeof edge[0];
    for (size_t i = 0; i < N; i++) {
        if (i < ne) {
            hin[i] = edge[i];
        } else if (i % 4 == 0) {        /* exact midpoints between neighbouring halves */
            unsigned code = rng() % 0x7bff;
            hin[i] = (float)((half_value(code) + half_value(code + 1)) / 2);
        } else {
            hin[i] = ldexpf((float)(rng() >> 8) / 16777216.0f, (int)(rng() % 44) - 28);
            if (rng() & 1) hin[i] = -hin[i];
        }
    }
    hin[ne] = INFINITY;
    hin[ne + 1] = NAN;
    struct { uint64_t in, h, back; } args = { in, h, back };
    struct launch_args la = { "half_convert", 1, { N }, { 64 }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    struct { uint64_t in, packed; } pargs = { in, packed };
    struct launch_args lp = { "half_pack_rtz", 1, { N }, { 64 }, &pargs, sizeof pargs, 0 };
    run_ok(f, &lp, NULL);
    for (size_t i = 0; i < N; i++) {
        float x = hin[i];
        if (isnan(x)) {
            assert_true((hh[i] & 0x7c00) == 0x7c00 && (hh[i] & 0x3ff));
            continue;
        }
        unsigned want = half_model(x, 0);
        if (hh[i] != want)
            fail_msg("half(%.9g) = 0x%04x, want 0x%04x", x, hh[i], want);
        double back_want = (want & 0x7c00) == 0x7c00 ? copysign(INFINITY, x) : half_value(want);
        if ((double)hback[i] != back_want)
            fail_msg("float(half 0x%04x) = %.9g, want %.9g", want, hback[i], back_want);
        unsigned lo = half_model(x, 1), hi16 = half_model(-x * 0.5f, 1);
        if (hp[i] != (hi16 << 16 | lo))
            fail_msg("pkrtz(%.9g) = 0x%08x, want 0x%08x", x, hp[i], hi16 << 16 | lo);
    }
}

/* 64-bit integer division, multiply, rotates, conversions: all exact. */
static void wide_integer_sequences(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 256 };
    uint64_t a = alloc(f, N * 8), b = alloc(f, N * 8), o = alloc(f, N * 64), d = alloc(f, N * 16);
    int64_t *ha = host(f, a), *hb = host(f, b), *ho = host(f, o);
    double *hd = host(f, d);
    for (int i = 0; i < N; i++) {
        uint64_t r1 = (uint64_t)rng() << 32 | rng(), r2 = (uint64_t)rng() << 32 | rng();
        ha[i] = (int64_t)(r1 >> (rng() % 40));
        hb[i] = (int64_t)(r2 >> (rng() % 62));
        if (i % 3 == 0) ha[i] = -ha[i];
        if (i % 5 == 0) hb[i] = -hb[i];
        if (ha[i] == INT64_MIN) ha[i] = 1;
    }
    struct { uint64_t a, b, o, d; } args = { a, b, o, d };
    struct launch_args la = { "wide_mix", 1, { N }, { 64 }, &args, sizeof args, 0 };
    run_ok(f, &la, NULL);
    for (int i = 0; i < N; i++) {
        int64_t x = ha[i], y = hb[i] | 1;
        uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
        uint32_t lo = (uint32_t)ux;
        unsigned sh = (unsigned)i & 31;
        int64_t want[8] = {
            x / y, x % y, (int64_t)(ux / uy), (int64_t)(ux * uy),
            (int64_t)(uint32_t)((lo << sh) | (lo >> ((32 - sh) & 31))),
            (int64_t)((ux >> 8) & 0xffu) + (int64_t)(float)(lo & 0xffffu),
            (int64_t)((double)x * 0.5), (int64_t)(uint32_t)((float)lo * 0.25f) };
        for (int k = 0; k < 8; k++)
            if (ho[8 * i + k] != want[k])
                fail_msg("wide_mix item %d result %d: got %lld want %lld (a=%lld b=%lld)", i, k,
                         (long long)ho[8 * i + k], (long long)want[k], (long long)x,
                         (long long)y);
        assert_true(hd[2 * i] == (double)x);
        assert_true(hd[2 * i + 1] == (double)ux);
    }
}

static void unmapped_access_is_reported(void **state)
{
    struct fixture *f = *state;
    reset(f);
    uint64_t a = alloc(f, 256 * 4), c = alloc(f, 256 * 4);
    struct { uint64_t a, b, c; uint32_t n; } args = { a, 0x40000000ull, c, 256 };
    struct launch_args la = { "vector_add", 1, { 256 }, { 64 }, &args, 28, 0 };
    char err[512];
    assert_int_equal(launch(f, &la, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "kernel vector_add"));
    assert_non_null(strstr(err, "unmapped address 0x40000000"));
    assert_non_null(strstr(err, "work-item (0,0,0)"));
    assert_non_null(strstr(err, "buffer_load_dword"));
    assert_non_null(strstr(err, "pc 0x"));
}

static void bad_launches_are_refused(void **state)
{
    struct fixture *f = *state;
    reset(f);
    struct { uint64_t a, b, c; uint32_t n; } args = { 0, 0, 0, 0 };
    char err[512];
    struct launch_args la = { "vector_add", 1, { 100 }, { 64 }, &args, 28, 0 };
    assert_int_equal(launch(f, &la, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a positive multiple"));
    struct launch_args big = { "vector_add", 1, { 2048 }, { 1024 }, &args, 28, 0 };
    assert_int_equal(launch(f, &big, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "exceeds"));
}

struct recorder {
    uint64_t steps, stores, store_lanes;
    int addresses_ok;
    uint64_t c_base;
};

static void on_step(void *ctx, const struct si_step *s)
{
    struct recorder *r = ctx;
    r->steps++;
    if (s->access == CGM_SI_STORE && !s->lds) {
        r->stores++;
        for (int l = 0; l < 64; l++) {
            if (!(s->exec >> l & 1))
                continue;
            r->store_lanes++;
            uint64_t item = s->group_id[0] * 128 + s->wave * 64 + (unsigned)l;
            if (s->addr[l] != r->c_base + 4 * item || s->access_size != 4)
                r->addresses_ok = 0;
        }
    }
}

static void observer_sees_every_step_and_address(void **state)
{
    struct fixture *f = *state;
    reset(f);
    enum { N = 512 };
    uint64_t a = alloc(f, N * 4), b = alloc(f, N * 4), c = alloc(f, N * 4);
    struct { uint64_t a, b, c; uint32_t n; } args = { a, b, c, N };
    struct launch_args la = { "vector_add", 1, { N }, { 128 }, &args, 28, 0 };
    struct recorder rec = { 0, 0, 0, 1, c };
    struct si_observer obs = { &rec, on_step, NULL, NULL };
    struct si_run_stats st;
    char err[512];
    if (launch(f, &la, &st, &obs, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(rec.steps, st.wave_instructions);
    assert_int_equal(rec.stores, N / 64);        /* one store per wavefront */
    assert_int_equal(rec.store_lanes, N);
    assert_true(rec.addresses_ok);
}

static void runs_are_deterministic(void **state)
{
    struct fixture *f = *state;
    uint8_t *first = malloc(f->arena.size);
    struct si_run_stats s1, s2;
    uint64_t used = 0;
    for (int run = 0; run < 2; run++) {
        reset(f);
        rng_state = 99;
        enum { N = 2048 };
        uint64_t in = alloc(f, N * 4), out = alloc(f, 4);
        int32_t *hin = host(f, in);
        for (int i = 0; i < N; i++)
            hin[i] = (int32_t)(rng() % 100);
        struct { uint64_t in, out, tmp; } args = { in, out, 0 };
        struct launch_args la = { "reduce_sum", 1, { N }, { 128 }, &args, sizeof args, 512 };
        run_ok(f, &la, run ? &s2 : &s1);
        if (!run) {
            memcpy(first, f->arena.mem, f->arena.used);
            used = f->arena.used;
        }
    }
    assert_int_equal(used, f->arena.used);
    assert_memory_equal(first, f->arena.mem, used);
    assert_int_equal(s1.wave_instructions, s2.wave_instructions);
    assert_int_equal(s1.lane_operations, s2.lane_operations);
    free(first);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector_add),
        cmocka_unit_test(saxpy_and_daxpy),
        cmocka_unit_test(reduce_sum_lds_barrier_atomic),
        cmocka_unit_test(collatz_divergence),
        cmocka_unit_test(integer_mix),
        cmocka_unit_test(private_memory),
        cmocka_unit_test(matmul_2d),
        cmocka_unit_test(work_item_functions),
        cmocka_unit_test(float_functions),
        cmocka_unit_test(double_division_is_ieee),
        cmocka_unit_test(function_calls),
        cmocka_unit_test(lds_and_global_atomics),
        cmocka_unit_test(half_conversions),
        cmocka_unit_test(wide_integer_sequences),
        cmocka_unit_test(unmapped_access_is_reported),
        cmocka_unit_test(bad_launches_are_refused),
        cmocka_unit_test(observer_sees_every_step_and_address),
        cmocka_unit_test(runs_are_deterministic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
