/*
 * KnightSim: the context-based discrete-event engine every timing model runs on
 * (seed 000, Chapter 2, Alg. 2.1-2.12).
 *
 * A model is a set of contexts. Each context runs its entry function on its own
 * stack and gives up the processor only by blocking:
 *   ks_pause(n)         resume n cycles of the context's clock domain later;
 *   ks_await(ec, v)     resume once eventcount ec has been advanced to >= v;
 *   ks_await_until(ec, v, c)  resume at the first of its cycles in which ec
 *                       has reached v or cycle c has begun, as a ks_pause(1)
 *                       loop that tests those would (no resumption between);
 *   ks_sub_clock_enter  resume later in this same cycle, after every context
 *                       that runs this cycle in the regular phase has run.
 * ks_advance(ec) never blocks; the contexts it wakes run in the current cycle,
 * right after the advancing context, in the order they were woken.
 *
 * Time base. Every clock domain has an integer frequency in Hz. When the run
 * starts, the engine fixes one global tick of 1/L seconds, L being the least
 * common multiple of all domain frequencies, so each domain's period is an
 * exact whole number of ticks (4, 1, 2, 1.6, 3.2, 1.5 GHz give L = 48 GHz and
 * periods 12, 48, 24, 30, 15, 32 ticks). There is no rounding anywhere; a set
 * of frequencies whose L exceeds KS_MAX_TICK_HZ is refused with an error. A
 * context only ever runs on an edge of its own domain: one woken (or created)
 * at a tick between two of its edges runs at its next edge.
 *
 * Order within one tick (defined and repeatable):
 *   1. contexts resuming from ks_pause, in the order they called ks_pause,
 *      whatever the pause length (contexts created before the run count as
 *      having paused at creation, in creation order; one woken or created
 *      between two edges of its domain, as having paused when that happened);
 *   2. a context woken by ks_advance or created during the run by a running
 *      context runs right after that context, in wake/creation order;
 *   3. the sub-clock phase: contexts that called ks_sub_clock_enter, in call
 *      order, after the regular phase (and everything it woke) is finished.
 *
 * Parallel KnightSim (ks_config.threads > 1 or ks_config.parallel): each context
 * is assigned to a worker thread (ks_context_opts.thread); each worker runs its
 * own batch of every tick, then all workers meet at a cycle barrier. Contexts of
 * different workers may only interact through eventcounts marked
 * KS_EC_HAZARDOUS. In a parallel run an advance of a hazardous eventcount takes
 * effect at the barrier that ends the current round, applied in (worker,
 * program) order; the contexts it wakes (and contexts created for another
 * worker) run in an extra round of the same tick. So:
 *   - a model without cross-worker interaction gives exactly the results of
 *     the sequential engine (which applies hazardous advances at once);
 *   - a model whose workers share nothing but hazardous eventcounts gives the
 *     same results whatever the number of workers and the thread timing.
 * Model data shared across workers (queues behind an eventcount) is the
 * model's to protect.
 *
 * Functions marked (context) may only be called from a running context.
 */
#ifndef CGM_KNIGHTSIM_H
#define CGM_KNIGHTSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Global time in ticks of 1 / ks_tick_hz() seconds. */
typedef uint64_t ks_tick;

/* Largest global tick frequency accepted (1e14 Hz: 2^64 ticks = 51 hours). */
#define KS_MAX_TICK_HZ 100000000000000ull

typedef struct ks_engine ks_engine;
typedef struct ks_context ks_context;
typedef struct ks_domain ks_domain;

/* ---- eventcounts ---------------------------------------------------------- */

/* Advanced across worker threads: guarded by a lock in parallel runs. */
#define KS_EC_HAZARDOUS 1u

/* Embeddable in model structures; initialise with ks_ec_init or
 * KS_EVENTCOUNT_INIT. Fields other than through the functions are private. */
typedef struct ks_eventcount {
    uint64_t count;              /* number of ks_advance calls so far */
    struct ks_context *waiters;  /* private: sorted by awaited value */
    const char *name;            /* for diagnostics; may be NULL */
    uint32_t flags;              /* KS_EC_* */
    uint32_t lock;               /* private */
} ks_eventcount;

