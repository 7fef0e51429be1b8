/* The FRC and the victim policy against arithmetic: stream_copy over
 * n floats reads n/16 blocks of `in` and writes n/16 of `out`, each block
 * by one instruction and never again, so the one L2 bank (two CUs) misses
 * on each of the n/8 blocks exactly once. With a 16 KiB, 16-way L2 (256
 * blocks in 16 sets) and n = 2560 the working set is the L2 plus N = 64
 * blocks: each buffer's 160 consecutive blocks put 10 in every set, so
 * every set takes 20 blocks into 16 ways and evicts 4, 64 in all. A
 * 64-entry FRC (more than the bank's 32 MSHR and 16 write-back entries
 * together, so never full) takes every miss and swaps each into the L2,
 * and the misses and evictions are those of the L2 without it: the FRC
 * holds blocks in flight and victims leaving, it adds no capacity for a
 * block used once. No request finds its block leaving (no FRC hit). The
 * bank counts each miss's request again as a hit when the block arrives
 * and its MSHR entry's requests run (one each: one instruction per block),
 * so the hits equal the misses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/gpu_recording.h"

#define N_FLOATS 2560
#define L2_BLOCKS 256
#define WORKING_SET (N_FLOATS / 8) /* blocks of in and out */

static const char *const shapes[][3] = { { "stream_copy", "2560", "64" } };
static char traces[1][64];

static int setup(void **state)
{
    (void)state;
    gpu_record_micro(traces, shapes, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gpu_remove_traces(traces, 1);
    return 0;
}

/* The one bank's object in the caches list. */
static const cJSON *bank0(const cJSON *j)
{
    const cJSON *caches = cJSON_GetObjectItemCaseSensitive(j, "caches"), *c;
    cJSON_ArrayForEach(c, caches)
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "gpu_l2"))
            return c;
    fail_msg("no GPU L2 bank in the statistics");
    return NULL;
}

static double field(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_non_null(x);
    return x->valuedouble;
}

static cJSON *run(unsigned frc, uint64_t policy)
{
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 1;
    cfg.gpu_cus = 2; /* one bank */
    cfg.gpu_l2.size = L2_BLOCKS * 64;
    cfg.gpu_l2.ways = 16;
    cfg.gpu_l2_frc_entries = frc;
    cfg.gpu_l2_victim_policy = policy;
    return gpu_replay_stats(traces[0], &cfg);
}

static void test_misses_with_and_without_frc(void **state)
{
    (void)state;
    for (int with = 0; with < 2; with++) {
        cJSON *j = run(with ? 64 : 0, 0);
        const cJSON *b = bank0(j);
        printf("FRC %s: %.0f misses, %.0f hits, %.0f evictions\n", with ? "64" : "off", field(b, "misses"),
               field(b, "hits"), field(b, "evictions"));
        assert_int_equal((int)field(b, "misses"), WORKING_SET);
        assert_int_equal((int)field(b, "hits"), WORKING_SET);
        assert_int_equal((int)field(b, "evictions"), WORKING_SET - L2_BLOCKS);
        assert_int_equal((int)gpu_stat(j, "gpu.l2_misses"), WORKING_SET);
        if (with) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(b, "frc");
            assert_non_null(f);
            assert_int_equal((int)field(f, "fetches"), WORKING_SET);
            assert_int_equal((int)field(f, "full"), 0);
            assert_int_equal((int)field(f, "swaps"), WORKING_SET);
            assert_int_equal((int)field(f, "hits"), 0);
            assert_true(fabs(gpu_stat(j, "gpu.l2_frc.served_fraction") - 1.0) < 1e-9);
        } else {
            assert_null(cJSON_GetObjectItemCaseSensitive(b, "frc"));
        }
        cJSON_Delete(j);
    }
}

/* Serialized, the same misses; only the 64 misses that evicted could wait
 * for their victims (those that had to leave through the queue). */
static void test_serialized_same_misses(void **state)
{
    (void)state;
    cJSON *j = run(0, 1);
    const cJSON *b = bank0(j);
    assert_int_equal((int)field(b, "misses"), WORKING_SET);
    assert_int_equal((int)field(b, "evictions"), WORKING_SET - L2_BLOCKS);
    double waits = gpu_stat(j, "gpu.l2_miss_latency.victim_waits");
    assert_true(waits > 0 && waits <= WORKING_SET - L2_BLOCKS);
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_misses_with_and_without_frc),
        cmocka_unit_test(test_serialized_same_misses),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
