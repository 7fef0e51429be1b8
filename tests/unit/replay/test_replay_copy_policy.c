/* The copy protocols and the discrete GPU end to end, on copy_touch
 * (traces/gpu/copy_touch.c: the CPU writes all of IN, the GPU all of OUT,
 * the CPU reads the first READ ints of OUT; both buffers S bytes). The
 * expected numbers follow from the protocols' rules (replay/gpu/adsm.h)
 * and the link's arithmetic (include/cgm/xfer.h), not from a run:
 * batch moves 2S each way; lazy S to the GPU and the blocks READ ints span
 * back, a fault per block written and per block read; rolling the same
 * bytes with all but the rolling size's blocks sent eagerly, so its launch
 * waits less; a discrete launch waits the link's latency plus the bytes
 * and their packets' overhead over its bandwidth. The defaults register
 * no data_movement statistics, and a protocol needs the GPU's own pages.
 * Double buffering (traces/gpu/double_buffer.c, seed 004 Sec. 4.2.3): the
 * asynchronous copy of the next chunk overlaps this chunk's kernel, so
 * the two-buffer run is shorter than the one-buffer run by at most the
 * smaller of the copies' and the kernels' time (what overlapping can hide),
 * by at least half of it when the two are comparable, and is never shorter
 * than the link's busy time or the kernels' sum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgm/xfer.h"
#include "replay/config.h"
#include "tests/unit/gpu_recording.h"

enum { N = 65536, READ = 1024, S = N * 4 };
static char trace[64];

static int record(void **state)
{
    (void)state;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "copy_touch %d %d", N, READ);
    gpu_record(trace, "kernels", cmd);
    return 0;
}

static int drop(void **state)
{
    (void)state;
    unlink(trace);
    return 0;
}

static cJSON *run(const char *policy, uint64_t block, bool discrete)
{
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "gpu.coherence=noncoherent", err, sizeof err), 0);
    char set[64];
    snprintf(set, sizeof set, "gpu.copy_policy=%s", policy);
    assert_int_equal(rp_config_set(&c, set, err, sizeof err), 0);
    c.gpu_copy_block = block;
    c.gpu_attach = discrete ? RP_GPU_DISCRETE : RP_GPU_INTEGRATED;
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    return gpu_replay_stats(trace, &c);
}

static double dm(const cJSON *j, const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "gpu.data_movement.%s", name);
    return gpu_stat(j, path);
}

static void byte_counts(void **state)
{
    (void)state;
    static const uint64_t blocks[] = { 4096, 65536 };
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < 2; i++) {
            uint64_t b = blocks[i], written = S / b, read = (READ * 4 + b - 1) / b;
            cJSON *batch = run("batch", b, d), *lazy = run("lazy", b, d), *roll = run("rolling", b, d);
            assert_int_equal(dm(batch, "bytes_to_gpu"), 2 * S);
            assert_int_equal(dm(batch, "bytes_to_cpu"), 2 * S);
            assert_int_equal(dm(batch, "faults"), 0);
            assert_int_equal(dm(lazy, "bytes_to_gpu"), S);
            assert_int_equal(dm(lazy, "bytes_to_cpu"), read * b);
            assert_int_equal(dm(lazy, "transfers_to_gpu"), written);
            assert_int_equal(dm(lazy, "faults"), written + read);
            double moved_batch = dm(batch, "bytes_to_gpu") + dm(batch, "bytes_to_cpu");
            double moved_lazy = dm(lazy, "bytes_to_gpu") + dm(lazy, "bytes_to_cpu");
            assert_true(moved_batch >= moved_lazy && moved_lazy >= S + READ * 4);
            /* rolling: the same bytes; rolling size 2 + 2 per buffer = 6 blocks stay dirty */
            assert_int_equal(dm(roll, "bytes_to_gpu"), S);
            assert_int_equal(dm(roll, "bytes_to_cpu"), read * b);
            assert_int_equal(dm(roll, "eager_transfers"), written > 6 ? written - 6 : 0);
            if (written > 6)
                assert_true(dm(roll, "launch_wait_cycles") < dm(lazy, "launch_wait_cycles"));
            cJSON_Delete(batch);
            cJSON_Delete(lazy);
            cJSON_Delete(roll);
        }
}

