/*
 * KnightSim scheduling: the batch table, pause/await/advance, sub-clock phase
 * and the switch from one context straight to the next (seed Alg. 2.5-2.8).
 *
 * A blocking context picks its successor itself and switches to it directly,
 * so a resumption costs one stack switch; only when a run stops (or, in a
 * parallel run, when a worker's batch of the tick is done) does control go
 * back to the worker's home stack.
 */
#include "ks_internal.h"
#include "ks_switch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(CGM_ASAN) && CGM_ASAN
#include <sanitizer/common_interface_defs.h>
#define KS_ASAN 1
#else
#define KS_ASAN 0
#endif

ks_worker ks_no_worker;
_Thread_local ks_worker *ks_tls_worker = &ks_no_worker;

void ks_context_main(ks_context *ctx);

void ks_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("knightsim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void ks_set_error(ks_engine *eng, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(eng->err, sizeof eng->err, fmt, ap);
    va_end(ap);
}

/* ---- batch table ---------------------------------------------------------- */

/* Rows are FIFO lists; the last context's link is left as it was and cut
 * when the row is taken (one store less on every pause). The caller makes
 * c->where KS_SCHEDULED (a running context already is); c->when is not set
 * (another store less: only destroy would read it, and it searches). */
static inline void row_append(ks_worker *w, ks_context *c, ks_tick t)
{
    size_t r = (size_t)(t & w->mask);
    ks_context *tail = w->row_tail[r];
    if (tail) {
        tail->next = c;
    } else {
        w->row_head[r] = c;
        w->occ[r >> 6] |= 1ull << (r & 63);
        w->rows_used++;
    }
    w->row_tail[r] = c;
}

static inline ks_context *take_row(ks_worker *w, ks_tick t)
{
    size_t r = (size_t)(t & w->mask);
    ks_context *head = w->row_head[r];
    if (head) {
        w->row_tail[r]->next = NULL;
        w->row_head[r] = w->row_tail[r] = NULL;
        w->occ[r >> 6] &= ~(1ull << (r & 63));
        w->rows_used--;
    }
    return head;
}

ks_context *ks_take_row(ks_worker *w, ks_tick t)
{
    return take_row(w, t);
}

/* First non-empty row at or after `from` (all rows hold ticks in
 * [now, now + rows), so the distance from `from` identifies the tick). */
static bool table_next(const ks_worker *w, ks_tick from, ks_tick *out)
{
    if (!w->rows_used)
        return false;
    size_t nwords = (size_t)(w->mask + 1) / 64;
    size_t start = (size_t)(from & w->mask);
    size_t wi = start >> 6;
    uint64_t bits = w->occ[wi] & (~0ull << (start & 63));
    for (size_t k = 0; k <= nwords; k++) {
        if (bits) {
            size_t row = (wi << 6) + (size_t)__builtin_ctzll(bits);
            *out = from + ((row - start) & w->mask);
            return true;
        }
        wi = wi + 1 == nwords ? 0 : wi + 1;
        bits = w->occ[wi];
    }
    return false;
}

static inline bool next_tick(ks_worker *w, ks_tick from, ks_tick *out)
{
    /* from is now or now + 1, and heap entries lie beyond the table's
     * window: a non-empty row for `from` is the answer (the usual case) */
    if (w->row_head[from & w->mask]) {
        *out = from;
        return true;
    }
    ks_tick t;
    bool found = table_next(w, from, &t);
    ks_context *h = ks_heap_top(&w->heap);
    if (h && (!found || h->when < t)) {
        t = h->when;
        found = true;
    }
    if (found)
        *out = t;
    return found;
}

bool ks_next_tick(ks_worker *w, ks_tick from, ks_tick *out)
{
    return next_tick(w, from, out);
}

/* Moves overflow entries that now fall inside the table window. A row enters
 * the window here before anything can be put in it directly, so heap entries
 * (scheduled earlier) keep their place ahead of later direct insertions. */
void ks_migrate(ks_worker *w)
{
    ks_tick now = w->now;
    ks_context *c;
    while ((c = ks_heap_top(&w->heap)) && c->when - now <= w->mask) {
        ks_heap_pop(&w->heap);
        c->where = KS_SCHEDULED;
        row_append(w, c, c->when);
    }
}

