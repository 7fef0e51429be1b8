/* bin/sweep end to end with the real replay on the bundled hello-world
 * trace: each table cell equals the value read (here, with cJSON, not with
 * the metric code) from a separate `replay --set ...` run of the same point,
 * whose JSON is also byte-identical to the point's result; `sweep plot`
 * draws speedups equal to the baseline's cycles over each point's, read
 * from the table; a point's windows (windows = N) are byte-identical to a
 * separate `replay --windows N` run's, and `sweep windows SPEC` tabulates
 * them; every subcommand's --help names its options, and usage errors
 * exit 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "sweep/csv.h"
#include "tests/unit/sweep_harness.h"

static char *dir, *sweep, *replay, *trace, *spec;
static char out[65536];

static const char *const SIZES[] = { "1KiB", "4KiB" };
static const char *const PREDICTORS[] = { "bimodal", "gshare" };

static int setup(void **state)
{
    (void)state;
    dir = harness_tmpdir();
    sweep = harness_bin("sweep");
    replay = harness_bin("replay");
    /* Absolute and without links, as sweep hands it to replay (it is in the JSON). */
    char *given = harness_root("traces/golden/v1-x86-hello.cgt");
    trace = realpath(given, NULL);
    free(given);
    if (!trace)
        return -1;
    char *text = NULL;
    if (asprintf(&text,
                 "[sweep]\ntrace = %s\nmetric = cycles\nmetric = caches[core0.l1d].misses\n"
                 "metric = sum(caches[l1d].misses)/sum(caches[l1d].accesses)\nmetric = cores[0].mispredictions\n"
                 "[base]\ncpu.cores = 1\n[axes]\ncache.l1d.size = %s, %s\ncpu.predictor = %s, %s\n",
                 trace, SIZES[0], SIZES[1], PREDICTORS[0], PREDICTORS[1]) < 0)
        return -1;
    spec = harness_write(dir, "e2e.ini", text, 0);
    free(text);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    harness_rmdir(dir);
    free(dir);
    free(sweep);
    free(replay);
    free(trace);
    free(spec);
    return 0;
}

static struct csv read_table(const char *path)
{
    char *text = harness_read(path);
    assert_non_null(text);
    struct csv t;
    char err[256];
    assert_int_equal(csv_parse(&t, path, text, strlen(text), err, sizeof err), 0);
    free(text);
    return t;
}

static double cell(const struct csv *t, size_t row, const char *col)
{
    long c = csv_column(t, col);
    assert_true(c >= 0);
    char *end;
    double v = strtod(t->rows[row][c], &end);
    assert_true(*t->rows[row][c] && !*end);
    return v;
}

static double member(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* Runs the sweep of SPEC_PATH into DIR/OUT_NAME (points already done are
 * skipped) and reads its table. */
static struct csv run_sweep_of(const char *spec_path, const char *out_name)
{
    int rc = harness_sh(out, sizeof out, "%s %s -o %s/%s -j 2", sweep, spec_path, dir, out_name);
    if (rc)
        print_error("%s\n", out);
    assert_int_equal(rc, 0);
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s/table.csv", dir, out_name) > 0);
    struct csv t = read_table(path);
    free(path);
    return t;
}

static struct csv run_sweep(void)
{
    return run_sweep_of(spec, "out");
}

static void test_table_equals_separate_runs(void **state)
{
    (void)state;
    struct csv t = run_sweep();
    assert_int_equal(t.nrows, 4);
    for (size_t r = 0; r < 4; r++) {
        const char *size = SIZES[r / 2], *pred = PREDICTORS[r % 2];
        assert_string_equal(t.rows[r][csv_column(&t, "cache.l1d.size")], size);
        assert_string_equal(t.rows[r][csv_column(&t, "cpu.predictor")], pred);
        assert_string_equal(t.rows[r][csv_column(&t, "status")], "done");
        /* The same point, replayed on its own. */
        char *json = NULL;
        assert_true(asprintf(&json, "%s/alone%zu.json", dir, r) > 0);
        assert_int_equal(harness_sh(out, sizeof out,
                                    "%s -q --set cpu.cores=1 --set cache.l1d.size=%s --set cpu.predictor=%s -o %s %s",
                                    replay, size, pred, json, trace),
                         0);
        assert_int_equal(harness_sh(out, sizeof out, "cmp %s %s/out/%s", json, dir,
                                    t.rows[r][csv_column(&t, "result")]),
                         0);
        char *text = harness_read(json);
        cJSON *root = cJSON_Parse(text);
        assert_non_null(root);
        double misses = 0, l1d_misses = 0, l1d_accesses = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "caches")) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
            const cJSON *kind = cJSON_GetObjectItemCaseSensitive(c, "kind");
            if (!strcmp(name->valuestring, "core0.l1d"))
                misses = member(c, "misses");
            if (!strcmp(kind->valuestring, "l1d")) {
                l1d_misses += member(c, "misses");
                l1d_accesses += member(c, "accesses");
            }
        }
        const cJSON *core0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "cores"), 0);
        assert_true(cell(&t, r, "cycles") == member(root, "cycles"));
        assert_true(cell(&t, r, "caches[core0.l1d].misses") == misses);
        assert_true(cell(&t, r, "sum(caches[l1d].misses)/sum(caches[l1d].accesses)") == l1d_misses / l1d_accesses);
        assert_true(cell(&t, r, "cores[0].mispredictions") == member(core0, "mispredictions"));
        assert_true(misses > 0);
        cJSON_Delete(root);
        free(text);
        free(json);
    }
    /* The smaller L1D misses more: the sweep did vary the cache. */
    assert_true(cell(&t, 0, "caches[core0.l1d].misses") > cell(&t, 2, "caches[core0.l1d].misses"));
    csv_free(&t);

    /* --dry-run lists the points, now done, without running anything. */
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/out --dry-run", sweep, spec, dir), 0);
    assert_non_null(strstr(out, "4 points = cache.l1d.size (2) x cpu.predictor (2)"));
    assert_non_null(strstr(out, "4KiB            gshare         done"));
}

