/* replay --windows N --windows-out FILE: the statistics of every N CPU
 * cycles, one JSON object per line. Over a collaborative workload (CPU
 * threads, GPU kernels, copies): every counter's windows add up to the
 * whole run's value; the windows start every N cycles and the last ends
 * with the run; windows twice as long are pairs of the short ones (the
 * boundaries are where N puts them, not where the engine happened to
 * stop); the same run writes the same windows; and writing windows does
 * not change the run's statistics by a byte. */
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
#include "tests/unit/temp_file.h"

static char trace[64], out[4096];

/* Runs bin/replay ARGS; fails the test unless it exits 0. */
static void replay(const char *fmt, ...)
{
    const char *bin = getenv("CGM_BIN");
    char args[1024], cmd[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s/replay -q %s 2>&1", bin ? bin : "bin", args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        fail_msg("%s: %s", cmd, out);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = 0;
    fclose(f);
    return text;
}

/* The windows in PATH, parsed; their number in *n. */
static cJSON **windows(const char *path, size_t *n)
{
    char *text = slurp(path), *save = NULL;
    cJSON **w = NULL;
    *n = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        w = realloc(w, (*n + 1) * sizeof *w);
        assert_non_null(w);
        assert_non_null(w[*n] = cJSON_Parse(line));
        ++*n;
    }
    free(text);
    return w;
}

static void free_windows(cJSON **w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(w[i]);
    free(w);
}

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

/* NODE's value in window W at PATH (its place under the root), 0 if the
 * window lacks it. */
static double at(const cJSON *w, const char *path)
{
    const cJSON *x = w;
    char key[512];
    snprintf(key, sizeof key, "%s", path);
    for (char *save = NULL, *k = strtok_r(key, ".", &save); k && x; k = strtok_r(NULL, ".", &save))
        x = cJSON_IsArray(x) ? cJSON_GetArrayItem(x, atoi(k)) : cJSON_GetObjectItemCaseSensitive(x, k);
    return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

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
        if (!*path && (!strcmp(c->string, "roi") || !strcmp(c->string, "trace")))
            continue; /* the region of interest is not a window's */
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
    replay("-o %s %s", plain, trace);
    char *plain_json = slurp(plain);
    cJSON *run = cJSON_Parse(plain_json);
    assert_non_null(run);
    double cycles = at(run, "cycles");
    /* about eight windows, the last one shorter */
    unsigned long long len = (unsigned long long)cycles / 7 + 1;
    replay("-o %s --windows %llu --windows-out %s %s", whole, len, w1, trace);
    replay("-o %s --windows %llu --windows-out %s %s", again, len, w2, trace);
    replay("-o /dev/null --windows %llu --windows-out %s %s", 2 * len, w3, trace);

    /* the run's statistics do not change with windows; the windows repeat */
    char *a = slurp(whole), *b = slurp(w1), *c = slurp(w2);
    assert_string_equal(a, plain_json);
    assert_string_equal(b, c);
    free(a);
    free(b);
    free(c);

    size_t n, m;
    cJSON **w = windows(w1, &n), **ww = windows(w3, &m);
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
    /* the windows see the run's parts at different times: not all alike */
    double first = at(w[0], "breakdown.gpu_busy"), differ = 0;
    for (size_t k = 1; k < n; k++)
        differ += at(w[k], "breakdown.gpu_busy") != first;
    assert_true(differ > 0);

    free_windows(w, n);
    free_windows(ww, m);
    cJSON_Delete(run);
    free(plain_json);
    const char *files[] = { plain, whole, again, w1, w2, w3 };
    for (size_t i = 0; i < 6; i++)
        unlink(files[i]);
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
        cmocka_unit_test(test_windows_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