void ks_set_now(ks_worker *w, ks_tick t)
{
    ks_time_set(w->eng, t);
    if (w->heap.len)
        ks_migrate(w);
}

static void schedule_overflow(ks_worker *w, ks_context *c, ks_tick t)
{
    c->when = t;
    c->seq = w->seq++;
    c->where = KS_IN_HEAP;
    w->stats.overflow_pauses++;
    if (!ks_heap_push(&w->heap, c))
        ks_fail("out of memory scheduling context '%s'", c->name);
}

static inline void schedule_at(ks_worker *w, ks_context *c, ks_tick t)
{
    if (__builtin_expect(t - w->now <= w->mask, 1)) {
        c->where = KS_SCHEDULED;
        row_append(w, c, t);
    } else
        schedule_overflow(w, c, t);
}

void ks_schedule_at(ks_worker *w, ks_context *c, ks_tick t)
{
    schedule_at(w, c, t);
}

/* A context woken or created by the code running on worker w (w may be NULL
 * outside a run). It joins the current tick right after the running context
 * if the tick is one of its domain's edges, else its domain's next edge. */
static void place_ready(ks_worker *w, ks_context *c, const ks_eventcount *via, bool next_cycle)
{
    ks_engine *eng = c->eng;
    ks_tick t = ks_edge_now(c->domain, eng->now);
    if (!eng->running || !w || w->eng != eng) {
        ks_schedule_at(c->worker, c, next_cycle ? t + c->domain->period : t);
        return;
    }
    if (c->worker != w) {
        if (via && !(via->flags & KS_EC_HAZARDOUS))
            ks_fail("eventcount '%s' woke context '%s' (worker %u) from worker %u but "
                    "is not marked KS_EC_HAZARDOUS",
                    via->name ? via->name : "?", c->name, c->worker->index, w->index);
        c->when = t;
        ks_outbox_put(w, c);
        return;
    }
    if (t == eng->now && w->cur) {
        if (w->ins_run != w->stats.resumes) { /* the first wake of this run */
            w->ins = w->cur;
            w->ins_run = w->stats.resumes;
        }
        c->when = t;
        c->where = KS_SCHEDULED;
        c->skip = next_cycle ? KS_SKIP_DEFER : KS_RUN;
        c->next = w->ins->next;
        w->ins->next = c;
        w->ins = c;
        return;
    }
    if (t == eng->now)
        t += c->domain->period;
    ks_schedule_at(w, c, next_cycle ? t + c->domain->period : t);
}

void ks_schedule_new(ks_worker *w, ks_context *c)
{
    place_ready(w, c, NULL, false);
}

/* ---- choosing the next context -------------------------------------------- */

static ks_context *stop_run(ks_worker *w, ks_stop why, ks_tick resume_at)
{
    w->eng->stop = why;
    ks_set_now(w, resume_at);
    return &w->home;
}

/* The sequential engine's step to its next tick, in general. */
static ks_context * __attribute__((noinline)) next_tick_slow(ks_worker *w)
{
    ks_engine *eng = w->eng;
    ks_tick t;
    if (w->grave)
        ks_reap_except(w, w->cur);
    if (atomic_load_explicit(&eng->end_requested, memory_order_relaxed))
        return stop_run(w, KS_STOP_ENDED, w->now + 1);
    if (!next_tick(w, w->now + 1, &t))
        return stop_run(w, KS_STOP_IDLE, w->now + 1);
    if (t >= eng->limit)
        return stop_run(w, KS_STOP_LIMIT, eng->limit);
    ks_set_now(w, t);
    w->in_late = false;
    return take_row(w, t);
}

/* The usual step: the very next tick has contexts (heap entries, which lie
 * beyond the table's window, cannot come first), no context has ended, no
 * overflow entry waits to enter the window, the run goes on. */
