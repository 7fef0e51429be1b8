/* Parallel KnightSim: a model without cross-thread interaction gives exactly
 * the sequential engine's results (per-context logs compared entry by entry,
 * with pauses, chains, the sub-clock phase, contexts created during the run,
 * long pauses, two clock domains and ks_end); hazardous eventcounts carry
 * wake-ups and counts across threads safely, and a model whose contexts share
 * only hazardous eventcounts gives the same logs for 1 to 4 workers. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgm/knightsim.h"

#define GROUPS 8
#define STAGES 3
#define EVENTS 300
#define LOG_MAX 4096

struct rec { int64_t who; uint64_t tick, value; }; /* no padding: compared with memcmp */

/* Everything a group touches; groups share nothing. */
static struct group {
    ks_engine *eng;
    unsigned thread;
    ks_domain *dom;
    ks_eventcount ec[STAGES + 1];
    uint32_t rng;
    struct rec log[LOG_MAX];
    size_t n;
    int children;
    bool ender;
} g[GROUPS];

static void rec(struct group *gr, int who, uint64_t value)
{
    assert_true(gr->n < LOG_MAX);
    gr->log[gr->n++] = (struct rec){ who, ks_now(gr->eng), value };
}

static uint32_t grng(struct group *gr)
{
    gr->rng = gr->rng * 1664525u + 1013904223u;
    return gr->rng >> 8;
}

static void child(void *arg)
{
    struct group *gr = arg;
    rec(gr, 50, ks_cycle());
    ks_pause(1 + grng(gr) % 4);
    rec(gr, 51, ks_cycle());
}

static void generator(void *arg)
{
    struct group *gr = arg;
    for (int k = 0; k < EVENTS; k++) {
        ks_pause(1 + grng(gr) % 5);
        rec(gr, 1, (uint64_t)k);
        ks_advance(&gr->ec[0]);
        if (k % 37 == 0) {
            ks_context_opts o = { .name = "child", .domain = gr->dom, .thread = gr->thread };
            assert_non_null(ks_context_create_opts(gr->eng, child, gr, &o));
            gr->children++;
        }
        if (gr->ender && k == 100)
            ks_end(gr->eng);
    }
}

static void stage(void *arg)
{
    struct group *gr = (struct group *)((uintptr_t)arg & ~(uintptr_t)3);
    int s = (int)((uintptr_t)arg & 3);
    for (uint64_t step = 1;; step++) {
        ks_await(&gr->ec[s], step);
        ks_pause((uint64_t)s + 1);
        rec(gr, 10 + s, step);
        ks_advance(&gr->ec[s + 1]);
    }
}

static void arbiter(void *arg)
{
    struct group *gr = arg;
    for (uint64_t step = 1;;) {
        ks_await(&gr->ec[STAGES], step);
        ks_sub_clock_enter();
        uint64_t c = ks_ec_count(&gr->ec[STAGES]);
        rec(gr, 20, c);
        step = c + 1;
        ks_sub_clock_exit();
    }
}

static void sleeper(void *arg)
{
    struct group *gr = arg;
    ks_pause(5000 + grng(gr) % 1000); /* beyond the table */
    rec(gr, 30, ks_cycle());
}

/* Builds the model; `threads` 0 means the sequential engine. */
static ks_engine *build(unsigned threads)
{
    ks_config cfg = { .threads = threads ? threads : 1, .parallel = threads > 0 };
    ks_engine *e = ks_engine_create(&cfg);
    assert_non_null(e);
    ks_domain *fast = ks_domain_create(e, "2g5", 2500000000ull);
    assert_non_null(fast);
    unsigned nt = threads ? threads : 1;
    for (int i = 0; i < GROUPS; i++) {
        struct group *gr = &g[i];
        memset(gr, 0, sizeof *gr);
        gr->eng = e;
        gr->thread = (unsigned)i % nt;
        gr->dom = i % 2 ? fast : ks_domain_default(e);
        gr->rng = 1000u + (uint32_t)i;
        gr->ender = i == 3;
        for (int s = 0; s <= STAGES; s++)
            ks_ec_init(&gr->ec[s], "group", 0);
        ks_context_opts o = { .domain = gr->dom, .thread = gr->thread };
        for (int s = STAGES - 1; s >= 0; s--)
            assert_non_null(ks_context_create_opts(e, stage, (void *)((uintptr_t)gr | (uintptr_t)s), &o));
        assert_non_null(ks_context_create_opts(e, arbiter, gr, &o));
        assert_non_null(ks_context_create_opts(e, sleeper, gr, &o));
        assert_non_null(ks_context_create_opts(e, generator, gr, &o));
    }
    return e;
}

