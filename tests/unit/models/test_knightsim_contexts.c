/* KnightSim contexts: ordering of pauses of every length (short, at the edge
 * of the batch table, and far beyond it) against a brute-force model, 10,000
 * contexts, creation and destruction during a run, and stack overflow
 * detection. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgm/knightsim.h"

#define LOG_MAX 20000
static struct entry { int who; uint64_t tick; } log_[LOG_MAX];
static size_t nlog;

static void note(int who, ks_engine *e)
{
    assert_true(nlog < LOG_MAX);
    log_[nlog].who = who;
    log_[nlog].tick = ks_now(e);
    nlog++;
}

static uint32_t rng_state;
static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

/* ---- pauses of every length against a brute-force model ------------------- */

#define NCTX 40
#define NPAUSE 30
#define ROWS 64
static uint64_t pauses[NCTX][NPAUSE];
static ks_engine *cur_engine;

static void pause_script(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int k = 0; k < NPAUSE; k++) {
        note(id, cur_engine);
        ks_pause(pauses[id][k]);
    }
    note(id, cur_engine);
}

static uint64_t pick_pause(void)
{
    /* Lengths around the table size matter most: one row short of a full
     * turn, a full turn, just past it, and far beyond. */
    static const uint64_t edge[] = { 1, 2, ROWS - 1, ROWS, ROWS + 1, 2 * ROWS - 1, 2 * ROWS,
                                     2 * ROWS + 1, 1000, 4096, 100000, 1000003 };
    if (rng() % 3 == 0)
        return edge[rng() % (sizeof edge / sizeof edge[0])];
    return 1 + rng() % (3 * ROWS);
}

static void test_pauses_of_any_length_keep_order(void **state)
{
    (void)state;
    rng_state = 7;
    for (int i = 0; i < NCTX; i++)
        for (int k = 0; k < NPAUSE; k++)
            pauses[i][k] = pick_pause();
    ks_config cfg = { .table_rows = ROWS };
    ks_engine *e = ks_engine_create(&cfg);
    cur_engine = e;
    nlog = 0;
    for (int i = 0; i < NCTX; i++)
        ks_context_create(e, pause_script, (void *)(intptr_t)i, 16384);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);

    /* Model: every context is due at (tick, seq); the least runs next; a
     * pause makes it due again with a fresh seq (the order pauses happen). */
    uint64_t due[NCTX], seq[NCTX], next_seq = NCTX;
    int step[NCTX];
    for (int i = 0; i < NCTX; i++) {
        due[i] = 0;
        seq[i] = (uint64_t)i;
        step[i] = 0;
    }
    size_t n = 0;
    for (;;) {
        int best = -1;
        for (int i = 0; i < NCTX; i++) {
            if (step[i] > NPAUSE)
                continue;
            if (best < 0 || due[i] < due[best] || (due[i] == due[best] && seq[i] < seq[best]))
                best = i;
        }
        if (best < 0)
            break;
        assert_true(n < nlog);
        if (log_[n].who != best || log_[n].tick != due[best])
            fail_msg("event %zu: engine ran %d at %llu, model %d at %llu", n, log_[n].who,
                     (unsigned long long)log_[n].tick, best, (unsigned long long)due[best]);
        n++;
        if (step[best] < NPAUSE) {
            due[best] += pauses[best][step[best]];
            seq[best] = next_seq++;
        }
        step[best]++;
    }
    assert_int_equal(n, nlog);
    ks_stats st;
    ks_engine_stats(e, &st);
    assert_true(st.overflow_pauses > 0); /* the long path was exercised */
    ks_engine_destroy(e);
}

/* ---- 10,000 contexts ------------------------------------------------------- */

#define MANY 10000
#define ROUNDS 50
static uint32_t resumed[MANY];
static uint64_t order_violations;
static int last_id_at_tick;
static uint64_t last_tick;

static void many_body(void *arg)
{
    int id = (int)(intptr_t)arg;
    ks_engine *e = ks_self_engine();
    for (int r = 0; r < ROUNDS; r++) {
        /* All contexts pause by the same amount in a round, so in each tick
         * they run in creation order. */
        if (ks_now(e) == last_tick && id <= last_id_at_tick)
            order_violations++;
        last_tick = ks_now(e);
        last_id_at_tick = id;
        resumed[id]++;
        ks_pause(1 + (uint64_t)r % 3);
    }
}

