/* Statistics per kernel: gpu.by_kernel (the launches of each kernel of the
 * program added up) and --kernels-out (one line per launch). The outside
 * reference is the trace itself as tracetool reads it: each launch's
 * wavefront instructions, by unit, are its work-group streams' (tracetool
 * info --json says which streams are a launch's, tracetool stats --json
 * counts their instructions by unit). Besides: the launches add up to the
 * whole run's GPU counters; each line's cycles are its kernel's; every
 * vector L1 access is a hit, a miss or coalesced into a miss in flight;
 * the kernels' rows add up to by_kernel; in windows short enough to cut
 * launches in pieces, by_kernel holds each window's GPU work (a running
 * launch's part included); and in the region of interest by_kernel holds
 * the launches inside it. Two traces: kmeans (two
 * launches of two kernels) and a micro-kernel launched twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/sirec.h"
#include "tests/unit/gpu_recording.h"
#include "tests/unit/replay_cli.h"
#include "tests/unit/temp_file.h"

static char kmeans[64], micro[64], hotspot[64];

static int setup(void **state)
{
    (void)state;
    gpu_record(kmeans, "kernels", "kmeans");
    gpu_record(micro, "kernels/test", "gpu_micro stream_copy 1024 64 2");
    gpu_record(hotspot, "kernels", "hotspot");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(kmeans);
    unlink(micro);
    unlink(hotspot);
    return 0;
}

static double at(const cJSON *j, const char *path) { return json_number_or_0(j, path); }

/* `tracetool SUB --json TRACE`, parsed. */
static cJSON *tracetool_json(const char *sub, const char *trace)
{
    const char *bin = getenv("CGM_BIN");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/tracetool %s --json %s", bin ? bin : "bin", sub, trace);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 20, n = 0, got;
    char *text = malloc(cap);
    assert_non_null(text);
    while ((got = fread(text + n, 1, cap - 1 - n, p)) > 0)
        n += got;
    text[n] = 0;
    assert_int_equal(pclose(p), 0);
    assert_true(n < cap - 1);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

/* tracetool's count of unit UNIT (NULL: all) over LAUNCH's work-group streams. */
static double recorded(const cJSON *info, const cJSON *stats, int launch, const char *unit)
{
    double n = 0;
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(info, "streams")) {
        if (at(s, "launch_id") != launch)
            continue;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(stats, "streams"))
            if (at(t, "id") == at(s, "id")) {
                const cJSON *si = cJSON_GetObjectItemCaseSensitive(t, "si");
                n += unit ? at(cJSON_GetObjectItemCaseSensitive(si, "mix"), unit) : at(si, "wavefront_instructions");
            }
    }
    return n;
}

/* Counters a launch's row and by_kernel share, which add up over launches. */
static const char *const summed[] = { "launches", "cycles", "wavefront_instructions", "busy_cycles", "idle_cycles",
                                      "stall_cycles.memory_wait", "stall_cycles.dependency",
                                      "occupancy.wavefront_cycles", "memory.vector_requests",
                                      "memory.scalar_requests", "gpu_l1v.accesses", "gpu_l1v.misses",
                                      "gpu_l2.accesses", "gpu_l2.misses", "dram.reads", "gpu_hub.to_gpu.bytes" };

static void check_trace(const char *trace, size_t launches)
{
    const char *json = test_temp_file(""), *lines = test_temp_file("");
    free(replay_cli("-o %s --kernels-out %s %s", json, lines, trace));
    cJSON *run = read_json_file(json), *info = tracetool_json("info", trace), *stats = tracetool_json("stats", trace);
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(run, "gpu");
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(gpu, "by_kernel");
    size_t n;
    cJSON **l = read_json_lines(lines, &n);
    assert_int_equal(n, launches);
    double insts = 0, l1 = 0, busy = 0;
    for (size_t i = 0; i < n; i++) {
        int launch = (int)at(l[i], "launch");
        assert_int_equal(launch, i + 1);
        assert_int_equal(at(l[i], "launches"), 1);
        /* the trace's own count of this launch's instructions, and by unit */
        assert_true(at(l[i], "wavefront_instructions") > 0);
        assert_true(at(l[i], "wavefront_instructions") == recorded(info, stats, launch, NULL));
        for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++) {
            char path[64];
            snprintf(path, sizeof path, "instructions_by_unit.%s", cgm_si_unit_name(u));
            assert_true(at(l[i], path) == recorded(info, stats, launch, cgm_si_unit_name(u)));
        }
        /* its cycles are its kernel's; every L1 access is counted once */
        const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(gpu, "kernels"), (int)i);
        assert_true(at(l[i], "cycles") == at(k, "cycles") && at(l[i], "start") == at(k, "start"));
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(l[i], "name")->valuestring,
                            cJSON_GetObjectItemCaseSensitive(k, "name")->valuestring);
        assert_true(at(l[i], "gpu_l1v.hits") + at(l[i], "gpu_l1v.misses") + at(l[i], "gpu_l1v.coalesced") ==
                    at(l[i], "gpu_l1v.accesses"));
        assert_true(at(l[i], "gpu_l1v.accesses") == at(l[i], "memory.vector_requests"));
        insts += at(l[i], "wavefront_instructions");
        l1 += at(l[i], "gpu_l1v.accesses");
        busy += at(l[i], "busy_cycles");
    }
    /* the launches are all the GPU did */
    assert_true(insts == at(gpu, "wavefront_instructions"));
    double all_l1 = 0, all_busy = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(run, "caches"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "gpu_l1v"))
            all_l1 += at(c, "accesses");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(gpu, "compute_units"))
        all_busy += at(c, "busy_cycles");
    assert_true(l1 == all_l1 && busy == all_busy);
    /* by_kernel: each kernel's launches added up */
    cJSON_ArrayForEach(c, by) {
        const char *name = cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring;
        for (size_t p = 0; p < sizeof summed / sizeof summed[0]; p++) {
            double sum = 0;
            for (size_t i = 0; i < n; i++)
                if (!strcmp(cJSON_GetObjectItemCaseSensitive(l[i], "name")->valuestring, name))
                    sum += at(l[i], summed[p]);
            if (sum != at(c, summed[p]))
                fail_msg("%s: by_kernel %s.%s is %.0f, its launches add up to %.0f", trace, name, summed[p],
                         at(c, summed[p]), sum);
        }
        assert_true(at(c, "occupancy.average_wavefronts") ==
                    at(c, "occupancy.wavefront_cycles") / at(c, "cycles"));
    }
    free_json_lines(l, n);
    cJSON_Delete(run);
    cJSON_Delete(info);
    cJSON_Delete(stats);
    unlink(json);
    unlink(lines);
}