static struct rec want[GROUPS][LOG_MAX];
static size_t want_n[GROUPS];

static void run_and_capture(unsigned threads, ks_tick *t_end, ks_tick *t_idle)
{
    ks_engine *e = build(threads);
    assert_int_equal(ks_run(e), KS_STOP_ENDED);
    *t_end = ks_now(e);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    *t_idle = ks_now(e);
    ks_engine_destroy(e);
}

static void test_parallel_equals_sequential(void **state)
{
    (void)state;
    ks_tick seq_end, seq_idle;
    run_and_capture(0, &seq_end, &seq_idle);
    for (int i = 0; i < GROUPS; i++) {
        memcpy(want[i], g[i].log, g[i].n * sizeof g[i].log[0]);
        want_n[i] = g[i].n;
        assert_true(g[i].n > EVENTS * 2);
        assert_true(g[i].children > 0);
    }
    static const unsigned threads[] = { 1, 2, 3, 4 };
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        ks_tick end, idle;
        run_and_capture(threads[t], &end, &idle);
        assert_int_equal(end, seq_end);
        assert_int_equal(idle, seq_idle);
        for (int i = 0; i < GROUPS; i++) {
            assert_int_equal(g[i].n, want_n[i]);
            for (size_t k = 0; k < want_n[i]; k++) {
                const struct rec *a = &g[i].log[k], *b = &want[i][k];
                if (a->who != b->who || a->tick != b->tick || a->value != b->value)
                    fail_msg("%u threads, group %d entry %zu: (%lld,%llu,%llu) vs sequential "
                             "(%lld,%llu,%llu)", threads[t], i, k, (long long)a->who,
                             (unsigned long long)a->tick, (unsigned long long)a->value, (long long)b->who,
                             (unsigned long long)b->tick, (unsigned long long)b->value);
            }
        }
    }
}

/* ---- hazardous eventcounts -------------------------------------------------- */

#define PRODUCERS 6
#define PCYCLES 400
static ks_eventcount shared_ec;
static ks_eventcount ping, pong;
static uint64_t sent[64], woke[64];
static atomic_ulong produced;

static void producer(void *arg)
{
    (void)arg;
    for (int c = 0; c < PCYCLES; c++) {
        atomic_fetch_add(&produced, 1);
        ks_advance(&shared_ec);
        ks_pause(1);
    }
}

static uint64_t consumer_seen;
static void consumer(void *arg)
{
    (void)arg;
    ks_await(&shared_ec, (uint64_t)PRODUCERS * PCYCLES);
    consumer_seen = ks_ec_count(&shared_ec);
}

static void pinger(void *arg)
{
    (void)arg;
    for (int i = 0; i < 64; i++) {
        ks_pause(3 + (uint64_t)(i % 5));
        sent[i] = ks_cycle();
        ks_advance(&ping);
        ks_await(&pong, (uint64_t)i + 1);
    }
}

static void ponger(void *arg)
{
    (void)arg;
    for (uint64_t i = 1; i <= 64; i++) {
        ks_await(&ping, i);
        woke[i - 1] = ks_cycle();
        ks_advance(&pong);
    }
}

