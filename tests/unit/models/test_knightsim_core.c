/* KnightSim semantics at the cycle level: who runs when, in which order, for
 * pause, await, await-until and advance, the sub-clock phase, the end of a
 * run and its limits, and per-context floating-point control state.
 * Expected schedules are worked out by hand from the rules in knightsim.h or
 * by small models written here (a tandem queue recurrence, the ks_pause(1)
 * loop ks_await_until stands for). */
#include <fenv.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/knightsim.h"

/* ---- a log of (who, cycle) entries --------------------------------------- */
#define LOG_MAX 4096
static struct entry { int who; uint64_t cycle; } log_[LOG_MAX];
static size_t nlog;

static void note(int who)
{
    assert_true(nlog < LOG_MAX);
    log_[nlog].who = who;
    log_[nlog].cycle = ks_cycle();
    nlog++;
}

static void expect_log(const struct entry *want, size_t n)
{
    assert_int_equal(nlog, n);
    for (size_t i = 0; i < n; i++) {
        if (log_[i].who != want[i].who || log_[i].cycle != want[i].cycle)
            fail_msg("entry %zu: got (%d, %llu), want (%d, %llu)", i, log_[i].who,
                     (unsigned long long)log_[i].cycle, want[i].who,
                     (unsigned long long)want[i].cycle);
    }
}

static int setup(void **state)
{
    (void)state;
    nlog = 0;
    return 0;
}

static ks_engine *engine(void)
{
    ks_engine *e = ks_engine_create(NULL);
    assert_non_null(e);
    return e;
}

/* ---- pause ---------------------------------------------------------------- */

static void pauser(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < 4; i++) {
        note(id);
        ks_pause((uint64_t)id);
    }
}

