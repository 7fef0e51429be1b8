/* The compute unit against its own arithmetic: micro-kernels (tests/data/
 * si/kernels/micro.cl) that come in pairs differing in one thing, replayed
 * on the ideal memory, the difference in time derived here from the
 * configuration. Timings of one wavefront are exact up to the turn of its
 * pool at the kernel's start (SIMDS cycles). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/gpu_recording.h"

/* Traces recorded once for the whole program: kernel, work-items, group. */
static const char *const shapes[][3] = {
    { "valu_64", "64", "64" },      { "valu_128", "64", "64" },       /* 0, 1 */
    { "valu_64", "256", "256" },    { "valu_128", "256", "256" },     /* 2, 3 */
    { "valu_64", "1024", "1024" },  { "valu_128", "1024", "1024" },   /* 4, 5 */
    { "lds_stride_1", "64", "64" }, { "lds_stride_32", "64", "64" },  /* 6, 7 */
    { "barrier_32", "64", "64" },   { "no_barrier_32", "64", "64" },  /* 8, 9 */
    { "stream_copy", "16384", "64" },                                  /* 10 */
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])
static char traces[NSHAPES][64];

static int setup(void **state)
{
    (void)state;
    gpu_record_micro(traces, shapes, NSHAPES);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gpu_remove_traces(traces, NSHAPES);
    return 0;
}

struct run {
    double cycles;                 /* the kernel's */
    double valu, lds, lds_cycles, lds_conflicts, barriers, waitcnts, bytes;
};

static struct run replay(size_t shape, const struct rp_config *cfg)
{
    cJSON *j = gpu_replay_stats(traces[shape], cfg);
    struct run r = { gpu_stat(j, "gpu.kernels.0.cycles"), 0, 0, 0, 0, 0, 0, gpu_stat(j, "gpu.memory.vector_bytes") };
    for (unsigned c = 0; c < cfg->gpu_cus; c++) {
        char k[128];
#define SUM(field, path) snprintf(k, sizeof k, "gpu.compute_units.%u.%s", c, path); r.field += gpu_stat(j, k)
        SUM(valu, "instructions_by_unit.valu");
        SUM(lds, "lds.instructions");
        SUM(lds_cycles, "lds.cycles");
        SUM(lds_conflicts, "lds.bank_conflict_cycles");
        SUM(barriers, "instructions_by_unit.barrier");
        SUM(waitcnts, "instructions_by_unit.waitcnt");
#undef SUM
    }
    cJSON_Delete(j);
    return r;
}

/* The first multiple of S at or above X. */
static uint64_t turns(uint64_t x, uint64_t s) { return (x + s - 1) / s * s; }

static void near(double got, double want, double tolerance, const char *what)
{
    if (got < want - tolerance || got > want + tolerance)
        print_error("%s: %.0f cycles, expected %.0f within %.0f\n", what, got, want, tolerance);
    assert_true(got >= want - tolerance && got <= want + tolerance);
}

static void config(struct rp_config *cfg)
{
    rp_config_defaults(cfg);
    cfg->gpu_memory = RP_GPU_MEM_IDEAL;
    cfg->cores = 1;
    cfg->gpu_cus = 1;
}

/* One wavefront issues a vector instruction, may fetch the next one the
 * cycle after, which may issue fetch_latency cycles later, at its pool's
 * next turn (one pool of SIMDS issues per cycle), and not before its SIMD
 * has finished the last one (64 / simd_lanes cycles). */