static void test_ten_thousand_contexts(void **state)
{
    (void)state;
    ks_engine *e = ks_engine_create(NULL);
    memset(resumed, 0, sizeof resumed);
    order_violations = 0;
    last_tick = UINT64_MAX;
    for (int i = 0; i < MANY; i++) {
        char name[32];
        snprintf(name, sizeof name, "many-%d", i);
        ks_context_opts o = { .name = name, .stack_size = 16384 };
        assert_non_null(ks_context_create_opts(e, many_body, (void *)(intptr_t)i, &o));
    }
    assert_int_equal(ks_engine_contexts(e), MANY);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    assert_int_equal(ks_engine_contexts(e), 0);
    for (int i = 0; i < MANY; i++)
        assert_int_equal(resumed[i], ROUNDS);
    assert_int_equal(order_violations, 0);
    /* Pauses cycle 1,2,3: 50 rounds end at sum = 16*6 + 1 + 2 = 99 cycles. */
    assert_int_equal(ks_now(e), 99 + 1);
    ks_stats st;
    ks_engine_stats(e, &st);
    assert_int_equal(st.resumes, (uint64_t)MANY * (ROUNDS + 1));
    ks_engine_destroy(e);
}

/* ---- creation during a run ------------------------------------------------- */

static void child(void *arg)
{
    int id = (int)(intptr_t)arg;
    ks_engine *e = ks_self_engine();
    note(100 + id, e);
    ks_pause(2);
    note(100 + id, e);
}

static void spawner(void *arg)
{
    ks_engine *e = arg;
    for (int c = 0; c < 5; c++) {
        note(1, e);
        assert_non_null(ks_context_create(e, child, (void *)(intptr_t)c, 0));
        ks_pause(1);
    }
}

static void bystander(void *arg)
{
    ks_engine *e = arg;
    for (int c = 0; c < 5; c++) {
        note(2, e);
        ks_pause(1);
    }
}