static void test_pause_resumes_n_cycles_later(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_context_create(e, pauser, (void *)(intptr_t)3, 0);
    ks_context_create(e, pauser, (void *)(intptr_t)2, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    /* Cycle 0 in creation order; 3 resumes at 3,6,9; 2 at 2,4,6. At 6 both
     * resume: 3 paused (at 3) before 2 did (at 4), so 3 runs first. */
    static const struct entry want[] = { { 3, 0 }, { 2, 0 }, { 2, 2 }, { 3, 3 }, { 2, 4 },
                                         { 3, 6 }, { 2, 6 }, { 3, 9 } };
    expect_log(want, sizeof want / sizeof want[0]);
    /* Contexts ended after their last pause: 2 at cycle 8, 3 at cycle 12. */
    assert_int_equal(ks_engine_contexts(e), 0);
    assert_int_equal(ks_now(e), 13);
    ks_engine_destroy(e);
}

static void zero_pauser(void *arg)
{
    (void)arg;
    note(1);
    ks_pause(0);
    note(1);
}

static void other(void *arg)
{
    (void)arg;
    note(2);
}

static void test_pause_zero_returns_at_once(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_context_create(e, zero_pauser, NULL, 0);
    ks_context_create(e, other, NULL, 0);
    ks_run(e);
    static const struct entry want[] = { { 1, 0 }, { 1, 0 }, { 2, 0 } };
    expect_log(want, 3);
    ks_engine_destroy(e);
}

/* ---- await / advance ------------------------------------------------------ */

static ks_eventcount ec;

static void producer(void *arg)
{
    (void)arg;
    ks_pause(5);
    note(1);
    ks_advance(&ec);
    note(1);
}

static void bystander(void *arg)
{
    (void)arg;
    ks_pause(5);
    note(3);
}

static void consumer(void *arg)
{
    (void)arg;
    ks_await(&ec, 1);
    note(2);
}

static void test_advance_wakes_right_after_the_advancer(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_ec_init(&ec, "ec", 0);
    ks_context_create(e, consumer, NULL, 0);
    ks_context_create(e, producer, NULL, 0);
    ks_context_create(e, bystander, NULL, 0);
    ks_run(e);
    /* The producer keeps running after advancing (advance never blocks); the
     * consumer runs next, before the bystander that was already due at 5. */
    static const struct entry want[] = { { 1, 5 }, { 1, 5 }, { 2, 5 }, { 3, 5 } };
    expect_log(want, 4);
    ks_engine_destroy(e);
}

/* ks_advance_next against its definition: a waiter woken by ks_advance that
 * at once pauses for one cycle. Both runs must log the same schedule. */
static bool use_next;

static void next_waker(void *arg)
{
    (void)arg;
    ks_pause(5);
    if (use_next)
        ks_advance_next(&ec);
    else
        ks_advance(&ec);
    note(1);
    ks_pause(1);
    note(1);
}

static void next_waiter(void *arg)
{
    int id = (int)(intptr_t)arg;
    ks_await(&ec, 1);
    if (!use_next)
        ks_pause(1);
    note(id);
    ks_pause(1);
    note(id);
}

static void next_bystander(void *arg)
{
    (void)arg;
    ks_pause(6);
    note(4);
}

static void run_next_scenario(bool deferred)
{
    use_next = deferred;
    nlog = 0;
    ks_engine *e = engine();
    ks_ec_init(&ec, "ec", 0);
    ks_context_create(e, next_waiter, (void *)(intptr_t)2, 0);
    ks_context_create(e, next_bystander, NULL, 0);
    ks_context_create(e, next_waker, NULL, 0);
    ks_context_create(e, next_waiter, (void *)(intptr_t)3, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    ks_engine_destroy(e);
}

static void test_advance_next_is_advance_then_one_cycle_pause(void **state)
{
    (void)state;
    run_next_scenario(false);
    struct entry ref[LOG_MAX];
    size_t n = nlog;
    memcpy(ref, log_, n * sizeof *ref);
    /* Worked out by hand: at 5 the waker notes; the waiters (woken behind it)
     * pause at once, behind the waker's own pause and behind the bystander
     * that paused at creation; at 7 they note again. */
    static const struct entry want[] = { { 1, 5 }, { 4, 6 }, { 1, 6 }, { 2, 6 }, { 3, 6 },
                                         { 2, 7 }, { 3, 7 } };
    expect_log(want, 7);
    run_next_scenario(true);
    expect_log(ref, n);
}

static void early(void *arg)
{
    (void)arg;
    ks_advance(&ec);
    ks_advance(&ec);
    note(1);
}

static void late_awaiter(void *arg)
{
    (void)arg;
    ks_await(&ec, 2); /* already reached: must not block */
    note(2);
    ks_await(&ec, 3);
    note(2);
}

static void test_await_of_reached_value_does_not_block(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_ec_init(&ec, "ec", 0);
    ks_context_create(e, early, NULL, 0);
    ks_context_create(e, late_awaiter, NULL, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    static const struct entry want[] = { { 1, 0 }, { 2, 0 } };
    expect_log(want, 2);
    /* The second await (value 3) is never satisfied: the context stays. */
    assert_int_equal(ks_engine_contexts(e), 1);
    assert_int_equal(ks_ec_waiters(&ec), 1);
    /* Advancing from outside the run makes it ready; the next run ends it. */
    ks_advance(&ec);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    assert_int_equal(ks_engine_contexts(e), 0);
    assert_int_equal(nlog, 3);
    assert_int_equal(log_[2].cycle, 1);
    ks_engine_destroy(e);
}

static void waiter_for(void *arg)
{
    int v = (int)(intptr_t)arg;
    ks_await(&ec, (uint64_t)(v / 10));
    note(v);
}

static void stepper(void *arg)
{
    (void)arg;
    ks_pause(1);
    ks_advance(&ec);
    ks_pause(1);
    ks_advance(&ec);
}

static void test_waiters_wake_by_value_then_arrival(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_ec_init(&ec, "ec", 0);
    /* who = 10 * awaited value + arrival index */
    ks_context_create(e, waiter_for, (void *)(intptr_t)21, 0);
    ks_context_create(e, waiter_for, (void *)(intptr_t)12, 0);
    ks_context_create(e, waiter_for, (void *)(intptr_t)13, 0);
    ks_context_create(e, waiter_for, (void *)(intptr_t)24, 0);
    ks_context_create(e, stepper, NULL, 0);
    ks_run(e);
    static const struct entry want[] = { { 12, 1 }, { 13, 1 }, { 21, 2 }, { 24, 2 } };
    expect_log(want, 4);
    ks_engine_destroy(e);
}

/* ---- await until ---------------------------------------------------------- */

/* Whoever is watching: its id, the eventcount's value and the last cycle it
 * waits for; what ks_await_until returned; whether it loops on ks_pause(1)
 * (the definition) instead. */
static struct { int id; uint64_t value, until; bool reached, by_loop; } watch;

static bool loop_until(ks_eventcount *e, uint64_t value, uint64_t cycle)
{
    do
        ks_pause(1);
    while (ks_ec_count(e) < value && ks_cycle() < cycle);
    return ks_ec_count(e) >= value;
}

static void watcher(void *arg)
{
    (void)arg;
    note(watch.id);
    watch.reached = watch.by_loop ? loop_until(&ec, watch.value, watch.until)
                                  : ks_await_until(&ec, watch.value, watch.until);
    note(watch.id);
}

/* Advances ec in cycle 5, pausing 5 cycles at once or 1 at a time: in cycle
 * 5 it runs before the watcher (it paused in cycle 0, the watcher last in
 * cycle 4) or after it (both step one cycle at a time, the watcher first). */
static bool step_by_step;

static void advancer(void *arg)
{
    (void)arg;
    if (step_by_step)
        for (int i = 0; i < 5; i++)
            ks_pause(1);
    else
        ks_pause(5);
    note(1);
    ks_advance(&ec);
}

static void run_watch(uint64_t value, uint64_t until, bool with_advancer, uint64_t *resumes)
{
    nlog = 0;
    ks_engine *e = engine();
    ks_ec_init(&ec, "ec", 0);
    watch.id = 2;
    watch.value = value;
    watch.until = until;
    ks_context_create(e, watcher, NULL, 0);
    if (with_advancer)
        ks_context_create(e, advancer, NULL, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    ks_stats st;
    ks_engine_stats(e, &st);
    *resumes = st.resumes;
    ks_engine_destroy(e);
}

static void test_await_until_wakes_at_its_turn_after_an_advance(void **state)
{
    (void)state;
    uint64_t resumes;
    /* cycle 5: the advancer (paused at 0) comes first, the watcher sees it then */
    step_by_step = false;
    watch.by_loop = false;
    run_watch(1, 1000, true, &resumes);
    static const struct entry first[] = { { 2, 0 }, { 1, 5 }, { 2, 5 } };
    expect_log(first, 3);
    assert_true(watch.reached);
    /* 1 at a time, the watcher's turn in cycle 5 has passed: it sees it in 6 */
    step_by_step = true;
    run_watch(1, 1000, true, &resumes);
    static const struct entry after[] = { { 2, 0 }, { 1, 5 }, { 2, 6 } };
    expect_log(after, 3);
    assert_true(watch.reached);
}

static void test_await_until_ends_at_its_cycle(void **state)
{
    (void)state;
    uint64_t resumes;
    watch.by_loop = false;
    run_watch(1, 7, false, &resumes);
    static const struct entry want[] = { { 2, 0 }, { 2, 7 } };
    expect_log(want, 2);
    assert_false(watch.reached);
    /* a value already reached, or a cycle already begun: one cycle, as the
     * do-while loop (no advance is missed: the count is looked at, not a
     * wake-up) */
    run_watch(0, 1000, false, &resumes);
    static const struct entry once[] = { { 2, 0 }, { 2, 1 } };
    expect_log(once, 2);
    assert_true(watch.reached);
    run_watch(1, 0, false, &resumes);
    expect_log(once, 2);
    assert_false(watch.reached);
}

/* The same schedule as the ks_pause(1) loop, without its resumptions: a
 * 3000-cycle wait (past the batch table's 512 cycles) costs the loop 3000. */
static void test_await_until_is_the_pause_loop_without_resumptions(void **state)
{
    (void)state;
    uint64_t by_loop, by_wait;
    static const struct entry want[] = { { 2, 0 }, { 2, 3000 } };
    watch.by_loop = true;
    run_watch(1, 3000, false, &by_loop);
    expect_log(want, 2);
    watch.by_loop = false;
    run_watch(1, 3000, false, &by_wait);
    expect_log(want, 2);
    assert_int_equal(by_loop - by_wait, 2999);
}

static ks_context *doomed;

static void destroyer(void *arg)
{
    (void)arg;
    ks_pause(3);
    ks_context_destroy(doomed);
    note(1);
}

static void test_await_until_context_can_be_destroyed(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_ec_init(&ec, "ec", 0);
    watch.id = 2;
    watch.value = 1;
    watch.until = 100;
    watch.by_loop = false;
    doomed = ks_context_create(e, watcher, NULL, 0);
    ks_context_create(e, destroyer, NULL, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    static const struct entry want[] = { { 2, 0 }, { 1, 3 } };
    expect_log(want, 2);
    assert_int_equal(ks_engine_contexts(e), 0);
    ks_engine_destroy(e);
}

/* ---- producer/consumer chain: a tandem queue ------------------------------ */

#define STAGES 4
#define ITEMS 40
static ks_eventcount stage_ec[STAGES + 1];
static uint64_t stage_latency[STAGES] = { 3, 1, 4, 2 };
static uint64_t arrival[ITEMS];
static uint64_t done_at[ITEMS];

static void source(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITEMS; i++) {
        if (arrival[i] > ks_cycle())
            ks_pause(arrival[i] - ks_cycle());
        ks_advance(&stage_ec[0]);
    }
}

static void stage(void *arg)
{
    int s = (int)(intptr_t)arg;
    for (uint64_t step = 1; step <= ITEMS; step++) {
        ks_await(&stage_ec[s], step);
        ks_pause(stage_latency[s]);
        ks_advance(&stage_ec[s + 1]);
    }
}

static void sink(void *arg)
{
    (void)arg;
    for (uint64_t step = 1; step <= ITEMS; step++) {
        ks_await(&stage_ec[STAGES], step);
        done_at[step - 1] = ks_cycle();
    }
}

static void test_chain_matches_tandem_queue(void **state)
{
    (void)state;
    /* Bursty arrivals: gaps of 0..5 cycles from a fixed LCG. */
    uint32_t x = 12345;
    uint64_t t = 2;
    for (int i = 0; i < ITEMS; i++) {
        x = x * 1103515245u + 12345u;
        t += (x >> 16) % 6;
        arrival[i] = t;
    }
    ks_engine *e = engine();
    for (int s = 0; s <= STAGES; s++)
        ks_ec_init(&stage_ec[s], "stage", 0);
    ks_context_create(e, sink, NULL, 0);
    for (int s = STAGES - 1; s >= 0; s--)
        ks_context_create(e, stage, (void *)(intptr_t)s, 0);
    ks_context_create(e, source, NULL, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    /* Model: a stage starts an item when it has arrived and the stage has
     * finished the previous one; it leaves latency cycles later. */
    uint64_t free_at[STAGES] = { 0 };
    for (int i = 0; i < ITEMS; i++) {
        uint64_t ready = arrival[i];
        for (int s = 0; s < STAGES; s++) {
            uint64_t start = ready > free_at[s] ? ready : free_at[s];
            ready = start + stage_latency[s];
            free_at[s] = ready;
        }
        assert_int_equal(done_at[i], ready);
    }
    ks_engine_destroy(e);
}

/* ---- sub-clock arbitration ------------------------------------------------ */

static ks_eventcount req_ec;
static int requests_seen_direct, requests_seen_sub;
static uint64_t exit_cycle;
static int requests;

static void requester(void *arg)
{
    (void)arg;
    ks_pause(4);
    requests++;
    ks_advance(&req_ec);
}

static void arbiter(void *arg)
{
    (void)arg;
    ks_await(&req_ec, 1);
    requests_seen_direct = requests;
    ks_sub_clock_enter();
    assert_true(ks_in_sub_clock());
    requests_seen_sub = requests;
    note(9);
    ks_sub_clock_exit();
    assert_false(ks_in_sub_clock());
    exit_cycle = ks_cycle();
}

static void test_sub_clock_sees_every_advancer(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_ec_init(&req_ec, "req", 0);
    requests = 0;
    ks_context_create(e, arbiter, NULL, 0);
    for (int i = 0; i < 3; i++)
        ks_context_create(e, requester, NULL, 0);
    ks_run(e);
    /* Woken by the first requester, the arbiter runs before the other two;
     * in the sub-clock phase all three have run. */
    assert_int_equal(requests_seen_direct, 1);
    assert_int_equal(requests_seen_sub, 3);
    assert_int_equal(log_[0].cycle, 4);
    /* Leaving the sub-clock continues at the start of the next cycle. */
    assert_int_equal(exit_cycle, 5);
    ks_engine_destroy(e);
}

static void late_a(void *arg)
{
    (void)arg;
    ks_sub_clock_enter();
    note(1);
    ks_sub_clock_enter(); /* no-op inside the sub-clock phase */
    note(1);
}

static void late_b(void *arg)
{
    (void)arg;
    ks_sub_clock_enter();
    note(2);
}

static void regular_c(void *arg)
{
    (void)arg;
    note(3);
    ks_sub_clock_exit(); /* no-op in the regular phase */
    note(3);
}

static void test_sub_clock_order(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_context_create(e, late_a, NULL, 0);
    ks_context_create(e, late_b, NULL, 0);
    ks_context_create(e, regular_c, NULL, 0);
    ks_run(e);
    static const struct entry want[] = { { 3, 0 }, { 3, 0 }, { 1, 0 }, { 1, 0 }, { 2, 0 } };
    expect_log(want, 5);
    ks_engine_destroy(e);
}

/* ---- end of a run, limits, resumption ------------------------------------- */

static void ender(void *arg)
{
    ks_engine *e = arg;
    ks_pause(7);
    ks_end(e);
    note(1); /* keeps running until it blocks */
    ks_pause(1);
    note(1);
}

static void ticker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++) {
        note(2);
        ks_pause(1);
    }
}

static void test_end_stops_after_the_current_cycle(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_context_create(e, ender, e, 0);
    ks_context_create(e, ticker, NULL, 0);
    assert_int_equal(ks_run(e), KS_STOP_ENDED);
    assert_int_equal(ks_now(e), 8);
    /* ticker ran cycles 0..7, ender noted once at 7 */
    assert_int_equal(nlog, 9);
    assert_int_equal(log_[nlog - 1].who, 2);
    assert_int_equal(log_[nlog - 1].cycle, 7);
    /* Resuming finishes the model. */
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    assert_int_equal(nlog, 9 + 1 + 2);
    ks_engine_destroy(e);
}

static void test_run_until_splits_a_run_exactly(void **state)
{
    (void)state;
    /* One run to the end... */
    ks_engine *e = engine();
    ks_context_create(e, pauser, (void *)(intptr_t)3, 0);
    ks_context_create(e, ticker, NULL, 0);
    ks_run(e);
    struct entry whole[64];
    size_t nwhole = nlog;
    memcpy(whole, log_, nlog * sizeof *log_);
    ks_engine_destroy(e);

    /* ...equals the same model run in slices. */
    nlog = 0;
    e = engine();
    ks_context_create(e, pauser, (void *)(intptr_t)3, 0);
    ks_context_create(e, ticker, NULL, 0);
    assert_int_equal(ks_run_until(e, 4), KS_STOP_LIMIT);
    assert_int_equal(ks_now(e), 4);
    for (size_t i = 0; i < nlog; i++)
        assert_true(log_[i].cycle < 4);
    assert_int_equal(ks_run_until(e, 4), KS_STOP_LIMIT); /* nothing left below 4 */
    assert_int_equal(ks_run_cycles(e, ks_domain_default(e), 7), KS_STOP_LIMIT);
    assert_int_equal(ks_now(e), 7);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    expect_log(whole, nwhole);
    ks_engine_destroy(e);
}

static void forever(void *arg)
{
    (void)arg;
    ks_await(&ec, 1);
}

static void test_idle_with_blocked_contexts(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_ec_init(&ec, "never", 0);
    ks_context_create(e, forever, NULL, 0);
    ks_context_create(e, forever, NULL, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    assert_int_equal(ks_engine_contexts(e), 2);
    ks_engine_destroy(e); /* frees the blocked contexts */
}

/* ---- per-context floating-point control state ----------------------------- */

static int round_seen_by_other;
static double up_result, near_result;
static volatile double three = 3.0;

static void rounds_up(void *arg)
{
    (void)arg;
    fesetround(FE_UPWARD);
    ks_pause(2); /* the other context runs at cycle 1 meanwhile */
    assert_int_equal(fegetround(), FE_UPWARD);
    up_result = 1.0 / three;
    fesetround(FE_TONEAREST);
}

static void rounds_near(void *arg)
{
    (void)arg;
    ks_pause(1);
    round_seen_by_other = fegetround();
    near_result = 1.0 / three;
}

static void test_rounding_mode_is_per_context(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_context_create(e, rounds_up, NULL, 0);
    ks_context_create(e, rounds_near, NULL, 0);
    ks_run(e);
    assert_int_equal(round_seen_by_other, FE_TONEAREST);
    /* 1/3 is inexact: rounding up gives the next double above nearest. */
    assert_true(up_result > near_result);
    assert_int_equal(fegetround(), FE_TONEAREST);
    ks_engine_destroy(e);
}

/* Two contexts with different rounding modes of their own, and one with the
 * default, take turns every cycle; each checks at every turn that it still
 * has its own mode and that its arithmetic rounds that way. */
static const int modes[3] = { FE_UPWARD, FE_DOWNWARD, FE_TONEAREST };
static int mode_errors;

static void keeps_mode(void *arg)
{
    int mode = modes[(intptr_t)arg];
    if (mode != FE_TONEAREST)
        fesetround(mode);
    for (int i = 0; i < 50; i++) {
        double third = 1.0 / three;
        /* 1/3 is inexact: upward lies above nearest, downward below */
        bool ok = fegetround() == mode &&
                  (mode == FE_UPWARD ? third > 1.0 / 3.0L : mode == FE_DOWNWARD ? third < 1.0 / 3.0L
                                                                               : true);
        mode_errors += !ok;
        ks_pause(1);
    }
    fesetround(FE_TONEAREST);
}

static void test_rounding_modes_survive_switches(void **state)
{
    (void)state;
    ks_engine *e = engine();
    mode_errors = 0;
    for (intptr_t i = 0; i < 3; i++)
        ks_context_create(e, keeps_mode, (void *)i, 0);
    ks_run(e);
    assert_int_equal(mode_errors, 0);
    ks_engine_destroy(e);
}

/* A run starts its contexts from the default state whatever the calling
 * thread's, and gives the thread its own back. */
static int mode_seen;

static void reads_mode(void *arg)
{
    (void)arg;
    mode_seen = fegetround();
}

static void test_run_keeps_the_callers_rounding_mode(void **state)
{
    (void)state;
    ks_engine *e = engine();
    ks_context_create(e, reads_mode, NULL, 0);
    fesetround(FE_TOWARDZERO);
    ks_run(e);
    int after = fegetround();
    fesetround(FE_TONEAREST);
    assert_int_equal(mode_seen, FE_TONEAREST);
    assert_int_equal(after, FE_TOWARDZERO);
    ks_engine_destroy(e);
}

/* ---- errors ----------------------------------------------------------------- */

static void test_bad_configuration_is_refused(void **state)
{
    (void)state;
    ks_config c = { .table_rows = 100 };
    assert_null(ks_engine_create(&c));
    ks_config c2 = { .table_rows = 32 };
    assert_null(ks_engine_create(&c2));
    ks_engine *e = engine();
    ks_context_opts o = { .name = "bad", .thread = 3 };
    assert_null(ks_context_create_opts(e, other, NULL, &o));
    assert_non_null(strstr(ks_engine_error(e), "thread 3"));
    assert_null(ks_context_create(e, NULL, NULL, 0));
    ks_engine_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_pause_resumes_n_cycles_later, setup),
        cmocka_unit_test_setup(test_pause_zero_returns_at_once, setup),
        cmocka_unit_test_setup(test_advance_wakes_right_after_the_advancer, setup),
        cmocka_unit_test_setup(test_advance_next_is_advance_then_one_cycle_pause, setup),
        cmocka_unit_test_setup(test_await_of_reached_value_does_not_block, setup),
        cmocka_unit_test_setup(test_waiters_wake_by_value_then_arrival, setup),
        cmocka_unit_test_setup(test_await_until_wakes_at_its_turn_after_an_advance, setup),
        cmocka_unit_test_setup(test_await_until_ends_at_its_cycle, setup),
        cmocka_unit_test_setup(test_await_until_is_the_pause_loop_without_resumptions, setup),
        cmocka_unit_test_setup(test_await_until_context_can_be_destroyed, setup),
        cmocka_unit_test_setup(test_chain_matches_tandem_queue, setup),
        cmocka_unit_test_setup(test_sub_clock_sees_every_advancer, setup),
        cmocka_unit_test_setup(test_sub_clock_order, setup),
        cmocka_unit_test_setup(test_end_stops_after_the_current_cycle, setup),
        cmocka_unit_test_setup(test_run_until_splits_a_run_exactly, setup),
        cmocka_unit_test_setup(test_idle_with_blocked_contexts, setup),
        cmocka_unit_test_setup(test_rounding_mode_is_per_context, setup),
        cmocka_unit_test_setup(test_rounding_modes_survive_switches, setup),
        cmocka_unit_test_setup(test_run_keeps_the_callers_rounding_mode, setup),
        cmocka_unit_test_setup(test_bad_configuration_is_refused, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
