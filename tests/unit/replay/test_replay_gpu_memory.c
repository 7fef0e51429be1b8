/* The compute units on the memory system's GPU hierarchy (gpu.memory =
 * hierarchy): its caches are listed with the CPU's, one vector L1 per
 * compute unit and the L2 banks the seed builds (one per four compute
 * units, a power of two), and every request the compute units send reaches
 * a vector L1; every GPU workload completes in each of the four
 * organisations; the [gpu.l1] keys reach the L1s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "tests/unit/gpu_recording.h"
#include "tests/unit/replay_run.h"

static const char *const workloads[] = {
    "hotspot", "backprop", "lud", "kmeans", "nw", "bfs", "threads_launch 3",
    "collab_backprop 2 50 share", "collab_matmul 2 50 copy", "collab_edge 2 50 share",
    "collab_knn 2 50 copy", "collab_write 2 50 share",
};
#define NWORK (sizeof workloads / sizeof workloads[0])
static char traces[NWORK][64];

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < NWORK; i++)
        gpu_record(traces[i], "kernels", workloads[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < NWORK; i++)
        unlink(traces[i]);
    return 0;
}

static uint64_t recorded_instructions(const char *path)
{
    char err[256];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    uint64_t n = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++)
        if (cgm_reader_stream(r, i)->info.kind == CGM_STREAM_GPU_WORKGROUP)
            n += cgm_reader_stream(r, i)->totals.instructions;
    cgm_reader_close(r);
    return n;
}

/* The sum of FIELD over the caches of KIND; their number in *count. */
static double caches_sum(const cJSON *j, const char *kind, const char *field, unsigned *count)
{
    double sum = 0;
    unsigned n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "caches")) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "kind");
        if (!cJSON_IsString(k) || strcmp(k->valuestring, kind))
            continue;
        n++;
        sum += gpu_stat(c, field);
    }
    if (count)
        *count = n;
    return sum;
}

static double kernel_cycles(const cJSON *j)
{
    double sum = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "gpu"), "kernels"))
        sum += gpu_stat(k, "cycles");
    return sum;
}

static void test_gpu_caches_in_statistics(void **state)
{
    (void)state;
    static const unsigned cus[] = { 1, 4, 8, 12, 16 };
    for (size_t i = 0; i < sizeof cus / sizeof cus[0]; i++) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        assert_int_equal(cfg.gpu_memory, RP_GPU_MEM_HIERARCHY); /* the default for GPU traces */
        cfg.gpu_cus = cus[i];
        cJSON *j = gpu_replay_stats(traces[1], &cfg);
        unsigned l1s, l2s, banks = 1;
        while (banks * 2 <= cus[i] / 4)
            banks *= 2;
        double accesses = caches_sum(j, "gpu_l1v", "accesses", &l1s);
        caches_sum(j, "gpu_l2", "accesses", &l2s);
        assert_int_equal(l1s, cus[i]);
        assert_int_equal(l2s, banks);
        double sent = 0;
        for (unsigned c = 0; c < cus[i]; c++) {
            char k[96];
            snprintf(k, sizeof k, "gpu.compute_units.%u.memory.vector_requests", c);
            sent += gpu_stat(j, k);
            snprintf(k, sizeof k, "gpu.compute_units.%u.memory.scalar_requests", c);
            sent += gpu_stat(j, k); /* scalar loads go through the vector L1 */
        }
        assert_true(sent > 0);
        assert_int_equal(accesses, sent);
        cJSON_Delete(j);
    }
}

/* Every workload issues every recorded wavefront instruction in NC-MC,
 * NC-L3, C-MC and C-L3, and says which organisation it ran in. */
static void test_workloads_complete_in_every_organisation(void **state)
{
    (void)state;
    static const char *const names[2][2] = { { "NC-MC", "NC-L3" }, { "C-MC", "C-L3" } };
    for (size_t i = 0; i < NWORK; i++) {
        uint64_t recorded = recorded_instructions(traces[i]);
        for (unsigned coh = 0; coh < 2; coh++)
            for (unsigned conn = 0; conn < 2; conn++) {
                struct rp_config cfg;
                rp_config_defaults(&cfg);
                cfg.gpu_coherence = coh ? RP_GPU_COHERENT : RP_GPU_NONCOHERENT;
                cfg.gpu_connection = conn ? RP_GPU_TO_L3 : RP_GPU_TO_MC;
                cJSON *j = gpu_replay_stats(traces[i], &cfg);
                assert_int_equal(gpu_stat(j, "gpu.wavefront_instructions"), recorded);
                const cJSON *mem = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "gpu"),
                                                                    "memory");
                const cJSON *org = cJSON_GetObjectItemCaseSensitive(mem, "organisation");
                assert_true(cJSON_IsString(org));
                assert_string_equal(org->valuestring, names[coh][conn]);
                cJSON_Delete(j);
            }
    }
}

/* [gpu.l1] reaches the vector L1s: a smaller L1 misses at least as often;
 * a slower one makes the kernels slower; with one request per lane
 * (l1-mshr) a coalescer of one entry parks fewer requests than one of 32,
 * and the kernels wait longer. */
static void test_l1_keys_reach_the_caches(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cJSON *base = gpu_replay_stats(traces[0], &cfg);
    cfg.gpu_l1.size = 1024;
    cJSON *small = gpu_replay_stats(traces[0], &cfg);
    assert_true(caches_sum(small, "gpu_l1v", "misses", NULL) > caches_sum(base, "gpu_l1v", "misses", NULL));
    rp_config_defaults(&cfg);
    cfg.gpu_l1.latency = 20;
    cJSON *slow = gpu_replay_stats(traces[0], &cfg);
    assert_true(kernel_cycles(slow) > kernel_cycles(base));
    rp_config_defaults(&cfg);
    cfg.cu.coalescer = RP_COALESCE_L1_MSHR;
    cJSON *wide = gpu_replay_stats(traces[0], &cfg);
    cfg.gpu_l1.coalescer = 1;
    cJSON *narrow = gpu_replay_stats(traces[0], &cfg);
    assert_true(caches_sum(narrow, "gpu_l1v", "coalesced", NULL) < caches_sum(wide, "gpu_l1v", "coalesced", NULL));
    assert_true(kernel_cycles(narrow) > kernel_cycles(wide));
    cJSON_Delete(base);
    cJSON_Delete(small);
    cJSON_Delete(slow);
    cJSON_Delete(wide);
    cJSON_Delete(narrow);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_caches_in_statistics),
        cmocka_unit_test(test_workloads_complete_in_every_organisation),
        cmocka_unit_test(test_l1_keys_reach_the_caches),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
