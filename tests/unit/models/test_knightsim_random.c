/* Random programs of pause / advance / await / await-until / sub-clock
 * operations run on the engine and on a reference interpreter written here
 * from the order rules stated in knightsim.h (no stacks, no table: plain
 * lists and a scan for the least (tick, pause order); ks_await_until as the
 * ks_pause(1) loop the header says it equals). Every operation each context
 * performs, the tick it performs it in and what ks_await_until returned must
 * agree, for the sequential engine and for the parallel engine with one
 * worker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/knightsim.h"

#define NC 6       /* contexts */
#define NE 3       /* eventcounts */
#define NOPS 40    /* operations per context */
#define SEEDS 300

enum op_kind { OP_PAUSE, OP_ADVANCE, OP_AWAIT, OP_ENTER, OP_EXIT, OP_UNTIL };
/* OP_UNTIL: ks_await_until(ec, n, the present cycle + span) */
struct op { enum op_kind kind; int ec; uint64_t n, span; };

static struct op prog[NC][NOPS];
static uint32_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static void generate(void)
{
    int advances[NE] = { 0 };
    for (int c = 0; c < NC; c++)
        for (int k = 0; k < NOPS; k++) {
            struct op *o = &prog[c][k];
            uint32_t r = rng() % 100;
            o->ec = (int)(rng() % NE);
            if (r < 35) {
                o->kind = OP_PAUSE;
                o->n = rng() % 4 ? 1 + rng() % 3 : 1 + rng() % 700; /* some beyond the table */
            } else if (r < 60) {
                o->kind = OP_ADVANCE;
                advances[o->ec]++;
            } else if (r < 72) {
                o->kind = OP_AWAIT;
            } else if (r < 84) {
                o->kind = OP_UNTIL; /* spans of a few cycles, some beyond the table */
                o->span = rng() % 4 ? 1 + rng() % 6 : 1 + rng() % 700;
            } else if (r < 92) {
                o->kind = OP_ENTER;
            } else {
                o->kind = OP_EXIT;
            }
        }
    /* Await values spread over what the advances can reach, and a bit past
     * it (never satisfied). */
    for (int c = 0; c < NC; c++)
        for (int k = 0; k < NOPS; k++)
            if (prog[c][k].kind == OP_AWAIT || prog[c][k].kind == OP_UNTIL)
                prog[c][k].n = 1 + rng() % (uint64_t)(advances[prog[c][k].ec] + 2);
}

/* (context, op index, tick) for every operation started */
#define TRACE_MAX (NC * NOPS + NC)
struct step { int c, k; uint64_t tick; int reached; /* OP_UNTIL's result */ };
static struct step got[TRACE_MAX], want[TRACE_MAX];
static size_t ngot, nwant;

/* ---- the engine --------------------------------------------------------------- */

static ks_eventcount ecs[NE];
static ks_engine *eng;

static void runner(void *arg)
{
    int c = (int)(intptr_t)arg;
    for (int k = 0; k < NOPS; k++) {
        const struct op *o = &prog[c][k];
        size_t at = ngot++;
        got[at] = (struct step){ c, k, ks_now(eng), 0 };
        switch (o->kind) {
        case OP_PAUSE: ks_pause(o->n); break;
        case OP_ADVANCE: ks_advance(&ecs[o->ec]); break;
        case OP_AWAIT: ks_await(&ecs[o->ec], o->n); break;
        case OP_ENTER: ks_sub_clock_enter(); break;
        case OP_EXIT: ks_sub_clock_exit(); break;
        case OP_UNTIL:
            got[at].reached = ks_await_until(&ecs[o->ec], o->n, ks_cycle() + o->span) ? 1 : 2;
            break;
        }
    }
    got[ngot++] = (struct step){ c, NOPS, ks_now(eng), 0 };
}

/* parallel: the pthread engine with one worker, which must agree too */
static void run_engine(bool parallel)
{
    ks_config cfg = { .table_rows = 64, .parallel = parallel };
    eng = ks_engine_create(&cfg);
    for (int e = 0; e < NE; e++)
        ks_ec_init(&ecs[e], "ec", 0);
    ngot = 0;
    for (int c = 0; c < NC; c++)
        ks_context_create(eng, runner, (void *)(intptr_t)c, 16384);
    assert_int_equal(ks_run(eng), KS_STOP_IDLE);
    ks_engine_destroy(eng);
}

/* ---- the reference interpreter ------------------------------------------------ */

static struct ref {
    uint64_t now, count[NE];
    int pc[NC];
    bool done[NC];
    /* pending pauses: due tick and pause order, -1 tick if none */
    int64_t due[NC];
    uint64_t order[NC], next_order;
    /* waiters: per ec, in list order */
    int wait_c[NE][NC];
    uint64_t wait_v[NE][NC];
    int nwait[NE];
    int batch[4 * NC], nbatch;
    int late[NC], nlate;
    bool in_late;
    /* in OP_UNTIL: its eventcount, value and last tick; its step's index */
    bool watching[NC];
    int watch_ec[NC];
    uint64_t watch_v[NC], watch_until[NC];
    size_t watch_step[NC];
} R;

static void batch_insert(int pos, int c)
{
    memmove(&R.batch[pos + 1], &R.batch[pos], (size_t)(R.nbatch - pos) * sizeof R.batch[0]);
    R.batch[pos] = c;
    R.nbatch++;
}

