/* Signal handlers (traces/x86/signals.c) under tracegen behave as
 * natively: synchronous faults with siginfo and ucontext, signals between
 * threads, masks, the alternate stack, sigsuspend, and timers on virtual
 * time. The native run is the reference. The trace records each handler's
 * start as a signal event and replays. A signal sent to another thread is
 * handled at the virtual time it was sent, and a timer's signal at the
 * virtual time the timer expires. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/trace.h"
#include "tests/unit/run_program.h"

static char tracegen[4096], replay[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    snprintf(replay, sizeof replay, "%s/replay", getenv("CGM_BIN"));
    return 0;
}

static const struct run_options within_a_minute = { .timeout = 60 };
/* Replaying the 19.5 million instructions of the glibc guest's trace takes
 * 2.5 s of CPU, several times that under the sanitizers, and a loaded host
 * stretched it past a minute. */
static const struct run_options within_four_minutes = { .timeout = 240 };

static void guest_path(char *path, size_t n, const char *libc)
{
    snprintf(path, n, "%s/traces/x86/%s/signals", getenv("CGM_BUILD"), libc);
}

/* Counts the signal events of every stream of TRACE. */
static unsigned signal_events(const char *trace)
{
    char err[256];
    struct cgm_reader *r = cgm_reader_open(trace, err, sizeof err);
    assert_non_null(r);
    unsigned n = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        struct cgm_riter *it = cgm_riter_open(r, i);
        assert_non_null(it);
        const uint8_t *rec;
        size_t len;
        while (cgm_riter_next(it, &rec, &len) > 0)
            n += len && rec[0] == CGM_EV_SIGNAL;
        cgm_riter_close(it);
    }
    cgm_reader_close(r);
    return n;
}

/* The guest prints the same and exits the same natively and under
 * tracegen (recording, with a short quantum so that threads switch often);
 * its trace has a signal event per handler run and replays. */
