/* Metric paths over a statistics document shaped like replay's (top-level
 * numbers, nested objects, arrays of named caches and of cores): each
 * expected value is read off the document written here; a path that
 * selects nothing or several values is refused saying what was there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "sweep/metric.h"

static const char DOC[] =
    "{ \"cycles\": 1000, \"ipc\": 1.5,"
    "  \"cores\": [ { \"id\": 0, \"cycles\": 1000, \"dtlb\": { \"misses\": 7 } },"
    "               { \"id\": 1, \"cycles\": 600, \"dtlb\": { \"misses\": 3 } } ],"
    "  \"caches\": [ { \"name\": \"core0.l1d\", \"kind\": \"l1d\", \"accesses\": 100, \"misses\": 10, \"miss_rate\": 0.1 },"
    "                { \"name\": \"core1.l1d\", \"kind\": \"l1d\", \"accesses\": 300, \"misses\": 15, \"miss_rate\": 0.05 },"
    "                { \"name\": \"l3.0\", \"kind\": \"l3\", \"accesses\": 25, \"misses\": 5, \"miss_rate\": 0.2 } ],"
    "  \"dram\": { \"reads\": 40, \"read_latency_histogram\": [ 1, 2, 3 ] },"
    "  \"trace\": \"t.cgt\","
    "  \"roi\": { \"cycles\": 250 } }";

static cJSON *doc;
static char err[1024];

static int setup(void **state)
{
    (void)state;
    doc = cJSON_Parse(DOC);
    return doc ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cJSON_Delete(doc);
    return 0;
}

static double value(const char *text)
{
    struct sweep_metric *m = sweep_metric_parse(text, err, sizeof err);
    if (!m)
        print_error("%s\n", err);
    assert_non_null(m);
    double v = -1;
    int rc = sweep_metric_eval(m, doc, &v, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    sweep_metric_free(m);
    return v;
}

/* Evaluating TEXT fails with a message holding NEEDLE. */
static void eval_refused(const char *text, const char *needle)
{
    struct sweep_metric *m = sweep_metric_parse(text, err, sizeof err);
    assert_non_null(m);
    double v;
    assert_int_equal(sweep_metric_eval(m, doc, &v, err, sizeof err), -1);
    if (!strstr(err, needle)) {
        print_error("message '%s' lacks '%s'\n", err, needle);
        fail();
    }
    assert_non_null(strstr(err, text)); /* names the metric */
    sweep_metric_free(m);
}

static void parse_refused(const char *text, const char *needle)
{
    assert_null(sweep_metric_parse(text, err, sizeof err));
    if (!strstr(err, needle)) {
        print_error("message '%s' lacks '%s'\n", err, needle);
        fail();
    }
}

static void test_paths(void **state)
{
    (void)state;
    assert_true(value("cycles") == 1000);
    assert_true(value("ipc") == 1.5);
    assert_true(value("dram.reads") == 40);
    assert_true(value("roi.cycles") == 250);
    assert_true(value("cores[1].cycles") == 600);
    assert_true(value("cores[0].dtlb.misses") == 7);
    assert_true(value("caches[core1.l1d].misses") == 15);
    assert_true(value("caches[l3].miss_rate") == 0.2);
    assert_true(value("dram.read_latency_histogram[2]") == 3);
}

static void test_folds_and_ratios(void **state)
{
    (void)state;
    assert_true(value("sum(caches[l1d].misses)") == 10 + 15);
    assert_true(value("mean(caches[l1d].miss_rate)") == (0.1 + 0.05) / 2);
    assert_true(value("max(cores[*].cycles)") == 1000);
    assert_true(value("min(cores[*].cycles)") == 600);
    assert_true(value("count(caches[l1d])") == 2);
    assert_true(value("sum(cores[*].dtlb.misses)") == 7 + 3);
    /* The L1D miss rate of the whole system: misses over accesses, summed. */
    assert_true(value("sum(caches[l1d].misses) / sum(caches[l1d].accesses)") == 25.0 / 400.0);
    assert_true(value("roi.cycles/cycles") == 0.25);
    assert_true(value("sum(dram.read_latency_histogram[*])") == 6);
}

