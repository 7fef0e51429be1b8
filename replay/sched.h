/* The guest threads and the order the trace imposes on them: which thread
 * runs next, time slices, thread creation, futex wake/wait happens-before.
 *
 * A core asks for a thread when it has none (rp_sched_take), hands it back
 * when its slice is over (rp_sched_preempt, rp_sched_yield) or when the
 * thread ends or blocks, and passes the thread's synchronising events here
 * (rp_sched_thread_event). The scheduler opens a thread's stream when the
 * thread first runs and closes it when the thread is done. */
#ifndef REPLAY_SCHED_H
#define REPLAY_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgm/events.h"
#include "cgm/knightsim.h"
#include "cgm/trace.h"
#include "replay/x86_static.h"
#include "replay/x86_stream.h"

enum rp_thread_state { TH_WAITING_CREATE, TH_RUNNABLE, TH_RUNNING, TH_BLOCKED, TH_WAITING_GPU, TH_DONE };

struct rp_thread {
    uint64_t tid;
    size_t stream_index;
    struct rp_x86_stream *stream;  /* opened when it first runs */
    enum rp_thread_state state;
    struct rp_item held;           /* an item read but not yet taken */
    bool has_held;
    bool synced;                   /* back from its copies and flushes (replay/gpu/sync.h) */
    uint64_t blocked_on;           /* wake seq it waits for */
    uint64_t instructions;
    struct rp_thread *next_runnable;
};

struct rp_sched {
    struct cgm_reader *reader;
    const struct rp_static *st;
    const char *trace_name;
    uint64_t quantum;              /* cycles a thread runs while others wait */
    struct rp_thread *threads;     /* one per x86 stream, the main thread first */
    size_t nthreads;
    size_t threads_left;           /* not done yet */
    struct rp_thread *run_head, *run_tail;
    uint64_t *wakes;               /* hash set of completed futex-wake seqs (+1) */
    uint64_t wakes_cap, wakes_n;
    ks_eventcount ec;              /* a thread became runnable, or all are done */
};

/* Finds the x86 thread streams of R (the first is the main thread, runnable
 * at once; the others wait for their creation). Returns 0, or -1 with ERR
 * set (no thread stream, out of memory). */
int rp_sched_init(struct rp_sched *s, struct cgm_reader *r, const struct rp_static *st,
                  const char *trace_name, uint64_t quantum, char *err, size_t errlen);
void rp_sched_free(struct rp_sched *s);

/* The next runnable thread, its stream open, now running; NULL if none is
 * runnable, or (ERR set) if its stream cannot be opened. */
struct rp_thread *rp_sched_take(struct rp_sched *s, char *err, size_t errlen);
/* True when a thread that ran RAN cycles should give its core up: its
 * slice is over and another thread is waiting. */
bool rp_sched_preempt(const struct rp_sched *s, uint64_t ran);
/* T goes back to the run queue (its slice is over, or it was unblocked). */
void rp_sched_yield(struct rp_sched *s, struct rp_thread *t);
/* T's stream has ended: it is counted out and its stream closed. */
void rp_sched_exit(struct rp_sched *s, struct rp_thread *t);
/* Applies a thread-synchronising event of T (creation, futex wake or wait);
 * false when T must block (it is then off its core until woken). Other
 * events are not the scheduler's: true. */
bool rp_sched_thread_event(struct rp_sched *s, struct rp_thread *t, const struct cgm_event *ev);
/* Every thread has ended. */
static inline bool rp_sched_all_done(const struct rp_sched *s) { return s->threads_left == 0; }

#endif
