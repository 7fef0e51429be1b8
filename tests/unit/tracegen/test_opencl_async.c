/* The guest OpenCL platform's non-blocking buffer writes are the driver's
 * asynchronous copies, and a discrete GPU's link and DMA engine time them:
 *   - traces/opencl/double_buffer records one gpu_copy_async per
 *     non-blocking clEnqueueWriteBuffer (8 for 8 chunks) and none when
 *     every write blocks; both run the same kernels and print PASS;
 *   - replayed discrete, the non-blocking run's region of interest is
 *     shorter than the blocking twin's, and never shorter than the larger
 *     of the link's busy time and the kernels' time;
 *   - in the blocking run every copy waits the link's arithmetic: the
 *     wire time of its packets (payload and 24-byte overheads at 16 lanes
 *     x 500 MB/s) plus the 1 us latency, plus, for a write, the DMA
 *     engine's read of its first burst (the L3's latency when the L3 holds
 *     it), within 1%; the DMA engine reads every write in 128-byte bursts;
 *   - with an L3 too small to keep the input, the first bursts come from
 *     memory: each write waits a DRAM row miss more (tRCD + CL + BL/2 of
 *     DDR3-1600: 32.5 ns, 130 CPU cycles at 4 GHz). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/opencl_runs.h"
#include "tests/unit/si_files.h"

enum { CHUNKS = 8, RECORDS = 16384, CPU_PER_GPU = 4 /* 4 GHz / 1 GHz */ };
static const double IN_BYTES = RECORDS * 8.0, OUT_BYTES = RECORDS * 4.0;

struct run {
    double roi_cycles, copy_wait, busy_ps, kernel_gpu_cycles, bursts_l3, bursts_memory, async_copies;
};

static double num(const cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *name = strtok(buf, "."); name; name = strtok(NULL, "."))
        o = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(o))
        fail_msg("no number at %s", path);
    return o->valuedouble;
}

static struct run replay(const char *trace, const char *extra)
{
    char cmd[8192], json[1200];
    snprintf(json, sizeof json, "%.1000s/replay.json", cl_runs.tmp);
    snprintf(cmd, sizeof cmd, "%s/replay -q --roi --set gpu.coherence=noncoherent --set gpu.attach=discrete %s "
             "-o %s %s", cl_runs.bin, extra, json, trace);
    free(cl_output_of(cmd));
    char *text = si_test_read_file(json, NULL);
    assert_non_null(text);
    cJSON *d = cJSON_Parse(text);
    assert_non_null(d);
    struct run r = { .roi_cycles = num(d, "cycles"), .copy_wait = num(d, "gpu.data_movement.copy_wait_cycles"),
                     .busy_ps = num(d, "gpu.data_movement.link.busy_ps"),
                     .bursts_l3 = num(d, "gpu.data_movement.link.dma_bursts_l3"),
                     .bursts_memory = num(d, "gpu.data_movement.link.dma_bursts_memory"),
                     .async_copies = num(d, "gpu.data_movement.async_copies") };
    const cJSON *k, *ks = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "gpu"), "kernels");
    cJSON_ArrayForEach(k, ks) r.kernel_gpu_cycles += num(k, "cycles");
    /* gpu.dram is the discrete GPU's own memory, the kernels' misses went there */
    assert_true(num(d, "gpu.dram.reads") > 0);
    cJSON_Delete(d);
    free(text);
    return r;
}

static char blocking[1200], nonblocking[1200];

static int setup(void **state)
{
    (void)state;
    if (cl_runs_init())
        return 1;
    snprintf(blocking, sizeof blocking, "%.1000s/blocking.cgt", cl_runs.tmp);
    snprintf(nonblocking, sizeof nonblocking, "%.1000s/nonblocking.cgt", cl_runs.tmp);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cl_runs_cleanup();
}

/* wire time of a transfer: ceil(bytes / 256) packets of 24 bytes each more, at 8000 MB/s */
static double wire_ps(double bytes) { return (bytes + ceil(bytes / 256) * 24) * 1e6 / 8000; }

static void test_nonblocking_writes_are_async_copies(void **state)
{
    (void)state;
    char prog[256];
    snprintf(prog, sizeof prog, "opencl/static/double_buffer blocking %d %d", CHUNKS, RECORDS);
    char *o = cl_record(prog, blocking);
    assert_non_null(strstr(o, "PASS"));
    free(o);
    snprintf(prog, sizeof prog, "opencl/static/double_buffer nonblocking %d %d", CHUNKS, RECORDS);
    o = cl_record(prog, nonblocking);
    assert_non_null(strstr(o, "PASS"));
    free(o);
    assert_int_equal(cl_async_copies(blocking), 0);
    assert_int_equal(cl_async_copies(nonblocking), CHUNKS);
    struct cl_kernel_work a, b;
    cl_kernel_work(blocking, &a);
    cl_kernel_work(nonblocking, &b);
    cl_same_kernel_work(&a, &b);
}

static void test_nonblocking_overlaps_the_kernels(void **state)
{
    (void)state;
    struct run b = replay(blocking, ""), n = replay(nonblocking, "");
    assert_int_equal(n.async_copies, CHUNKS);
    /* the same transfers cross the link either way */
    assert_true(b.busy_ps == n.busy_ps);
    assert_true(n.roi_cycles < b.roi_cycles);
    double link = n.busy_ps * 4 / 1000, kernels = n.kernel_gpu_cycles * CPU_PER_GPU;
    assert_true(n.roi_cycles >= (link > kernels ? link : kernels));
    /* the blocking twin does them one after the other */
    assert_true(b.roi_cycles >= link + b.kernel_gpu_cycles * CPU_PER_GPU);
}

static void test_copies_wait_the_link_arithmetic(void **state)
{
    (void)state;
    struct run b = replay(blocking, "");
    double busy = CHUNKS * (wire_ps(IN_BYTES) + wire_ps(OUT_BYTES));
    assert_true(fabs(b.busy_ps - busy) <= 1);
    /* the CPU wrote the input just before: its first bursts are in the L3 (12 cycles) */
    double want = (2 * CHUNKS * 1e6 + busy) * 4 / 1000 + CHUNKS * 12.0;
    if (fabs(b.copy_wait - want) > want / 100)
        fail_msg("the copies waited %.0f CPU cycles, the link's arithmetic says %.0f", b.copy_wait, want);
    assert_true(b.bursts_l3 + b.bursts_memory == CHUNKS * IN_BYTES / 128);
    assert_true(b.bursts_l3 == CHUNKS * IN_BYTES / 128); /* 1 MiB of input, an L3 of 8 MiB */
    struct run s = replay(blocking, "--set cache.l3.size=64KiB");
    assert_true(s.bursts_memory > 0);
    assert_true(s.bursts_l3 + s.bursts_memory == CHUNKS * IN_BYTES / 128);
    double row_miss = (11 + 11 + 8 / 2) * 1.25 * 4; /* CPU cycles */
    if (fabs(s.copy_wait - b.copy_wait - CHUNKS * row_miss) > CHUNKS)
        fail_msg("the copies waited %.0f CPU cycles more from memory, %.0f expected", s.copy_wait - b.copy_wait,
                 CHUNKS * row_miss);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonblocking_writes_are_async_copies),
        cmocka_unit_test(test_nonblocking_overlaps_the_kernels),
        cmocka_unit_test(test_copies_wait_the_link_arithmetic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