static void test_mistakes(void **state)
{
    (void)state;
    eval_refused("cyclez", "no 'cyclez'");
    eval_refused("cyclez", "keys: cycles, ipc, cores");        /* what was there */
    eval_refused("caches[l2].misses", "no element named or of kind 'l2'");
    eval_refused("caches[l2].misses", "core0.l1d (l1d)");    /* the names and kinds there */
    eval_refused("cores[5].cycles", "no element 5");
    eval_refused("caches[l1d].misses", "selects 2 values");
    eval_refused("caches[l1d].misses", "sum()");
    eval_refused("dram", "not a number");
    eval_refused("trace", "not a number");
    eval_refused("dram.reads.x", "no 'x' under reads");
    eval_refused("cycles[0]", "not a list");
    eval_refused("cycles / dram.writes", "no 'writes'");
    eval_refused("cycles / count(caches[l2])", "is 0");
    parse_refused("", "empty path");
    parse_refused("caches[l1d", "'[' without ']'");
    parse_refused("caches[]", "empty []");
    parse_refused("cycles.", "ends with '.'");
    parse_refused("median(cycles)", "unknown function 'median'");
    parse_refused("sum(cycles", "'(' without ')'");
    parse_refused("a b", "expected '.' or '['");
    parse_refused(".cycles", "expected a key name");
}

/* NAME = EXPR names the column; the expression evaluates as without it. */
static void test_aliases(void **state)
{
    (void)state;
    struct sweep_metric *m = sweep_metric_parse("l1d_miss = sum(caches[l1d].misses) / sum(caches[l1d].accesses)",
                                                err, sizeof err);
    assert_non_null(m);
    assert_string_equal(sweep_metric_column(m), "l1d_miss");
    double v;
    assert_int_equal(sweep_metric_eval(m, doc, &v, err, sizeof err), 0);
    assert_true(v == 25.0 / 400.0);
    sweep_metric_free(m);
    m = sweep_metric_parse("roi.share=roi.cycles/cycles", err, sizeof err);
    assert_non_null(m);
    assert_string_equal(sweep_metric_column(m), "roi.share");
    sweep_metric_free(m);
    m = sweep_metric_parse("  caches[l3].miss_rate  ", err, sizeof err);
    assert_non_null(m);
    assert_string_equal(sweep_metric_column(m), "caches[l3].miss_rate"); /* no alias: the expression */
    sweep_metric_free(m);
    /* an alias's expression is checked as any other, and named in messages */
    m = sweep_metric_parse("x = cyclez", err, sizeof err);
    assert_non_null(m);
    assert_int_equal(sweep_metric_eval(m, doc, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "metric 'cyclez': no 'cyclez'"));
    sweep_metric_free(m);
    parse_refused("= cycles", "no column name before '='");
    parse_refused("a b = cycles", "'a b' is not a column name");
    parse_refused("x = ", "nothing after '='");
    parse_refused("x = y = cycles", "more than one '='");
    parse_refused("x = cycles[", "'[' without ']'");
}

/* Checking against the shape before a run (every counter 0): a path that
 * is not there is refused as evaluating refuses it; a zero divisor is
 * fine; a selector on a list that is empty before the run is trusted. */
static void test_check_against_a_shape(void **state)
{
    (void)state;
    cJSON *shape = cJSON_Parse("{ \"cycles\": 0, \"caches\": [ { \"name\": \"core0.l1d\", \"kind\": \"l1d\","
                               " \"misses\": 0, \"accesses\": 0 } ], \"dram\": { \"reads\": 0,"
                               " \"read_latency_histogram\": [] } }");
    assert_non_null(shape);
    static const char *const fine[] = { "cycles", "caches[core0.l1d].misses / caches[l1d].accesses",
                                        "dram.read_latency_histogram[3].count",
                                        "sum(dram.read_latency_histogram[*].count)", "n = dram.reads / cycles" };
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
        struct sweep_metric *m = sweep_metric_parse(fine[i], err, sizeof err);
        assert_non_null(m);
        if (sweep_metric_check(m, shape, err, sizeof err))
            fail_msg("%s: %s", fine[i], err);
        sweep_metric_free(m);
    }
    static const char *const refused[][2] = { { "cyclez", "no 'cyclez' at the top" },
                                              { "caches[l2].misses", "no element named or of kind 'l2'" },
                                              { "dram.writes / cycles", "no 'writes' under dram" },
                                              { "dram", "not a number" } };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        struct sweep_metric *m = sweep_metric_parse(refused[i][0], err, sizeof err);
        assert_non_null(m);
        assert_int_equal(sweep_metric_check(m, shape, err, sizeof err), -1);
        assert_non_null(strstr(err, refused[i][1]));
        sweep_metric_free(m);
    }
    cJSON_Delete(shape);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_folds_and_ratios),
        cmocka_unit_test(test_mistakes),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_check_against_a_shape),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
