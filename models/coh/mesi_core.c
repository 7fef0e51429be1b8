/* The core side of the CPU MESI protocol: the instruction cache (Table
 * 3.1), the data cache with its write-back queue (Table 3.2) and the
 * private L2 smart cache (Table 3.3) with its MSHR, coalescer and
 * write-back queue, which alone talks to the directory: requests, NACK
 * retries, forwards, invalidations and flushes.
 *
 * The L2 is inclusive of both L1s. The L1s and the L2 act on each other at
 * once: an L1 miss is looked up in the L2 in the same step (the caller
 * charges the L2 latency from the level reported with each completion),
 * and whenever the L2 gives a block up or hands it to another core it
 * first takes back the L1 copies and any newer data in the data cache or
 * its write-back queue.
 *
 * A data-cache access is classified into its Table 3.2 substate once
 * (l1_classify, shared with the GPU's vector L1) and an L1 miss at the L2
 * into its Table 3.3 substate (l2_classify); each dispatch runs the row's
 * actions and counts the row when they were performed (a request the
 * core's resources refuse now is tried again later, and counted then). */
#include "mesi_internal.h"

#include <stdlib.h>
#include <string.h>

/* MSHR entry kinds: a miss or upgrade of the L2; requests waiting for the
 * L2's write-back to be acknowledged; requests waiting for the data
 * cache's write-back to reach the L2; a flush of the block from the CPU's
 * caches, from the GPU's. */
enum { KIND_DATA = 0, KIND_WBWAIT = 2, KIND_L1WBWAIT = 3, KIND_FLUSH_CPU, KIND_FLUSH_GPU };

static int dir_node(struct cgm_coh_sys *s, uint64_t block) { return coh_slice_node(s, block); }

static void to_dir(struct cgm_coh_sys *s, struct core *c, uint8_t type, uint64_t block, bool instr)
{
    struct cgm_coh_msg m = { .type = type, .src = c->id, .dst = dir_node(s, block), .block = block,
                             .instr = instr, .requester = c->id };
    coh_send(s, m);
}

/* The message a queued L2 victim leaves in: WriteBack with its data if
 * written, else an Evict notice without data. */
static struct cgm_coh_msg wb_msg(const struct core *c, const struct core_wb *wb, int dst)
{
    return (struct cgm_coh_msg){ .type = wb->dirty ? COH_WB : COH_EVICT, .src = c->id, .dst = dst,
                                 .block = wb->block, .data = wb->data, .dirty = wb->dirty };
}

static struct core_wb *l2wb_find(struct core *c, uint64_t b)
{
    return wbq_find(&c->wb, b);
}

static struct core_wb *l1wb_find(struct core *c, uint64_t b)
{
    return wbq_find(&c->l1wb, b);
}

static bool stable(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return l->state == MESI_S || l->state == MESI_E || l->state == MESI_M;
}

static void finish(struct cgm_coh_sys *s, struct core *c, uint8_t op, uint64_t block, uint64_t tag,
                   uint64_t value, unsigned level)
{
    s->env.done(s->env.ctx, c->id, tag, op, block, value, level);
}

static inline bool coalesce(struct core *c, struct cgm_coh_sys *s, struct cgm_mshr_entry *e, const struct cgm_coh_req *req)
{
    struct cgm_mshr_waiter w = coh_waiter_of(req);
    if (!cgm_mshr_push(e, s->cfg.coalesce, &w))
        return false;
    c->st.coalesced++;
    return true;
}

/* ---- replays ------------------------------------------------------------ */

static void stall_push(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_req *req)
{
    coh_stall(s, &c->stall, c->id, req);
}

/* Moves the requests an MSHR entry held to the stalled list, in order, to
 * be run again shortly (used where running them at once would re-enter the
 * step that is giving the block up). */
static void park(struct cgm_coh_sys *s, struct core *c, struct cgm_mshr_entry *e)
{
    for (unsigned i = 0; i < e->n; i++) {
        struct cgm_coh_req r = coh_req_of(e->block, &e->w[i]);
        stall_push(s, c, &r);
    }
    cgm_mshr_release(&c->mshr, e);
}

/* Runs the requests an MSHR entry held, in arrival order. */
static int access_fn(struct cgm_coh_sys *s, void *cache, const struct cgm_coh_req *req)
{
    return core_access(s, cache, req);
}

/* Runs the requests an MSHR entry held, in arrival order. */
static void replay(struct cgm_coh_sys *s, struct core *c, struct cgm_mshr_entry *e)
{
    coh_replay_entry(s, &c->mshr, e, access_fn, c, &c->stall, c->id, &c->replaying);
}

/* ---- the L1s give their copies back to the L2 ----------------------------- */