static void test_plot_speedups(void **state)
{
    (void)state;
    struct csv t = run_sweep();
    int rc = harness_sh(out, sizeof out,
                        "%s plot %s/out/table.csv --metric cycles --x cpu.predictor --lines cache.l1d.size "
                        "--speedup cpu.predictor=bimodal -o %s/p",
                        sweep, dir, dir);
    if (rc)
        print_error("%s\n", out);
    assert_int_equal(rc, 0);
    /* Lines: one block per L1D size; x: bimodal, gshare. */
    char *path = NULL;
    assert_true(asprintf(&path, "%s/p.dat", dir) > 0);
    char *dat = harness_read(path);
    free(path);
    assert_non_null(dat);
    const char *p = dat;
    for (size_t size = 0; size < 2; size++)
        for (size_t pred = 0; pred < 2; pred++) {
            double expect = cell(&t, size * 2, "cycles") / cell(&t, size * 2 + pred, "cycles");
            size_t x;
            double v;
            char label[32];
            int n = 0;
            assert_int_equal(sscanf(p, "%zu\t%lf\t%31s\n%n", &x, &v, label, &n), 3);
            assert_int_equal(x, pred);
            assert_string_equal(label, PREDICTORS[pred]);
            assert_true(fabs(v - expect) <= 1e-15 * expect);
            p += n;
            while (*p == '\n')
                p++;
        }
    free(dat);
    csv_free(&t);
    assert_true(asprintf(&path, "%s/p.svg", dir) > 0);
    char *svg = harness_read(path);
    free(path);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<svg"));
    assert_non_null(strstr(svg, "Speedup in cycles over cpu.predictor=bimodal"));
    assert_non_null(strstr(svg, "4KiB")); /* a legend entry */
    free(svg);
    assert_true(asprintf(&path, "%s/p.png", dir) > 0);
    char *png = harness_read(path);
    free(path);
    assert_non_null(png);
    assert_memory_equal(png, "\x89PNG", 4);
    free(png);
    /* Bars draw too; a second axis left free is refused with the remedy. */
    assert_int_equal(harness_sh(out, sizeof out,
                                "%s plot %s/out/table.csv --metric cycles --x cpu.predictor --lines cache.l1d.size "
                                "--style bars -o %s/b",
                                sweep, dir, dir),
                     0);
    assert_int_equal(harness_sh(out, sizeof out, "%s plot %s/out/table.csv --metric cycles --x cpu.predictor -o %s/c",
                                sweep, dir, dir),
                     1);
    assert_non_null(strstr(out, "--where cache.l1d.size=VALUE"));
    assert_int_equal(harness_sh(out, sizeof out, "%s plot %s/out/table.csv --metric cyclez --x cpu.predictor", sweep,
                                dir),
                     1);
    assert_non_null(strstr(out, "no column 'cyclez'"));
}

/* PREFIX.md holds the drawn values; --reference adds published figures as
 * more bars, matched by x value. */
