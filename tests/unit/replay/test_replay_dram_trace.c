/* replay --dram-trace: the DRAM model alone under replay's own configuration
 * (-c, --set dram.KEY=VALUE), its help, and its statistics. Expected counts
 * come from the trace written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/run_program.h"
#include "tests/unit/temp_file.h"

static char text[65536];

/* bin/replay --dram-trace ARGS (split at spaces), standard output then
 * standard error into text; returns the exit status. */
static int dram_trace(const char *args)
{
    const char *bin = getenv("CGM_BIN");
    char program[1024], words[2048];
    char *argv[64];
    int n = 0;
    snprintf(program, sizeof program, "%s/replay", bin ? bin : "bin");
    snprintf(words, sizeof words, "%s", args);
    argv[n++] = program;
    argv[n++] = "--dram-trace";
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w && n < 63; w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    argv[n] = NULL;
    struct run_options o = { .timeout = 60 }; /* every run here takes well under a second */
    struct run_result *r = run_program(argv, &o);
    assert_false(r->timed_out);
    snprintf(text, sizeof text, "%s%s", r->out, r->err);
    int st = r->status;
    run_result_free(r);
    return st;
}

static double number(const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *at = strstr(text, pat);
    if (!at)
        fail_msg("no %s in: %s", key, text);
    return strtod(at + strlen(pat), NULL);
}

/* Two reads of a block with a write queued between them: the second read is
 * served from the write queue when there is one, and by a read command (a
 * row hit) when reads and writes share a queue. */
static const char trace[] = "0x1000 READ 0\n0x2000 WRITE 0\n0x2000 READ 0\n0x1000 READ 400\n";

static void test_set_reaches_the_model(void **state)
{
    (void)state;
    const char *path = test_temp_file(trace);
    char args[512];
    snprintf(args, sizeof args, "%s --set dram.write_queue_size=8 --set dram.write_high=4 "
             "--set dram.write_low=1 --check", path);
    assert_int_equal(dram_trace(args), 0);
    assert_true(number("reads") == 3);
    assert_true(number("writes") == 1);
    assert_true(number("reads_forwarded") == 1);
    snprintf(args, sizeof args, "%s --set dram.write_queue_size=0 --check", path);
    assert_int_equal(dram_trace(args), 0);
    assert_true(number("reads_forwarded") == 0);
    assert_true(number("row_hits") + number("row_misses") == 4);
    /* The preset through --set, and a bad key named. */
    snprintf(args, sizeof args, "%s --set dram.preset=DDR4-2400", path);
    assert_int_equal(dram_trace(args), 0);
    assert_non_null(strstr(text, "DDR4-2400"));
    snprintf(args, sizeof args, "%s --set dram.tRCDX=3", path);
    assert_int_equal(dram_trace(args), 1);
    assert_non_null(strstr(text, "tRCDX"));
}

/* A replay configuration file: its [dram] section counts, the other
 * sections are read (and checked) as for a replay. */
static void test_config_file(void **state)
{
    (void)state;
    const char *path = test_temp_file(trace);
    const char *cfg = test_temp_file("[cpu]\ncores = 2\n[dram]\nqueue_size = 8\npreset = DDR4-2400\n");
    char args[512];
    snprintf(args, sizeof args, "%s -c %s", path, cfg);
    assert_int_equal(dram_trace(args), 0);
    assert_non_null(strstr(text, "DDR4-2400"));
    const char *bad = test_temp_file("[dram]\nCL = 11\ntRCDX = 3\n");
    snprintf(args, sizeof args, "%s -c %s", path, bad);
    assert_int_equal(dram_trace(args), 1);
    char where[256];
    snprintf(where, sizeof where, "%s:3:", bad);
    assert_non_null(strstr(text, where));
    assert_non_null(strstr(text, "tRCDX"));
}

static void test_help_is_not_a_trace(void **state)
{
    (void)state;
    assert_int_equal(dram_trace("--help"), 0);
    assert_non_null(strstr(text, "usage:"));
    assert_non_null(strstr(text, "--dram-trace"));
    assert_int_equal(dram_trace(""), 2);
    assert_int_equal(dram_trace("/nonexistent/x.trace"), 1);
    assert_non_null(strstr(text, "/nonexistent/x.trace"));
    const char *path = test_temp_file("0x40 READ 0\n0x80 FETCH 3\n");
    char args[512], where[256];
    snprintf(args, sizeof args, "%s", path);
    assert_int_equal(dram_trace(args), 1);
    snprintf(where, sizeof where, "%s:2:", path);
    assert_non_null(strstr(text, where));
}

/* An arrival 2e16 cycles (290 days at 800 MHz) after the first: checked
 * refresh by refresh this took months; the idle ranks' refreshes go to the
 * checker as one repeated REF. DDR3-1600 refreshes every 7.8 us = 6240
 * cycles of 1.25 ns (JESD79-3). */
static void test_enormous_gap_checked(void **state)
{
    (void)state;
    const char *path = test_temp_file("0x40 READ 0\n0x80 READ 20000000000000000\n");
    char args[512];
    snprintf(args, sizeof args, "%s --set dram.preset=DDR3-1600 --set dram.channels=1 "
             "--set dram.ranks=1 --check", path);
    assert_int_equal(dram_trace(args), 0);
    assert_true(number("reads") == 2);
    double expected = 20000000000000000.0 / 6240;
    assert_true(number("refreshes") >= expected - 2 && number("refreshes") <= expected + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_reaches_the_model),
        cmocka_unit_test(test_config_file),
        cmocka_unit_test(test_help_is_not_a_trace),
        cmocka_unit_test(test_enormous_gap_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