/* Takes the data cache's newer data for the block (its line, written, or
 * its write-back queue entry) into L2 line l2, and drops the queue entry.
 * The L1 line itself stays (as a clean copy). */
void mesi_core_pull_l1(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *l2)
{
    struct cgm_cache_line *l1 = cgm_cache_find(&c->l1d, l2->block);
    if (l1 && l1->dirty) {
        l2->data = l1->data;
        l2->dirty = true;
        l2->state = MESI_M;
        l1->dirty = false;
    }
    struct core_wb *w = l1wb_find(c, l2->block);
    if (w) {
        l2->data = w->data;
        l2->dirty = true;
        l2->state = MESI_M;
        wbq_release(&c->l1wb, w);
        struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, l2->block, KIND_L1WBWAIT);
        if (e)
            park(s, c, e);
    }
}

/* Drops the L1 copies of a block (after mesi_core_pull_l1). */
void mesi_core_drop_l1(struct core *c, uint64_t block)
{
    struct cgm_cache_line *l1 = cgm_cache_find(&c->l1d, block);
    if (l1) {
        l1->state = MESI_I;
        l1->dirty = false;
    }
    struct cgm_cache_line *li = cgm_cache_find(&c->l1i, block);
    if (li)
        li->state = MESI_I;
}

/* ---- evictions ---------------------------------------------------------- */

/* Frees an L2 way. Inclusion first: the L1 copies come back. Then shared
 * blocks are dropped silently; written blocks go to the write-back queue;
 * unwritten exclusive blocks go there too when it has room, to leave as an
 * Evict notice without data (so the directory learns of it), else they are
 * dropped (the directory's copy is current, and a forward to this core
 * gets a NACK). "Written" is the L2's dirty bit, not its state: a block the
 * directory sent as PutX (M in the L3) is M here yet clean. false if a
 * written block finds the queue full. */
static bool l2_evict(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *v, struct core_wb *slot)
{
    if (!v->state)
        return true;
    const struct cgm_cache_line *l1 = cgm_cache_find(&c->l1d, v->block);
    bool l1_held = (l1 && l1->state) || l1wb_find(c, v->block);
    mesi_core_pull_l1(s, c, v);
    bool exclusive = v->state == MESI_E || v->state == MESI_M;
    if (exclusive && !v->dirty && !slot)
        slot = wbq_free(&c->wb); /* clean: tell the directory if there is room */
    if (v->dirty || (exclusive && slot)) {
        if (!slot)
            slot = wbq_free(&c->wb);
        if (!slot)
            return false;
        /* An exclusive block the data cache held leaves once the data
         * cache acknowledges its flush (the data came back above). */
        wbq_take(&c->wb, slot, (struct core_wb){ .block = v->block, .data = v->data, .used = true,
                                                 .dirty = v->dirty, .flushing = l1_held,
                                                 .shared = !exclusive });
        unsigned inuse = 0;
        for (unsigned i = 0; i < c->wb.n; i++)
            inuse += c->wb.e[i].used;
        if (inuse > c->st.wb_queue_peak)
            c->st.wb_queue_peak = inuse;
        if (v->dirty)
            c->st.writebacks++;
        else
            c->st.clean_evictions++;
        s->env.later(s->env.ctx, c->id, v->block, slot->flushing ? COH_WAKE_L1_FLUSHED : COH_WAKE_WB_DRAIN);
    }
    mesi_core_drop_l1(c, v->block);
    c->st.l2_evictions++;
    v->state = MESI_I;
    v->dirty = false;
    return true;
}

/* Frees a data-cache way: a written block goes to the data cache's
 * write-back queue (slot, or a free entry), others are dropped (the L2
 * holds them). false if the queue is full. */
static bool l1_evict(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *v, struct core_wb *slot)
{
    if (!v->state)
        return true;
    if (v->dirty) {
        if (!slot)
            slot = wbq_free(&c->l1wb);
        if (!slot)
            return false;
        wbq_take(&c->l1wb, slot, (struct core_wb){ .block = v->block, .data = v->data, .used = true, .dirty = true });
        c->st.l1_writebacks++;
        s->env.later(s->env.ctx, c->id, v->block, COH_WAKE_L1WB_DRAIN);
    }
    c->st.evictions++;
    v->state = MESI_I;
    v->dirty = false;
    return true;
}

/* ---- performing requests ------------------------------------------------ */

static inline void perform(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *l1, const struct cgm_coh_req *req, unsigned level)
{
    cgm_cache_touch(&c->l1d, l1);
    if (req->op == CGM_OP_STORE) {
        l1->state = MESI_M;
        l1->data = req->value;
        l1->dirty = true;
    }
    finish(s, c, req->op, l1->block, req->tag, l1->data, level);
}

/* Puts an L2 block into the data cache (way v, already judged free-able)
 * in the state the L2 gives it, and performs the request there. */
