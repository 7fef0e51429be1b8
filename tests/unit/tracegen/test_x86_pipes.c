/* Pipes (traces/x86/pipes.c) under tracegen behave as natively: between
 * the guest's threads, as its standard streams, and with tracegen itself
 * one process of a shell pipeline. The native run is the reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/run_program.h"
#include "tests/unit/x86_guests.h"

static const struct run_options within_a_minute = { .timeout = 60 };

/* MODE (NULL: every part) prints the same and exits the same natively and
 * under tracegen, recording a trace with a short quantum (threads switch
 * often, so waits on the pipe happen both ways). */
static void like_native(const char *libc, const char *mode, int status)
{
    char guest[4096], trace[64];
    x86_guest_build_path(guest, sizeof guest, libc, "pipes");
    snprintf(trace, sizeof trace, "/tmp/cgm-pipes-%d.cgt", (int)getpid());
    char *nat[] = { guest, (char *)mode, NULL };
    char *emu[] = { x86_tracegen_path(), "--quiet", "--quantum", "50", "-o", trace, "--", guest,
                    (char *)mode, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_false(n->timed_out);
    assert_false(e->timed_out);
    assert_int_equal(n->status, status);
    assert_int_equal(e->status, status);
    assert_true(strlen(n->out) > 0);
    assert_string_equal(n->out, e->out);
    run_result_free(n);
    run_result_free(e);
    remove(trace);
}

static void test_pipes_musl(void **state) { (void)state; like_native("musl", NULL, 0); }
static void test_pipes_glibc(void **state) { (void)state; like_native("glibc", NULL, 0); }

/* A write with no reader under SIGPIPE's default action ends the process
 * by SIGPIPE (13): exit status 128 + 13. */
static void test_sigpipe_musl(void **state) { (void)state; like_native("musl", "sigpipe", 141); }
static void test_sigpipe_glibc(void **state) { (void)state; like_native("glibc", "sigpipe", 141); }

/* tracegen as the middle process of a shell pipeline: its stdin and stdout
 * are the shell's pipes, and the output is the native one's. */
static void test_one_process_of_a_pipeline(void **state)
{
    (void)state;
    char guest[4096], nat_cmd[8192], emu_cmd[16384];
    x86_guest_build_path(guest, sizeof guest, "musl", "pipes");
    const char *head = "seq 1 20000 | sed 's/^/item /' | ";
    const char *tail = " | tail -n 3";
    snprintf(nat_cmd, sizeof nat_cmd, "%s%s filter%s", head, guest, tail);
    snprintf(emu_cmd, sizeof emu_cmd, "%s%s --no-trace --quiet -- %s filter%s", head, x86_tracegen_path(),
             guest, tail);
    char *nat[] = { "/bin/sh", "-c", nat_cmd, NULL };
    char *emu[] = { "/bin/sh", "-c", emu_cmd, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(n->status, 0);
    assert_int_equal(e->status, 0);
    /* the last two items upper-cased, then the count of every line */
    assert_string_equal(n->out, "ITEM 19999\nITEM 20000\n20000 lines\n");
    assert_string_equal(n->out, e->out);
    run_result_free(n);
    run_result_free(e);
}

/* A read of a pipe whose only writer is the reader itself waits forever
 * natively; tracegen says it is a deadlock and stops (exit 70). */
static void test_read_only_the_guest_could_satisfy(void **state)
{
    (void)state;
    char guest[4096];
    x86_guest_build_path(guest, sizeof guest, "musl", "pipes");
    char *emu[] = { x86_tracegen_path(), "--no-trace", "--", guest, "selfread", NULL };
    const struct run_options quick = { .timeout = 20 };
    struct run_result *e = run_program(emu, &quick);
    assert_false(e->timed_out);
    assert_int_equal(e->status, 70);
    assert_non_null(strstr(e->err, "deadlock"));
    assert_non_null(strstr(e->err, "pipe"));
    run_result_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipes_musl),
        cmocka_unit_test(test_pipes_glibc),
        cmocka_unit_test(test_sigpipe_musl),
        cmocka_unit_test(test_sigpipe_glibc),
        cmocka_unit_test(test_one_process_of_a_pipeline),
        cmocka_unit_test(test_read_only_the_guest_could_satisfy),
    };
    return cmocka_run_group_tests(tests, x86_guests_setup, NULL);
}
