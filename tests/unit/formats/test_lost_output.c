/* Output that cannot be written (stdout on a full disk: /dev/full) ends
 * tracetool and replay with status 1 and a message, not status 0 with the
 * report lost: tracetool info, dump and stats, replay --print-config and
 * replay's text summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/run_program.h"

static char tracetool[4096], replay[4096], trace[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BIN") || !getenv("CGM_ROOT"))
        return -1;
    snprintf(tracetool, sizeof tracetool, "%s/tracetool", getenv("CGM_BIN"));
    snprintf(replay, sizeof replay, "%s/replay", getenv("CGM_BIN"));
    snprintf(trace, sizeof trace, "%s/traces/golden/v2-x86-hello.cgt", getenv("CGM_ROOT"));
    return 0;
}

static void fails_on_full_disk(char *const argv[], const char *program)
{
    struct run_options o = { .stdout_path = "/dev/full" };
    struct run_result *r = run_program(argv, &o);
    if (r->status != 1)
        print_error("%s %s: exit %d, stderr: %s\n", argv[0], argv[1], r->status, r->err);
    assert_int_equal(r->status, 1);
    char want[64];
    snprintf(want, sizeof want, "%s: writing standard output failed", program);
    assert_non_null(strstr(r->err, want));
    assert_non_null(strstr(r->err, "No space left on device"));
    run_result_free(r);
    /* and the same command succeeds when its output can be written */
    struct run_result *ok = run_program(argv, NULL);
    assert_int_equal(ok->status, 0);
    assert_true(strlen(ok->out) > 0);
    run_result_free(ok);
}

static void test_tracetool(void **state)
{
    (void)state;
    char *info[] = { tracetool, "info", trace, NULL };
    char *dump[] = { tracetool, "dump", trace, NULL };
    char *stats[] = { tracetool, "stats", trace, NULL };
    fails_on_full_disk(info, "tracetool");
    fails_on_full_disk(dump, "tracetool");
    fails_on_full_disk(stats, "tracetool");
}

static void test_replay(void **state)
{
    (void)state;
    char *print[] = { replay, "--print-config", NULL };
    char *summary[] = { replay, trace, NULL };
    fails_on_full_disk(print, "replay");
    fails_on_full_disk(summary, "replay");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tracetool),
        cmocka_unit_test(test_replay),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