static void fill_l1d(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *v,
                     const struct cgm_cache_line *l2, uint8_t state, const struct cgm_coh_req *req)
{
    struct cgm_cache_line *old = cgm_cache_find(&c->l1d, l2->block);
    if (old && old != v) {
        /* A transient copy left by an upgrade: the fill replaces it. */
        old->state = MESI_I;
        old->dirty = false;
    }
    if (v->state && v->block != l2->block)
        l1_evict(s, c, v, NULL);
    cgm_cache_insert(&c->l1d, v, l2->block, CGM_HINT_NORMAL);
    v->state = state;
    v->data = l2->data;
    v->dirty = false;
    perform(s, c, v, req, 2);
}

static void fill_l1i(struct cgm_coh_sys *s, struct core *c, const struct cgm_cache_line *l2, uint64_t tag)
{
    struct cgm_cache_line *v = cgm_cache_find(&c->l1i, l2->block);
    if (!v) {
        v = cgm_cache_victim(&c->l1i, l2->block, NULL, NULL);
        if (v->state) {
            c->st.evictions++;
            c->st.fetch_evictions++;
        }
        cgm_cache_insert(&c->l1i, v, l2->block, CGM_HINT_NORMAL);
    } else {
        cgm_cache_touch(&c->l1i, v);
    }
    v->state = MESI_S;
    v->data = l2->data;
    finish(s, c, CGM_OP_FETCH, l2->block, tag, v->data, 2);
}

/* ---- an L1 miss at the L2 (Table 3.3) ---------------------------------- */

enum l2_sub {
    L2_SECONDARY,          /* a miss or upgrade of the block is in flight: coalesce (no row) */
    L2_WB_WAIT,            /* requests already wait for the write-back's acknowledgement */
    L2_WB_FLUSH_CONFLICT, L2_WB_WRITABLE, L2_WB_NON_WRITABLE,
    L2_M, L2_E, L2_S,
    L2_TRANSIENT,          /* transient without an MSHR entry: cannot happen; refuse */
    L2_I,
    L2_NSUBS
};
enum { COL_FETCH, COL_LOAD, COL_STORE, COL_UPGRADE, L2_NCOLS };

#define R ROW_NONE
static const uint8_t l2_rows[L2_NSUBS][L2_NCOLS] = {
    [L2_SECONDARY] = { R, R, R, R },
    [L2_WB_WAIT] = { R, R33_WBN_LOAD, R33_WBN_STORE, R33_WBN_STORE },
    [L2_WB_FLUSH_CONFLICT] = { R, R33_WBFC_LOAD, R33_WBFC_STORE, R33_WBFC_STORE },
    [L2_WB_WRITABLE] = { R, R33_WBW_LOAD, R33_WBW_STORE, R33_WBW_STORE },
    [L2_WB_NON_WRITABLE] = { R, R33_WBN_LOAD, R33_WBN_STORE, R33_WBN_STORE },
    [L2_M] = { R, R33_M_LOAD, R33_M_STORE, R33_M_STORE },
    [L2_E] = { R, R33_E_LOAD, R33_E_STORE, R33_E_STORE },
    [L2_S] = { R33_S_FETCH, R33_S_LOAD, R33_S_STORE, R33_S_UPG },
    [L2_TRANSIENT] = { R, R, R, R },
    [L2_I] = { R33_I_FETCH, R33_I_LOAD, R33_I_STORE, R33_I_STORE },
};
/* Table 3.2 by substate, for a load and a store. */
static const uint8_t l1d_rows[L1_NSUBS][2] = {
    [L1_M] = { R32_M_LOAD, R32_M_STORE },
    [L1_E] = { R32_E_LOAD, R32_E_STORE },
    [L1_S] = { R32_S_LOAD, R32_S_STORE },
    [L1_S_PENDING_UPGRADE] = { R32_SPU_LOAD, R32_SPU_STORE },
    [L1_I] = { R32_I_LOAD, R32_I_STORE },
    [L1_I_WB_WRITABLE] = { R32_WBW_LOAD, R32_WBW_STORE },
    [L1_I_WB_NON_WRITABLE] = { R32_WBN_LOAD, R32_WBN_STORE },
};
#undef R

static enum l2_sub l2_classify(struct core *c, uint64_t block, struct cgm_mshr_entry **e, struct cgm_cache_line **l2,
                               struct core_wb **wb)
{
    if ((*e = cgm_mshr_find(&c->mshr, block, KIND_DATA)))
        return L2_SECONDARY;
    if ((*e = cgm_mshr_find(&c->mshr, block, KIND_WBWAIT)))
        return L2_WB_WAIT;
    if ((*l2 = cgm_cache_find(&c->l2.a, block))) {
        switch ((*l2)->state) {
        case MESI_M: return L2_M;
        case MESI_E: return L2_E;
        case MESI_S: return L2_S;
        default: return L2_TRANSIENT;
        }
    }
    if (!(*wb = l2wb_find(c, block)))
        return L2_I;
    if ((*wb)->flushing)
        return L2_WB_FLUSH_CONFLICT;
    return (*wb)->sent ? L2_WB_NON_WRITABLE : L2_WB_WRITABLE;
}

