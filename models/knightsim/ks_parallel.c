/*
 * Parallel KnightSim (seed Alg. 2.11-2.12): one worker per pthread, each with
 * its own batch table; every worker runs its own batch of a tick, then all
 * meet at a cycle barrier whose last arrival does the serial work alone:
 * delivering contexts woken across workers, and choosing the next tick.
 *
 * A context woken by another worker (through a hazardous eventcount) sits in
 * the waker's outbox until the barrier, then runs in an extra round of the
 * same tick. Deliveries are made in (source worker, wake order) order, so the
 * schedule does not depend on which thread reached the barrier first.
 */
#include "ks_internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Spins before sleeping in the barrier, adapted per worker between these
 * bounds: doubled when the wait ended while spinning, halved when it had to
 * sleep. On free cores waits are short and spinning wins; when the machine has
 * fewer free cores than workers, the partner is not running and spinning only
 * delays it. (A pause is ~30 TSC cycles here.) */
#define KS_SPIN_MIN 32u
#define KS_SPIN_MAX 4096u

void ks_outbox_put(ks_worker *from, ks_context *c)
{
    c->where = KS_IN_OUTBOX;
    ks_list_append(&from->outbox[c->worker->index], c);
    from->outbox_used = true;
}

static void note_next(ks_worker *w, ks_tick t)
{
    if (!w->has_next || t < w->next_tick) {
        w->has_next = true;
        w->next_tick = t;
    }
}

/* A context handed over at the barrier: due now, it runs in the next round
 * of this tick; otherwise it goes to its worker's table. */
static bool hand_over(ks_engine *eng, ks_context *c)
{
    ks_worker *dst = c->worker;
    if (c->when == eng->now) {
        c->where = KS_SCHEDULED;
        ks_list_append(&dst->inbox, c);
        return true;
    }
    ks_schedule_at(dst, c, c->when);
    note_next(dst, c->when);
    return false;
}

/* Applies the round's hazardous advances in (worker, program) order. */
static bool apply_hazardous(ks_engine *eng)
{
    bool again = false;
    for (unsigned s = 0; s < eng->nworkers; s++) {
        ks_worker *src = &eng->workers[s];
        for (size_t k = 0; k < src->hz_len; k++) {
            ks_eventcount *ec = src->hz[k];
            __atomic_store_n(&ec->count, ec->count + 1, __ATOMIC_RELAXED);
            ks_context *ready = ks_ec_take_ready(ec);
            while (ready) {
                ks_context *c = ready;
                ready = c->next;
                c->awaiting = NULL;
                c->when = ks_edge_now(c->domain, eng->now);
                again |= hand_over(eng, c);
            }
        }
        src->hz_len = 0;
    }
    return again;
}

/* Contexts created for another worker, in (source worker, order) order. */
static bool deliver(ks_engine *eng)
{
    bool again = false;
    for (unsigned s = 0; s < eng->nworkers; s++) {
        ks_worker *src = &eng->workers[s];
        if (!src->outbox_used)
            continue;
        src->outbox_used = false;
        for (unsigned d = 0; d < eng->nworkers; d++) {
            ks_context *c = src->outbox[d].head;
            src->outbox[d].head = src->outbox[d].tail = NULL;
            while (c) {
                ks_context *n = c->next;
                again |= hand_over(eng, c);
                c = n;
            }
        }
    }
    return again;
}

static void finish(ks_engine *eng, ks_stop why, ks_tick resume_at)
{
    eng->stop = why;
    eng->finished = true;
    for (unsigned i = 0; i < eng->nworkers; i++)
        ks_set_now(&eng->workers[i], resume_at);
}

/* Run by the last worker to reach the barrier, alone. */
static void serial_section(ks_engine *eng)
{
    bool woke = apply_hazardous(eng);
    eng->round_again = deliver(eng) || woke;
    if (eng->round_again) {
        eng->workers[0].stats.rounds++;
        return;
    }
    eng->workers[0].stats.ticks_run++;
    if (atomic_load_explicit(&eng->end_requested, memory_order_relaxed)) {
        finish(eng, KS_STOP_ENDED, eng->now + 1);
        return;
    }
    bool any = false;
    ks_tick t = 0;
    for (unsigned i = 0; i < eng->nworkers; i++) {
        ks_worker *w = &eng->workers[i];
        if (w->has_next && (!any || w->next_tick < t)) {
            t = w->next_tick;
            any = true;
        }
    }
    if (!any)
        finish(eng, KS_STOP_IDLE, eng->now + 1);
    else if (t >= eng->limit)
        finish(eng, KS_STOP_LIMIT, eng->limit);
    else
        ks_time_set(eng, t);
}

