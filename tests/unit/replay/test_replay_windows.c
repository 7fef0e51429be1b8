/* replay --windows N --windows-out FILE: the statistics of every N CPU
 * cycles, one JSON object per line. Over a collaborative workload (CPU
 * threads, GPU kernels, copies): every counter's windows add up to the
 * whole run's value; the windows start every N cycles and the last ends
 * with the run; windows twice as long are pairs of the short ones (the
 * boundaries are where N puts them, not where the engine happened to
 * stop); the same run writes the same windows; writing windows does
 * not change the run's statistics by a byte; each window names the regions
 * of interest it overlaps; and with --roi the windows cover the region
 * alone, cut at its ends, and add up to its statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/gpu_recording.h"
#include "tests/unit/replay_cli.h"
#include "tests/unit/temp_file.h"

static char trace[64], out[4096];

/* Statistics that count (the registry's counters): their windows add up.
 * Ratios, peaks, ids and labels do not, and are left out by name. */
static const char *const counted[] = { "cycles", "instructions", "uops", "loads", "stores", "accesses", "misses",
                                       "hits", "reads", "writes", "bytes", "commit_cycles", "busy_cycles",
                                       "idle_cycles", "stall_cycles_total", "cpu_busy", "cpu_stall", "system",
                                       "gpu_busy", "gpu_stall", "row_hits", "row_misses" };

static bool is_counted(const char *name)
{
    for (size_t i = 0; i < sizeof counted / sizeof counted[0]; i++)
        if (name && !strcmp(name, counted[i]))
            return true;
    return false;
}

static double at(const cJSON *w, const char *path) { return json_number_or_0(w, path); }

/* Every counter under WHOLE (at PATH) equals its windows' sum; returns how
 * many were compared. */
static unsigned check_sums(const cJSON *whole, const char *path, cJSON **w, size_t n)
{
    unsigned compared = 0, i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, whole) {
        char sub[512];
        if (cJSON_IsArray(whole))
            snprintf(sub, sizeof sub, "%s%s%u", path, *path ? "." : "", i);
        else
            snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", c->string);
        i++;
        if (!*path && (!strcmp(c->string, "roi") || !strcmp(c->string, "regions") || !strcmp(c->string, "trace")))
            continue; /* the regions of interest are not a window's */
        if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            compared += check_sums(c, sub, w, n);
        } else if (cJSON_IsNumber(c) && is_counted(c->string)) {
            double sum = 0;
            for (size_t k = 0; k < n; k++)
                sum += at(w[k], sub);
            if (sum != c->valuedouble)
                fail_msg("%s: the whole run has %.0f, its windows add up to %.0f", sub, c->valuedouble, sum);
            compared++;
        }
    }
    return compared;
}

static int setup(void **state)
{
    (void)state;
    gpu_record(trace, "kernels", "collab_backprop 2 50 share");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace);
    return 0;
}