/* Windows of a tenth of the shortest kernel's time: by_kernel's change in
 * each is the GPU's. */
static void check_windows(const char *trace)
{
    const char *json = test_temp_file(""), *lines = test_temp_file("");
    free(replay_cli("-o %s %s", json, trace));
    cJSON *run = read_json_file(json);
    const cJSON *k;
    double shortest = 1e300;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "gpu"), "kernels"))
        if (at(k, "cycles") < shortest)
            shortest = at(k, "cycles");
    /* GPU cycles to CPU cycles */
    double len = shortest / at(run, "gpu.frequency") * (at(run, "cycles") / at(run, "seconds")) / 10;
    free(replay_cli("-o /dev/null --windows %.0f --windows-out %s %s", len, lines, trace));
    size_t n, busy = 0;
    cJSON **w = read_json_lines(lines, &n);
    for (size_t i = 0; i < n; i++) {
        double by = 0, cycles = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(w[i], "gpu"), "by_kernel")) {
            by += at(x, "wavefront_instructions");
            cycles += at(x, "cycles");
        }
        assert_true(by == at(w[i], "gpu.wavefront_instructions"));
        busy += cycles > 0;
    }
    assert_true(busy >= 10); /* the launches were cut in pieces */
    free_json_lines(w, n);
    cJSON_Delete(run);
    unlink(json);
    unlink(lines);
}

static void test_two_kernels(void **state)
{
    (void)state;
    check_trace(kmeans, 2);
    check_windows(kmeans);
}

static void test_one_kernel_twice(void **state)
{
    (void)state;
    check_trace(micro, 2);
}

/* hotspot's region of interest holds its last three launches of four. */
static void test_region_of_interest(void **state)
{
    (void)state;
    const char *json = test_temp_file("");
    free(replay_cli("-o %s %s", json, hotspot));
    cJSON *run = read_json_file(json);
    assert_int_equal(at(run, "gpu.by_kernel.0.launches"), 4);
    assert_int_equal(at(run, "roi.gpu.by_kernel.0.launches"), 3);
    assert_true(at(run, "roi.gpu.by_kernel.0.wavefront_instructions") == at(run, "roi.gpu.wavefront_instructions"));
    double cycles = 0;
    for (int i = 0; i < 4; i++) {
        char path[64];
        snprintf(path, sizeof path, "roi.gpu.kernels.%d.cycles", i);
        cycles += at(run, path);
    }
    assert_true(at(run, "roi.gpu.by_kernel.0.cycles") == cycles);
    cJSON_Delete(run);
    unlink(json);
}

/* A CPU-only trace: no GPU group, an empty file and a warning. */
static void test_kernels_out_without_gpu(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT"), *lines = test_temp_file("stale");
    char trace[512];
    snprintf(trace, sizeof trace, "%s/traces/golden/v2-x86-hello.cgt", root ? root : ".");
    char *out = replay_cli("-o /dev/null --kernels-out %s %s", lines, trace);
    assert_non_null(strstr(out, "has no GPU work"));
    char *text = read_whole_file(lines);
    assert_string_equal(text, "");
    free(text);
    free(out);
    unlink(lines);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_kernels),
        cmocka_unit_test(test_one_kernel_twice),
        cmocka_unit_test(test_region_of_interest),
        cmocka_unit_test(test_kernels_out_without_gpu),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