static inline ks_context *next_tick_batch(ks_worker *w)
{
    ks_engine *eng = w->eng;
    ks_tick t = w->now + 1;
    w->stats.ticks_run++;
    if (__builtin_expect(!w->row_head[t & w->mask] || w->grave || w->heap.len ||
                             t >= eng->limit ||
                             atomic_load_explicit(&eng->end_requested, memory_order_relaxed),
                         0))
        return next_tick_slow(w);
    eng->now = w->now = t; /* the one worker of a sequential run */
    ks_domains_step(eng, t);
    w->in_late = false;
    return take_row(w, t);
}

static ks_context *batch_done(ks_worker *w)
{
    if (!w->in_late && w->late.head) {
        ks_context *c = w->late.head;
        w->late.head = w->late.tail = NULL;
        w->in_late = true;
        return c;
    }
    if (w->eng->parallel)
        return &w->home;
    return next_tick_batch(w);
}

/* A context the batch walk reaches with a reason to look first: a watcher
 * whose eventcount has reached its value or whose last cycle has begun runs
 * (it is returned); otherwise it goes to the next cycle of its domain,
 * behind every context that blocked before this point, as a deferred
 * context does and as the watcher's ks_pause(1) would have put it. */
static ks_context *pass_skipped(ks_worker *w, ks_context *c)
{
    if (c->skip == KS_SKIP_WATCH &&
        (ks_ec_count(c->awaiting) >= c->await_value || w->eng->now >= c->watch_until)) {
        c->skip = KS_RUN;
        return c;
    }
    ks_context *after = c->next;
    if (c->skip == KS_SKIP_DEFER)
        c->skip = KS_RUN;
    schedule_at(w, c, w->eng->now + c->domain->period);
    return after;
}

/* The next context to run after `after` (a context of the batch or NULL):
 * the batch walk, then the sub-clock list, then the next tick's batch, or
 * the worker's home when the run or (parallel) the worker's round stops.
 * The first context of a batch it starts may be a watcher: switch_to looks
 * at it within the test of its floating-point state (`unusual` covers
 * both), so watchers cost a tick no test more. */
static inline ks_context *next_runnable(ks_worker *w, ks_context *after)
{
    while (__builtin_expect(after && after->skip, 0))
        after = pass_skipped(w, after);
    return __builtin_expect(after != NULL, 1) ? after : batch_done(w);
}

ks_context *ks_next_runnable(ks_worker *w, ks_context *after)
{
    return next_runnable(w, after);
}

/* ---- switching ------------------------------------------------------------ */

/* Saves self and continues in next (a context or a worker's home); `plain`
 * (a constant) says the caller knows next has no floating-point state of its
 * own to load. */
static inline __attribute__((always_inline)) void jump(ks_worker *w, ks_context *self,
                                                       ks_context *next, bool plain)
{
#if KS_ASAN
    const void *lo = next == &w->home ? w->home_lo : next->stack.lo;
    size_t size = next == &w->home ? w->home_size : next->stack.size;
    __sanitizer_start_switch_fiber(self->where == KS_DEAD ? NULL : &self->asan_fake, lo, size);
#endif
    if (plain)
        ks_fp_switch_out(self, next);
    else
        ks_fp_switch(self, next);
    ks_jump(self, next);
#if KS_ASAN
    __sanitizer_finish_switch_fiber(self->asan_fake, NULL, NULL);
#else
    (void)w;
#endif
}

/* Runs next, a context of the current batch other than self. */
static inline __attribute__((always_inline)) void resume(ks_worker *w, ks_context *self,
                                                         ks_context *next, bool plain)
{
    w->cur = next;
    w->stats.resumes++; /* a new run: place_ready restarts ins */
    jump(w, self, next, plain);
}

static void switch_unusual(ks_worker *w, ks_context *self, ks_context *next);

/* Continues in next, a context (of the batch, or the first of a batch) or
 * the worker's home. */
static inline void switch_to(ks_worker *w, ks_context *self, ks_context *next)
{
    if (__builtin_expect(next->unusual, 0)) {
        switch_unusual(w, self, next);
    } else if (next == self) {
        w->cur = self;
        w->stats.resumes++;
    } else if (next == &w->home) {
        w->cur = NULL;
        jump(w, self, next, false);
    } else {
        resume(w, self, next, true);
    }
}

/* next is a watcher or has a floating-point state of its own to load. The
 * watchers that stay are passed; what remains may be self, or the home
 * when self is the home (a run or a parallel round starting with nothing
 * but such watchers due). */