static void test_plot_table_and_reference(void **state)
{
    (void)state;
    struct csv t = run_sweep();
    char *ref = harness_write(dir, "ref.csv", "cpu.predictor,paper\ngshare,1.25\n", 0);
    int rc = harness_sh(out, sizeof out,
                        "%s plot %s/out/table.csv --metric cycles --x cpu.predictor --lines cache.l1d.size "
                        "--speedup cpu.predictor=bimodal --style bars --reference %s -o %s/r",
                        sweep, dir, ref, dir);
    if (rc)
        print_error("%s\n", out);
    assert_int_equal(rc, 0);
    char *want = NULL, *path = NULL;
    assert_true(asprintf(&want,
                         "| cpu.predictor | %s | %s | paper |\n|---|---:|---:|---:|\n"
                         "| bimodal | 1.000 | 1.000 | |\n| gshare | %.3f | %.3f | 1.250 |\n",
                         SIZES[0], SIZES[1], cell(&t, 0, "cycles") / cell(&t, 1, "cycles"),
                         cell(&t, 2, "cycles") / cell(&t, 3, "cycles")) > 0);
    assert_true(asprintf(&path, "%s/r.md", dir) > 0);
    char *md = harness_read(path);
    free(path);
    assert_non_null(md);
    assert_string_equal(md, want);
    free(md);
    free(want);
    assert_true(asprintf(&path, "%s/r.dat", dir) > 0);
    char *dat = harness_read(path);
    free(path);
    assert_non_null(dat);
    assert_non_null(strstr(dat, "\t1.25\n"));   /* the reference's column, gshare's row */
    assert_non_null(strstr(dat, "\tNaN\n"));    /* bimodal has none */
    free(dat);
    /* Bad references: an x value the plot lacks, a cell that is no number. */
    free(harness_write(dir, "ref.csv", "cpu.predictor,paper\ntage,1\n", 0));
    assert_int_equal(harness_sh(out, sizeof out, "%s plot %s/out/table.csv --metric cycles --x cpu.predictor "
                                "--lines cache.l1d.size --reference %s -o %s/r", sweep, dir, ref, dir), 1);
    assert_non_null(strstr(out, "ref.csv:2: cpu.predictor 'tage' is not among the plot's x values"));
    free(harness_write(dir, "ref.csv", "cpu.predictor,paper\ngshare,fast\n", 0));
    assert_int_equal(harness_sh(out, sizeof out, "%s plot %s/out/table.csv --metric cycles --x cpu.predictor "
                                "--lines cache.l1d.size --reference %s -o %s/r", sweep, dir, ref, dir), 1);
    assert_non_null(strstr(out, "ref.csv:2: paper value 'fast' is not a number"));
    free(ref);
    csv_free(&t);
}

static void help_lists(const char *cmd, const char *const *opts)
{
    assert_int_equal(harness_sh(out, sizeof out, "%s %s", sweep, cmd), 0);
    for (; *opts; opts++)
        if (!strstr(out, *opts)) {
            print_error("'sweep %s' lacks %s\n", cmd, *opts);
            fail();
        }
}

static void test_windows_equal_separate_runs(void **state)
{
    (void)state;
    char *text = NULL;
    assert_true(asprintf(&text, "[sweep]\ntrace = %s\nwindows = 20000\nwindow_metric = cycles\n"
                                "window_metric = instructions\n[axes]\ncpu.cores = 1, 2\n",
                         trace) > 0);
    char *wspec = harness_write(dir, "win.ini", text, 0);
    free(text);
    struct csv t = run_sweep_of(wspec, "win");
    assert_int_equal(t.nrows, 2);
    /* the rows sweep windows should write, from the separate runs' lines */
    char *want = NULL;
    assert_true(asprintf(&want, "cpu.cores,window,begin_cycle,cycles,instructions\n") > 0);
    for (size_t r = 0; r < 2; r++) {
        char *alone = NULL;
        assert_true(asprintf(&alone, "%s/alone-win%zu", dir, r) > 0);
        assert_int_equal(harness_sh(out, sizeof out,
                                    "%s -q --set cpu.cores=%zu --windows 20000 --windows-out %s.jsonl -o %s.json %s",
                                    replay, r + 1, alone, alone, trace),
                         0);
        assert_int_equal(harness_sh(out, sizeof out, "cmp %s.jsonl %s/win/%s && cmp %s.json %s/win/%s", alone, dir,
                                    t.rows[r][csv_column(&t, "windows")], alone, dir,
                                    t.rows[r][csv_column(&t, "result")]),
                         0);
        char *lines = NULL;
        assert_true(asprintf(&lines, "%s.jsonl", alone) > 0);
        char *jsonl = harness_read(lines);
        assert_non_null(jsonl);
        size_t n = 0;
        for (char *line = strtok(jsonl, "\n"); line; line = strtok(NULL, "\n"), n++) {
            cJSON *w = cJSON_Parse(line);
            assert_non_null(w);
            char *next = NULL;
            assert_true(asprintf(&next, "%s%zu,%.0f,%.0f,%.0f,%.0f\n", want, r + 1, member(w, "window"),
                                 member(w, "begin_cycle"), member(w, "cycles"), member(w, "instructions")) > 0);
            free(want);
            want = next;
            cJSON_Delete(w);
        }
        assert_true(n >= 2); /* the run is longer than one window */
        free(jsonl);
        free(lines);
        free(alone);
    }
    csv_free(&t);
    assert_int_equal(harness_sh(out, sizeof out, "%s windows %s -o %s/win", sweep, wspec, dir), 0);
    char *path = NULL;
    assert_true(asprintf(&path, "%s/win/windows.csv", dir) > 0);
    char *got = harness_read(path);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    free(path);
    free(want);
    /* a sweep without windows has none to tabulate */
    assert_int_equal(harness_sh(out, sizeof out, "%s windows %s -o %s/out", sweep, spec, dir), 1);
    assert_non_null(strstr(out, "no windows = N"));
    free(wspec);
}