/* The L2 holds the block in a stable state: the L1 gets it. A store to a
 * shared block becomes an upgrade (Upgrade_Fwd for the data cache's own
 * upgrade). Returns as core_access does. */
static int l2_hit(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *l2, const struct cgm_coh_req *req, struct cgm_cache_line *l1v, bool upgrade)
{
    uint64_t block = l2->block;
    uint8_t op = req->op;
    cgm_cache_touch(&c->l2.a, l2);
    if (op == CGM_OP_FETCH) {
        if (!c->replaying)
            c->st.l2_hits++;
        fill_l1i(s, c, l2, req->tag);
        return 1;
    }
    bool st = op == CGM_OP_STORE;
    if (l2->state == MESI_M || l2->state == MESI_E) {
        if (st)
            l2->state = MESI_M;
        if (!c->replaying)
            c->st.l2_hits++;
        if (upgrade) /* the data cache's shared copy may simply become modified */
            perform(s, c, cgm_cache_find(&c->l1d, block), req, 2);
        else
            fill_l1d(s, c, l1v, l2, l2->state, req);
        return 1;
    }
    if (!st) {
        if (!c->replaying)
            c->st.l2_hits++;
        fill_l1d(s, c, l1v, l2, MESI_S, req);
        return 1;
    }
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&c->mshr, block, KIND_DATA);
    if (!e)
        return -1;
    c->st.upgrades++;
    l2->state = MESI_SM;
    coh_meta(&c->l2, l2)->req = COH_UPGRADE;
    if (upgrade) {
        struct cgm_cache_line *l1 = cgm_cache_find(&c->l1d, block);
        if (l1)
            l1->state = MESI_SM;
    }
    coalesce(c, s, e, req);
    c->st.coalesced--;
    to_dir(s, c, COH_UPGRADE, block, false);
    return 0;
}

/* I_WB_Writable: merge the block back into the L2 (the victim, if
 * written, takes the queue slot the block leaves), then it is a hit. */
static int l2_merge_back(struct cgm_coh_sys *s, struct core *c, struct core_wb *wb, const struct cgm_coh_req *req, struct cgm_cache_line *l1v, bool upgrade)
{
    uint64_t block = wb->block;
    struct cgm_cache_line *v = cgm_cache_victim(&c->l2.a, block, stable, NULL);
    if (!v)
        return -1;
    struct core_wb saved = *wb;
    wbq_release(&c->wb, wb);
    if (!l2_evict(s, c, v, wb)) {
        wbq_take(&c->wb, wb, saved);
        return -1;
    }
    c->st.wb_hits++;
    cgm_cache_insert(&c->l2.a, v, block, CGM_HINT_NORMAL);
    v->state = saved.shared ? MESI_S : saved.dirty ? MESI_M : MESI_E;
    v->data = saved.data;
    v->dirty = saved.dirty;
    return l2_hit(s, c, v, req, l1v, upgrade);
}

/* I: an MSHR entry, a victim, then the request to the L3. */
static int l2_miss(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_req *req)
{
    uint64_t block = req->block;
    bool st = req->op == CGM_OP_STORE, fetch = req->op == CGM_OP_FETCH;
    if (c->mshr.used >= c->mshr.entries)
        return -1;
    struct cgm_cache_line *v = cgm_cache_victim(&c->l2.a, block, stable, NULL);
    if (!v || !l2_evict(s, c, v, NULL))
        return -1;
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&c->mshr, block, KIND_DATA);
    uint8_t type = fetch ? COH_GETS : st ? COH_GETX : COH_GET;
    if (!c->replaying)
        c->st.l2_misses++;
    cgm_cache_insert(&c->l2.a, v, block, CGM_HINT_NORMAL);
    v->state = st ? MESI_IM : MESI_IS;
    v->dirty = false;
    coh_meta(&c->l2, v)->req = type;
    coalesce(c, s, e, req);
    c->st.coalesced--;
    to_dir(s, c, type, block, fetch);
    return 0;
}

/* An L1 miss (or a data-cache upgrade) at the L2. l1v is the data-cache
 * way the block will take (NULL for fetches and upgrades). Returns as
 * core_access does. */