static void __attribute__((noinline)) switch_unusual(ks_worker *w, ks_context *self, ks_context *next)
{
    while (next->skip)
        next = next_runnable(w, pass_skipped(w, next));
    if (next == self) {
        w->cur = self == &w->home ? NULL : self;
        if (self != &w->home)
            w->stats.resumes++;
    } else if (next == &w->home) {
        w->cur = NULL;
        jump(w, self, next, false);
    } else {
        resume(w, self, next, false);
    }
}

void ks_switch_to(ks_worker *w, ks_context *self, ks_context *next)
{
    switch_to(w, self, next);
}

void ks_fp_switch_slow(ks_context *self, ks_context *next)
{
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    if (cw != KS_FPCW_DEFAULT) {
        uint32_t m;
        __asm__ volatile("stmxcsr %0" : "=m"(m));
        self->mxcsr = m;
    }
    self->fpcw = cw;
    self->fp_saved = cw != KS_FPCW_DEFAULT;
    uint16_t ncw = next->fp_saved ? next->fpcw : KS_FPCW_DEFAULT;
    uint32_t nm = next->fp_saved ? next->mxcsr : KS_MXCSR_DEFAULT;
    __asm__ volatile("fldcw %0" : : "m"(ncw));
    __asm__ volatile("ldmxcsr %0" : : "m"(nm));
    next->fp_saved = false; /* its state is live now, not saved */
}

void ks_fp_enter_run(ks_worker *w)
{
    w->home.fp_saved = false;
    uint16_t cw = KS_FPCW_DEFAULT;
    uint32_t m = KS_MXCSR_DEFAULT;
    __asm__ volatile("fnstcw %0" : "=m"(w->thread_fpcw));
    __asm__ volatile("stmxcsr %0" : "=m"(w->thread_mxcsr));
    __asm__ volatile("fldcw %0" : : "m"(cw));
    __asm__ volatile("ldmxcsr %0" : : "m"(m));
}

void ks_fp_leave_run(ks_worker *w)
{
    __asm__ volatile("fldcw %0" : : "m"(w->thread_fpcw));
    __asm__ volatile("ldmxcsr %0" : : "m"(w->thread_mxcsr));
}

void ks_context_free(ks_context *c)
{
    ks_stack_free(&c->stack);
    free(c);
}

/* Frees the ended contexts, but not `running` (whose stack may be the one
 * this code runs on: an ending context picks its successor itself). */
void ks_reap_except(ks_worker *w, const ks_context *running)
{
    ks_context **pp = &w->grave;
    while (*pp) {
        ks_context *c = *pp;
        if (c == running) {
            pp = &c->next;
            continue;
        }
        *pp = c->next;
        ks_context_free(c);
    }
}

void ks_reap(ks_worker *w)
{
    ks_reap_except(w, NULL);
}

/* Takes c off the engine's list of live contexts. */
void ks_unlink(ks_context *c)
{
    ks_engine *eng = c->eng;
    bool lock = eng->parallel && eng->running;
    if (lock)
        pthread_mutex_lock(&eng->all_lock);
    if (c->all_prev)
        c->all_prev->all_next = c->all_next;
    else
        eng->all = c->all_next;
    if (c->all_next)
        c->all_next->all_prev = c->all_prev;
    c->all_prev = c->all_next = NULL;
    eng->live--;
    if (lock)
        pthread_mutex_unlock(&eng->all_lock);
}

static ks_worker *running_worker(const char *what)
{
    ks_worker *w = ks_tls_worker;
    if (!w->cur)
        ks_fail("%s called outside a running context", what);
    return w;
}

void ks_exit(void)
{
    ks_worker *w = running_worker("ks_exit");
    ks_context *self = w->cur;
    ks_context *next = self->next;
    ks_unlink(self);
    self->where = KS_DEAD;
    self->next = w->grave;
    w->grave = self;
    switch_to(w, self, next_runnable(w, next));
    ks_fail("ended context '%s' was resumed", self->name);
}

/* Entered from ks_context_trampoline on the context's fresh stack. */
void ks_context_main(ks_context *ctx)
{
#if KS_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    if (ctx->worker->grave)
        ks_reap(ctx->worker);
    ctx->entry(ctx->arg);
    ks_exit();
}

