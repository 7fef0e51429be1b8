/* sweep windows: the lines replay --windows writes become a table, a row
 * per window and a column per metric path, evaluated on each line; a line
 * that is not a window is an error naming the file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/sweep_harness.h"

static char *dir, *sweep;
static char out[8192];

static int setup(void **state)
{
    (void)state;
    dir = harness_tmpdir();
    sweep = harness_bin("sweep");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    harness_rmdir(dir);
    free(dir);
    free(sweep);
    return 0;
}

static void test_windows_table(void **state)
{
    (void)state;
    /* two windows of 100 cycles: the second's links 30 and 70 busy, the
     * first's 5 and 2; DRAM 64 and 0 bytes */
    free(harness_write(dir, "w.jsonl",
                       "{\"window\":0,\"begin_cycle\":0,\"cycles\":100,\"seconds\":2.5e-08,"
                       "\"network\":{\"switches\":[{\"east_link_busy\":5},{\"east_link_busy\":2}]},\"dram\":{\"bytes\":64}}\n"
                       "{\"window\":1,\"begin_cycle\":100,\"cycles\":100,\"seconds\":2.5e-08,"
                       "\"network\":{\"switches\":[{\"east_link_busy\":30},{\"east_link_busy\":70}]},\"dram\":{\"bytes\":0}}\n",
                       0));
    int rc = harness_sh(out, sizeof out,
                        "%s windows %s/w.jsonl --metric cycles --metric 'max(network.switches[*].east_link_busy)' "
                        "--metric 'sum(network.switches[*].east_link_busy)/cycles' --metric dram.bytes -o %s/w.csv && cat %s/w.csv",
                        sweep, dir, dir, dir);
    if (rc)
        fail_msg("sweep windows: exit %d:\n%s", rc, out);
    char want[512];
    snprintf(want, sizeof want,
             "window,begin_cycle,cycles,max(network.switches[*].east_link_busy),"
             "sum(network.switches[*].east_link_busy)/cycles,dram.bytes\n"
             "0,0,100,5,%g,64\n1,100,100,70,%g,0\n", (5.0 + 2) / 100, (30.0 + 70) / 100);
    assert_string_equal(out, want);
}

static void test_windows_errors(void **state)
{
    (void)state;
    free(harness_write(dir, "bad.jsonl", "{\"window\":0,\"begin_cycle\":0,\"cycles\":1}\n{\"window\":1,\n", 0));
    int rc = harness_sh(out, sizeof out, "%s windows %s/bad.jsonl --metric cycles", sweep, dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "bad.jsonl:2: not valid JSON"));
    free(harness_write(dir, "stats.jsonl", "{\"cycles\":1}\n", 0));
    rc = harness_sh(out, sizeof out, "%s windows %s/stats.jsonl --metric cycles", sweep, dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "stats.jsonl:1: no \"window\""));
    rc = harness_sh(out, sizeof out, "%s windows %s/stats.jsonl", sweep, dir);
    assert_int_equal(rc, 2);
    free(harness_write(dir, "one.jsonl", "{\"window\":0,\"begin_cycle\":0,\"cycles\":1}\n", 0));
    rc = harness_sh(out, sizeof out, "%s windows %s/one.jsonl --metric cyclez", sweep, dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "one.jsonl:1:"));
    assert_non_null(strstr(out, "cyclez"));
    /* A bad line after good ones: nothing but the error is printed (the
     * table is published whole or not at all), and -o's file is not made. */
    rc = harness_sh(out, sizeof out, "%s windows %s/bad.jsonl --metric cycles 2>/dev/null", sweep, dir);
    assert_int_equal(rc, 1);
    assert_string_equal(out, "");
    rc = harness_sh(out, sizeof out, "%s windows %s/bad.jsonl --metric cycles -o %s/bad.csv", sweep, dir, dir);
    assert_int_equal(rc, 1);
    char *path = NULL;
    assert_true(asprintf(&path, "%s/bad.csv", dir) > 0);
    assert_false(access(path, F_OK) == 0);
    free(path);
    /* and a good file still goes to standard output whole, with an alias's name */
    rc = harness_sh(out, sizeof out, "%s windows %s/one.jsonl --metric 'c = cycles'", sweep, dir);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "window,begin_cycle,c\n0,0,1\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows_table),
        cmocka_unit_test(test_windows_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