static int l2_access(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_req *req, struct cgm_cache_line *l1v, bool upgrade)
{
    uint64_t block = req->block;
    bool fetch = req->op == CGM_OP_FETCH;
    int col = fetch ? COL_FETCH : req->op != CGM_OP_STORE ? COL_LOAD : upgrade ? COL_UPGRADE : COL_STORE;
    struct cgm_mshr_entry *e = NULL;
    struct cgm_cache_line *l2 = NULL;
    struct core_wb *wb = NULL;
    enum l2_sub sub = l2_classify(c, block, &e, &l2, &wb);
    int r;
    switch (sub) {
    case L2_SECONDARY:
        if (!coalesce(c, s, e, req))
            return -1;
        if (!fetch && !c->replaying)
            c->st.l1d_secondary_misses++;
        r = 0;
        break;
    case L2_WB_WAIT:
        r = coalesce(c, s, e, req) ? 0 : -1;
        break;
    case L2_WB_FLUSH_CONFLICT:
        /* The L2 NACKs the request back to the L1, which tries it again
         * shortly. */
        c->st.l1_nacks++;
        stall_push(s, c, req);
        r = 0;
        break;
    case L2_WB_WRITABLE:
        r = l2_merge_back(s, c, wb, req, l1v, upgrade);
        break;
    case L2_WB_NON_WRITABLE:
        /* Wait for the directory's write-back acknowledgement. */
        if (!(e = cgm_mshr_alloc(&c->mshr, block, KIND_WBWAIT)))
            return -1;
        coalesce(c, s, e, req);
        c->st.coalesced--;
        r = 0;
        break;
    case L2_M:
    case L2_E:
    case L2_S:
        r = l2_hit(s, c, l2, req, l1v, upgrade);
        break;
    case L2_I:
        r = l2_miss(s, c, req);
        break;
    default:
        return -1;
    }
    if (r >= 0)
        coh_row(s, l2_rows[sub][col]);
    return r;
}

/* ---- the L1s (Tables 3.1 and 3.2) ------------------------------------------- */

static int fetch(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_req *req)
{
    uint64_t block = req->block, tag = req->tag;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1i, block);
    if (l && l->state == MESI_S) {
        coh_row(s, R31_S_FETCH);
        if (!c->replaying) {
            c->st.hits++;
            c->st.fetch_hits++;
        }
        cgm_cache_touch(&c->l1i, l);
        finish(s, c, CGM_OP_FETCH, block, tag, l->data, 1);
        return 1;
    }
    int r = l2_access(s, c, req, NULL, false);
    if (r >= 0) {
        coh_row(s, R31_I_FETCH);
        if (!c->replaying) {
            c->st.misses++;
            c->st.fetch_misses++;
        }
    }
    return r;
}

/* I_WB_Writable: merge the block back into the data cache; the victim, if
 * written, takes the queue slot the block leaves. */
static int l1_merge_back(struct cgm_coh_sys *s, struct core *c, struct core_wb *w, const struct cgm_coh_req *req)
{
    uint64_t block = w->block;
    struct cgm_cache_line *v = cgm_cache_victim(&c->l1d, block, stable, NULL);
    if (!v)
        return -1;
    struct core_wb saved = *w;
    wbq_release(&c->l1wb, w);
    if (!l1_evict(s, c, v, w)) {
        wbq_take(&c->l1wb, w, saved);
        return -1;
    }
    c->st.l1_wb_hits++;
    if (!c->replaying)
        c->st.hits++;
    cgm_cache_insert(&c->l1d, v, block, CGM_HINT_NORMAL);
    v->state = MESI_M;
    v->data = saved.data;
    v->dirty = true;
    perform(s, c, v, req, 1);
    return 1;
}

/* ---- flushes ------------------------------------------------------------- */

static void protocol_error(struct cgm_coh_sys *s, struct core *c, const char *what, const struct cgm_coh_msg *m);

static void flush_send(struct cgm_coh_sys *s, struct core *c, bool cpu, uint64_t block)
{
    struct cgm_coh_msg m = { .type = COH_FLUSH, .src = c->id, .block = block,
                             .dst = cpu ? dir_node(s, block) : coh_gpu_bank_node(s, block) };
    coh_send(s, m);
}

/* The core asks the directory of the block's side (its L3 slice, or the
 * GPU L2 bank) to flush it; one flush of each kind per block at a time. */
static int flush(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_req *req)
{
    uint8_t op = req->op;
    uint64_t block = req->block;
    bool cpu = op == CGM_OP_FLUSH_CPU;
    if (!cpu && !s->cfg.gpu.cus) {
        finish(s, c, op, block, req->tag, 0, 2); /* no GPU: nothing to flush */
        return 1;
    }
    uint8_t kind = cpu ? KIND_FLUSH_CPU : KIND_FLUSH_GPU;
    if (cgm_mshr_find(&c->mshr, block, kind))
        return -1;
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&c->mshr, block, kind);
    if (!e)
        return -1;
    cgm_mshr_push(e, s->cfg.coalesce, &(struct cgm_mshr_waiter){ .tag = req->tag, .op = op, .flags = req->flags });
    c->st.flushes++;
    flush_send(s, c, cpu, block);
    return 0;
}

