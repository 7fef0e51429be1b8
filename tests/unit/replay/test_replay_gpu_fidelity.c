/* Seed 001's measures (operations and OPC, MPKO, vector memory latency, the
 * vector memory buffer's full cycles, L2-to-memory bytes) and its
 * memory-fidelity switches (non-blocking stores, the coalescer's modes,
 * the L2's interleave, NACKs and memory controllers per bank), each
 * against arithmetic from the kernel's shape or the configuration, or
 * against other counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/gpu_recording.h"

/* Traces recorded once: kernel, work-items, group. */
static const char *const shapes[][3] = {
    { "store_half", "1024", "64" }, /* 0: 16 wavefronts, one 2-byte store each */
    { "store_half", "32", "32" },   /* 1: one wavefront of 32 lanes */
    { "store_half", "64", "64" },   /* 2: one wavefront, one store */
    { "store_8", "16384", "64" },   /* 3: eight stores per work-item */
    { "valu_64", "1024", "64" },    /* 4: loads, 64 multiply-adds, a store */
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

static void config(struct rp_config *cfg, bool ideal)
{
    rp_config_defaults(cfg);
    cfg->cores = 1;
    cfg->gpu_cus = 2;
    if (ideal)
        cfg->gpu_memory = RP_GPU_MEM_IDEAL;
}

/* PATH summed over the compute units. */
static double cus_sum(const cJSON *j, unsigned cus, const char *path)
{
    double n = 0;
    for (unsigned c = 0; c < cus; c++) {
        char k[160];
        snprintf(k, sizeof k, "gpu.compute_units.%u.%s", c, path);
        n += gpu_stat(j, k);
    }
    return n;
}

static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
        print_error("got %.12g, expected %.12g\n", got, want);
    assert_true(fabs(got - want) <= 1e-9 * (fabs(want) + 1));
}

/* Every lane active (whole wavefronts) or 32 of them: a vector
 * instruction's operations are its lanes, a scalar ALU, scalar memory or
 * branch instruction's one; OPC is their sum over the GPU's cycles. */
static void test_operations_count_active_lanes(void **state)
{
    (void)state;
    static const struct { size_t shape; double lanes; } cases[] = { { 0, 64 }, { 1, 32 }, { 4, 64 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rp_config cfg;
        config(&cfg, false);
        cJSON *j = gpu_replay_stats(traces[cases[i].shape], &cfg);
        double vector = cus_sum(j, 2, "instructions_by_unit.valu") + cus_sum(j, 2, "instructions_by_unit.vmem") +
                        cus_sum(j, 2, "instructions_by_unit.lds");
        double scalar = cus_sum(j, 2, "instructions_by_unit.salu") + cus_sum(j, 2, "instructions_by_unit.smem") +
                        cus_sum(j, 2, "instructions_by_unit.branch");
        double ops = gpu_stat(j, "gpu.operations");
        assert_true(vector > 0 && scalar > 0);
        assert_close(ops, cases[i].lanes * vector + scalar);
        assert_close(cus_sum(j, 2, "operations"), ops);
        assert_close(gpu_stat(j, "gpu.opc"), ops / gpu_stat(j, "gpu.cycles"));
        /* MPKO: the L2 banks' misses per thousand operations */
        double misses = 0, hub = gpu_stat(j, "gpu_hub.to_memory.bytes") + gpu_stat(j, "gpu_hub.to_gpu.bytes");
        const cJSON *caches = cJSON_GetObjectItemCaseSensitive(j, "caches"), *c;
        cJSON_ArrayForEach(c, caches)
            if (!strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "gpu_l2"))
                misses += cJSON_GetObjectItemCaseSensitive(c, "misses")->valuedouble;
        assert_true(misses > 0);
        assert_close(gpu_stat(j, "gpu.l2_misses"), misses);
        assert_close(gpu_stat(j, "gpu.mpko"), misses * 1000 / ops);
        assert_close(gpu_stat(j, "gpu.l2_memory_bytes"), hub);
        assert_close(gpu_stat(j, "gpu.l2_memory_bytes_per_cycle"), hub / gpu_stat(j, "gpu.cycles"));
        /* per kernel: the same operations, over the kernel's cycles */
        assert_close(gpu_stat(j, "gpu.by_kernel.0.operations"), ops);
        assert_close(gpu_stat(j, "gpu.by_kernel.0.opc"), ops / gpu_stat(j, "gpu.by_kernel.0.cycles"));
        cJSON_Delete(j);
    }
}