static void test_hazardous_eventcounts_across_threads(void **state)
{
    (void)state;
    ks_config cfg = { .threads = 3 };
    ks_engine *e = ks_engine_create(&cfg);
    ks_ec_init(&shared_ec, "shared", KS_EC_HAZARDOUS);
    ks_ec_init(&ping, "ping", KS_EC_HAZARDOUS);
    ks_ec_init(&pong, "pong", KS_EC_HAZARDOUS);
    atomic_store(&produced, 0);
    for (int p = 0; p < PRODUCERS; p++) {
        ks_context_opts o = { .thread = (unsigned)p % 3 };
        ks_context_create_opts(e, producer, NULL, &o);
    }
    ks_context_opts c0 = { .thread = 0 }, c1 = { .thread = 1 }, c2 = { .thread = 2 };
    ks_context_create_opts(e, consumer, NULL, &c2);
    ks_context_create_opts(e, pinger, NULL, &c0);
    ks_context_create_opts(e, ponger, NULL, &c1);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    /* no advance lost under concurrent increments */
    assert_int_equal(ks_ec_count(&shared_ec), (uint64_t)PRODUCERS * PCYCLES);
    assert_int_equal(consumer_seen, (uint64_t)PRODUCERS * PCYCLES);
    /* a wake-up across threads runs in the same cycle (an extra round) */
    for (int i = 0; i < 64; i++)
        assert_int_equal(woke[i], sent[i]);
    ks_stats st;
    ks_engine_stats(e, &st);
    assert_true(st.rounds >= 64);
    assert_int_equal(ks_engine_contexts(e), 0);
    ks_engine_destroy(e);
}

/* A cross-thread wake through an unmarked eventcount is a model error. */
static ks_eventcount unmarked;
static void bad_waker(void *arg)
{
    (void)arg;
    ks_pause(2);
    ks_advance(&unmarked);
}
static void bad_waiter(void *arg)
{
    (void)arg;
    ks_await(&unmarked, 1);
}

static void test_unmarked_cross_thread_wake_is_reported(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        ks_config cfg = { .threads = 2 };
        ks_engine *e = ks_engine_create(&cfg);
        ks_ec_init(&unmarked, "credits", 0);
        ks_context_opts a = { .thread = 0 }, b = { .thread = 1, .name = "receiver" };
        ks_context_create_opts(e, bad_waker, NULL, &a);
        ks_context_create_opts(e, bad_waiter, NULL, &b);
        ks_run(e);
        _exit(0);
    }
    close(fds[1]);
    char buf[2048];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    buf[got] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!strstr(buf, "'credits'") || !strstr(buf, "'receiver'"))
        fail_msg("message does not name the eventcount and context: %s", buf);
}

/* ---- determinism with hazards ------------------------------------------------- */

/* Contexts that share nothing but hazardous eventcounts: their logs must not
 * depend on the number of workers, on how contexts are spread over them, or
 * on thread timing (run twice). */
#define HZ_CTX 12
#define HZ_EC 4
#define HZ_STEPS 200
static ks_eventcount hz[HZ_EC];
static struct hz_ctx {
    uint32_t rng;
    struct rec log[HZ_STEPS * 2];
    size_t n;
} hzc[HZ_CTX];

static void hz_note(struct hz_ctx *h, int64_t what, uint64_t value, ks_engine *e)
{
    h->log[h->n++] = (struct rec){ what, ks_now(e), value };
}

static uint32_t hz_rng(struct hz_ctx *h)
{
    h->rng = h->rng * 1664525u + 1013904223u;
    return h->rng >> 8;
}

static void hz_body(void *arg)
{
    struct hz_ctx *h = arg;
    ks_engine *e = ks_self_engine();
    for (int k = 0; k < HZ_STEPS; k++) {
        uint32_t r = hz_rng(h);
        int ec = (int)(r >> 4) % HZ_EC;
        uint32_t op = (r >> 10) % 100;
        if (op < 30) {
            ks_pause(1 + (r >> 8) % 3);
            hz_note(h, 0, 0, e);
        } else if (op < 65) {
            ks_advance(&hz[ec]);
        } else if (op < 80) {
            ks_await(&hz[ec], ks_ec_count(&hz[ec]) + 1);
            hz_note(h, 2, (uint64_t)ec, e);
        } else {
            hz_note(h, 3, ks_ec_count(&hz[ec]) * 16 + (uint64_t)ec, e);
        }
    }
    hz_note(h, 4, 0, e);
}