static void discrete_launch_waits_the_link(void **state)
{
    (void)state;
    struct rp_config c;
    rp_config_defaults(&c);
    struct cgm_link_config lc = { .lanes = c.pcie_lanes, .lane_mbps = c.pcie_lane_mbps,
                                  .latency_ps = c.pcie_latency * 1000, .max_payload = c.pcie_max_payload,
                                  .packet_overhead = c.pcie_packet_overhead };
    /* lazy, 64 KiB blocks: IN's four blocks go back to back at the launch */
    double ps = (double)lc.latency_ps + 4.0 * (double)cgm_link_wire_ps(&lc, 65536);
    double want = ps * (double)c.frequency / 1e12;
    cJSON *j = run("lazy", 65536, true);
    double got = dm(j, "launch_wait_cycles");
    assert_true(got >= want && got <= want * 1.01);
    assert_int_equal(gpu_stat(j, "gpu.data_movement.link.bytes"), S + 65536);
    assert_int_equal(gpu_stat(j, "gpu.data_movement.link.dma_bursts_l3") +
                     gpu_stat(j, "gpu.data_movement.link.dma_bursts_memory"), S / c.pcie_dma_burst);
    cJSON_Delete(j);
}

static void defaults_and_errors(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    cJSON *j = gpu_replay_stats(trace, &c);
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "gpu"), "data_movement"));
    cJSON_Delete(j);
    assert_int_equal(rp_config_set(&c, "gpu.copy_policy=lazy", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.copy_policy"));
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "gpu.attach=discrete", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.attach"));
    assert_int_equal(rp_config_set(&c, "gpu.copy_block=2KiB", err, sizeof err), -1);
    assert_int_equal(rp_config_set(&c, "gpu.copy_policy=eager", err, sizeof err), -1);
}

static void double_buffering(void **state)
{
    (void)state;
    char single[64], twin[64];
    gpu_record(single, "kernels", "double_buffer single 6 16384");
    gpu_record(twin, "kernels", "double_buffer double 6 16384");
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "gpu.coherence=noncoherent", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.attach=discrete", err, sizeof err), 0);
    cJSON *a = gpu_replay_json(single, &c), *b = gpu_replay_json(twin, &c);
    double ratio = (double)c.frequency / (double)c.gpu_frequency;
    double sa = gpu_stat(a, "roi.cycles"), sb = gpu_stat(b, "roi.cycles");
    double kernels = gpu_kernel_cycles(b) * ratio;
    double link = gpu_stat(b, "roi.gpu.data_movement.link.busy_ps") * (double)c.frequency / 1e12;
    /* the asynchronous copies: every chunk's input but the first, which nothing overlaps */
    struct cgm_link_config lc = { .lanes = c.pcie_lanes, .lane_mbps = c.pcie_lane_mbps,
                                  .latency_ps = c.pcie_latency * 1000, .max_payload = c.pcie_max_payload,
                                  .packet_overhead = c.pcie_packet_overhead };
    double copy = (double)(lc.latency_ps + cgm_link_wire_ps(&lc, 16384 * 8)) * (double)c.frequency / 1e12;
    double hideable = 5 * (copy < kernels / 6 ? copy : kernels / 6);
    assert_int_equal(gpu_stat(b, "gpu.data_movement.async_copies"), 6);
    assert_int_equal(gpu_stat(a, "gpu.data_movement.async_copies"), 0);
    assert_true(sb < sa);
    assert_true(sa - sb <= hideable * 1.02);
    assert_true(sa - sb >= hideable / 2);
    assert_true(sb >= link && sb >= kernels);
    cJSON_Delete(a);
    cJSON_Delete(b);
    unlink(single);
    unlink(twin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(byte_counts), cmocka_unit_test(discrete_launch_waits_the_link),
        cmocka_unit_test(defaults_and_errors), cmocka_unit_test(double_buffering),
    };
    return cmocka_run_group_tests(tests, record, drop);
}
