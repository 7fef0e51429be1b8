/* KnightSim engine: creation, contexts' life cycle, and the sequential run. */
#include "ks_internal.h"
#include "cgm/bits.h"
#include "ks_switch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(CGM_ASAN) && CGM_ASAN
#define KS_ASAN 1
#else
#define KS_ASAN 0
#endif

#define KS_DEFAULT_ROWS 512u
#define KS_DEFAULT_STACK (64u * 1024u)
#define KS_MAX_THREADS 256u

static bool worker_init(ks_engine *eng, ks_worker *w, unsigned index)
{
    size_t rows = eng->cfg.table_rows;
    w->eng = eng;
    w->index = index;
    w->mask = rows - 1;
    w->row_head = calloc(2 * rows, sizeof *w->row_head);
    w->row_tail = w->row_head ? w->row_head + rows : NULL;
    w->occ = calloc(rows / 64, sizeof *w->occ);
    w->outbox = calloc(eng->nworkers, sizeof *w->outbox);
    snprintf(w->home.name, sizeof w->home.name, "worker %u home", index);
    return w->row_head && w->occ && w->outbox;
}

static void worker_free(ks_worker *w)
{
    ks_reap(w);
    free(w->row_head);
    free(w->occ);
    free(w->outbox);
    free(w->hz);
    ks_heap_free(&w->heap);
}

/* Gives every worker a table of `rows` rows. Only before the first run, when
 * everything scheduled is due at tick 0 (row 0). */
bool ks_tables_resize(ks_engine *eng, size_t rows)
{
    for (unsigned i = 0; i < eng->nworkers; i++) {
        ks_worker *w = &eng->workers[i];
        ks_context **head = calloc(2 * rows, sizeof *head);
        uint64_t *occ = calloc(rows / 64, sizeof *occ);
        if (!head || !occ) {
            free(head);
            free(occ);
            return false;
        }
        head[0] = w->row_head[0];
        head[rows] = w->row_tail[0];
        occ[0] = w->occ[0] & 1u;
        free(w->row_head);
        free(w->occ);
        w->row_head = head;
        w->row_tail = head + rows;
        w->occ = occ;
        w->mask = rows - 1;
    }
    eng->cfg.table_rows = (unsigned)rows;
    return true;
}

ks_engine *ks_engine_create(const ks_config *cfg)
{
    ks_config c;
    memset(&c, 0, sizeof c);
    if (cfg)
        c = *cfg;
    bool rows_auto = !c.table_rows;
    if (rows_auto)
        c.table_rows = KS_DEFAULT_ROWS;
    if (!c.default_stack_size)
        c.default_stack_size = KS_DEFAULT_STACK;
    if (!c.threads)
        c.threads = 1;
    if (!c.default_freq_hz)
        c.default_freq_hz = 1000000000ull;
    if (c.table_rows < 64 || !cgm_pow2(c.table_rows)) {
        fprintf(stderr, "knightsim: table_rows %u must be a power of two >= 64\n", c.table_rows);
        return NULL;
    }
    if (c.threads > KS_MAX_THREADS) {
        fprintf(stderr, "knightsim: %u threads requested, at most %u\n", c.threads,
                KS_MAX_THREADS);
        return NULL;
    }
    ks_engine *eng = calloc(1, sizeof *eng);
    if (!eng)
        return NULL;
    eng->cfg = c;
    eng->rows_auto = rows_auto;
    eng->nworkers = c.threads;
    eng->parallel = c.parallel || c.threads > 1;
    /* one worker per cache-line-aligned slot: workers write their own state
     * every event, and must not share lines with each other */
    eng->workers = aligned_alloc(64, c.threads * sizeof *eng->workers);
    if (eng->workers)
        memset(eng->workers, 0, c.threads * sizeof *eng->workers);
    pthread_mutex_init(&eng->all_lock, NULL);
    bool ok = eng->workers != NULL;
    for (unsigned i = 0; ok && i < c.threads; i++)
        ok = worker_init(eng, &eng->workers[i], i);
    if (ok)
        eng->default_domain = ks_domain_create(eng, "default", c.default_freq_hz);
    if (!ok || !eng->default_domain) {
        fprintf(stderr, "knightsim: cannot create engine: %s\n",
                eng->err[0] ? eng->err : "out of memory");
        ks_engine_destroy(eng);
        return NULL;
    }
    return eng;
}

void ks_engine_destroy(ks_engine *eng)
{
    if (!eng)
        return;
    if (eng->running)
        ks_fail("ks_engine_destroy called during a run");
    while (eng->all) {
        ks_context *c = eng->all;
        eng->all = c->all_next;
        ks_context_free(c);
    }
    if (eng->workers) {
        for (unsigned i = 0; i < eng->nworkers; i++)
            worker_free(&eng->workers[i]);
        free(eng->workers);
    }
    ks_domains_free(eng);
    pthread_mutex_destroy(&eng->all_lock);
    free(eng);
}