static void run_hazard_model(unsigned threads)
{
    ks_config cfg = { .threads = threads, .parallel = true };
    ks_engine *e = ks_engine_create(&cfg);
    for (int i = 0; i < HZ_EC; i++)
        ks_ec_init(&hz[i], "hz", KS_EC_HAZARDOUS);
    for (int i = 0; i < HZ_CTX; i++) {
        memset(&hzc[i], 0, sizeof hzc[i]);
        hzc[i].rng = 77u + (uint32_t)i;
        ks_context_opts o = { .thread = (unsigned)(i * 7) % threads };
        assert_non_null(ks_context_create_opts(e, hz_body, &hzc[i], &o));
    }
    ks_run(e);
    ks_engine_destroy(e);
}

static struct hz_ctx hz_want[HZ_CTX];

static void test_hazardous_model_independent_of_threads(void **state)
{
    (void)state;
    run_hazard_model(1);
    memcpy(hz_want, hzc, sizeof hzc);
    size_t total = 0;
    for (int i = 0; i < HZ_CTX; i++)
        total += hz_want[i].n;
    assert_true(total > HZ_CTX * HZ_STEPS / 2);
    static const unsigned threads[] = { 2, 3, 4, 2, 3 };
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        run_hazard_model(threads[t]);
        for (int i = 0; i < HZ_CTX; i++) {
            assert_int_equal(hzc[i].n, hz_want[i].n);
            assert_memory_equal(hzc[i].log, hz_want[i].log, hz_want[i].n * sizeof hzc[i].log[0]);
        }
    }
}

/* Created by a context of worker 0 for worker 1 during the run: it starts in
 * the creator's cycle (in the round after the barrier). */
static uint64_t created_at[8], started_at[8];
static void remote_child(void *arg)
{
    int k = (int)(intptr_t)arg;
    started_at[k] = ks_cycle();
}
static void remote_creator(void *arg)
{
    ks_engine *e = arg;
    for (int k = 0; k < 8; k++) {
        ks_pause(1 + (uint64_t)k);
        created_at[k] = ks_cycle();
        ks_context_opts o = { .name = "remote", .thread = 1 };
        assert_non_null(ks_context_create_opts(e, remote_child, (void *)(intptr_t)k, &o));
    }
}

static void test_create_on_another_worker(void **state)
{
    (void)state;
    ks_config cfg = { .threads = 2 };
    ks_engine *e = ks_engine_create(&cfg);
    ks_context_opts o = { .thread = 0 };
    ks_context_create_opts(e, remote_creator, e, &o);
    memset(started_at, 0xff, sizeof started_at);
    assert_int_equal(ks_run(e), KS_STOP_IDLE);
    for (int k = 0; k < 8; k++)
        assert_int_equal(started_at[k], created_at[k]);
    assert_int_equal(ks_engine_contexts(e), 0);
    ks_engine_destroy(e);
}

static void test_parallel_limits_and_resume(void **state)
{
    (void)state;
    /* the same model sliced by ks_run_until gives the same logs */
    ks_tick end, idle;
    run_and_capture(0, &end, &idle);
    for (int i = 0; i < GROUPS; i++) {
        memcpy(want[i], g[i].log, g[i].n * sizeof g[i].log[0]);
        want_n[i] = g[i].n;
    }
    ks_engine *e = build(2);
    ks_stop s;
    ks_tick t = 0;
    do {
        t += 977;
        s = ks_run_until(e, t);
    } while (s == KS_STOP_LIMIT || s == KS_STOP_ENDED);
    assert_int_equal(s, KS_STOP_IDLE);
    assert_int_equal(ks_now(e), idle);
    for (int i = 0; i < GROUPS; i++) {
        assert_int_equal(g[i].n, want_n[i]);
        assert_memory_equal(g[i].log, want[i], want_n[i] * sizeof want[i][0]);
    }
    ks_engine_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_equals_sequential),
        cmocka_unit_test(test_hazardous_eventcounts_across_threads),
        cmocka_unit_test(test_unmarked_cross_thread_wake_is_reported),
        cmocka_unit_test(test_hazardous_model_independent_of_threads),
        cmocka_unit_test(test_create_on_another_worker),
        cmocka_unit_test(test_parallel_limits_and_resume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