static void test_contexts_created_during_a_run(void **state)
{
    (void)state;
    nlog = 0;
    ks_engine *e = ks_engine_create(NULL);
    ks_context_create(e, spawner, e, 0);
    ks_context_create(e, bystander, e, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    for (int c = 0; c < 5; c++) {
        /* The child's first entry directly follows its creator's at tick c,
         * ahead of the bystander already due at c. */
        size_t i = 0;
        while (i < nlog && log_[i].who != 100 + c)
            i++;
        assert_true(i > 0 && i < nlog);
        assert_int_equal(log_[i].tick, (uint64_t)c);
        assert_int_equal(log_[i - 1].who, 1);
        assert_int_equal(log_[i - 1].tick, (uint64_t)c);
        assert_int_equal(log_[i + 1].who, 2);
        size_t j = i + 1;
        while (j < nlog && log_[j].who != 100 + c)
            j++;
        assert_true(j < nlog);
        assert_int_equal(log_[j].tick, (uint64_t)c + 2);
    }
    assert_int_equal(ks_engine_contexts(e), 0);
    ks_engine_destroy(e);
}

/* ---- destruction during a run ---------------------------------------------- */

static ks_context *victims[6];
static ks_eventcount never;
static int victim_runs[6];

static void victim(void *arg)
{
    int v = (int)(intptr_t)arg;
    switch (v) {
    case 0: ks_pause(10); break;            /* in a table row */
    case 1: ks_pause(1000000); break;       /* in the overflow heap */
    case 2: ks_await(&never, 1); break;     /* awaiting */
    case 3: ks_pause(3); break;             /* due in the killer's tick, after it */
    case 4: ks_pause(3); ks_sub_clock_enter(); break; /* sub-clock list */
    default: ks_pause(5); break;            /* survivor */
    }
    victim_runs[v]++;
}

static void early_sub_clock(void *arg)
{
    (void)arg;
}

static void killer(void *arg)
{
    (void)arg;
    ks_pause(3);
    for (int v = 0; v < 5; v++)
        ks_context_destroy(victims[v]);
}

static void test_contexts_destroyed_during_a_run(void **state)
{
    (void)state;
    ks_engine *e = ks_engine_create(NULL);
    ks_ec_init(&never, "never", 0);
    memset(victim_runs, 0, sizeof victim_runs);
    ks_context_create(e, early_sub_clock, NULL, 0);
    /* victim 4 pauses before the killer (runs first at 3, enters the
     * sub-clock list); victim 3 pauses after it (runs after it at 3). */
    victims[4] = ks_context_create(e, victim, (void *)(intptr_t)4, 0);
    ks_context_create(e, killer, NULL, 0);
    for (int v = 0; v < 6; v++)
        if (v != 4)
            victims[v] = ks_context_create(e, victim, (void *)(intptr_t)v, 0);
    assert_int_equal(ks_engine_contexts(e), 8);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    for (int v = 0; v < 5; v++)
        assert_int_equal(victim_runs[v], 0);
    assert_int_equal(victim_runs[5], 1);
    assert_int_equal(ks_engine_contexts(e), 0);
    assert_int_equal(ks_ec_waiters(&never), 0);
    /* the heap victim is gone: the run did not go on to cycle 1000000 */
    assert_int_equal(ks_now(e), 6);
    ks_engine_destroy(e);
}

static void test_destroy_before_run(void **state)
{
    (void)state;
    ks_engine *e = ks_engine_create(NULL);
    memset(victim_runs, 0, sizeof victim_runs);
    ks_context *a = ks_context_create(e, victim, (void *)(intptr_t)5, 0);
    ks_context *b = ks_context_create(e, victim, (void *)(intptr_t)0, 0);
    ks_context_destroy(a);
    assert_int_equal(ks_engine_contexts(e), 1);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    assert_int_equal(victim_runs[5], 0);
    assert_int_equal(victim_runs[0], 1);
    (void)b;
    ks_engine_destroy(e);
}

/* Between runs: five contexts share one row of the table (all pause 5 each
 * cycle they run); destroying the first, a middle and the last leaves the
 * other two running in their order, and nothing of the destroyed. */
static void every_five(void *arg)
{
    int who = (int)(intptr_t)arg;
    for (;;) {
        note(who, ks_self_engine());
        ks_pause(5);
    }
}

static void test_destroy_in_a_row_between_runs(void **state)
{
    (void)state;
    ks_engine *e = ks_engine_create(NULL);
    ks_context *c[5];
    for (int i = 0; i < 5; i++)
        c[i] = ks_context_create(e, every_five, (void *)(intptr_t)i, 0);
    nlog = 0;
    assert_int_equal(ks_run_until(e, 3), KS_STOP_LIMIT);
    assert_int_equal(nlog, 5);
    ks_context_destroy(c[0]);
    ks_context_destroy(c[2]);
    ks_context_destroy(c[4]);
    assert_int_equal(ks_engine_contexts(e), 2);
    nlog = 0;
    assert_int_equal(ks_run_until(e, 16), KS_STOP_LIMIT);
    /* ticks 5, 10 and 15: contexts 1 then 3 */
    assert_int_equal(nlog, 6);
    for (size_t i = 0; i < nlog; i++) {
        assert_int_equal(log_[i].who, i % 2 ? 3 : 1);
        assert_int_equal(log_[i].tick, 5 * (i / 2 + 1));
    }
    ks_engine_destroy(e);
}

/* ---- ks_exit from a nested call ------------------------------------------- */

static int after_exit;
static void nested(void) { ks_exit(); }
static void exits_early(void *arg)
{
    (void)arg;
    ks_pause(2);
    nested();
    after_exit = 1;
}

static void test_exit_from_nested_call(void **state)
{
    (void)state;
    ks_engine *e = ks_engine_create(NULL);
    after_exit = 0;
    ks_context_create(e, exits_early, NULL, 0);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    assert_int_equal(after_exit, 0);
    assert_int_equal(ks_engine_contexts(e), 0);
    assert_int_equal(ks_now(e), 3);
    ks_engine_destroy(e);
}

/* ---- stack overflow --------------------------------------------------------- */

static int recurse(int depth)
{
    volatile char frame[1024];
    frame[0] = (char)depth;
    frame[sizeof frame - 1] = (char)depth;
    return depth > 100000 ? frame[0] : recurse(depth + 1) + frame[sizeof frame - 1];
}

static volatile int sink;
static void deep(void *arg)
{
    (void)arg;
    ks_pause(1);
    sink = recurse(0);
}

static void test_stack_overflow_names_the_context(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        ks_engine *e = ks_engine_create(NULL);
        ks_context_opts o = { .name = "deep-recursion", .stack_size = 32768 };
        ks_context_create_opts(e, deep, NULL, &o);
        ks_run(e);
        _exit(0); /* not reached if the overflow is caught */
    }
    close(fds[1]);
    char buf[4096];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    buf[got] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    if (!strstr(buf, "stack overflow in context 'deep-recursion'"))
        fail_msg("child's stderr does not name the context: %s", buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pauses_of_any_length_keep_order),
        cmocka_unit_test(test_ten_thousand_contexts),
        cmocka_unit_test(test_contexts_created_during_a_run),
        cmocka_unit_test(test_contexts_destroyed_during_a_run),
        cmocka_unit_test(test_destroy_before_run),
        cmocka_unit_test(test_destroy_in_a_row_between_runs),
        cmocka_unit_test(test_exit_from_nested_call),
        cmocka_unit_test(test_stack_overflow_names_the_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
