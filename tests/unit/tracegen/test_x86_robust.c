/* A careless or hostile guest (traces/x86/hostile.c) and a user who
 * interrupts tracegen: descriptor and range arguments behave as the
 * native kernel's, limits on instructions, time, memory and trace size
 * end the run cleanly, and a signal to tracegen leaves a whole trace. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "tests/unit/run_program.h"

static char guest[4096], tracegen[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/hostile", getenv("CGM_BUILD"));
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

static const struct run_options within_a_minute = { .timeout = 60 };

/* MODE (with ARG, or NULL) prints the same natively and under tracegen. */
static void like_native_arg(const char *mode, const char *arg)
{
    char *nat[] = { guest, (char *)mode, (char *)arg, NULL };
    char *emu[] = { tracegen, "--no-trace", "--", guest, (char *)mode, (char *)arg, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_false(e->timed_out);
    assert_int_equal(n->status, 0);
    assert_int_equal(e->status, 0);
    assert_string_equal(n->out, e->out);
    run_result_free(n);
    run_result_free(e);
}

static void like_native(const char *mode)
{
    like_native_arg(mode, NULL);
}

/* Negative, huge and equal descriptor numbers (fcntl F_DUPFD, dup2, dup3,
 * close, read, write) get the kernel's errors, and the table still works. */
static void test_descriptors_like_native(void **state)
{
    (void)state;
    like_native("fds");
}

/* munmap, mprotect and madvise of a 32 TiB range answer at once, and
 * empty, wrapping, misaligned and partly unmapped ranges get the kernel's
 * errors. */
static void test_huge_ranges_like_native(void **state)
{
    (void)state;
    like_native("unmap");
}

/* Page 0 stays unmapped (Linux's vm.mmap_min_addr, 65536 by default,
 * refuses it with EPERM to an unprivileged process). */
static void test_no_mapping_at_address_zero(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--no-trace", "--", guest, "map_zero", NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(e->status, 0);
    assert_string_equal(e->out, "mmap(0, 4096, MAP_FIXED) = -EPERM\n");
    run_result_free(e);
}

/* A loop of rep stosb over 1 MiB: each iteration counts toward
 * --max-insts, so a limit of a million ends it within the first string. */
static void test_rep_iterations_count_toward_max_insts(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--no-trace", "--max-insts", "1000000", "--", guest, "rep_loop",
                    NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_false(e->timed_out);
    assert_int_equal(e->status, 70);
    assert_non_null(strstr(e->err, "instruction limit 1000000 reached"));
    run_result_free(e);
}

/* A store into the next instruction of the running basic block is seen by
 * that instruction, as natively (it returned 1 instead of 7). */
static void test_self_modifying_code_within_a_block(void **state)
{
    (void)state;
    like_native("smc_block");
}

/* Threads made and joined one at a time: an exited thread's slot is used
 * again, so the 4096th (and the 5000th) pthread_create succeeds. */
static void test_exited_thread_slots_are_reused(void **state)
{
    (void)state;
    like_native_arg("threads", "5000");
}

static void test_max_seconds(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--no-trace", "--max-seconds", "0.5", "--", guest, "rep_loop",
                    NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_false(e->timed_out);
    assert_int_equal(e->status, 70);
    assert_non_null(strstr(e->err, "time limit of 0.5 s reached"));
    run_result_free(e);
}

/* 50,000 pages 16 MiB apart cost a page and a 32 KiB leaf table each:
 * under --max-memory 256M at most 256 MiB / 36 KiB of them fit, and
 * tracegen's own resident memory stays near the limit. */
static void test_page_tables_count_toward_max_memory(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--no-trace", "--max-memory", "256M", "--", guest, "sparse",
                    "50000", NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(e->status, 0);
    long mapped = -1;
    assert_int_equal(sscanf(e->out, "sparse pages mapped: %ld", &mapped), 1);
    long most = (256l << 20) / (4096 + 32768);
    assert_true(mapped <= most);
    assert_true(mapped >= most / 2);
    assert_true(e->maxrss_kb < 400l * 1024);
    run_result_free(e);
}

/* Under ulimit -v the guest gets at most half of the address space, so
 * tracegen keeps room for itself: a guest that fills its memory and then
 * faults gets the fault explained (the report disassembles the
 * instruction, which needs memory of its own). */
static void test_address_space_limit_leaves_room_to_report(void **state)
{
    (void)state;
#ifdef CGM_ASAN
    /* AddressSanitizer's shadow memory needs terabytes of address space:
     * under ulimit -v the sanitized tracegen cannot start at all */
    skip();
#endif
    char *emu[] = { tracegen, "--no-trace", "--", guest, "fill", NULL };
    long limit = 1500l << 20;
    struct run_options o = { .timeout = 60, .address_space_limit = limit };
    struct run_result *e = run_program(emu, &o);
    assert_int_equal(e->status, 128 + 11);
    long mib = -1;
    assert_int_equal(sscanf(e->out, "filled %ld MiB", &mib), 1);
    assert_true(mib > 0 && (mib << 20) <= limit / 2);
    assert_non_null(strstr(e->err, "invalid write at address 0x0 by instruction"));
    run_result_free(e);
}

/* The trace at PATH is whole (index and trailer), verifies, and its
 * program section says the run stopped, and why. */
static void assert_whole_trace_stopped(const char *path, const char *why)
{
    char err[512];
    assert_int_equal(cgm_trace_verify(path, err, sizeof err), 0);
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    assert_true(cgm_reader_complete(r));
    uint8_t *text;
    size_t len;
    assert_int_equal(cgm_reader_read_section(r, "program", 1 << 20, &text, &len, err,
                                             sizeof err), 0);
    char *s = strndup((const char *)text, len);
    if (!strstr(s, why))
        print_error("program section: %s\n", s);
    assert_non_null(strstr(s, why));
    free(s);
    free(text);
    cgm_reader_close(r);
}

static void interrupted_by(int sig)
{
    char trace[] = "/tmp/cgm_robust_XXXXXX";
    close(mkstemp(trace));
    char *emu[] = { tracegen, "--quiet", "-o", trace, "--", guest, "rep_loop", NULL };
    struct run_options o = { .timeout = 60, .signal_after = 1.0, .signal = sig };
    struct run_result *e = run_program(emu, &o);
    assert_false(e->timed_out);
    assert_int_equal(e->status, 128 + sig);
    assert_non_null(strstr(e->err, "interrupted"));
    assert_whole_trace_stopped(trace, "stopped=tracegen was sent signal");
    unlink(trace);
    run_result_free(e);
}

static void test_sigint_finishes_the_trace(void **state)
{
    (void)state;
    interrupted_by(SIGINT);
}

static void test_sigterm_finishes_the_trace(void **state)
{
    (void)state;
    interrupted_by(SIGTERM);
}

static void test_max_trace_bytes(void **state)
{
    (void)state;
    char trace[] = "/tmp/cgm_robust_XXXXXX";
    close(mkstemp(trace));
    char *emu[] = { tracegen, "--quiet", "--max-trace-bytes", "2M", "-o", trace, "--", guest,
                    "rep_loop", NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_false(e->timed_out);
    assert_int_equal(e->status, 70);
    assert_whole_trace_stopped(trace, "stopped=trace size limit of 2097152 bytes");
    unlink(trace);
    run_result_free(e);
}

/* replay warns that a recording stopped by a limit times a truncated run. */
static void test_replay_warns_about_a_stopped_recording(void **state)
{
    (void)state;
    char trace[] = "/tmp/cgm_robust_XXXXXX", replay[4096];
    close(mkstemp(trace));
    snprintf(replay, sizeof replay, "%s/replay", getenv("CGM_BIN"));
    char *emu[] = { tracegen, "--quiet", "--max-insts", "100000", "-o", trace, "--", guest,
                    "rep_loop", NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(e->status, 70);
    run_result_free(e);
    char *rp[] = { replay, "-q", trace, NULL };
    struct run_result *r = run_program(rp, &within_a_minute);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->err, "did not run to its end (instruction limit 100000"));
    run_result_free(r);
    unlink(trace);
}

/* --time-start sets the guest's clock; time advances 1 ns per instruction
 * from there, so a short run reads its start. */
static void test_time_start(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--no-trace", "--time-start", "1000000", "--", guest, "clock", NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(e->status, 0);
    assert_string_equal(e->out, "clock 1000000\n");
    run_result_free(e);
    char *dflt[] = { tracegen, "--no-trace", "--", guest, "clock", NULL };
    e = run_program(dflt, &within_a_minute);
    assert_string_equal(e->out, "clock 1767225600\n"); /* 2026-01-01T00:00:00Z */
    run_result_free(e);
}

/* A trace file that cannot be made is an error at once (exit status 2). */
static void test_unwritable_trace_is_refused(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--quiet", "-o", "/dev/full", "--", guest, "rep_loop", NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_false(e->timed_out);
    assert_int_equal(e->status, 2);
    assert_non_null(strstr(e->err, "/dev/full"));
    assert_non_null(strstr(e->err, "No space left on device"));
    run_result_free(e);
}

/* A trace that can no longer be written (a file-size limit standing in
 * for a full disk) stops the run with the reason instead of emulating on
 * for nothing, and what was written stays readable. */
static void test_trace_write_failure_stops_the_run(void **state)
{
    (void)state;
    char trace[] = "/tmp/cgm_robust_XXXXXX";
    close(mkstemp(trace));
    char *emu[] = { tracegen, "--quiet", "-o", trace, "--", guest, "rep_loop", NULL };
    struct run_options o = { .timeout = 60, .file_size_limit = 1 << 20 };
    struct run_result *e = run_program(emu, &o);
    assert_false(e->timed_out);
    assert_int_equal(e->status, 70);
    assert_non_null(strstr(e->err, "the trace cannot be written"));
    assert_non_null(strstr(e->err, "File too large"));
    char err[512];
    struct cgm_reader *r = cgm_reader_open(trace, err, sizeof err);
    assert_non_null(r);
    assert_true(cgm_reader_stream_count(r) >= 1);
    cgm_reader_close(r);
    unlink(trace);
    run_result_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors_like_native),
        cmocka_unit_test(test_huge_ranges_like_native),
        cmocka_unit_test(test_no_mapping_at_address_zero),
        cmocka_unit_test(test_rep_iterations_count_toward_max_insts),
        cmocka_unit_test(test_exited_thread_slots_are_reused),
        cmocka_unit_test(test_self_modifying_code_within_a_block),
        cmocka_unit_test(test_max_seconds),
        cmocka_unit_test(test_page_tables_count_toward_max_memory),
        cmocka_unit_test(test_sigint_finishes_the_trace),
        cmocka_unit_test(test_sigterm_finishes_the_trace),
        cmocka_unit_test(test_max_trace_bytes),
        cmocka_unit_test(test_address_space_limit_leaves_room_to_report),
        cmocka_unit_test(test_replay_warns_about_a_stopped_recording),
        cmocka_unit_test(test_time_start),
        cmocka_unit_test(test_unwritable_trace_is_refused),
        cmocka_unit_test(test_trace_write_failure_stops_the_run),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
