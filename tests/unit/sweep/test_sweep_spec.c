/* The sweep spec reader: lists, ranges (geometric, arithmetic, with units),
 * the product's size and order, named points, trace templates, several
 * traces; values written the way --print-config writes them; and every kind
 * of mistake refused with the spec's name, the line and the key. Expected
 * values come from the range arithmetic written out here, not from the
 * reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/spec.h"

static char err[1024];

static int parse(struct sweep_spec *s, const char *text)
{
    err[0] = 0;
    int rc = sweep_spec_parse(s, "dir/t.ini", text, strlen(text), err, sizeof err);
    if (rc == 0)
        assert_string_equal(err, "");
    return rc;
}

/* Parsing TEXT fails with a message that holds every one of the strings. */
static void refused(const char *text, const char *const *needles)
{
    struct sweep_spec s;
    assert_int_equal(parse(&s, text), -1);
    for (; *needles; needles++)
        if (!strstr(err, *needles)) {
            print_error("message '%s' lacks '%s'\n", err, *needles);
            fail();
        }
}
#define REFUSED(text, ...) refused(text, (const char *const[]){ __VA_ARGS__, NULL })

static void assert_labels(const struct sweep_axis *a, const char *const *labels, size_t n)
{
    assert_int_equal(a->nvalues, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(a->values[i].label, labels[i]);
}

static void test_product_order_and_ranges(void **state)
{
    (void)state;
    struct sweep_spec s;
    assert_int_equal(parse(&s, "[sweep]\ntrace = a.cgt\n[axes]\n"
                               "cache.l2.size = 128KiB..1MiB *2   ; geometric\n"
                               "cpu.frequency = 1GHz, 2000MHz, 4GHz\n"),
                     0);
    assert_int_equal(s.naxes, 2);
    /* 128 KiB x 2^k up to 1 MiB: 4 values; x 3 frequencies. */
    assert_int_equal(s.npoints, 4 * 3);
    assert_labels(&s.axes[0], (const char *const[]){ "128KiB", "256KiB", "512KiB", "1MiB" }, 4);
    assert_labels(&s.axes[1], (const char *const[]){ "1GHz", "2GHz", "4GHz" }, 3);
    assert_string_equal(s.axes[1].values[1].set[0].section, "cpu");
    assert_string_equal(s.axes[1].values[1].set[0].key, "frequency");
    assert_string_equal(s.axes[1].values[1].set[0].value, "2GHz");
    /* The last axis varies fastest: point 5 = (5 / 3, 5 % 3). */
    size_t d[2];
    sweep_spec_digits(&s, 5, d);
    assert_int_equal(d[0], 1);
    assert_int_equal(d[1], 2);
    assert_string_equal(s.dir, "dir");
    assert_string_equal(s.traces[0].label, "a");
    sweep_spec_free(&s);

    /* Arithmetic steps, with and without units; a list mixing both. */
    assert_int_equal(parse(&s, "[sweep]\ntrace = a.cgt\n[axes]\ncpu.frequency = 1GHz..3GHz +500MHz\n"
                               "cpu.cores = 1..3, 8\ncpu.rob_size = 64..256 +64\n"),
                     0);
    assert_labels(&s.axes[0], (const char *const[]){ "1GHz", "1500MHz", "2GHz", "2500MHz", "3GHz" }, 5);
    assert_labels(&s.axes[1], (const char *const[]){ "1", "2", "3", "8" }, 4);
    assert_labels(&s.axes[2], (const char *const[]){ "64", "128", "192", "256" }, 4);
    assert_int_equal(s.npoints, 5 * 4 * 4);
    sweep_spec_free(&s);

    /* A step that overshoots stops below the bound. */
    assert_int_equal(parse(&s, "[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores = 1..10 *3\n"), 0);
    assert_labels(&s.axes[0], (const char *const[]){ "1", "3", "9" }, 3);
    sweep_spec_free(&s);
}

static void test_names_base_and_metrics(void **state)
{
    (void)state;
    struct sweep_spec s;
    assert_int_equal(parse(&s, "# comment\n; comment\n[sweep]\ntrace = /abs/x.cgt # inline\nconfig = c.ini\n"
                               "metric = cycles\nmetric = sum(caches[l2].misses)/sum(caches[l2].accesses)\n"
                               "[base]\ncpu.cores = 1\ncache.l1d.size = 64KiB\n"
                               "[axes]\ncpu.predictor = bimodal, gshare\n"),
                     0);
    assert_string_equal(s.traces[0].path, "/abs/x.cgt");
    assert_string_equal(s.config, "c.ini");
    assert_int_equal(s.config_line, 5);
    assert_int_equal(s.nmetrics, 2);
    assert_string_equal(s.metrics[1], "sum(caches[l2].misses)/sum(caches[l2].accesses)");
    assert_int_equal(s.nbase, 2);
    assert_string_equal(s.base[1].section, "cache.l1d");
    assert_string_equal(s.base[1].value, "64KiB");
    assert_int_equal(s.base[1].line, 10);
    assert_labels(&s.axes[0], (const char *const[]){ "bimodal", "gshare" }, 2);
    assert_int_equal(s.windows, 0); /* no windows unless asked for */
    sweep_spec_free(&s);
}

static void test_windows(void **state)
{
    (void)state;
    struct sweep_spec s;
    assert_int_equal(parse(&s, "[sweep]\ntrace = x.cgt\nwindows = 250000\nwindow_metric = dram.bytes\n"
                               "window_metric = max(network.switches[*].east_link_busy)\nmetric = cycles\n"),
                     0);
    assert_true(s.windows == 250000);
    assert_int_equal(s.windows_line, 3);
    assert_int_equal(s.nwindow_metrics, 2);
    assert_string_equal(s.window_metrics[1], "max(network.switches[*].east_link_busy)");
    assert_int_equal(s.nmetrics, 1); /* the table's columns stay apart */
    sweep_spec_free(&s);
    /* more than 32 bits of cycles */
    assert_int_equal(parse(&s, "[sweep]\ntrace = x.cgt\nwindows = 10000000000\n"), 0);
    assert_true(s.windows == 10000000000ULL);
    sweep_spec_free(&s);
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = 0\n", "dir/t.ini:3:", "windows", "above 0");
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = -5\n", "dir/t.ini:3:", "above 0");
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = 1000 cycles\n", "dir/t.ini:3:", "1000 cycles");
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = 99999999999999999999999\n", "dir/t.ini:3:", "windows");
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = 10\nwindows = 20\n", "dir/t.ini:4:", "line 3");
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = 10\nwindow_metric = caches[l1d\n", "dir/t.ini:4:", "metric");
    REFUSED("[sweep]\ntrace = a.cgt\nwindow_metric = cycles\n", "window_metric without windows");
    /* one column each: a metric may not take an axis' name, the table's own, or come twice */
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = 10\nwindow_metric = gpu.frequency\n[axes]\ngpu.frequency = 1GHz, 2GHz\n",
            "dir/t.ini:6:", "window_metric gpu.frequency", "axis gpu.frequency");
    REFUSED("[sweep]\ntrace = a.cgt\nwindows = 10\nwindow_metric = window\n", "window_metric window", "own column");
    REFUSED("[sweep]\ntrace = a.cgt\nmetric = status\n", "metric status", "own column");
    REFUSED("[sweep]\ntrace = a.cgt\nmetric = cycles\nmetric = cycles\n", "metric cycles is given twice");
    struct sweep_spec t;
    /* the same path as a metric and as a window metric is two tables' columns: fine */
    assert_int_equal(parse(&t, "[sweep]\ntrace = a.cgt\nwindows = 10\nmetric = cycles\nwindow_metric = cycles\n"), 0);
    sweep_spec_free(&t);
}

static void test_named_points(void **state)
{
    (void)state;
    struct sweep_spec s;
    assert_int_equal(parse(&s, "[sweep]\ntrace = a.cgt\n"
                               "[axis system]\nsmall = cpu.cores=1, cache.l2.size=128KiB\n"
                               "big = cpu.cores = 4, cache.l2.size = 1024KiB, cache.l3.size=8MiB\n"
                               "base =\n"
                               "[axes]\ncpu.frequency = 1GHz, 2GHz\n"),
                     0);
    assert_int_equal(s.naxes, 2);
    const struct sweep_axis *a = sweep_spec_axis(&s, "system");
    assert_non_null(a);
    assert_int_equal(a->kind, SWEEP_AXIS_BUNDLE);
    assert_labels(a, (const char *const[]){ "small", "big", "base" }, 3);
    assert_int_equal(a->values[1].nset, 3);
    assert_string_equal(a->values[1].set[1].value, "1MiB");
    assert_int_equal(a->values[2].nset, 0);
    assert_int_equal(s.npoints, 6);
    sweep_spec_free(&s);
}

static void test_traces_and_templates(void **state)
{
    (void)state;
    struct sweep_spec s;
    assert_int_equal(parse(&s, "[sweep]\ntrace = rec/{workload}_t{threads}.cgt\n"
                               "[axes]\nworkload = bfs, nw\nthreads = 1..8 *2\n"),
                     0);
    assert_int_equal(s.axes[1].kind, SWEEP_AXIS_VAR);
    assert_labels(&s.axes[1], (const char *const[]){ "1", "2", "4", "8" }, 4);
    assert_int_equal(s.npoints, 8);
    sweep_spec_free(&s);

    assert_int_equal(parse(&s, "[sweep]\ntrace = one.cgt\ntrace = ../two.cgt\n[axes]\ncpu.cores = 1, 2\n"), 0);
    assert_int_equal(s.naxes, 2);
    assert_int_equal(s.axes[0].kind, SWEEP_AXIS_TRACE);
    assert_string_equal(s.axes[0].name, "trace");
    assert_labels(&s.axes[0], (const char *const[]){ "one", "two" }, 2);
    assert_int_equal(s.npoints, 4);
    sweep_spec_free(&s);
}

static void test_errors_name_file_line_and_key(void **state)
{
    (void)state;
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncache.l2.sise = 1MiB\n", "dir/t.ini:4:", "sise");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncache.l2.size = 1MiB, 12 parsecs\n", "dir/t.ini:4:", "cache.l2.size",
            "12 parsecs");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores = 1..100\n", "dir/t.ini:4:", "cpu.cores", "out of range");
    REFUSED("[sweep]\ntrace = a.cgt\n[base]\ncpu.coars = 2\n", "dir/t.ini:4:", "coars");
    REFUSED("[sweep]\ntrace = a.cgt\n[base]\nnodots = 2\n", "dir/t.ini:4:", "nodots");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.frequency = 1GHz, 1000MHz\n", "dir/t.ini:4:", "1GHz",
            "appears twice");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.predictor = bimodal..gshare\n", "dir/t.ini:4:", "predictor",
            "name");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores = 4..1\n", "dir/t.ini:4:", "empty");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores = 1..4 *1\n", "dir/t.ini:4:", "step");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores = 1,,2\n", "dir/t.ini:4:", "empty value");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores =\n", "dir/t.ini:4:", "no values");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores = 1\ncpu.cores = 2\n", "dir/t.ini:5:", "already defined");
    REFUSED("[sweep]\ntrace = a.cgt\n[axis m]\np = cpu.cores=2\n[axes]\ncpu.cores = 1, 2\n", "dir/t.ini:6:",
            "cpu.cores", "axis m");
    REFUSED("[sweep]\ntrace = a.cgt\n[axis m]\np = cpu.cores=2, cpu.cores=4\n", "dir/t.ini:4:", "set twice");
    REFUSED("[sweep]\ntrace = a.cgt\n[axis m]\np = cpu.cores\n", "dir/t.ini:4:", "KEY=VALUE");
    REFUSED("[sweep]\ntrace = a.cgt\n[axis m]\np = cpu.cores=1\np = cpu.cores=2\n", "dir/t.ini:5:", "twice");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\nthreads = 1, 2\n", "dir/t.ini:4:", "threads", "no trace uses");
    REFUSED("[sweep]\ntrace = {workload}.cgt\n", "dir/t.ini:2:", "{workload}");
    REFUSED("[sweep]\ntrace = {workload.cgt\n[axes]\nworkload = a\n", "dir/t.ini:2:", "'{'");
    REFUSED("[sweep]\ntrace = x/a.cgt\ntrace = y/a.cgt\n", "dir/t.ini:3:", "a", "twice");
    REFUSED("[sweep]\nconfig = a.ini\n", "no trace");
    REFUSED("[sweep]\ntrace = a.cgt\nconfig = a.ini\nconfig = b.ini\n", "dir/t.ini:4:", "line 3");
    REFUSED("[sweep]\ntrace = a.cgt\nfrobnicate = 1\n", "dir/t.ini:3:", "frobnicate");
    REFUSED("[sweep]\ntrace = a.cgt\nmetric = caches[l1d.miss_rate\n", "dir/t.ini:3:", "metric");
    REFUSED("[sweep]\ntrace = a.cgt\n[bogus]\n", "dir/t.ini:3:", "bogus");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes\n", "dir/t.ini:3:", "section");
    REFUSED("cpu.cores = 1\n", "dir/t.ini:1:", "before any section");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\njust words\n", "dir/t.ini:4:", "NAME = VALUE");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.cores = 1..64\ncpu.rob_size = 4..4096\n"
            "cache.l1d.ways = 1..64\n",
            "more than 100000 points");
    REFUSED("[sweep]\ntrace = a.cgt\n[axes]\ncpu.quantum = 1000..1000000000\n", "more than 10000 values");
    struct sweep_spec s;
    assert_int_equal(sweep_spec_parse(&s, "t.ini", "[sweep]\0trace = a.cgt\n", 21, err, sizeof err), -1);
    assert_non_null(strstr(err, "t.ini:1: NUL"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_product_order_and_ranges),
        cmocka_unit_test(test_names_base_and_metrics),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_named_points),
        cmocka_unit_test(test_traces_and_templates),
        cmocka_unit_test(test_errors_name_file_line_and_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