const char *ks_engine_error(const ks_engine *eng)
{
    return eng->err;
}

size_t ks_engine_contexts(const ks_engine *eng)
{
    return eng->live;
}

void ks_engine_stats(const ks_engine *eng, ks_stats *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < eng->nworkers; i++) {
        const ks_stats *s = &eng->workers[i].stats;
        out->resumes += s->resumes;
        out->overflow_pauses += s->overflow_pauses;
        out->rounds += s->rounds;
        if (!eng->parallel || i == 0)
            out->ticks_run += s->ticks_run;
    }
}

/* ---- contexts ------------------------------------------------------------- */

ks_context *ks_context_create(ks_engine *eng, ks_entry_fn entry, void *arg, size_t stack_size)
{
    ks_context_opts o;
    memset(&o, 0, sizeof o);
    o.stack_size = stack_size;
    return ks_context_create_opts(eng, entry, arg, &o);
}

ks_context *ks_context_create_opts(ks_engine *eng, ks_entry_fn entry, void *arg,
                                   const ks_context_opts *opts)
{
    static atomic_ulong serial;
    ks_context_opts o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    ks_domain *d = o.domain ? o.domain : eng->default_domain;
    if (!entry) {
        ks_set_error(eng, "context '%s': no entry function", o.name ? o.name : "?");
        return NULL;
    }
    if (d->eng != eng) {
        ks_set_error(eng, "context '%s': domain '%s' belongs to another engine",
                     o.name ? o.name : "?", d->name);
        return NULL;
    }
    if (o.thread >= eng->nworkers) {
        ks_set_error(eng, "context '%s': thread %u out of range (engine has %u)",
                     o.name ? o.name : "?", o.thread, eng->nworkers);
        return NULL;
    }
    /* cache-line aligned: the fields a resumption touches share one line */
    size_t bytes = (sizeof(ks_context) + 63) & ~(size_t)63;
    ks_context *c = aligned_alloc(64, bytes);
    if (c)
        memset(c, 0, bytes);
    if (!c || !ks_stack_alloc(&c->stack, o.stack_size ? o.stack_size : eng->cfg.default_stack_size)) {
        ks_set_error(eng, "context '%s': cannot allocate its stack", o.name ? o.name : "?");
        free(c);
        return NULL;
    }
    c->eng = eng;
    c->entry = entry;
    c->arg = arg;
    c->domain = d;
    c->worker = &eng->workers[o.thread];
    if (o.name)
        snprintf(c->name, sizeof c->name, "%s", o.name);
    else
        snprintf(c->name, sizeof c->name, "context-%lu",
                 (unsigned long)atomic_fetch_add(&serial, 1));
    c->sp = ks_stack_top(c);
    c->pc = (const void *)ks_context_trampoline;
    c->fpcw = KS_FPCW_DEFAULT;
    ks_context_timing(c); /* again when the time base is fixed */

    bool lock = eng->parallel && eng->running;
    if (lock)
        pthread_mutex_lock(&eng->all_lock);
    c->all_next = eng->all;
    if (eng->all)
        eng->all->all_prev = c;
    eng->all = c;
    eng->live++;
    if (lock)
        pthread_mutex_unlock(&eng->all_lock);

    ks_worker *w = ks_tls_worker;
    ks_schedule_new(w->cur ? w : NULL, c);
    return c;
}

/* A pause of up to fast_cycles cycles lands in the batch table and its span
 * cannot overflow; before the time base is fixed, no pause is fast. */
void ks_context_timing(ks_context *c)
{
    c->period = c->domain->period;
    c->fast_cycles = c->period ? c->worker->mask / c->period : 0;
}

const char *ks_context_name(const ks_context *ctx) { return ctx->name; }
ks_domain *ks_context_domain(const ks_context *ctx) { return ctx->domain; }
unsigned ks_context_thread(const ks_context *ctx) { return ctx->worker->index; }

/* Removes c from a singly linked chain; true if it was there. */
static bool chain_remove(ks_context **head, ks_context **tail, ks_context *c)
{
    ks_context *prev = NULL;
    for (ks_context *p = *head; p; prev = p, p = p->next) {
        if (p != c)
            continue;
        if (prev)
            prev->next = c->next;
        else
            *head = c->next;
        if (tail && *tail == c)
            *tail = prev;
        return true;
    }
    return false;
}

/* Searches the non-empty rows of the batch table (a pause does not record
 * which row it went to). */