static void futex_wait(atomic_uint *addr, unsigned expected)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake_all(atomic_uint *addr)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The cycle barrier: spin briefly (the usual case on idle cores), then sleep
 * on the generation word so a loaded machine is not burnt by spinning. */
static void barrier(ks_engine *eng, ks_worker *w)
{
    unsigned gen = atomic_load_explicit(&eng->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&eng->arrived, 1, memory_order_acq_rel) + 1 == eng->nworkers) {
        atomic_store_explicit(&eng->arrived, 0, memory_order_relaxed);
        serial_section(eng);
        atomic_store_explicit(&eng->generation, gen + 1, memory_order_seq_cst);
        if (atomic_load_explicit(&eng->sleepers, memory_order_seq_cst))
            futex_wake_all(&eng->generation);
        return;
    }
    for (unsigned spins = 0; spins < w->spin_limit; spins++) {
        if (atomic_load_explicit(&eng->generation, memory_order_acquire) != gen) {
            if (w->spin_limit < KS_SPIN_MAX)
                w->spin_limit *= 2;
            return;
        }
        __builtin_ia32_pause();
    }
    if (w->spin_limit > KS_SPIN_MIN)
        w->spin_limit /= 2;
    atomic_fetch_add_explicit(&eng->sleepers, 1, memory_order_seq_cst);
    while (atomic_load_explicit(&eng->generation, memory_order_seq_cst) == gen)
        futex_wait(&eng->generation, gen);
    atomic_fetch_sub_explicit(&eng->sleepers, 1, memory_order_relaxed);
}

static void *worker_main(void *arg)
{
    ks_worker *w = arg;
    ks_engine *eng = w->eng;
    int gate;
    while ((gate = atomic_load_explicit(&eng->start_gate, memory_order_acquire)) == 0)
        sched_yield();
    if (gate != 1)
        return NULL;
    ks_worker_enter(w);
    ks_fp_enter_run(w);
    w->spin_limit = KS_SPIN_MAX;
    ks_context *batch = ks_take_row(w, eng->now);
    w->in_late = false;
    for (;;) {
        if (batch)
            ks_switch_to(w, &w->home, batch);
        ks_reap(w);
        w->has_next = ks_next_tick(w, eng->now + 1, &w->next_tick);
        barrier(eng, w);
        if (eng->finished)
            break;
        w->in_late = false;
        if (eng->round_again) {
            batch = w->inbox.head;
            w->inbox.head = w->inbox.tail = NULL;
        } else {
            ks_migrate(w); /* the serial section has set the time */
            batch = ks_take_row(w, eng->now);
        }
    }
    ks_fp_leave_run(w);
    ks_tls_worker = &ks_no_worker;
    if (w->index)
        ks_overflow_guard_release();
    return NULL;
}

ks_stop ks_parallel_run(ks_engine *eng)
{
    bool any = false;
    ks_tick t = 0;
    for (unsigned i = 0; i < eng->nworkers; i++) {
        ks_tick tw;
        if (ks_next_tick(&eng->workers[i], eng->now, &tw) && (!any || tw < t)) {
            t = tw;
            any = true;
        }
    }
    if (!any)
        return KS_STOP_IDLE;
    if (t >= eng->limit) {
        for (unsigned i = 0; i < eng->nworkers; i++)
            ks_set_now(&eng->workers[i], eng->limit);
        return KS_STOP_LIMIT;
    }
    for (unsigned i = 0; i < eng->nworkers; i++)
        ks_set_now(&eng->workers[i], t);
    eng->running = true;
    eng->finished = false;
    eng->round_again = false;
    atomic_store(&eng->arrived, 0);
    atomic_store(&eng->start_gate, 0);
    unsigned started = 1;
    for (; started < eng->nworkers; started++) {
        ks_worker *w = &eng->workers[started];
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            break;
    }
    /* The barrier counts every worker, so either all run or none does. */
    bool all = started == eng->nworkers;
    atomic_store_explicit(&eng->start_gate, all ? 1 : 2, memory_order_release);
    if (all)
        worker_main(&eng->workers[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(eng->workers[i].thread, NULL);
    eng->running = false;
    if (!all) {
        ks_set_error(eng, "cannot start worker thread %u of %u", started, eng->nworkers);
        return KS_STOP_ERROR;
    }
    return eng->stop;
}