static void test_help_and_usage(void **state)
{
    (void)state;
    help_lists("--help", (const char *const[]){ "-o DIR", "-j N", "--metric PATH", "--dry-run", "--rerun", "-v", "--timeout S",
                                                "--replay PATH", "--slurm", "--partition P", "--time T", "--mem M",
                                                "--max-running N", "--sbatch-arg", "--wait", "--help", NULL });
    help_lists("collect --help", (const char *const[]){ "-o DIR", "--metric PATH", "--help", NULL });
    help_lists("windows --help", (const char *const[]){ "SPEC.ini", "-o FILE|DIR", "--metric PATH", "--replay PATH",
                                                        "--help", NULL });
    help_lists("plot --help", (const char *const[]){ "--metric COLUMN", "--x AXIS", "--lines AXIS", "--where",
                                                     "--reference FILE", "--speedup", "--normalise", "--style", "--logy", "--yzero", "--title",
                                                     "-o PREFIX", "--help", NULL });
    static const char *const bad[] = { "", "--frobnicate x.ini", "a.ini b.ini", "-j 0 a.ini", "a.ini --partition x",
                                       "collect --dry-run a.ini", "windows --rerun a.ini", "plot", "plot t.csv --metric m",
                                       "a.ini --metric 'caches[l1d'" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = harness_sh(out, sizeof out, "%s %s", sweep, bad[i]);
        if (rc != 2)
            print_error("'sweep %s' exited %d: %s\n", bad[i], rc, out);
        assert_int_equal(rc, 2);
    }
    /* A bad spec: exit 1, the spec's name and line. */
    char *bad_spec = harness_write(dir, "bad.ini", "[sweep]\ntrace = x.cgt\n[axes]\ncache.l1d.size = 3 furlongs\n", 0);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s", sweep, bad_spec), 1);
    char where[600];
    snprintf(where, sizeof where, "%s:4: cache.l1d.size", bad_spec);
    assert_non_null(strstr(out, where));
    /* A missing trace: refused when running; --dry-run lists its points
     * ("no trace") and fails naming it, as the run would. */
    char *missing = harness_write(dir, "missing.ini", "[sweep]\ntrace = nowhere.cgt\n", 0);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/m", sweep, missing, dir), 1);
    assert_non_null(strstr(out, "missing.ini:2: trace"));
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/m --dry-run", sweep, missing, dir), 1);
    assert_non_null(strstr(out, "no trace"));
    assert_non_null(strstr(out, "missing.ini:2: trace"));
    assert_non_null(strstr(out, "nowhere.cgt"));
    assert_non_null(strstr(out, "1 trace cannot be read"));
    free(bad_spec);
    free(missing);
}

/* With the real replay: --dry-run refuses a metric the statistics do not
 * have before anything runs (the roi.cyclez), names what the
 * region holds, and takes roi.cycles on a trace whose run will have it
 * only with markers (the list shows "roi" as a marked run has it). */
static void test_dry_run_checks_metrics(void **state)
{
    (void)state;
    char *text = NULL;
    assert_true(asprintf(&text, "[sweep]\ntrace = %s\nmetric = roi.cyclez\n[base]\ncpu.cores = 1\n"
                                "[axes]\ncache.l1d.size = 1KiB, 2KiB\n", trace) > 0);
    char *typo = harness_write(dir, "typo.ini", text, 0);
    free(text);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s --dry-run -o %s/typo", sweep, typo, dir), 1);
    assert_non_null(strstr(out, "metric 'roi.cyclez': no 'cyclez' under roi (keys: cycles, cores"));
    assert_non_null(strstr(out, "against the statistics of 2 points"));
    assert_int_equal(harness_sh(out, sizeof out, "%s %s --dry-run -o %s/typo --metric roi.cycles "
                                "--metric 'hits = caches[core0.l1d].hits'", sweep, typo, dir), 0);
    free(typo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_equals_separate_runs),
        cmocka_unit_test(test_plot_speedups),
        cmocka_unit_test(test_plot_table_and_reference),
        cmocka_unit_test(test_windows_equal_separate_runs),
        cmocka_unit_test(test_help_and_usage),
        cmocka_unit_test(test_dry_run_checks_metrics),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