static bool unlink_row(ks_worker *w, ks_context *c)
{
    for (size_t r = 0; r <= w->mask; r++) {
        if (!(w->occ[r >> 6] & (1ull << (r & 63))))
            continue;
        w->row_tail[r]->next = NULL; /* rows leave the last link to ks_take_row */
        if (chain_remove(&w->row_head[r], &w->row_tail[r], c)) {
            if (!w->row_head[r]) {
                w->occ[r >> 6] &= ~(1ull << (r & 63));
                w->rows_used--;
            }
            return true;
        }
    }
    return false;
}

/* The running batch and sub-clock list of the current tick. */
static bool unlink_current(ks_worker *w, ks_context *c)
{
    ks_context *cur = ks_tls_worker == w ? w->cur : NULL;
    if (cur) {
        ks_context *tail = NULL;
        if (chain_remove(&cur->next, &tail, c)) {
            if (w->ins == c)
                w->ins = cur;
            return true;
        }
    }
    return chain_remove(&w->late.head, &w->late.tail, c) ||
           chain_remove(&w->inbox.head, &w->inbox.tail, c);
}

void ks_context_destroy(ks_context *c)
{
    ks_engine *eng = c->eng;
    ks_worker *w = c->worker;
    if (ks_self() == c)
        ks_fail("context '%s' destroyed itself; return from its entry or call ks_exit", c->name);
    if (c->where == KS_DEAD)
        ks_fail("context '%s' destroyed after it ended", c->name);
    if (eng->running && eng->parallel && ks_tls_worker != w)
        ks_fail("context '%s' (worker %u) destroyed from another worker during a parallel run",
                c->name, w->index);
    bool removed = true;
    switch (c->where) {
    case KS_SCHEDULED:
        removed = (eng->running && unlink_current(w, c)) || unlink_row(w, c);
        break;
    case KS_IN_HEAP:
        ks_heap_remove(&w->heap, c);
        break;
    case KS_IN_WAIT:
        removed = chain_remove(&c->awaiting->waiters, NULL, c);
        break;
    case KS_IN_OUTBOX:
        removed = false;
        for (unsigned i = 0; !removed && i < eng->nworkers; i++) {
            ks_list *l = &eng->workers[i].outbox[w->index];
            removed = chain_remove(&l->head, &l->tail, c);
        }
        break;
    default:
        removed = false;
        break;
    }
    if (!removed)
        ks_fail("context '%s' could not be found to destroy it", c->name);
    ks_unlink(c);
    ks_context_free(c);
}

/* ---- sequential run ------------------------------------------------------- */

static void home_bounds(ks_worker *w)
{
#if KS_ASAN
    pthread_attr_t a;
    void *lo = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        pthread_attr_getstack(&a, &lo, &size);
        pthread_attr_destroy(&a);
    }
    w->home_lo = lo;
    w->home_size = size;
#else
    (void)w;
#endif
}

void ks_worker_enter(ks_worker *w)
{
    ks_tls_worker = w;
    ks_overflow_guard_thread();
    home_bounds(w);
}

ks_stop ks_run_until(ks_engine *eng, ks_tick limit)
{
    if (eng->running) {
        ks_set_error(eng, "ks_run called while the engine is already running");
        return KS_STOP_ERROR;
    }
    if (ks_tls_worker != &ks_no_worker) {
        ks_set_error(eng, "ks_run called from inside a running engine");
        return KS_STOP_ERROR;
    }
    if (!ks_timebase_fix(eng))
        return KS_STOP_ERROR;
    atomic_store(&eng->end_requested, 0);
    eng->limit = limit;
    if (limit <= eng->now)
        return KS_STOP_LIMIT;
    if (eng->parallel)
        return ks_parallel_run(eng);

    ks_worker *w = &eng->workers[0];
    ks_tick t;
    if (!ks_next_tick(w, eng->now, &t))
        return KS_STOP_IDLE;
    if (t >= limit) {
        ks_set_now(w, limit);
        return KS_STOP_LIMIT;
    }
    ks_worker_enter(w);
    eng->running = true;
    ks_set_now(w, t);
    w->in_late = false;
    ks_fp_enter_run(w);
    ks_switch_to(w, &w->home, ks_take_row(w, t));
    ks_fp_leave_run(w);
    ks_reap(w);
    eng->running = false;
    ks_tls_worker = &ks_no_worker;
    return eng->stop;
}

ks_stop ks_run(ks_engine *eng)
{
    return ks_run_until(eng, UINT64_MAX);
}

ks_stop ks_run_cycles(ks_engine *eng, const ks_domain *d, uint64_t cycle)
{
    if (!ks_timebase_fix(eng))
        return KS_STOP_ERROR;
    return ks_run_until(eng, ks_domain_cycle_tick(d, cycle));
}
