/* KnightSim internals shared by the engine's files (not a public header). */
#ifndef CGM_KS_INTERNAL_H
#define CGM_KS_INTERNAL_H

#include "cgm/knightsim.h"

#include <pthread.h>
#include <stdatomic.h>

/* Where a context currently is; destroy uses it to unlink the context. */
enum ks_where {
    KS_NOWHERE,   /* not yet scheduled */
    KS_SCHEDULED, /* running, or due at a later tick (in a row of the batch
                     table; ctx->when is not kept up to date there), or due
                     now: in the batch being run, the sub-clock list or the
                     parallel inbox of its worker */
    KS_IN_HEAP,   /* overflow heap (pause beyond the table) */
    KS_IN_WAIT,   /* waiter list of ctx->awaiting (in ks_await_until a
                     context is KS_SCHEDULED, on no waiter list) */
    KS_IN_OUTBOX, /* parallel: woken by another worker, not yet delivered */
    KS_DEAD
};

typedef struct ks_stack {
    void *map;        /* whole mapping, guard included */
    size_t map_size;
    char *lo;         /* lowest usable byte (just above the guard) */
    size_t size;      /* usable bytes */
    unsigned valgrind_id;
} ks_stack;

struct ks_worker;

/* Why the batch walk must look at a context before switching to it. */
enum ks_skip {
    KS_RUN,        /* nothing: run it */
    KS_SKIP_DEFER, /* in the batch only to take its place in the next cycle
                      (ks_advance_next) */
    KS_SKIP_WATCH  /* in ks_await_until: runs only once its eventcount has
                      reached the value or its last cycle has begun */
};

struct ks_context {
    /* first cache line: everything a pause and a resumption touch */
    void *sp;                    /* saved stack pointer while switched out */
    void *bp;                    /* saved frame pointer */
    const void *pc;              /* where it resumes (ks_switch.h) */
    struct ks_context *next;     /* batch, row, waiter or outbox list link */
    ks_tick when;                /* tick it is scheduled for */
    ks_tick period;              /* its domain's, once the time base is fixed */
    uint64_t fast_cycles;        /* longest pause that fits the batch table */
    uint16_t fpcw;               /* saved x87 control word, if fp_saved */
    union {
        struct {
            uint8_t skip;        /* enum ks_skip: reached in the batch walk,
                                    it may not be the one to run */
            bool fp_saved;       /* switched out with a floating-point
                                    control state of its own (ks_switch.h) */
        };
        uint16_t unusual;        /* either: the pause's fast path asks once */
    };
    uint8_t where;               /* enum ks_where */
    uint32_t mxcsr;              /* saved MXCSR, if fp_saved */
    /* the rest */
    ks_domain *domain;
    struct ks_worker *worker;
    ks_eventcount *awaiting;
    ks_engine *eng;
    uint64_t await_value;
    ks_tick watch_until;         /* ks_await_until: the tick its last cycle begins */
    uint64_t seq;                /* scheduling order, for the overflow heap */
    size_t heap_index;
    ks_entry_fn entry;
    void *arg;
    ks_stack stack;
    struct ks_context *all_prev, *all_next;
    void *asan_fake;             /* ASan fake-stack save slot */
    char name[48];
};

struct ks_domain {
    ks_engine *eng;
    struct ks_domain *next;
    uint64_t freq_hz;
    ks_tick period;              /* ticks per cycle, once the time base is fixed */
    uint64_t cycle_now;          /* eng->now / period, kept by ks_time_set: the
                                    hottest question a context asks, without a
                                    division per call */
    ks_tick edge;                /* cycle_now * period: the tick that cycle began */
    char name[32];
};

typedef struct ks_list {
    ks_context *head, *tail;
} ks_list;

typedef struct ks_heap {
    ks_context **items;
    size_t len, cap;
} ks_heap;

typedef struct ks_worker {
    _Alignas(64) ks_engine *eng;
    unsigned index;
    ks_context home;             /* the thread's own stack while contexts run */
    ks_context *cur;             /* running context, NULL at home */
    ks_context *ins;             /* woken contexts are linked after this one, */
    uint64_t ins_run;            /* if stats.resumes still has this value */
    ks_list late;                /* sub-clock phase of the current tick */
    bool in_late;
    ks_context **row_head;       /* batch table: each row's first context */
    ks_context **row_tail;       /* and its last (arrays of their own: a pause
                                    indexes them by row, scaled in the address) */
    uint64_t *occ;               /* one bit per non-empty row */
    uint64_t mask;               /* rows - 1 */
    size_t rows_used;
    ks_heap heap;
    uint64_t seq;
    ks_tick now;                 /* eng->now, kept by ks_time_set (one load
                                    less on every pause) */
    ks_context *grave;           /* ended contexts whose stacks await freeing */
    uint16_t thread_fpcw;        /* the thread's floating-point control state, */
    uint32_t thread_mxcsr;       /* given back when a run returns */
    const void *home_lo;         /* ASan: the thread stack's bounds */
    size_t home_size;
    ks_stats stats;
    /* parallel engine */
    ks_list *outbox;             /* per destination worker */
    ks_eventcount **hz;          /* hazardous advances of this round, in order */
    size_t hz_len, hz_cap;
    bool outbox_used;
    ks_list inbox;
    ks_tick next_tick;
    bool has_next;
    unsigned spin_limit;         /* barrier spins before sleeping */
    pthread_t thread;
} ks_worker;