static void like_native(const char *libc)
{
    char guest[4096], trace[64];
    guest_path(guest, sizeof guest, libc);
    snprintf(trace, sizeof trace, "/tmp/cgm-signals-%d.cgt", (int)getpid());
    char *nat[] = { guest, NULL };
    char *emu[] = { tracegen, "--quiet", "--quantum", "200", "-o", trace, "--", guest, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_false(n->timed_out);
    assert_false(e->timed_out);
    assert_int_equal(n->status, 0);
    assert_int_equal(e->status, 0);
    assert_true(strlen(n->out) > 0);
    assert_string_equal(n->out, e->out);
    /* handlers the guest runs: 2 SIGSEGV jumps, SIGFPE, SIGILL and SIGSEGV
     * steps, raise and kill, unblocked, 3 deferred, 3 nested, resethand, 2
     * altstack, 2 between threads, at least 5 periodic alarms, sigsuspend,
     * pause: at least 27 */
    assert_true(signal_events(trace) >= 27);
    char *rp[] = { replay, trace, NULL };
    struct run_result *r = run_program(rp, &within_four_minutes);
    assert_int_equal(r->status, 0);
    run_result_free(n);
    run_result_free(e);
    run_result_free(r);
    remove(trace);
}

static void test_signals_musl(void **state) { (void)state; like_native("musl"); }
static void test_signals_glibc(void **state) { (void)state; like_native("glibc"); }

/* alarm(1) then pause() with no handler: SIGALRM's default action ends the
 * process (status 128 + 14). Natively a second passes; under tracegen
 * virtual time jumps to the alarm at once. */
static void test_alarm_default_action(void **state)
{
    (void)state;
    char guest[4096];
    guest_path(guest, sizeof guest, "musl");
    char *nat[] = { guest, "alarm", NULL };
    char *emu[] = { tracegen, "--no-trace", "--", guest, "alarm", NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(n->status, 128 + 14);
    assert_int_equal(e->status, 128 + 14);
    run_result_free(n);
    run_result_free(e);
}

/* A signal sent to another thread that is running (spinning) is handled
 * at once in virtual time: the sender's turn ends and the receiver runs
 * next. The delay between the sender's clock read before pthread_kill and
 * the handler's is then the instructions of the call and of the handler's
 * entry, a few hundred; were the receiver to wait for its turn, the
 * sender would spin for the rest of its slice (QUANTUM instructions, 1 ns
 * each, from a fresh start after sched_yield). */
#define QUANTUM 100000
static void test_another_thread_handles_at_once(void **state)
{
    (void)state;
    char guest[4096], quantum[16];
    guest_path(guest, sizeof guest, "musl");
    snprintf(quantum, sizeof quantum, "%d", QUANTUM);
    char *emu[] = { tracegen, "--no-trace", "--quantum", quantum, "--", guest, "latency", NULL };
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(e->status, 0);
    long long ns = atoll(e->out);
    if (ns <= 0 || ns >= QUANTUM / 10)
        print_error("handled %lld ns after it was sent\n", ns);
    assert_true(ns > 0 && ns < QUANTUM / 10);
    run_result_free(e);
}

/* A timer fires at its due virtual time, not at the next scheduling
 * slice: `timer_latency KIND` arms a timer 50 us (50000 instructions of
 * virtual time) ahead and spins without system calls until its handler
 * (or, for a timerfd, a thread reading it) notes the time. Natively the
 * figure is never negative (the timer cannot be noticed before it
 * expires). Under tracegen it is the instructions of the block that
 * crosses the expiry (at most X86_BLOCK_MAX_INSNS, 64) and of the
 * handler's entry and clock read: well under a thousand, at a quantum of
 * 10^5 and of 10^6 alike. Noticed at the next slice instead, it would be
 * most of a quantum (the spin starts early in the first slice). */
#define TIMER_BOUND_NS 1000
static void timer_fires_on_time(const char *kind)
{
    static const char *const quanta[] = { "100000", "1000000" };
    static const char *const libcs[] = { "musl", "glibc" };
    for (int l = 0; l < 2; l++) {
        char guest[4096];
        snprintf(guest, sizeof guest, "%s/traces/x86/%s/timer_latency", getenv("CGM_BUILD"),
                 libcs[l]);
        char *nat[] = { guest, (char *)kind, NULL };
        struct run_result *n = run_program(nat, &within_a_minute);
        assert_int_equal(n->status, 0);
        assert_true(strlen(n->out) > 0 && atoll(n->out) >= 0);
        run_result_free(n);
        for (int q = 0; q < 2; q++) {
            char *emu[] = { tracegen, "--no-trace", "--quiet", "--quantum", (char *)quanta[q],
                            "--", guest, (char *)kind, NULL };
            struct run_result *e = run_program(emu, &within_a_minute);
            assert_int_equal(e->status, 0);
            long long late = atoll(e->out);
            if (strlen(e->out) == 0 || late < 0 || late >= TIMER_BOUND_NS)
                print_error("%s %s, quantum %s: noticed %lld ns after its expiry\n", libcs[l],
                            kind, quanta[q], late);
            assert_true(strlen(e->out) > 0 && late >= 0 && late < TIMER_BOUND_NS);
            run_result_free(e);
        }
    }
}

static void test_itimer_real_on_time(void **state) { (void)state; timer_fires_on_time("real"); }
static void test_itimer_virtual_on_time(void **state)
{
    (void)state;
    timer_fires_on_time("virtual");
}
static void test_itimer_prof_on_time(void **state) { (void)state; timer_fires_on_time("prof"); }
static void test_timerfd_on_time(void **state) { (void)state; timer_fires_on_time("timerfd"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signals_musl),
        cmocka_unit_test(test_signals_glibc),
        cmocka_unit_test(test_alarm_default_action),
        cmocka_unit_test(test_another_thread_handles_at_once),
        cmocka_unit_test(test_itimer_real_on_time),
        cmocka_unit_test(test_itimer_virtual_on_time),
        cmocka_unit_test(test_itimer_prof_on_time),
        cmocka_unit_test(test_timerfd_on_time),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
