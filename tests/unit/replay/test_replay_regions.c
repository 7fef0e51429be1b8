/* Regions of interest numbered: a guest marking two regions (roi_pairs:
 * the same loop A times in the first, B = 3A times in the second, and
 * 5A times between them and after) gets "regions" with both, in order, and
 * "roi" their sum, without the cycles and instructions between them. The
 * reference is the guest's loop counts: the second region's instructions
 * are three times the first's (up to the markers' few), and the run's
 * instructions outside the regions at least the two gaps' 10A
 * iterations. With --roi --windows the windows lie inside the regions,
 * one region each, and add up to the sum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/replay_cli.h"
#include "tests/unit/temp_file.h"
#include "tests/unit/x86_recording.h"

static struct x86_recording rec;

static int setup(void **state)
{
    (void)state;
    x86_record_guest(&rec, "roi_pairs", (const char *const[]){ NULL });
    assert_int_equal(rec.status, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    x86_recording_remove(&rec);
    return 0;
}

static double at(const cJSON *j, const char *path) { return json_number_or_0(j, path); }

static void test_two_regions(void **state)
{
    (void)state;
    const char *json = test_temp_file(""), *roi_json = test_temp_file("");
    char *text = replay_cli("-o %s %s", json, rec.path);
    free(text);
    cJSON *run = read_json_file(json);
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(run, "regions");
    const cJSON *r0 = cJSON_GetArrayItem(regions, 0), *r1 = cJSON_GetArrayItem(regions, 1);
    assert_int_equal(cJSON_GetArraySize(regions), 2);
    /* in order, apart, each as long as its cycles say */
    assert_true(at(r0, "begin_cycle") < at(r0, "end_cycle"));
    assert_true(at(r0, "end_cycle") < at(r1, "begin_cycle"));
    assert_true(at(r1, "end_cycle") <= at(run, "cycles"));
    for (int i = 0; i < 2; i++) {
        const cJSON *r = cJSON_GetArrayItem(regions, i);
        assert_true(at(r, "cycles") == at(r, "end_cycle") - at(r, "begin_cycle"));
    }
    /* the guest's loop counts: B = 3A, the markers add a few instructions */
    double i0 = at(r0, "instructions"), i1 = at(r1, "instructions");
    assert_true(i0 > 20000);
    assert_true(i1 > 2.99 * i0 && i1 < 3.01 * i0);
    /* "roi" is their sum: the gap between them is not in it */
    const cJSON *roi = cJSON_GetObjectItemCaseSensitive(run, "roi");
    static const char *const counters[] = { "cycles", "instructions", "cores.0.instructions", "cores.0.cycles",
                                            "cores.0.branches", "caches.1.accesses", "dram.reads" };
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++)
        assert_true(at(roi, counters[k]) == at(r0, counters[k]) + at(r1, counters[k]));
    assert_true(at(roi, "cycles") < at(r1, "end_cycle") - at(r0, "begin_cycle"));
    assert_true(at(roi, "ipc") == at(roi, "instructions") / at(roi, "cycles"));
    /* the gaps' 10A iterations, at least as many instructions as 10A / A of region 0 */
    assert_true(at(run, "instructions") - at(roi, "instructions") >= 10 * (i0 - 100));

    /* --roi: the sum alone at the top, the regions beside it */
    free(replay_cli("--roi -o %s %s", roi_json, rec.path));
    cJSON *only = read_json_file(roi_json);
    assert_true(at(only, "cycles") == at(roi, "cycles"));
    assert_true(at(only, "regions.1.instructions") == i1);
    assert_null(cJSON_GetObjectItemCaseSensitive(only, "roi"));
    cJSON_Delete(only);
    cJSON_Delete(run);
    unlink(json);
    unlink(roi_json);
}

/* The text summary says how many regions were added up and where each lies. */
static void test_text_names_the_regions(void **state)
{
    (void)state;
    const char *json = test_temp_file("");
    free(replay_cli("-o %s %s", json, rec.path));
    cJSON *run = read_json_file(json);
    const char *bin = getenv("CGM_BIN");
    char cmd[512], line[128];
    snprintf(cmd, sizeof cmd, "%s/replay %s", bin ? bin : "bin", rec.path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, p);
    text[n] = 0;
    assert_int_equal(pclose(p), 0);
    assert_non_null(strstr(text, "the 2 regions of interest added up: "));
    for (int i = 0; i < 2; i++) {
        const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(run, "regions"), i);
        snprintf(line, sizeof line, "region of interest %d: cycles %.0f to %.0f (%.0f cycles), %.0f instructions", i,
                 at(r, "begin_cycle"), at(r, "end_cycle"), at(r, "cycles"), at(r, "instructions"));
        if (!strstr(text, line))
            fail_msg("no '%s' in:\n%s", line, text);
    }
    cJSON_Delete(run);
    unlink(json);
}

static void test_windows_of_two_regions(void **state)
{
    (void)state;
    const char *json = test_temp_file(""), *lines = test_temp_file("");
    free(replay_cli("-o %s %s", json, rec.path));
    cJSON *run = read_json_file(json);
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(run, "regions");
    unsigned long long len = (unsigned long long)at(run, "regions.0.cycles") / 2;
    free(replay_cli("--roi -o /dev/null --windows %llu --windows-out %s %s", len, lines, rec.path));
    size_t n;
    cJSON **w = read_json_lines(lines, &n);
    double cycles = 0, instructions = 0;
    int seen[2] = { 0, 0 };
    for (size_t k = 0; k < n; k++) {
        const cJSON *named = cJSON_GetObjectItemCaseSensitive(w[k], "regions");
        assert_int_equal(cJSON_GetArraySize(named), 1);
        int r = cJSON_GetArrayItem(named, 0)->valueint;
        assert_true(r == 0 || r == 1);
        const cJSON *reg = cJSON_GetArrayItem(regions, r);
        double b = at(w[k], "begin_cycle"), c = at(w[k], "cycles");
        assert_true(b >= at(reg, "begin_cycle") && b + c <= at(reg, "end_cycle") && c <= len && c > 0);
        seen[r]++;
        cycles += c;
        instructions += at(w[k], "instructions");
    }
    /* windows of half region 0's length: two or three of it (cut where N
     * puts the boundaries), six or more of region 1, three times as long */
    assert_true(seen[0] >= 2 && seen[0] <= 3);
    assert_true(seen[1] >= 6);
    assert_true(cycles == at(run, "roi.cycles"));
    assert_true(instructions == at(run, "roi.instructions"));
    free_json_lines(w, n);
    cJSON_Delete(run);
    unlink(json);
    unlink(lines);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_regions),
        cmocka_unit_test(test_text_names_the_regions),
        cmocka_unit_test(test_windows_of_two_regions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