static void flush_done(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    bool cpu = s->nodes[m->src].kind == CGM_NODE_SLICE;
    struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, m->block, cpu ? KIND_FLUSH_CPU : KIND_FLUSH_GPU);
    if (!e)
        protocol_error(s, c, "a flush acknowledgement nobody waits for", m);
    struct cgm_mshr_waiter w = e->w[0];
    cgm_mshr_release(&c->mshr, e);
    finish(s, c, w.op, m->block, w.tag, 0, 2);
}

int core_access(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_req *req)
{
    uint8_t op = req->op;
    uint64_t block = req->block;
    if (op == CGM_OP_FETCH)
        return fetch(s, c, req);
    if (op == CGM_OP_FLUSH_CPU || op == CGM_OP_FLUSH_GPU)
        return flush(s, c, req);
    bool st = op == CGM_OP_STORE;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1d, block);
    struct core_wb *w = l ? NULL : l1wb_find(c, block);
    enum l1_sub sub = l1_classify(l, w, w && !w->sent);
    struct cgm_mshr_entry *e;
    int r;
    switch (sub) {
    case L1_M:
    case L1_E:
        if (st && l->state == MESI_E) {
            /* Exclusive in the core: the L2 copy becomes modified too. */
            struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, block);
            if (l2)
                l2->state = MESI_M;
        }
        if (!c->replaying)
            c->st.hits++;
        perform(s, c, l, req, 1);
        r = 1;
        break;
    case L1_S:
        if (st) {
            r = l2_access(s, c, req, NULL, true);
            break;
        }
        if (!c->replaying)
            c->st.hits++;
        perform(s, c, l, req, 1);
        r = 1;
        break;
    case L1_S_PENDING_UPGRADE:
        e = cgm_mshr_find(&c->mshr, block, KIND_DATA);
        if (!e || !coalesce(c, s, e, req))
            return -1;
        if (!c->replaying)
            c->st.l1d_secondary_misses++;
        r = 0;
        break;
    case L1_I_WB_WRITABLE:
        r = l1_merge_back(s, c, w, req);
        break;
    case L1_I_WB_NON_WRITABLE:
        /* Wait until the write-back has reached the L2. */
        e = cgm_mshr_find(&c->mshr, block, KIND_L1WBWAIT);
        if (!e && !(e = cgm_mshr_alloc(&c->mshr, block, KIND_L1WBWAIT)))
            return -1;
        if (!coalesce(c, s, e, req)) {
            if (!e->n)
                cgm_mshr_release(&c->mshr, e);
            return -1;
        }
        r = 0;
        break;
    default: {
        /* A data-cache miss: a way for the block first (written victims
         * need room in the write-back queue), then the L2. */
        struct cgm_cache_line *v = cgm_cache_victim(&c->l1d, block, stable, NULL);
        if (!v || (v->state && v->dirty && !wbq_free(&c->l1wb)))
            return -1;
        r = l2_access(s, c, req, v, false);
        if (r >= 0 && !c->replaying)
            c->st.misses++;
        break;
    }
    }
    if (r >= 0)
        coh_row(s, l1d_rows[sub][st]);
    return r;
}

/* ---- messages from the directory and other cores -------------------------- */

static void protocol_error(struct cgm_coh_sys *s, struct core *c, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "mesi: core %d: %s (%s for block %llu)\n", c->id, what, cgm_coh_msg_names[m->type],
            (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

static void forward(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m);

static void fill(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, m->block, KIND_DATA);
    struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, m->block);
    if (!e || !l2 || (l2->state != MESI_IS && l2->state != MESI_IM && l2->state != MESI_SM))
        protocol_error(s, c, "a block it is not waiting for", m);
    if (m->type == COH_UPGRADE_ACK) {
        /* The copy stays as written as it was (a written shared copy, MOESI's O, upgrades written) */
        if (l2->state != MESI_SM)
            protocol_error(s, c, "an upgrade acknowledged without a shared copy", m);
        l2->state = MESI_M;
    } else {
        l2->state = m->type == COH_PUTS ? MESI_S : m->type == COH_PUTCLNX ? MESI_E : MESI_M;
        l2->data = m->data;
        l2->dirty = false;
    }
    /* A data-cache copy waiting on an upgrade is refilled by the replays. */
    struct cgm_cache_line *l1 = cgm_cache_find(&c->l1d, m->block);
    if (l1 && l1->state == MESI_SM)
        l1->state = MESI_I;
    if (m->src != dir_node(s, m->block)) /* forwarded by its holder */
        to_dir(s, c, COH_UNBLOCK, m->block, m->instr);
    uint8_t joined = coh_meta(&c->l2, l2)->pending;
    struct cgm_coh_msg fwd = { .type = joined == JOIN_GETX_FWD ? COH_GETX_FWD : COH_GET_FWD,
                               .src = dir_node(s, m->block), .dst = c->id, .block = m->block,
                               .requester = coh_meta(&c->l2, l2)->requester, .instr = coh_meta(&c->l2, l2)->instr };
    coh_meta(&c->l2, l2)->pending = JOIN_NONE;
    replay(s, c, e);
    if (joined)
        forward(s, c, &fwd);
}