static void test_dependent_valu_chain(void **state)
{
    (void)state;
    static const struct { uint64_t fetch_latency, lanes; } cases[] = { { 5, 16 }, { 3, 16 }, { 9, 16 }, { 5, 4 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rp_config cfg;
        config(&cfg);
        cfg.cu.fetch_latency = cases[i].fetch_latency;
        cfg.cu.simd_lanes = cases[i].lanes;
        struct run a = replay(0, &cfg), b = replay(1, &cfg);
        uint64_t s = cfg.cu.simds, simd = (64 + cfg.cu.simd_lanes - 1) / cfg.cu.simd_lanes;
        uint64_t period = turns(1 + cfg.cu.fetch_latency > simd ? 1 + cfg.cu.fetch_latency : simd, s);
        assert_int_equal(b.valu - a.valu, 64);
        near(b.cycles - a.cycles, (b.valu - a.valu) * (double)period, (double)s, "64 more dependent VALU");
    }
}

/* Four wavefronts of a work-group go to the four pools: the chain takes
 * what it takes one wavefront. Sixteen put four on each SIMD, which then
 * issues one of them per turn: four turns of S cycles (or the SIMD's
 * cycles) per instruction and wavefront. */
static void test_wavefronts_on_simds_in_parallel(void **state)
{
    (void)state;
    struct rp_config cfg;
    config(&cfg);
    struct run one[2] = { replay(0, &cfg), replay(1, &cfg) };
    struct run four[2] = { replay(2, &cfg), replay(3, &cfg) };
    struct run sixteen[2] = { replay(4, &cfg), replay(5, &cfg) };
    uint64_t s = cfg.cu.simds, simd = (64 + cfg.cu.simd_lanes - 1) / cfg.cu.simd_lanes;
    double d1 = one[1].cycles - one[0].cycles, d4 = four[1].cycles - four[0].cycles;
    assert_int_equal(four[1].valu - four[0].valu, 4 * 64);
    near(d4, d1, (double)s, "4 wavefronts on 4 SIMDs against 1");
    assert_true(four[0].cycles < 1.1 * one[0].cycles);
    uint64_t per_pool = 16 / s, round = per_pool * turns(simd, s);
    uint64_t p1 = turns(1 + cfg.cu.fetch_latency > simd ? 1 + cfg.cu.fetch_latency : simd, s);
    double d16 = sixteen[1].cycles - sixteen[0].cycles;
    near(d16, 64.0 * (double)(round > p1 ? round : p1), 2.0 * (double)s, "16 wavefronts, 4 per SIMD");
}

/* LDS: per half-wavefront, one cycle per word in the busiest bank; the
 * wavefront waits for its LDS instruction (bank cycles + latency). Stride
 * 1 puts 32 lanes in 32 banks, stride 32 all in bank 0. */
static void test_lds_bank_conflicts(void **state)
{
    (void)state;
    static const uint64_t banks[] = { 32, 16 };
    for (size_t i = 0; i < 2; i++) {
        struct rp_config cfg;
        config(&cfg);
        cfg.cu.lds_banks = banks[i];
        struct run a = replay(6, &cfg), b = replay(7, &cfg);
        assert_int_equal(a.lds, 32);
        assert_int_equal(b.lds, 32);
        uint64_t free_cycles = 2 * (32 / banks[i]), conflict_cycles = 2 * 32;
        assert_int_equal(a.lds_cycles, 32 * free_cycles);
        assert_int_equal(b.lds_cycles, 32 * conflict_cycles);
        assert_int_equal(a.lds_conflicts, 0);
        assert_int_equal(b.lds_conflicts, 32 * (conflict_cycles - free_cycles));
        uint64_t s = cfg.cu.simds, l = cfg.cu.fetch_latency, lat = cfg.cu.lds_latency;
        double per = (double)turns(1 + conflict_cycles + lat + l, s) - (double)turns(1 + free_cycles + lat + l, s);
        near(b.cycles - a.cycles, 32 * per, (double)s, "32 LDS accesses with 32-way conflicts");
    }
}

/* Each of 32 steps gains s_waitcnt lgkmcnt(0) and s_barrier (scalar, both
 * completing scalar_latency after issue; a lone wavefront passes its
 * barrier the cycle after). */
static void test_barriers(void **state)
{
    (void)state;
    struct rp_config cfg;
    config(&cfg);
    struct run with = replay(8, &cfg), without = replay(9, &cfg);
    assert_int_equal(with.barriers - without.barriers, 32);
    assert_int_equal(with.waitcnts - without.waitcnts, 32);
    assert_int_equal(with.valu, without.valu);
    uint64_t s = cfg.cu.simds, l = cfg.cu.fetch_latency, sl = cfg.cu.scalar_latency;
    double step = (double)(turns(sl + l, s) + turns(sl + 1 + l, s));
    near(with.cycles - without.cycles, 32 * step, (double)s, "32 barriers of one wavefront");
}

/* A copy through the ideal memory moves every byte over its channel: the
 * kernel takes at least bytes / bytes_per_cycle, and, bandwidth bound,
 * little more. */
static void test_streaming_bound_by_bandwidth(void **state)
{
    (void)state;
    static const uint64_t per_cycle[] = { 8, 16 };
    double cycles[2];
    for (size_t i = 0; i < 2; i++) {
        struct rp_config cfg;
        config(&cfg);
        cfg.gpu_cus = 8;
        cfg.ideal_bytes_per_cycle = per_cycle[i];
        struct run r = replay(10, &cfg);
        assert_int_equal(r.bytes, 2 * 16384 * 4);
        double bound = r.bytes / (double)per_cycle[i];
        assert_true(r.cycles >= bound);
        assert_true(r.cycles <= 1.25 * bound + (double)cfg.ideal_latency + 200);
        cycles[i] = r.cycles;
    }
    assert_true(cycles[1] < cycles[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_valu_chain),
        cmocka_unit_test(test_wavefronts_on_simds_in_parallel),
        cmocka_unit_test(test_lds_bank_conflicts),
        cmocka_unit_test(test_barriers),
        cmocka_unit_test(test_streaming_bound_by_bandwidth),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