#define KS_EVENTCOUNT_INIT(name_, flags_) { 0, 0, (name_), (flags_), 0 }

void ks_ec_init(ks_eventcount *ec, const char *name, unsigned flags);
uint64_t ks_ec_count(const ks_eventcount *ec);
/* Number of contexts currently awaiting ec. */
size_t ks_ec_waiters(const ks_eventcount *ec);

/* ---- engine --------------------------------------------------------------- */

typedef struct ks_config {
    unsigned table_rows;       /* batch table rows per worker, power of two >= 64;
                                * 0: enough for 512 cycles of the slowest domain
                                * (512..65536 rows, fixed with the time base) */
    size_t default_stack_size; /* bytes; 0: 64 KiB (rounded up to pages) */
    unsigned threads;          /* workers; 0 or 1: one */
    bool parallel;             /* use the pthread engine even with one worker */
    uint64_t default_freq_hz;  /* frequency of the default domain; 0: 1 GHz */
} ks_config;

/* NULL cfg means all defaults. Returns NULL on a bad configuration (message on
 * stderr). */
ks_engine *ks_engine_create(const ks_config *cfg);
/* Frees every context, stack and domain. Not while running. */
void ks_engine_destroy(ks_engine *eng);
/* Message of the last failed call on eng ("" if none). */
const char *ks_engine_error(const ks_engine *eng);

/* ---- clock domains -------------------------------------------------------- */

/* Only before the first run (the time base is fixed then). NULL on error. */
ks_domain *ks_domain_create(ks_engine *eng, const char *name, uint64_t freq_hz);
ks_domain *ks_domain_default(ks_engine *eng);
const char *ks_domain_name(const ks_domain *d);
uint64_t ks_domain_freq_hz(const ks_domain *d);
/* Fixes the time base if not fixed yet; 0 if the frequencies are refused. */
uint64_t ks_tick_hz(ks_engine *eng);
/* Ticks per cycle of d (fixes the time base; 0 if refused). */
ks_tick ks_domain_period(const ks_domain *d);
/* Tick at which cycle `cycle` of d begins. */
ks_tick ks_domain_cycle_tick(const ks_domain *d, uint64_t cycle);
/* Cycle of d that contains the engine's current tick (floor). */
uint64_t ks_domain_cycle(const ks_domain *d);

/* ---- contexts ------------------------------------------------------------- */

typedef void (*ks_entry_fn)(void *arg);

typedef struct ks_context_opts {
    const char *name;   /* copied; used in diagnostics (stack overflow) */
    size_t stack_size;  /* 0: engine default */
    ks_domain *domain;  /* NULL: default domain */
    unsigned thread;    /* worker index in parallel runs, < threads */
} ks_context_opts;

/* Creates a context that will call entry(arg). Before a run it starts at tick
 * 0; during a run, like a woken context (see the order rules above). Returning
 * from entry ends the context and frees it. NULL on error (engine error set). */
ks_context *ks_context_create(ks_engine *eng, ks_entry_fn entry, void *arg,
                              size_t stack_size);
ks_context *ks_context_create_opts(ks_engine *eng, ks_entry_fn entry, void *arg,
                                   const ks_context_opts *opts);
/* Removes a context that is not running (paused, awaiting, or ready) and frees
 * it. To end the running context, return from its entry or call ks_exit.
 * During a parallel run, only from a context of the same worker. */
void ks_context_destroy(ks_context *ctx);
const char *ks_context_name(const ks_context *ctx);
ks_domain *ks_context_domain(const ks_context *ctx);
unsigned ks_context_thread(const ks_context *ctx);
/* Number of contexts alive in eng (created and not yet ended/destroyed). */
size_t ks_engine_contexts(const ks_engine *eng);

/* ---- inside a context ----------------------------------------------------- */