/* One wavefront's one store on the ideal memory: its latency grows by
 * exactly the memory's; mean and maximum are that one instruction's. */
static void test_vector_latency_follows_the_memory(void **state)
{
    (void)state;
    double mean[2], max[2];
    static const uint64_t latency[2] = { 100, 300 };
    for (int i = 0; i < 2; i++) {
        struct rp_config cfg;
        config(&cfg, true);
        cfg.ideal_latency = latency[i];
        cJSON *j = gpu_replay_stats(traces[2], &cfg);
        assert_close(gpu_stat(j, "gpu.vector_memory_latency.instructions"),
                     cus_sum(j, 2, "instructions_by_unit.vmem"));
        assert_close(gpu_stat(j, "gpu.vector_memory_latency.instructions"), 1);
        mean[i] = gpu_stat(j, "gpu.vector_memory_latency.mean");
        max[i] = gpu_stat(j, "gpu.vector_memory_latency.max");
        assert_close(mean[i], max[i]);
        assert_true(max[i] >= (double)latency[i]);
        cJSON_Delete(j);
    }
    assert_close(mean[1] - mean[0], (double)(latency[1] - latency[0]));
    assert_close(max[1] - max[0], (double)(latency[1] - latency[0]));
}

/* 64 lanes of 2 contiguous bytes: 128 bytes, two blocks. Per instruction
 * 2 requests, per lane 64, per subwavefront (hardware: stores merged in
 * the L1) 4: each 16 lanes' 32 bytes lie in one block. */