struct ks_engine {
    ks_config cfg;
    unsigned nworkers;
    bool parallel;
    ks_worker *workers;
    ks_domain *domains;          /* creation order, default first */
    ks_domain *default_domain;
    bool rows_auto;              /* table_rows was left to the engine */
    bool timebase_fixed;
    bool timebase_bad;
    uint64_t tick_hz;
    ks_tick now;                 /* tick being run, or first tick not yet run */
    bool running;
    atomic_int end_requested;
    ks_tick limit;
    ks_stop stop;
    size_t live;
    ks_context *all;             /* every live context, for destroy */
    pthread_mutex_t all_lock;    /* parallel: creation/end from several workers */
    /* parallel barrier */
    atomic_uint arrived;
    atomic_uint generation;
    atomic_uint sleepers;         /* workers asleep in the barrier */
    atomic_int start_gate;       /* 0 wait, 1 go, 2 abort (a thread failed to start) */
    bool round_again;
    bool finished;
    char err[256];
};

/* The thread's worker while it runs an engine, else ks_no_worker (whose cur
 * is always NULL): never NULL, so that a pause asks one question, not two. */
extern ks_worker ks_no_worker;
extern _Thread_local ks_worker *ks_tls_worker;

/* Assembly (ks_switch.S): a fresh context's first instructions. */
void ks_context_trampoline(void);

/* ks_stack.c */
bool ks_stack_alloc(ks_stack *st, size_t usable);
void ks_stack_free(ks_stack *st);
void *ks_stack_top(const ks_context *ctx);
void ks_overflow_guard_thread(void);
void ks_overflow_guard_release(void);

/* ks_engine.c */
bool ks_tables_resize(ks_engine *eng, size_t rows);

/* ks_domain.c */
bool ks_timebase_fix(ks_engine *eng);
void ks_domains_free(ks_engine *eng);

/* ks_heap.c: min-heap on (when, seq). */
bool ks_heap_push(ks_heap *h, ks_context *c);
ks_context *ks_heap_pop(ks_heap *h);
void ks_heap_remove(ks_heap *h, ks_context *c);
void ks_heap_free(ks_heap *h);
static inline ks_context *ks_heap_top(const ks_heap *h) { return h->len ? h->items[0] : NULL; }

/* ks_sched.c */
void ks_schedule_new(ks_worker *w, ks_context *c);
void ks_schedule_at(ks_worker *w, ks_context *c, ks_tick t);
bool ks_next_tick(ks_worker *w, ks_tick from, ks_tick *out);
void ks_set_now(ks_worker *w, ks_tick t);     /* ks_time_set, then ks_migrate */
void ks_migrate(ks_worker *w);                 /* overflow entries now in the window */
void ks_time_set(ks_engine *eng, ks_tick t);   /* eng->now and every domain's cycle */
ks_context *ks_take_row(ks_worker *w, ks_tick t);
void ks_switch_to(ks_worker *w, ks_context *self, ks_context *next);
void ks_fp_enter_run(ks_worker *w);            /* the thread's state saved, defaults set */
void ks_fp_leave_run(ks_worker *w);            /* the thread's state back */
void ks_reap(ks_worker *w);
void ks_reap_except(ks_worker *w, const ks_context *running);
void ks_context_timing(ks_context *c);            /* period and fast_cycles */
ks_context *ks_ec_take_ready(ks_eventcount *ec);
void ks_unlink(ks_context *c);
void ks_context_free(ks_context *c);
ks_context *ks_next_runnable(ks_worker *w, ks_context *after);
void ks_worker_enter(ks_worker *w);
void ks_context_main(ks_context *ctx);
void ks_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void ks_set_error(ks_engine *eng, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ks_parallel.c */
ks_stop ks_parallel_run(ks_engine *eng);
void ks_outbox_put(ks_worker *from, ks_context *c);

/* Every domain's present cycle at tick t, the time base being fixed; inline
 * for the sequential engine's step to its next tick. Time mostly moves to
 * the next edge of some domain: a domain's cycle steps by comparison, with a
 * division only after a longer jump. */
static inline void ks_domains_step(ks_engine *eng, ks_tick t)
{
    for (ks_domain *d = eng->domains; d; d = d->next) {
        ks_tick into = t - d->edge; /* wraps to a huge value if t went back */
        if (into < d->period)
            continue;
        if (__builtin_expect(into < 2 * d->period, 1)) {
            d->cycle_now++;
            d->edge += d->period;
        } else {
            d->cycle_now = t / d->period;
            d->edge = d->cycle_now * d->period;
        }
    }
}

/* First edge of domain d at or after the engine's present tick, from the
 * cycle ks_time_set keeps (no division). */
static inline ks_tick ks_edge_now(const ks_domain *d, ks_tick now)
{
    return d->edge == now ? now : d->edge + d->period;
}

static inline void ks_list_append(ks_list *l, ks_context *c)
{
    c->next = NULL;
    if (l->tail)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
}

#endif