ks_context *ks_self(void);                        /* NULL outside contexts */
ks_engine *ks_self_engine(void);                  /* (context) */
void ks_pause(uint64_t cycles);                   /* (context); 0 returns at once */
void ks_await(ks_eventcount *ec, uint64_t value); /* (context) */
/* (context) Polling without the resumptions: resumes exactly when and where
 *     do ks_pause(1); while (ks_ec_count(ec) < value && ks_cycle() < cycle);
 * would leave the loop (at least one cycle later, in the place its last
 * ks_pause(1) would give it in that tick), but the cycles in between cost
 * the engine a test in its batch walk, not a switch to the context. So a
 * model that polls each cycle for work that is either due at a known cycle
 * or announced by an advance of ec can wait instead with the same timing,
 * provided its polls in between would have done nothing. Returns whether
 * ec has reached value. */
bool ks_await_until(ks_eventcount *ec, uint64_t value, uint64_t cycle);
/* ks_advance(ec): also between runs, not from a thread outside a running
 * engine. With nobody awaiting a plain eventcount only its count moves, here
 * inline: most advances find their context busy, not waiting. */
void ks_advance_waking(ks_eventcount *ec);        /* private: the rest of ks_advance */
static inline void ks_advance(ks_eventcount *ec)
{
    if (!ec->waiters && !(ec->flags & KS_EC_HAZARDOUS))
        __atomic_store_n(&ec->count, ec->count + 1, __ATOMIC_RELAXED);
    else
        ks_advance_waking(ec);
}
/* As ks_advance, but each context it wakes resumes one cycle of its own
 * domain later, in the place it would take had ks_advance woken it and had it
 * at once paused for one cycle: for a waker of the same domain, behind the
 * waker if the waker pauses for one cycle next. Saves the resumption when the
 * woken context can do nothing before the next cycle. Not for hazardous
 * eventcounts in a parallel run. */
void ks_advance_next(ks_eventcount *ec);
uint64_t ks_cycle(void);                          /* (context) own domain's cycle */
ks_tick ks_now(const ks_engine *eng);             /* current global tick */
void ks_exit(void);                               /* (context) never returns */

/* Sub-clock arbitration (the seed's ENTER/EXIT_SUB_CLOCK). enter: resume in
 * this cycle's sub-clock phase, after every regular-phase context of the
 * cycle, so every element that advanced this one has already run; a no-op if
 * already there. exit: continue at the start of the next cycle of the own
 * domain (as the seed's EXIT_SUB_CLOCK); a no-op in the regular phase. */
void ks_sub_clock_enter(void);                    /* (context) */
void ks_sub_clock_exit(void);                     /* (context) */
bool ks_in_sub_clock(void);                       /* (context) */

/* Ends the run at the end of the current tick (callable from any context or
 * worker; the caller keeps running until it blocks). */
void ks_end(ks_engine *eng);

/* ---- running -------------------------------------------------------------- */

typedef enum ks_stop {
    KS_STOP_IDLE,   /* nothing left to run (remaining contexts await forever) */
    KS_STOP_LIMIT,  /* the tick limit was reached */
    KS_STOP_ENDED,  /* a model called ks_end */
    KS_STOP_ERROR   /* bad time base or threads could not start (engine error) */
} ks_stop;

/* Runs until idle or ended. A run can be resumed by calling ks_run again. */
ks_stop ks_run(ks_engine *eng);
/* Runs ticks < limit only; afterwards ks_now() == limit unless idle/ended. */
ks_stop ks_run_until(ks_engine *eng, ks_tick limit);
/* Runs until cycle `cycle` of domain d begins (cycles before it run). */
ks_stop ks_run_cycles(ks_engine *eng, const ks_domain *d, uint64_t cycle);

typedef struct ks_stats {
    uint64_t resumes;        /* context resumptions (events) */
    uint64_t ticks_run;      /* ticks in which at least one context ran */
    uint64_t overflow_pauses;/* pauses beyond the batch table (overflow heap) */
    uint64_t rounds;         /* parallel: extra same-tick rounds for hazards */
} ks_stats;
void ks_engine_stats(const ks_engine *eng, ks_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* CGM_KNIGHTSIM_H */