static void test_windows(void **state)
{
    (void)state;
    const char *plain = test_temp_file(""), *whole = test_temp_file(""), *again = test_temp_file("");
    const char *w1 = test_temp_file(""), *w2 = test_temp_file(""), *w3 = test_temp_file("");
    free(replay_cli("-o %s %s", plain, trace));
    char *plain_json = read_whole_file(plain);
    cJSON *run = cJSON_Parse(plain_json);
    assert_non_null(run);
    double cycles = at(run, "cycles");
    /* about eight windows, the last one shorter */
    unsigned long long len = (unsigned long long)cycles / 7 + 1;
    free(replay_cli("-o %s --windows %llu --windows-out %s %s", whole, len, w1, trace));
    free(replay_cli("-o %s --windows %llu --windows-out %s %s", again, len, w2, trace));
    free(replay_cli("-o /dev/null --windows %llu --windows-out %s %s", 2 * len, w3, trace));

    /* the run's statistics do not change with windows; the windows repeat */
    char *a = read_whole_file(whole), *b = read_whole_file(w1), *c = read_whole_file(w2);
    assert_string_equal(a, plain_json);
    assert_string_equal(b, c);
    free(a);
    free(b);
    free(c);

    size_t n, m;
    cJSON **w = read_json_lines(w1, &n), **ww = read_json_lines(w3, &m);
    assert_int_equal(n, (size_t)(cycles + len - 1) / len);
    assert_int_equal(m, (n + 1) / 2);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(at(w[k], "window"), k);
        assert_int_equal(at(w[k], "begin_cycle"), k * len);
        assert_int_equal(at(w[k], "cycles"), k + 1 < n ? len : cycles - k * len);
    }
    /* every counter: the windows add up to the run */
    unsigned compared = check_sums(run, "", w, n);
    assert_true(compared > 100);
    assert_int_equal(check_sums(run, "", ww, m), compared);
    /* a long window is two short ones: its boundaries are where N puts them */
    const char *paths[] = { "instructions", "cores.0.instructions", "dram.reads", "gpu.kernels.0.cycles",
                            "breakdown.cpu_busy", "breakdown.gpu_busy" };
    for (size_t k = 0; k < m; k++)
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
            assert_int_equal(at(ww[k], paths[p]), at(w[2 * k], paths[p]) + (2 * k + 1 < n ? at(w[2 * k + 1], paths[p]) : 0));
    /* each window names the regions of interest it overlaps */
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(run, "regions");
    assert_int_equal(cJSON_GetArraySize(regions), 1);
    for (size_t k = 0; k < n; k++) {
        const cJSON *named = cJSON_GetObjectItemCaseSensitive(w[k], "regions"), *r;
        double b = at(w[k], "begin_cycle"), e = b + at(w[k], "cycles");
        int i = 0, listed = 0;
        cJSON_ArrayForEach(r, regions) {
            bool overlaps = at(r, "begin_cycle") < e && at(r, "end_cycle") > b;
            bool names = listed < cJSON_GetArraySize(named) && cJSON_GetArrayItem(named, listed)->valueint == i;
            assert_int_equal(overlaps, names);
            listed += names;
            i++;
        }
        assert_int_equal(listed, cJSON_GetArraySize(named));
    }
    /* the windows see the run's parts at different times: not all alike */
    double first = at(w[0], "breakdown.gpu_busy"), differ = 0;
    for (size_t k = 1; k < n; k++)
        differ += at(w[k], "breakdown.gpu_busy") != first;
    assert_true(differ > 0);

    free_json_lines(w, n);
    free_json_lines(ww, m);
    cJSON_Delete(run);
    free(plain_json);
    const char *files[] = { plain, whole, again, w1, w2, w3 };
    for (size_t i = 0; i < 6; i++)
        unlink(files[i]);
}

/* --roi --windows: windows of the region of interest only, each inside it,
 * every counter of the region their sum. */
static void test_windows_of_the_region(void **state)
{
    (void)state;
    const char *json = test_temp_file(""), *lines = test_temp_file("");
    free(replay_cli("-o %s %s", json, trace));
    cJSON *run = read_json_file(json);
    const cJSON *region = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(run, "regions"), 0);
    double begin = at(region, "begin_cycle"), end = at(region, "end_cycle");
    unsigned long long len = (unsigned long long)(end - begin) / 5 + 1;
    free(replay_cli("--roi -o /dev/null --windows %llu --windows-out %s %s", len, lines, trace));
    size_t n;
    cJSON **w = read_json_lines(lines, &n);
    /* cut where N puts the boundaries and at the region's ends */
    assert_true(n >= 5 && n <= 7);
    double covered = 0;
    for (size_t k = 0; k < n; k++) {
        double b = at(w[k], "begin_cycle"), c = at(w[k], "cycles");
        assert_int_equal(at(w[k], "window"), k);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(w[k], "regions")), 1);
        assert_true(b >= begin && b + c <= end && c <= len);
        if (k > 0 && k + 1 < n)
            assert_int_equal((unsigned long long)b % len, 0);
        covered += c;
    }
    assert_true(covered == end - begin);
    assert_true(check_sums(cJSON_GetObjectItemCaseSensitive(run, "roi"), "", w, n) > 100);
    free_json_lines(w, n);
    cJSON_Delete(run);
    unlink(json);
    unlink(lines);
}

/* Bad usage exits 2 naming the option; an unwritable file exits 1 naming it. */
static void test_windows_usage(void **state)
{
    (void)state;
    const char *bin = getenv("CGM_BIN");
    char cmd[512];
    static const char *const bad[] = { "--windows 100", "--windows-out x.jsonl", "--windows 0 --windows-out x.jsonl",
                                       "--windows 1e3 --windows-out x.jsonl", "--windows -5 --windows-out x.jsonl" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s/replay -q %s %s >/dev/null 2>&1", bin ? bin : "bin", bad[i], trace);
        int st = system(cmd);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 2);
    }
    snprintf(cmd, sizeof cmd, "%s/replay -q --windows 100 --windows-out /nonexistent/dir/w.jsonl %s 2>&1",
             bin ? bin : "bin", trace);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    assert_int_equal(WEXITSTATUS(st), 1);
    assert_non_null(strstr(out, "/nonexistent/dir/w.jsonl"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_windows_of_the_region),
        cmocka_unit_test(test_windows_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