static void test_coalescer_modes(void **state)
{
    (void)state;
    static const struct { const char *mode; double per_store; } cases[] = {
        { "per-instruction", 2 }, { "l1-mshr", 64 }, { "hardware", 4 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rp_config cfg;
        config(&cfg, true);
        char set[64], err[256];
        snprintf(set, sizeof set, "gpu.cu.coalescer=%s", cases[i].mode);
        assert_int_equal(rp_config_set(&cfg, set, err, sizeof err), 0);
        cJSON *j = gpu_replay_stats(traces[0], &cfg);
        double stores = cus_sum(j, 2, "instructions_by_unit.vmem");
        assert_close(stores, 16);
        assert_close(cus_sum(j, 2, "memory.vector_requests"), cases[i].per_store * stores);
        cJSON_Delete(j);
    }
}

/* Kernels with stores and a small vector memory buffer: a store that frees
 * its entry once sent is never slower, and on the store-only kernel, whose
 * buffer was full, faster. Every instruction still runs. */
static void test_nonblocking_stores(void **state)
{
    (void)state;
    static const size_t shapes_of[] = { 3, 4, 0 };
    for (size_t s = 0; s < sizeof shapes_of / sizeof shapes_of[0]; s++) {
        double cycles[2], insts[2], full[2];
        for (int nbs = 0; nbs < 2; nbs++) {
            struct rp_config cfg;
            config(&cfg, false);
            cfg.cu.vmem_buffer = 4;
            cfg.cu.nonblocking_stores = (uint64_t)nbs;
            cJSON *j = gpu_replay_stats(traces[shapes_of[s]], &cfg);
            cycles[nbs] = gpu_stat(j, "gpu.kernels.0.cycles");
            insts[nbs] = gpu_stat(j, "gpu.wavefront_instructions");
            full[nbs] = gpu_stat(j, "gpu.vector_buffer_full_cycles");
            double frac = gpu_stat(j, "gpu.vector_buffer_full_fraction");
            assert_close(frac, full[nbs] / (2 * gpu_stat(j, "gpu.cycles")));
            assert_true(frac >= 0 && frac <= 1);
            cJSON_Delete(j);
        }
        printf("%s %s: %.0f GPU cycles blocking, %.0f non-blocking; buffer full %.0f, %.0f cycles\n",
               shapes[shapes_of[s]][0], shapes[shapes_of[s]][1], cycles[0], cycles[1], full[0], full[1]);
        assert_close(insts[1], insts[0]);
        assert_true(cycles[1] <= cycles[0]);
        if (s == 0) {
            assert_true(full[0] > 0);
            assert_true(cycles[1] < cycles[0]);
        }
    }
}

/* The memory keys: bad values are refused with their key; interleave moves
 * blocks between the banks; controllers of each bank's own are banks x k. */
static void test_l2_keys(void **state)
{
    (void)state;
    struct rp_config cfg;
    char err[512];
    /* the CPU's L1s may have MSHR files of their own, below the L2's, of
     * at most 64 */
    rp_config_defaults(&cfg);
    assert_int_equal(rp_config_set(&cfg, "cache.l1d.mshr=4", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&cfg, err, sizeof err), 0);
    assert_int_equal(rp_config_set(&cfg, "cache.l2.mshr=200", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&cfg, "cache.l1i.mshr=100", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "cache.l1i.mshr"));
    rp_config_defaults(&cfg);
    assert_int_equal(rp_config_set(&cfg, "gpu.l2.interleave=96", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.l2.interleave"));
    rp_config_defaults(&cfg);
    assert_int_equal(rp_config_set(&cfg, "gpu.l2.full_mshr=later", err, sizeof err), -1);
    assert_non_null(strstr(err, "full_mshr"));
    assert_int_equal(rp_config_set(&cfg, "gpu.l2.memory_controllers=2", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&cfg, err, sizeof err), -1); /* gpu.connection = l3 */
    assert_non_null(strstr(err, "gpu.l2.memory_controllers"));
    assert_int_equal(rp_config_set(&cfg, "gpu.l2.memory_controllers=3", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&cfg, "gpu.connection=mc", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&cfg, err, sizeof err), -1); /* not a power of two */
    assert_int_equal(rp_config_set(&cfg, "gpu.l2.memory_controllers=2", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&cfg, err, sizeof err), 0);

    /* One wavefront's 128 bytes at the start of a page (the trace's
     * address ends in 0x000): blocks 0 and 1 of a 256-byte stripe. Eight
     * CUs make two banks: by block one miss each, by 256 bytes both in
     * bank 0. */
    static const double want[2][2] = { { 1, 1 }, { 2, 0 } };
    for (int k = 0; k < 2; k++) {
        config(&cfg, false);
        cfg.gpu_cus = 8;
        cfg.gpu_l2_interleave = k ? 256 : 64;
        cJSON *j = gpu_replay_stats(traces[2], &cfg);
        const cJSON *caches = cJSON_GetObjectItemCaseSensitive(j, "caches"), *c;
        for (int b = 0; b < 2; b++) {
            char name[16];
            snprintf(name, sizeof name, "gpu_l2.%d", b);
            double misses = -1;
            cJSON_ArrayForEach(c, caches)
                if (!strcmp(cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring, name))
                    misses = cJSON_GetObjectItemCaseSensitive(c, "misses")->valuedouble;
            assert_close(misses, want[k][b]);
        }
        cJSON_Delete(j);
    }

    config(&cfg, false);
    cfg.gpu_cus = 8; /* two banks */
    cfg.gpu_connection = RP_GPU_TO_MC;
    cfg.gpu_coherence = RP_GPU_NONCOHERENT;
    cfg.gpu_l2_mcs = 2;
    cJSON *j = gpu_replay_stats(traces[0], &cfg);
    const cJSON *mcs = cJSON_GetObjectItemCaseSensitive(j, "memory_controllers");
    assert_non_null(mcs);
    assert_int_equal(cJSON_GetArraySize(mcs), 2 * 2);
    cJSON_Delete(j);
}

/* A full bank NACKs: the kernel still runs every instruction, the banks
 * NACK for want of entries and no request waits at their doors. */
static void test_nack_when_full(void **state)
{
    (void)state;
    double insts[2], waits[2], nacks[2];
    for (int nack = 0; nack < 2; nack++) {
        struct rp_config cfg;
        config(&cfg, false);
        cfg.gpu_l2.mshr = 2;
        cfg.gpu_l2_full_mshr = nack ? RP_FULL_MSHR_NACK : RP_FULL_MSHR_WAIT;
        cJSON *j = gpu_replay_stats(traces[3], &cfg);
        insts[nack] = gpu_stat(j, "gpu.wavefront_instructions");
        waits[nack] = gpu_stat(j, "gpu.l2_miss_latency.entry_wait_cycles");
        nacks[nack] = 0;
        const cJSON *caches = cJSON_GetObjectItemCaseSensitive(j, "caches"), *c;
        cJSON_ArrayForEach(c, caches)
            if (!strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "gpu_l2"))
                nacks[nack] += cJSON_GetObjectItemCaseSensitive(c, "mshr_nacks")->valuedouble;
        cJSON_Delete(j);
    }
    assert_close(insts[1], insts[0]);
    assert_true(waits[0] > 0);
    assert_close(waits[1], 0);
    assert_true(nacks[1] > nacks[0]);
}

/* gpu.l2.victim_policy: a kernel writing eight blocks per four work-items
 * through a small L2 has written victims to evict. Serialized, misses
 * wait for their victims (the CUs' copies, then the write-back: the parts
 * of a miss before its fetch, counted as they happen) and the kernel runs
 * no faster than early, where those parts are off the miss's path and are
 * not registered. The same instructions run under both. */
static void test_victim_policy(void **state)
{
    (void)state;
    double insts[2], cycles[2];
    for (int ser = 0; ser < 2; ser++) {
        struct rp_config cfg;
        config(&cfg, false);
        cfg.gpu_l2.size = 16384;
        cfg.gpu_l2_victim_policy = (uint64_t)ser;
        cJSON *j = gpu_replay_stats(traces[3], &cfg);
        insts[ser] = gpu_stat(j, "gpu.wavefront_instructions");
        cycles[ser] = gpu_stat(j, "gpu.kernels.0.cycles");
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "gpu"),
                                                          "l2_miss_latency");
        assert_non_null(l);
        if (!ser) {
            assert_null(cJSON_GetObjectItemCaseSensitive(l, "evict_cycles"));
        } else {
            double waits = gpu_stat(j, "gpu.l2_miss_latency.victim_waits");
            double fetches = gpu_stat(j, "gpu.l2_miss_latency.fetches");
            assert_true(waits > 0 && waits <= fetches);
            assert_true(gpu_stat(j, "gpu.l2_miss_latency.invalidate_cycles") > 0);
            double ev = gpu_stat(j, "gpu.l2_miss_latency.evict_cycles");
            /* each wait at least a write-back's trip to memory and back */
            assert_true(ev >= waits);
            assert_close(gpu_stat(j, "gpu.l2_miss_latency.evict_per_fetch"), ev / fetches);
        }
        cJSON_Delete(j);
    }
    printf("store_8 16384, 16 KiB L2: %.0f GPU cycles early, %.0f serialized\n", cycles[0], cycles[1]);
    assert_close(insts[1], insts[0]);
    assert_true(cycles[1] >= cycles[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operations_count_active_lanes),
        cmocka_unit_test(test_vector_latency_follows_the_memory),
        cmocka_unit_test(test_coalescer_modes),
        cmocka_unit_test(test_nonblocking_stores),
        cmocka_unit_test(test_l2_keys),
        cmocka_unit_test(test_nack_when_full),
        cmocka_unit_test(test_victim_policy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