/* Resends a NACKed request. An upgrade is resent as an upgrade even if an
 * invalidation took the shared copy meanwhile (the directory then forwards
 * or sends the block); only when the slice has lost the block does it
 * become a GetX (the L2 no longer has the block the upgrade was for). */
static void retry(struct cgm_coh_sys *s, struct core *c, uint64_t block, bool upgrade)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, block, KIND_DATA);
    struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, block);
    if (!e || !l2)
        return;
    c->st.retries++;
    uint8_t t;
    if (l2->state == MESI_IS) {
        t = coh_meta(&c->l2, l2)->req == COH_GETS ? COH_GETS : COH_GET;
    } else if (l2->state == MESI_SM || (l2->state == MESI_IM && upgrade && coh_meta(&c->l2, l2)->req == COH_UPGRADE)) {
        t = COH_UPGRADE;
    } else {
        if (coh_meta(&c->l2, l2)->req == COH_UPGRADE)
            coh_row(s, R33_I_UPG);
        coh_meta(&c->l2, l2)->req = COH_GETX;
        t = COH_GETX;
    }
    to_dir(s, c, t, block, t == COH_GETS);
}

/* Inval (another core writes a shared block) or Flush (the directory
 * evicts the block): give up every copy, with the newest data if written. */
static void invalidate(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    struct cgm_coh_msg ack = { .type = COH_INV_ACK, .src = c->id, .dst = m->src, .block = m->block };
    struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, m->block);
    if (l2) {
        if (stable(l2, NULL) || l2->state == MESI_SM)
            mesi_core_pull_l1(s, c, l2);
        if (l2->state == MESI_S) {
            l2->state = MESI_I;
        } else if (l2->state == MESI_SM) {
            l2->state = MESI_IM; /* the upgrade will be NACKed or answered with data */
        } else if (l2->state == MESI_E || l2->state == MESI_M) {
            ack.dirty = l2->dirty; /* with its data; the slice's copy is current otherwise */
            ack.data = l2->data;
            l2->state = MESI_I;
            l2->dirty = false;
        }
        mesi_core_drop_l1(c, m->block);
    }
    struct core_wb *wb = l2wb_find(c, m->block);
    if (wb && !wb->sent && m->type == COH_FLUSH) {
        ack.dirty = wb->dirty;
        ack.data = wb->data;
        wbq_release(&c->wb, wb);
    }
    coh_send(s, ack);
}

static void forward(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    bool x = m->type == COH_GETX_FWD;
    struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, m->block);
    if (l2 && (l2->state == MESI_IS || l2->state == MESI_IM) &&
        (coh_meta(&c->l2, l2)->req == COH_GET || coh_meta(&c->l2, l2)->req == COH_GETX) && !coh_meta(&c->l2, l2)->pending) {
        /* This core dropped the block and has asked for it again: the
         * directory serves that request (a *_Pending_Owned row) and keeps
         * this forward pending. Join it once the block is back and the
         * waiting requests are done. */
        coh_meta(&c->l2, l2)->pending = m->type == COH_GETX_FWD ? JOIN_GETX_FWD : JOIN_GET_FWD;
        coh_meta(&c->l2, l2)->requester = m->requester;
        coh_meta(&c->l2, l2)->instr = m->instr;
        return;
    }
    if (l2 && (l2->state == MESI_E || l2->state == MESI_M)) {
        mesi_core_pull_l1(s, c, l2);
        struct cgm_coh_msg data = { .type = x ? COH_PUTX : COH_PUTS, .src = c->id,
                                    .dst = m->requester, .block = m->block, .data = l2->data,
                                    .instr = m->instr };
        struct cgm_coh_msg ack = { .type = COH_FWD_ACK, .src = c->id, .dst = m->src,
                                   .block = m->block, .data = l2->data,
                                   .dirty = l2->dirty }; /* data only as a sharing write-back */
        coh_send(s, data);
        coh_send(s, ack);
        l2->dirty = false;
        if (x) {
            l2->state = MESI_I;
            mesi_core_drop_l1(c, m->block);
        } else {
            l2->state = MESI_S;
            struct cgm_cache_line *l1 = cgm_cache_find(&c->l1d, m->block);
            if (l1)
                l1->state = MESI_S;
        }
        return;
    }
    struct core_wb *wb = l2wb_find(c, m->block);
    if (wb && !wb->sent) {
        /* The block waits in the write-back queue: send it now, ahead of
         * the NACK, so the directory has the data when the NACK arrives
         * (a pending data-cache flush is cut short: its data is here). */
        struct cgm_coh_msg w = wb_msg(c, wb, m->src);
        coh_send(s, w);
        wb->sent = true;
        wb->flushing = false;
    }
    struct cgm_coh_msg nack = { .type = COH_FWD_NACK, .src = c->id, .dst = m->src, .block = m->block };
    coh_send(s, nack);
}

