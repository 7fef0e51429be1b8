/* Guest threads: the run queue, time slices, creation and futex
 * happens-before (replay/sched.h). */
#include "replay/sched.h"

#include "cgm/check.h"

#include <stdio.h>
#include <stdlib.h>

int rp_sched_init(struct rp_sched *s, struct cgm_reader *r, const struct rp_static *st,
                  const char *trace_name, uint64_t quantum, char *err, size_t errlen)
{
    *s = (struct rp_sched){ .reader = r, .st = st, .trace_name = trace_name, .quantum = quantum };
    ks_ec_init(&s->ec, "scheduler", 0);
    size_t nstreams = cgm_reader_stream_count(r);
    s->threads = calloc(nstreams ? nstreams : 1, sizeof *s->threads);
    if (!s->threads) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < nstreams; i++) {
        const struct cgm_reader_stream *rs = cgm_reader_stream(r, i);
        if (rs->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        struct rp_thread *t = &s->threads[s->nthreads++];
        t->tid = rs->info.thread_id;
        t->stream_index = i;
        t->state = TH_WAITING_CREATE;
    }
    if (!s->nthreads) {
        snprintf(err, errlen, "%s: no x86 thread streams to replay", trace_name);
        return -1;
    }
    s->threads_left = s->nthreads;
    /* The first thread stream is the program's main thread; the others
     * start when their creation is replayed. */
    s->threads[0].state = TH_RUNNABLE;
    s->run_head = s->run_tail = &s->threads[0];
    return 0;
}

static void close_stream(struct rp_thread *t)
{
    if (t->stream) {
        rp_x86_stream_close(t->stream);
        free(t->stream);
        t->stream = NULL;
    }
}

void rp_sched_free(struct rp_sched *s)
{
    for (size_t i = 0; i < s->nthreads; i++)
        close_stream(&s->threads[i]);
    free(s->threads);
    free(s->wakes);
    s->threads = NULL;
    s->wakes = NULL;
    s->nthreads = 0;
}

struct rp_thread *rp_sched_take(struct rp_sched *s, char *err, size_t errlen)
{
    struct rp_thread *t = s->run_head;
    if (!t)
        return NULL;
    s->run_head = t->next_runnable;
    if (!s->run_head)
        s->run_tail = NULL;
    t->next_runnable = NULL;
    if (!t->stream) {
        t->stream = malloc(sizeof *t->stream);
        if (!t->stream) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        if (rp_x86_stream_open(t->stream, s->reader, t->stream_index, s->st, s->trace_name, err, errlen)) {
            free(t->stream);
            t->stream = NULL;
            return NULL;
        }
    }
    t->state = TH_RUNNING;
    return t;
}

bool rp_sched_preempt(const struct rp_sched *s, uint64_t ran)
{
    return ran >= s->quantum && s->run_head != NULL;
}

void rp_sched_yield(struct rp_sched *s, struct rp_thread *t)
{
    t->state = TH_RUNNABLE;
    if (s->run_tail)
        s->run_tail->next_runnable = t;
    else
        s->run_head = t;
    s->run_tail = t;
    ks_advance(&s->ec);
}

void rp_sched_exit(struct rp_sched *s, struct rp_thread *t)
{
    t->state = TH_DONE;
    close_stream(t);
    s->threads_left--;
    ks_advance(&s->ec);
}

/* ---- futex happens-before: the set of wakes replayed so far ----------- */

static uint64_t wake_hash(const struct rp_sched *s, uint64_t seq)
{
    return (seq * 0x9E3779B97F4A7C15ull >> 20) & (s->wakes_cap - 1);
}

static bool wake_done(const struct rp_sched *s, uint64_t seq)
{
    if (!s->wakes_cap)
        return false;
    for (uint64_t k = wake_hash(s, seq); s->wakes[k]; k = (k + 1) & (s->wakes_cap - 1))
        if (s->wakes[k] == seq + 1)
            return true;
    return false;
}

static void wake_add(struct rp_sched *s, uint64_t seq)
{
    if (2 * (s->wakes_n + 1) > s->wakes_cap) {
        uint64_t ncap = s->wakes_cap ? 2 * s->wakes_cap : 64, *old = s->wakes, ocap = s->wakes_cap;
        s->wakes = calloc(ncap, sizeof *s->wakes);
        if (!s->wakes)
            cgm_oom("the set of futex wakes replayed"); /* bounded by the trace's wake events */
        s->wakes_cap = ncap;
        s->wakes_n = 0;
        for (uint64_t i = 0; i < ocap; i++)
            if (old[i])
                wake_add(s, old[i] - 1);
        free(old);
    }
    uint64_t k = wake_hash(s, seq);
    for (; s->wakes[k]; k = (k + 1) & (s->wakes_cap - 1))
        if (s->wakes[k] == seq + 1)
            return;
    s->wakes[k] = seq + 1;
    s->wakes_n++;
}

bool rp_sched_thread_event(struct rp_sched *s, struct rp_thread *t, const struct cgm_event *ev)
{
    switch (ev->type) {
    case CGM_EV_THREAD_CREATE:
        for (size_t i = 0; i < s->nthreads; i++)
            if (s->threads[i].tid == ev->f[CGM_EVF_THREAD_CREATE_CHILD_TID] &&
                s->threads[i].state == TH_WAITING_CREATE)
                rp_sched_yield(s, &s->threads[i]);
        return true;
    case CGM_EV_FUTEX_WAKE: {
        uint64_t seq = ev->f[CGM_EVF_FUTEX_WAKE_SEQ];
        wake_add(s, seq);
        for (size_t i = 0; i < s->nthreads; i++)
            if (s->threads[i].state == TH_BLOCKED && s->threads[i].blocked_on == seq)
                rp_sched_yield(s, &s->threads[i]);
        return true;
    }
    case CGM_EV_FUTEX_WAIT: {
        /* woken_by names the wake that ended the wait: it happened before. */
        uint64_t by = ev->f[CGM_EVF_FUTEX_WAIT_WOKEN_BY];
        if (!by || wake_done(s, by))
            return true;
        t->state = TH_BLOCKED;
        t->blocked_on = by;
        return false;
    }
    default:
        return true;
    }
}
