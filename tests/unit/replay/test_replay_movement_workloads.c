/* Seed 004's data-movement workloads (traces/gpu: vecadd, tpacf, cp,
 * stencil3d, llsort) replayed under every copy protocol, integrated and
 * discrete. The byte counts follow from each program's buffers and the
 * order it writes them in (replay/gpu/adsm.h's rules), not from a run:
 *   vecadd N (three buffers of S = 4N bytes; the CPU writes A and B, reads
 *   C): batch moves 3S each way; lazy 2S to the GPU and S back, with a
 *   fault per block written or read; rolling (size 1, no growth) the same
 *   bytes with all but the last dirty block sent eagerly.
 *   tpacf (two point sets of P bytes written in three passes, one
 *   coordinate a pass, after an 80-byte buffer of bounds): lazy sends each
 *   block once; rolling size 1 sends each block once a pass (3 x 2P + 80,
 *   Fig. 6.8's small rolling sizes); rolling size 4, as many blocks as a
 *   set has, keeps a set's blocks dirty through its passes (lazy's bytes).
 * A program that copies explicitly (the "copy" twins, llsort percall and
 * double) is left alone by the protocols: its region takes the same cycles
 * under each. The programs sharing by pointer move no more under lazy than
 * under batch, either way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay/config.h"
#include "tests/unit/gpu_recording.h"

enum { VN = 4096, VS = VN * 4, TN = 1024, TP = TN * 16, BLOCK = 4096 };

static const char *const programs[] = {
    "vecadd 4096 share", "vecadd 4096 copy", "tpacf 1024 8 share", "tpacf 1024 8 copy",
    "cp 32 4 8 share",   "cp 32 4 8 copy",   "stencil3d 32 4 2",   "llsort percall 1024 4",
    "llsort double 1024 4", "llsort hosted 1024 4",
};
enum { NPROG = sizeof programs / sizeof *programs };
static char traces[NPROG][64];

static int record(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPROG; i++)
        gpu_record(traces[i], "kernels", programs[i]);
    return 0;
}

static int drop(void **state)
{
    (void)state;
    for (size_t i = 0; i < NPROG; i++)
        unlink(traces[i]);
    return 0;
}

/* The JSON of PROGRAM under POLICY (block BLOCK, rolling size ROLL without
 * growth when ROLL > 0). */
static cJSON *run(size_t program, const char *policy, unsigned roll, bool discrete)
{
    struct rp_config c;
    char err[512], set[64];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "gpu.coherence=noncoherent", err, sizeof err), 0);
    snprintf(set, sizeof set, "gpu.copy_policy=%s", policy);
    assert_int_equal(rp_config_set(&c, set, err, sizeof err), 0);
    c.gpu_copy_block = BLOCK;
    if (roll) {
        snprintf(set, sizeof set, "gpu.rolling_size=%u", roll);
        assert_int_equal(rp_config_set(&c, set, err, sizeof err), 0);
        assert_int_equal(rp_config_set(&c, "gpu.rolling_growth=0", err, sizeof err), 0);
    }
    c.gpu_attach = discrete ? RP_GPU_DISCRETE : RP_GPU_INTEGRATED;
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    return gpu_replay_json(traces[program], &c);
}

static double dm(const cJSON *j, const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "gpu.data_movement.%s", name);
    return gpu_stat(j, path);
}

static void vecadd_bytes(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        cJSON *batch = run(0, "batch", 0, d), *lazy = run(0, "lazy", 0, d), *roll = run(0, "rolling", 1, d);
        assert_int_equal(dm(batch, "bytes_to_gpu"), 3 * VS);
        assert_int_equal(dm(batch, "bytes_to_cpu"), 3 * VS);
        assert_int_equal(dm(lazy, "bytes_to_gpu"), 2 * VS);
        assert_int_equal(dm(lazy, "bytes_to_cpu"), VS);
        assert_int_equal(dm(lazy, "faults"), 3 * VS / BLOCK);
        assert_int_equal(dm(roll, "bytes_to_gpu"), 2 * VS);
        assert_int_equal(dm(roll, "bytes_to_cpu"), VS);
        assert_int_equal(dm(roll, "eager_transfers"), 2 * VS / BLOCK - 1);
        cJSON_Delete(batch);
        cJSON_Delete(lazy);
        cJSON_Delete(roll);
    }
}

static void tpacf_passes(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        cJSON *lazy = run(2, "lazy", 0, d), *r1 = run(2, "rolling", 1, d), *r4 = run(2, "rolling", TP / BLOCK, d);
        assert_int_equal(dm(lazy, "bytes_to_gpu"), 2 * TP + 80);
        assert_int_equal(dm(r1, "bytes_to_gpu"), 3 * 2 * TP + 80);
        assert_int_equal(dm(r4, "bytes_to_gpu"), 2 * TP + 80);
        cJSON_Delete(lazy);
        cJSON_Delete(r1);
        cJSON_Delete(r4);
    }
}

static void explicit_copies_untouched(void **state)
{
    (void)state;
    static const size_t copying[] = { 1, 3, 5, 7, 8 };
    for (size_t i = 0; i < sizeof copying / sizeof *copying; i++)
        for (int d = 0; d < 2; d++) {
            cJSON *launch = run(copying[i], "launch", 0, d), *batch = run(copying[i], "batch", 0, d);
            cJSON *lazy = run(copying[i], "lazy", 0, d);
            double c = gpu_stat(launch, "roi.cycles");
            if (gpu_stat(batch, "roi.cycles") != c || gpu_stat(lazy, "roi.cycles") != c)
                print_error("%s: region %.0f (launch), %.0f (batch), %.0f (lazy)\n", programs[copying[i]], c,
                            gpu_stat(batch, "roi.cycles"), gpu_stat(lazy, "roi.cycles"));
            assert_true(gpu_stat(batch, "roi.cycles") == c && gpu_stat(lazy, "roi.cycles") == c);
            assert_int_equal(dm(batch, "bytes_to_gpu") + dm(lazy, "bytes_to_gpu"), 0);
            cJSON_Delete(launch);
            cJSON_Delete(batch);
            cJSON_Delete(lazy);
        }
}

static void sharing_programs_lazy_moves_less(void **state)
{
    (void)state;
    static const size_t sharing[] = { 0, 2, 4, 6, 9 };
    for (size_t i = 0; i < sizeof sharing / sizeof *sharing; i++)
        for (int d = 0; d < 2; d++) {
            cJSON *batch = run(sharing[i], "batch", 0, d), *lazy = run(sharing[i], "lazy", 0, d);
            cJSON *roll = run(sharing[i], "rolling", 0, d);
            assert_true(dm(batch, "bytes_to_gpu") >= dm(lazy, "bytes_to_gpu"));
            assert_true(dm(batch, "bytes_to_cpu") >= dm(lazy, "bytes_to_cpu"));
            assert_true(dm(lazy, "bytes_to_gpu") + dm(lazy, "bytes_to_cpu") > 0);
            assert_true(dm(roll, "bytes_to_cpu") == dm(lazy, "bytes_to_cpu"));
            cJSON_Delete(batch);
            cJSON_Delete(lazy);
            cJSON_Delete(roll);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vecadd_bytes),
        cmocka_unit_test(tpacf_passes),
        cmocka_unit_test(explicit_copies_untouched),
        cmocka_unit_test(sharing_programs_lazy_moves_less),
    };
    return cmocka_run_group_tests(tests, record, drop);
}