/* ---- the context API ------------------------------------------------------ */

ks_context *ks_self(void)
{
    return ks_tls_worker->cur;
}

ks_engine *ks_self_engine(void)
{
    return running_worker("ks_self_engine")->eng;
}

ks_tick ks_now(const ks_engine *eng)
{
    return eng->now;
}

uint64_t ks_cycle(void)
{
    ks_worker *w = running_worker("ks_cycle");
    return w->cur->domain->cycle_now;
}

/* ks_pause off its fast path: no wait, a pause beyond the batch table, a
 * pause whose tick would not fit in 64 bits. */
static void __attribute__((noinline)) pause_slow(ks_worker *w, ks_context *self, uint64_t cycles)
{
    if (!cycles)
        return;
    ks_tick span, target;
    if (__builtin_mul_overflow(cycles, self->domain->period, &span) ||
        __builtin_add_overflow(w->now, span, &target))
        ks_fail("context '%s': a pause of %llu cycles runs past the end of time", self->name,
                (unsigned long long)cycles);
    ks_context *next = self->next;
    schedule_at(w, self, target);
    switch_to(w, self, next_runnable(w, next));
}

/* The hottest call of every simulation. Its common case (the pause lands in
 * the batch table, the next context of the batch is a plain one) asks
 * nothing about domains, waiters, the overflow heap or the sub-clock phase:
 * fast_cycles (the longest pause whose span fits the table, 0 before the
 * time base is fixed) already says the product cannot overflow.
 * Defined `inline` (an external definition: the header declares it without)
 * so that link-time optimisation inlines it at every call site: the switch
 * declares every register clobbered, which costs nothing inlined but, in a
 * function of its own, six pushes and pops of callee-saved registers and a
 * call and return per pause, a third of the pause's time. */
inline void ks_pause(uint64_t cycles)
{
    ks_worker *w = ks_tls_worker;
    ks_context *self = w->cur;
    if (__builtin_expect(!self, 0))
        ks_fail("ks_pause called outside a running context");
    ks_tick t;
    if (__builtin_expect(cycles - 1 >= self->fast_cycles ||
                             __builtin_add_overflow(w->now, cycles * self->period, &t),
                         0)) {
        pause_slow(w, self, cycles);
        return;
    }
    ks_context *next = self->next;
    row_append(w, self, t);
    if (__builtin_expect(next && !next->unusual, 1)) {
        resume(w, self, next, true);
    } else {
        switch_to(w, self, next_runnable(w, next));
    }
}

bool ks_await_until(ks_eventcount *ec, uint64_t value, uint64_t cycle)
{
    ks_worker *w = running_worker("ks_await_until");
    ks_context *self = w->cur;
    ks_tick period = self->domain->period, target, until;
    if (__builtin_add_overflow(w->now, period, &target))
        ks_fail("context '%s': a pause of 1 cycle runs past the end of time", self->name);
    if (__builtin_mul_overflow(cycle, period, &until))
        until = UINT64_MAX;
    self->awaiting = ec;
    self->await_value = value;
    self->watch_until = until;
    self->skip = KS_SKIP_WATCH;
    ks_context *next = self->next;
    schedule_at(w, self, target);
    switch_to(w, self, next_runnable(w, next));
    self->awaiting = NULL;
    return ks_ec_count(ec) >= value;
}

void ks_sub_clock_enter(void)
{
    ks_worker *w = running_worker("ks_sub_clock_enter");
    if (w->in_late)
        return;
    ks_context *self = w->cur;
    ks_context *next = self->next;
    ks_list_append(&w->late, self);
    switch_to(w, self, next_runnable(w, next));
}

void ks_sub_clock_exit(void)
{
    ks_worker *w = running_worker("ks_sub_clock_exit");
    if (w->in_late)
        ks_pause(1);
}

bool ks_in_sub_clock(void)
{
    return running_worker("ks_in_sub_clock")->in_late;
}

void ks_end(ks_engine *eng)
{
    atomic_store_explicit(&eng->end_requested, 1, memory_order_relaxed);
}