static void ref_pause(int c, uint64_t n)
{
    R.due[c] = (int64_t)(R.now + n);
    R.order[c] = R.next_order++;
}

/* Runs context c until it blocks or ends. A context in OP_UNTIL does
 * what `do ks_pause(1); while (count < v && cycle < until);` does. */
static void ref_run(int c)
{
    int ins = 0; /* wakes go right after c, in wake order */
    if (R.watching[c]) {
        bool reached = R.count[R.watch_ec[c]] >= R.watch_v[c];
        if (!reached && R.now < R.watch_until[c]) {
            ref_pause(c, 1);
            return;
        }
        R.watching[c] = false;
        want[R.watch_step[c]].reached = reached ? 1 : 2;
    }
    for (;;) {
        int k = R.pc[c];
        want[nwant++] = (struct step){ c, k, R.now, 0 };
        if (k == NOPS) {
            R.done[c] = true;
            return;
        }
        const struct op *o = &prog[c][k];
        R.pc[c]++;
        switch (o->kind) {
        case OP_PAUSE:
            ref_pause(c, o->n);
            return;
        case OP_ADVANCE: {
            int e = o->ec;
            R.count[e]++;
            int keep = 0;
            for (int i = 0; i < R.nwait[e]; i++) {
                if (R.wait_v[e][i] <= R.count[e]) {
                    batch_insert(ins++, R.wait_c[e][i]);
                } else {
                    R.wait_c[e][keep] = R.wait_c[e][i];
                    R.wait_v[e][keep++] = R.wait_v[e][i];
                }
            }
            R.nwait[e] = keep;
            break;
        }
        case OP_AWAIT: {
            int e = o->ec;
            if (R.count[e] >= o->n)
                break;
            /* after every waiter with a value <= this one */
            int pos = 0;
            while (pos < R.nwait[e] && R.wait_v[e][pos] <= o->n)
                pos++;
            memmove(&R.wait_c[e][pos + 1], &R.wait_c[e][pos],
                    (size_t)(R.nwait[e] - pos) * sizeof R.wait_c[e][0]);
            memmove(&R.wait_v[e][pos + 1], &R.wait_v[e][pos],
                    (size_t)(R.nwait[e] - pos) * sizeof R.wait_v[e][0]);
            R.wait_c[e][pos] = c;
            R.wait_v[e][pos] = o->n;
            R.nwait[e]++;
            return;
        }
        case OP_ENTER:
            if (R.in_late)
                break;
            R.late[R.nlate++] = c;
            return;
        case OP_EXIT:
            if (!R.in_late)
                break;
            ref_pause(c, 1);
            return;
        case OP_UNTIL:
            R.watching[c] = true;
            R.watch_ec[c] = o->ec;
            R.watch_v[c] = o->n;
            R.watch_until[c] = R.now + o->span;
            R.watch_step[c] = nwant - 1;
            ref_pause(c, 1);
            return;
        }
    }
}

static void run_reference(void)
{
    memset(&R, 0, sizeof R);
    nwant = 0;
    for (int c = 0; c < NC; c++) {
        R.due[c] = 0;
        R.order[c] = (uint64_t)c;
    }
    R.next_order = NC;
    for (;;) {
        /* next tick: the least due; its batch in pause order */
        int64_t t = -1;
        for (int c = 0; c < NC; c++)
            if (R.due[c] >= 0 && (t < 0 || R.due[c] < t))
                t = R.due[c];
        if (t < 0)
            return;
        R.now = (uint64_t)t;
        R.nbatch = 0;
        for (;;) {
            int best = -1;
            for (int c = 0; c < NC; c++)
                if (R.due[c] == t && (best < 0 || R.order[c] < R.order[best]))
                    best = c;
            if (best < 0)
                break;
            R.batch[R.nbatch++] = best;
            R.due[best] = -1;
        }
        R.in_late = false;
        R.nlate = 0;
        for (;;) {
            if (!R.nbatch) {
                if (R.in_late || !R.nlate)
                    break;
                memcpy(R.batch, R.late, (size_t)R.nlate * sizeof R.late[0]);
                R.nbatch = R.nlate;
                R.nlate = 0;
                R.in_late = true;
            }
            int c = R.batch[0];
            memmove(&R.batch[0], &R.batch[1], (size_t)(R.nbatch - 1) * sizeof R.batch[0]);
            R.nbatch--;
            ref_run(c);
        }
    }
}

static void test_random_programs_match_reference(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= SEEDS; seed++) {
        rng_state = seed;
        generate();
        run_reference();
        for (int parallel = 0; parallel < 2; parallel++) {
            run_engine(parallel);
            size_t n = ngot < nwant ? ngot : nwant;
            for (size_t i = 0; i < n; i++)
                if (got[i].c != want[i].c || got[i].k != want[i].k || got[i].tick != want[i].tick ||
                    got[i].reached != want[i].reached)
                    fail_msg("seed %u (%s) step %zu: engine ctx %d op %d tick %llu reached %d, "
                             "reference ctx %d op %d tick %llu reached %d", seed,
                             parallel ? "parallel" : "sequential", i, got[i].c, got[i].k,
                             (unsigned long long)got[i].tick, got[i].reached, want[i].c, want[i].k,
                             (unsigned long long)want[i].tick, want[i].reached);
            assert_int_equal(ngot, nwant);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_programs_match_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