void core_deliver(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    switch (m->type) {
    case COH_PUTS:
    case COH_PUTCLNX:
    case COH_PUTX:
    case COH_UPGRADE_ACK:
        fill(s, c, m);
        break;
    case COH_NACK:
        c->st.nacks_received++;
        if (m->req == COH_FLUSH)
            s->env.later(s->env.ctx, c->id, m->block,
                         s->nodes[m->src].kind == CGM_NODE_SLICE ? COH_WAKE_RETRY_CPU_FLUSH
                                                                 : COH_WAKE_RETRY_GPU_FLUSH);
        else
            s->env.later(s->env.ctx, c->id, m->block,
                         m->req == COH_UPGRADE && !m->absent ? COH_WAKE_RETRY_UPGRADE : COH_WAKE_RETRY);
        break;
    case COH_INVAL:
    case COH_FLUSH:
        invalidate(s, c, m);
        break;
    case COH_GET_FWD:
    case COH_GETX_FWD:
        forward(s, c, m);
        break;
    case COH_WB_ACK: {
        if (m->req == COH_FLUSH) {
            flush_done(s, c, m);
            break;
        }
        struct core_wb *wb = l2wb_find(c, m->block);
        if (wb && wb->sent)
            wbq_release(&c->wb, wb);
        struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, m->block, KIND_WBWAIT);
        if (e)
            replay(s, c, e);
        break;
    }
    default:
        protocol_error(s, c, "a message a core cannot take", m);
    }
}

void core_wake(struct cgm_coh_sys *s, struct core *c, uint64_t block, int what)
{
    if (what == COH_WAKE_RETRY || what == COH_WAKE_RETRY_UPGRADE) {
        retry(s, c, block, what == COH_WAKE_RETRY_UPGRADE);
    } else if (what == COH_WAKE_WB_DRAIN || what == COH_WAKE_L1_FLUSHED) {
        /* The victim leaves; after the data cache's flush acknowledgement
         * if it waited for one. */
        struct core_wb *wb = l2wb_find(c, block);
        if (wb && what == COH_WAKE_L1_FLUSHED)
            wb->flushing = false;
        if (wb && !wb->sent && !wb->flushing) {
            struct cgm_coh_msg w = wb_msg(c, wb, dir_node(s, block));
            coh_send(s, w);
            wb->sent = true;
        }
    } else if (what == COH_WAKE_L1WB_DRAIN) {
        struct core_wb *w = l1wb_find(c, block);
        if (w && !w->sent) {
            w->sent = true;
            s->env.later(s->env.ctx, c->id, block, COH_WAKE_L1WB_DONE);
        }
    } else if (what == COH_WAKE_L1WB_DONE) {
        /* The data cache's write-back reaches the L2 (which still holds the
         * block: had it given it up, it would have taken this entry). */
        struct core_wb *w = l1wb_find(c, block);
        if (!w || !w->sent)
            return;
        struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, block);
        if (!l2 || (l2->state != MESI_E && l2->state != MESI_M)) {
            struct cgm_coh_msg m = { .type = COH_WB, .src = c->id, .dst = c->id, .block = block };
            protocol_error(s, c, "a data-cache write-back the L2 cannot take", &m);
        }
        l2->data = w->data;
        l2->dirty = true;
        l2->state = MESI_M;
        wbq_release(&c->l1wb, w);
        struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, block, KIND_L1WBWAIT);
        if (e)
            replay(s, c, e);
    } else if (what == COH_WAKE_STALLED) {
        coh_replay_stalled(s, access_fn, c, &c->stall, c->id, &c->replaying);
    } else if (what == COH_WAKE_RETRY_CPU_FLUSH || what == COH_WAKE_RETRY_GPU_FLUSH) {
        if (cgm_mshr_find(&c->mshr, block, what == COH_WAKE_RETRY_CPU_FLUSH ? KIND_FLUSH_CPU : KIND_FLUSH_GPU))
            flush_send(s, c, what == COH_WAKE_RETRY_CPU_FLUSH, block);
    }
}