/* ---- eventcounts ---------------------------------------------------------- */

void ks_ec_init(ks_eventcount *ec, const char *name, unsigned flags)
{
    ec->count = 0;
    ec->waiters = NULL;
    ec->name = name;
    ec->flags = flags;
    ec->lock = 0;
}

uint64_t ks_ec_count(const ks_eventcount *ec)
{
    return __atomic_load_n(&ec->count, __ATOMIC_RELAXED);
}

size_t ks_ec_waiters(const ks_eventcount *ec)
{
    size_t n = 0;
    for (const ks_context *c = ec->waiters; c; c = c->next)
        n++;
    return n;
}

/* Hazardous eventcounts are shared by workers in a parallel run: their
 * waiter lists take a lock; their counts change only at the barrier. */
static inline bool ec_lock(ks_eventcount *ec, const ks_worker *w)
{
    if (!(ec->flags & KS_EC_HAZARDOUS) || !w || !w->eng->parallel)
        return false;
    while (__atomic_exchange_n(&ec->lock, 1u, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
    return true;
}

static inline void ec_unlock(ks_eventcount *ec, bool locked)
{
    if (locked)
        __atomic_store_n(&ec->lock, 0u, __ATOMIC_RELEASE);
}

void ks_await(ks_eventcount *ec, uint64_t value)
{
    ks_worker *w = running_worker("ks_await");
    ks_context *self = w->cur;
    if (ec->count >= value)
        return;
    ks_context *next = self->next;
    self->await_value = value;
    self->awaiting = ec;
    self->where = KS_IN_WAIT;
    bool locked = ec_lock(ec, w);
    ks_context **pp = &ec->waiters;
    while (*pp && (*pp)->await_value <= value)
        pp = &(*pp)->next;
    self->next = *pp;
    *pp = self;
    ec_unlock(ec, locked);
    switch_to(w, self, next_runnable(w, next));
}

/* Parallel run: the advance is applied at the barrier, in (worker, program)
 * order, so what every context sees does not depend on thread timing. */
static void defer_advance(ks_worker *w, ks_eventcount *ec)
{
    if (w->hz_len == w->hz_cap) {
        size_t cap = w->hz_cap ? 2 * w->hz_cap : 64;
        ks_eventcount **hz = realloc(w->hz, cap * sizeof *hz);
        if (!hz)
            ks_fail("out of memory deferring an advance of '%s'", ec->name ? ec->name : "?");
        w->hz = hz;
        w->hz_cap = cap;
    }
    w->hz[w->hz_len++] = ec;
}

ks_context *ks_ec_take_ready(ks_eventcount *ec)
{
    uint64_t n = ec->count;
    ks_context *ready = ec->waiters;
    if (!ready || ready->await_value > n)
        return NULL;
    ks_context *last = ready;
    while (last->next && last->next->await_value <= n)
        last = last->next;
    ec->waiters = last->next;
    last->next = NULL;
    return ready;
}

static void advance_now(ks_worker *w, ks_eventcount *ec, bool next_cycle)
{
    __atomic_store_n(&ec->count, ec->count + 1, __ATOMIC_RELAXED);
    ks_context *ready = ks_ec_take_ready(ec);
    while (ready) {
        ks_context *c = ready;
        ready = c->next;
        c->awaiting = NULL;
        place_ready(w, c, ec, next_cycle);
    }
}

/* ks_advance when contexts may be waiting, or the eventcount is hazardous
 * (the header's inline part handles the rest). */
void ks_advance_waking(ks_eventcount *ec)
{
    ks_worker *w = ks_tls_worker;
    if ((ec->flags & KS_EC_HAZARDOUS) && w && w->cur && w->eng->parallel) {
        defer_advance(w, ec);
        return;
    }
    advance_now(w, ec, false);
}

void ks_advance_next(ks_eventcount *ec)
{
    ks_worker *w = ks_tls_worker;
    if ((ec->flags & KS_EC_HAZARDOUS) && w && w->cur && w->eng->parallel)
        ks_fail("eventcount '%s': ks_advance_next of a hazardous eventcount in a parallel run",
                ec->name ? ec->name : "?");
    advance_now(w, ec, true);
}
