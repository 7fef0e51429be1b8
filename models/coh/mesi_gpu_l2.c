/* A GPU L2 bank (Table 3.7): a directory over the compute units' vector
 * L1s for the blocks striped to it, and a client of its parent, which is
 * memory (the GPU's LLC is private), the L3 serving it untracked (shared
 * LLC, no CPU-GPU coherence) or the L3 directory tracking the GPU as one
 * more holder (shared LLC, coherent: seed 000's "GPU as an Nth core").
 *
 * A line's state is the bank's permission at its parent (S, E, M; IS and
 * IM while its own request is in flight); its holders are the CUs (the
 * owner holds it E or M, the sharers S). Table 3.7's S_Clean is a block
 * shared among CUs that the bank holds shared at its parent, its
 * S_Dirty_In_Node one the bank holds exclusively (after a downgrade), so a
 * store to it needs no parent traffic.
 *
 * A request is classified into its substate once (classify) and the row is
 * Table 3.7's for it (l2_rows); the dispatch in request counts it where it
 * was performed. One deliberate reading: for a load to a block another CU
 * holds E or M (M_Held, E_Held) the table says Core_Flush -> PutX, its
 * prose and the seed's code downgrade the holder and reply PutS; this bank
 * downgrades (a GetFwd naming the bank as requester), as the prose and the
 * code do. A store there takes the block from its holder (GetXFwd) and
 * replies PutX, as the table does.
 *
 * Requests to a line waiting for its parent coalesce in the MSHR; a line
 * busy taking the block back from CUs NACKs them (*_Pending), except the
 * holder's own (*_Pending_Owned: served, and the holder's L1 joins the
 * recall). Victims leave through a write-back queue after the CUs' copies
 * are flushed (the bank is inclusive of the L1s); under the serialized
 * victim policy the miss's fetch waits for that, and a miss its FRC takes
 * chooses its victim only when the block arrives (frc_place; both are
 * gpu_l2_below.c's). The parent's forwards,
 * invalidations and flushes take the CUs' copies back first; one that
 * finds the line busy waits (deferred) until the line settles. */
#include "gpu_l2_below.h"
#include "mesi_internal.h"

#include <string.h>

enum { COL_LOAD, COL_STORE };
#define R ROW_NONE
static const uint8_t l2_rows[DIR_NSUBS][2] = {
    [DIR_M] = { R37_M_LOAD, R37_M_STORE },
    [DIR_M_OWNED] = { R37_M_OWNED_LOAD, R37_M_OWNED_STORE },
    [DIR_M_PENDING_OWNED] = { R37_M_PENDOWN_LOAD, R37_M_PENDOWN_STORE },
    [DIR_M_PENDING] = { R37_M_PENDING_LOAD, R37_M_PENDING_STORE },
    [DIR_M_HELD] = { R37_M_HELD_LOAD, R37_M_HELD_STORE },
    [DIR_E] = { R37_E_LOAD, R37_E_STORE },
    [DIR_E_OWNED] = { R37_E_OWNED_LOAD, R37_E_OWNED_STORE },
    [DIR_E_PENDING_OWNED] = { R37_E_PENDOWN_LOAD, R37_E_PENDOWN_STORE },
    [DIR_E_PENDING] = { R37_E_PENDING_LOAD, R37_E_PENDING_STORE },
    [DIR_E_HELD] = { R37_E_HELD_LOAD, R37_E_HELD_STORE },
    [DIR_S] = { R37_S_CLEAN_LOAD, R37_S_CLEAN_STORE },
    [DIR_S_DIRTY_IN_NODE] = { R37_S_DIRTY_LOAD, R37_S_DIRTY_STORE },
    [DIR_S_PENDING_OWNED] = { R37_S_PENDOWN_LOAD, R37_S_PENDOWN_STORE },
    [DIR_S_PENDING] = { R37_S_PENDING_LOAD, R37_S_PENDING_STORE },
    [DIR_I] = { R37_I_LOAD, R37_I_STORE },
    [DIR_I_WB_FLUSH_CONFLICT] = { R37_WBFC_LOAD, R37_WBFC_STORE },
    [DIR_I_WB_NON_WRITABLE] = { R37_WBNW_LOAD, R37_WBNW_STORE },
    [DIR_I_WB_WRITABLE] = { R37_WBW_LOAD, R37_WBW_STORE },
    [DIR_I_WB_DIR_CONFLICT] = { R37_WBDC_LOAD, R37_WBDC_STORE },
};
#undef R

/* ---- sending ------------------------------------------------------------ */

static void to_cu(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, struct cgm_coh_msg m)
{
    m.src = b->node;
    m.dst = s->gpu_l1[cu].node;
    coh_send(s, m);
}

static void reply_cu(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, uint8_t type, const struct cgm_cache_line *l)
{
    to_cu(s, b, cu, (struct cgm_coh_msg){ .type = type, .block = l->block, .data = l->data });
}

static void nack_cu(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, uint8_t req, uint64_t block)
{
    b->st.nacks_sent++;
    to_cu(s, b, cu, (struct cgm_coh_msg){ .type = COH_NACK, .block = block, .req = req });
}

/* To the node that sent a request from outside the GPU (a core's flush), or
 * to the parent; the parent side is gpu_l2_below.c's. */
static void to_node(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, struct cgm_coh_msg m)
{
    gpu_l2_to_node(s, b, node, m);
}

/* ---- holders -------------------------------------------------------------- */

static bool settled(const struct cgm_cache_line *l)
{
    return l->state == MESI_S || l->state == MESI_E || l->state == MESI_M;
}

static bool may_go(const struct cgm_cache_line *l, void *ctx)
{
    return settled(l) && !coh_meta(ctx, l)->pending;
}

static void clear_line(struct gpu_l2 *b, struct cgm_cache_line *v) { coh_line_clear(&b->a, v); }

/* The owner joins the holder set (to be flushed or invalidated with the
 * sharers); returns the number of holders. */
static unsigned gather_holders(struct gpu_l2 *b, struct cgm_cache_line *l)
{
    if (coh_meta(&b->a, l)->owner >= 0)
        coh_holders_add(&b->a, l, (unsigned)coh_meta(&b->a, l)->owner);
    coh_meta(&b->a, l)->owner = -1;
    return coh_holders_count(&b->a, l);
}

/* Sends type to every holder; returns how many. */
static unsigned to_holders(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, uint8_t type)
{
    unsigned n = 0;
    for (int h = coh_holders_next(&b->a, l, 0); h >= 0; h = coh_holders_next(&b->a, l, (unsigned)h + 1), n++)
        to_cu(s, b, h, (struct cgm_coh_msg){ .type = type, .block = l->block });
    return n;
}

static struct dir_wb *wb_find(struct gpu_l2 *b, uint64_t block)
{
    return dwbq_find(&b->wb, block);
}

static void defer(struct gpu_l2 *b, const struct cgm_coh_msg *m) { gpu_l2_defer(b, m); }

static void parent_msg(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m);

/* The line (or write-back entry) of block has settled: the parent's
 * messages that waited for it run. */
static void run_deferred(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block)
{
    struct cgm_coh_msg m;
    if (gpu_l2_undefer(b, block, &m))
        parent_msg(s, b, &m);
}

/* ---- the write-back queue ---------------------------------------------------- */

static void gpu_flush(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, uint64_t block);
static void request(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, uint8_t type, uint64_t block);

static void rerun(struct cgm_coh_sys *s, void *dir, const struct joined *j, uint64_t block)
{
    if (j->type == COH_FLUSH)
        gpu_flush(s, dir, j->src, block);
    else
        request(s, dir, j->src, j->type, block);
}

/* A victim has left: the requests that joined it run again. */
static void wb_free(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb)
{
    gpu_l2_victim_gone(s, b, wb);
    dwb_release(&b->wb, wb, rerun, s, b);
}

static void wb_send(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb) { gpu_l2_wb_send(s, b, wb); }

/* The CUs gave the victim back: it leaves if written (or the parent must
 * hear of it), else it is gone. */
static void wb_flushed(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb)
{
    bool miss_waits = gpu_l2_victim_flushed(s, b, wb);
    if ((wb->dirty || wb->notify) && (wb->njoin || miss_waits)) {
        wb_send(s, b, wb); /* a core's flush or a miss waits on it: no merging back, out now */
    } else if (wb->dirty || wb->notify) {
        wb->state = DWB_WRITABLE;
        s->env.later(s->env.ctx, b->node, wb->block, COH_WAKE_WB_DRAIN);
    } else {
        wb_free(s, b, wb);
    }
    run_deferred(s, b, wb->block);
}

/* Frees way v. Inclusion first: the CUs' copies are flushed. It goes to
 * the write-back queue (slot, or a free entry) if it has holders, written
 * data, or (the L3 tracks the GPU) is exclusive, which the L3 must hear of
 * (an unwritten one only if there is room: else it leaves silently and a
 * forward for it finds nothing). false if the queue is full. */
static bool evict(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *v, struct dir_wb *slot)
{
    if (!v->state)
        return true;
    bool notify = s->gpu_parent == GPU_PARENT_L3 && (v->state == MESI_E || v->state == MESI_M);
    bool held = coh_meta(&b->a, v)->owner >= 0 || !coh_holders_empty(&b->a, v);
    if (held || v->dirty || notify) {
        if (!slot)
            slot = dwbq_free(&b->wb);
        if (!slot && (held || v->dirty))
            return false;
    } else {
        slot = NULL;
    }
    if (slot) {
        dwbq_take(&b->wb, slot, v->block, held ? DWB_FLUSHING : DWB_WRITABLE);
        slot->data = v->data;
        slot->dirty = v->dirty;
        slot->notify = notify;
        slot->njoin = 0;
        if (held) {
            gather_holders(b, v);
            slot->acks = to_holders(s, b, v, COH_FLUSH);
            b->st.back_invalidations++;
        } else {
            s->env.later(s->env.ctx, b->node, v->block, COH_WAKE_WB_DRAIN);
        }
    }
    b->st.evictions++;
    clear_line(b, v);
    return true;
}

/* ---- requests from the CUs -------------------------------------------------- */

static bool has_room(const struct gpu_l2 *b)
{
    return b->mshr.used < b->mshr.entries && dwbq_free(&b->wb);
}

bool gpu_l2_refusal_counted(const struct gpu_l2 *b)
{
    return b->full && !has_room(b);
}

/* A CU's request finds an MSHR entry and a write-back entry free
 * (cgm_coh_gpu_bank_admits). */
bool gpu_l2_admits(struct cgm_coh_sys *s, struct gpu_l2 *b)
{
    (void)s;
    bool admits = has_room(b);
    if (!admits && !b->full)
        b->st.full_stalls++;
    b->full = !admits;
    return admits;
}

/* Set_Core_Holder, then PutX for a store or a modified block, PutClnX for
 * a load of a clean one. */
static void grant_exclusive(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, int cu, bool store)
{
    coh_meta(&b->a, l)->owner = cu;
    coh_holders_clear(&b->a, l);
    if (store)
        l->state = MESI_M;
    reply_cu(s, b, cu, store || l->state == MESI_M ? COH_PUTX : COH_PUTCLNX, l);
}

static void grant_shared(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, int cu)
{
    coh_holders_add(&b->a, l, (unsigned)cu);
    reply_cu(s, b, cu, COH_PUTS, l);
}

/* The block is held E/M by another CU: take it back (GetFwd, the
 * downgrade, for a load; GetXFwd for a store), naming the bank as the
 * requester; the reply waits for the holder's answer. */
static void recall(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, int cu, uint8_t type)
{
    coh_meta(&b->a, l)->pending = L2P_RECALL;
    coh_meta(&b->a, l)->requester = cu;
    coh_meta(&b->a, l)->req = type;
    coh_meta(&b->a, l)->acks = 1;
    to_cu(s, b, coh_meta(&b->a, l)->owner, (struct cgm_coh_msg){ .type = type == COH_GET ? COH_GET_FWD : COH_GETX_FWD,
                                                .block = l->block, .requester = b->node });
    b->st.recalls++;
}

/* Inval to every holder but cu; the line waits for their acks (they stay
 * in the holder set until they answer). Returns how many. */
static unsigned inval_others(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, int cu)
{
    coh_holders_del(&b->a, l, (unsigned)cu);
    unsigned n = to_holders(s, b, l, COH_INVAL);
    b->st.invalidations += n;
    return n;
}

/* The bank asks its parent (the MSHR entry e holds the requests); had_victim:
 * the way's block victim_block was just evicted (gpu_l2_fetch). */
static void start_miss(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, bool exclusive,
                       bool had_victim, uint64_t victim_block)
{
    l->state = exclusive ? MESI_IM : MESI_IS;
    coh_meta(&b->a, l)->owner = -1;
    coh_holders_clear(&b->a, l);
    coh_meta(&b->a, l)->pending = L2P_NONE;
    b->st.parent_requests++;
    gpu_l2_fetch(s, b, l->block, exclusive, had_victim, victim_block);
}

/* S_Clean store: the bank holds the block shared at its parent. The CUs'
 * copies go, then GetX to the parent. false (after a NACK) if the MSHR is
 * full. */
static bool clean_shared_store(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, int cu)
{
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&b->mshr, l->block, 0);
    if (!e) {
        b->st.mshr_nacks++;
        nack_cu(s, b, cu, COH_GETX, l->block);
        return false;
    }
    cgm_mshr_push(e, s->cfg.gpu.l2_coalesce, &(struct cgm_mshr_waiter){ .tag = (uint64_t)cu, .op = COH_GETX });
    unsigned n = inval_others(s, b, l, cu);
    if (n) {
        coh_meta(&b->a, l)->pending = L2P_INVAL_THEN_MISS;
        coh_meta(&b->a, l)->requester = cu;
        coh_meta(&b->a, l)->acks = (uint16_t)n;
    } else {
        start_miss(s, b, l, true, false, 0);
    }
    return true;
}

/* S_Dirty_In_Node store: M here, the requester the holder, PutX once the
 * other CUs' copies are gone. */
static void dirty_shared_store(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, int cu)
{
    unsigned n = inval_others(s, b, l, cu);
    if (n) {
        coh_meta(&b->a, l)->pending = L2P_INVAL;
        coh_meta(&b->a, l)->requester = cu;
        coh_meta(&b->a, l)->acks = (uint16_t)n;
        return;
    }
    grant_exclusive(s, b, l, cu, true);
}

/* I: an MSHR entry, a victim, then the parent. false (after a NACK) if
 * the MSHR is full or no way may be given up. */
static bool miss(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, uint8_t type, uint64_t block)
{
    if (b->mshr.used >= b->mshr.entries) {
        b->st.mshr_nacks++;
        nack_cu(s, b, cu, type, block);
        return false;
    }
    if (gpu_l2_frc_miss(s, b, block, type == COH_GETX)) {
        /* the FRC fetches it; the way is chosen when it arrives (frc_place) */
        struct cgm_mshr_entry *e = cgm_mshr_alloc(&b->mshr, block, 0);
        cgm_mshr_push(e, s->cfg.gpu.l2_coalesce, &(struct cgm_mshr_waiter){ .tag = (uint64_t)cu, .op = type });
        return true;
    }
    struct cgm_cache_line *v = cgm_cache_victim(&b->a.a, block, may_go, &b->a);
    bool had = v && v->state;
    uint64_t vblock = v ? v->block : 0;
    if (!v || !evict(s, b, v, NULL)) {
        nack_cu(s, b, cu, type, block);
        return false;
    }
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&b->mshr, block, 0);
    cgm_mshr_push(e, s->cfg.gpu.l2_coalesce, &(struct cgm_mshr_waiter){ .tag = (uint64_t)cu, .op = type });
    cgm_cache_insert(&b->a.a, v, block, CGM_HINT_NORMAL);
    v->dirty = false;
    start_miss(s, b, v, type == COH_GETX, had, vblock);
    return true;
}

/* I_WB_Writable: the victim merges back into way v (which may go without
 * a flush), and the request is a hit. */
static void merge_back(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb, struct cgm_cache_line *v, int cu,
                       bool store)
{
    uint64_t block = wb->block, data = wb->data;
    bool dirty = wb->dirty;
    gpu_l2_frc_victim_hit(b, wb);
    gpu_l2_frc_victim_left(b, wb);
    dwbq_release(&b->wb, wb); /* nothing joins a writable entry */
    evict(s, b, v, wb);
    b->st.wb_hits++;
    cgm_cache_insert(&b->a.a, v, block, CGM_HINT_NORMAL);
    v->data = data;
    v->dirty = dirty;
    v->state = dirty ? MESI_M : MESI_E;
    coh_meta(&b->a, v)->owner = -1;
    coh_holders_clear(&b->a, v);
    grant_exclusive(s, b, v, cu, store);
}

static enum dir_sub classify(struct gpu_l2 *b, const struct cgm_cache_line *l, int cu, uint64_t block,
                             struct dir_wb **wbp, struct cgm_cache_line **victim)
{
    if (l) {
        bool m = l->state == MESI_M;
        if (coh_meta(&b->a, l)->pending) {
            if (coh_meta(&b->a, l)->owner >= 0) {
                bool owned = (coh_meta(&b->a, l)->pending == L2P_RECALL || coh_meta(&b->a, l)->pending == L2P_PARENT_RECALL) && coh_meta(&b->a, l)->owner == cu;
                return dir_pending_sub(m ? MESI_M : MESI_E, owned);
            }
            return dir_pending_sub(MESI_S, coh_holders_has(&b->a, l, (unsigned)cu));
        }
        if (coh_meta(&b->a, l)->owner >= 0)
            return dir_held_sub(m, coh_meta(&b->a, l)->owner == cu, coh_meta(&b->a, l)->owner != cu);
        if (l->state == MESI_S)
            return DIR_S;
        if (!coh_holders_empty(&b->a, l))
            return DIR_S_DIRTY_IN_NODE;
        return m ? DIR_M : DIR_E;
    }
    struct dir_wb *wb = *wbp = wb_find(b, block);
    return dir_absent_sub(&b->a, wb, block, victim);
}

static void request(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, uint8_t type, uint64_t block)
{
    bool st = type == COH_GETX;
    struct cgm_mshr_entry *e = cgm_mshr_find(&b->mshr, block, 0);
    if (e) {
        /* The bank's own request for the block is in flight: coalesce. */
        if (!cgm_mshr_push(e, s->cfg.gpu.l2_coalesce,
                           &(struct cgm_mshr_waiter){ .tag = (uint64_t)cu, .op = type })) {
            nack_cu(s, b, cu, type, block);
            return;
        }
        b->st.coalesced++;
        return;
    }
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block), *victim = NULL;
    struct dir_wb *wb = NULL;
    enum dir_sub sub = classify(b, l, cu, block, &wb, &victim);
    bool performed = true;
    if (!l)
        b->st.misses++;
    else if (!coh_meta(&b->a, l)->pending) {
        cgm_cache_touch(&b->a.a, l);
        b->st.hits++;
    }
    switch (sub) {
    case DIR_M:
    case DIR_E:
    case DIR_M_OWNED:
    case DIR_E_OWNED:
        grant_exclusive(s, b, l, cu, st);
        break;
    case DIR_M_PENDING_OWNED:
    case DIR_E_PENDING_OWNED:
        /* The holder gave its copy up (silently, or its write-back came
         * first) and asks again while the recall to it is on its way:
         * serve it from the bank's copy and keep the recall, which its L1
         * joins once its requests are done. */
        b->st.hits++;
        b->st.joins++;
        reply_cu(s, b, cu, st || l->state == MESI_M ? COH_PUTX : COH_PUTCLNX, l);
        break;
    case DIR_M_HELD:
    case DIR_E_HELD:
        recall(s, b, l, cu, type);
        break;
    case DIR_S:
        if (st)
            performed = clean_shared_store(s, b, l, cu);
        else
            grant_shared(s, b, l, cu);
        break;
    case DIR_S_DIRTY_IN_NODE:
        if (st)
            dirty_shared_store(s, b, l, cu);
        else
            grant_shared(s, b, l, cu);
        break;
    case DIR_I:
        performed = miss(s, b, cu, type, block);
        break;
    case DIR_I_WB_NON_WRITABLE:
        wb->join[wb->njoin++] = (struct joined){ .src = cu, .type = type };
        b->st.joins++;
        gpu_l2_frc_victim_hit(b, wb);
        break;
    case DIR_I_WB_DIR_CONFLICT:
        /* No way may take the block back without a flush: send the
         * write-back now and NACK (the request finds it at the parent). */
        wb_send(s, b, wb);
        nack_cu(s, b, cu, type, block);
        break;
    case DIR_I_WB_WRITABLE:
        merge_back(s, b, wb, victim, cu, st);
        break;
    default: /* *_Pending, I_WB_Flush_Conflict */
        nack_cu(s, b, cu, type, block);
        break;
    }
    if (performed)
        coh_row(s, l2_rows[sub][st ? COL_STORE : COL_LOAD]);
}

/* ---- answers from the CUs ---------------------------------------------------- */

static void protocol_error(struct cgm_coh_sys *s, struct gpu_l2 *b, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "mesi: GPU L2 bank %d: %s (%s from %d, block %llu)\n", b->id, what, cgm_coh_msg_names[m->type],
            m->src, (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

/* Written data comes back from a CU. */
static void take_data(struct cgm_cache_line *l, const struct cgm_coh_msg *m)
{
    if (!m->dirty)
        return;
    l->data = m->data;
    l->dirty = true;
    if (l->state == MESI_E)
        l->state = MESI_M;
}

static void answer_parent(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l);

/* The holders answered a recall or invalidation: the operation the line
 * waited for completes. */
static void settle(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l)
{
    uint8_t pending = coh_meta(&b->a, l)->pending;
    coh_meta(&b->a, l)->pending = L2P_NONE;
    int cu = coh_meta(&b->a, l)->requester;
    switch (pending) {
    case L2P_RECALL:
        if (coh_meta(&b->a, l)->req == COH_GET) {
            /* Downgraded: the holder (if it kept its copy) and the
             * requester share the block, dirty in the node if written. */
            grant_shared(s, b, l, cu);
        } else {
            coh_meta(&b->a, l)->owner = -1;
            grant_exclusive(s, b, l, cu, true);
        }
        break;
    case L2P_INVAL:
        grant_exclusive(s, b, l, cu, true);
        break;
    case L2P_INVAL_THEN_MISS:
        start_miss(s, b, l, true, false, 0);
        break;
    default:
        answer_parent(s, b, l);
        return;
    }
    run_deferred(s, b, l->block);
}

static void cu_ack(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, m->block);
    if (l && coh_meta(&b->a, l)->pending) {
        take_data(l, m);
        if (coh_meta(&b->a, l)->pending == L2P_RECALL || coh_meta(&b->a, l)->pending == L2P_PARENT_RECALL) {
            if (m->type == COH_INV_ACK || cu != coh_meta(&b->a, l)->owner)
                protocol_error(s, b, "an answer to a recall from a CU that is not the holder", m);
            /* A downgraded holder keeps a shared copy. */
            bool kept = m->type == COH_FWD_ACK && coh_meta(&b->a, l)->req == (coh_meta(&b->a, l)->pending == L2P_RECALL ? COH_GET : COH_GET_FWD);
            coh_meta(&b->a, l)->owner = -1;
            coh_holders_clear(&b->a, l);
            if (kept)
                coh_holders_add(&b->a, l, (unsigned)cu);
        } else {
            if (!coh_holders_has(&b->a, l, (unsigned)cu))
                protocol_error(s, b, "an invalidation acknowledgement nobody waits for", m);
            coh_holders_del(&b->a, l, (unsigned)cu);
        }
        if (--coh_meta(&b->a, l)->acks == 0)
            settle(s, b, l);
        return;
    }
    struct dir_wb *wb = l ? NULL : wb_find(b, m->block);
    if (!wb || wb->state != DWB_FLUSHING || m->type != COH_INV_ACK)
        protocol_error(s, b, "an acknowledgement nobody waits for", m);
    if (m->dirty) {
        wb->data = m->data;
        wb->dirty = true;
    }
    if (--wb->acks == 0)
        wb_flushed(s, b, wb);
}

/* A written victim from a CU's L1 (it was the holder). */
static void cu_writeback(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, m->block);
    if (l && settled(l) && coh_meta(&b->a, l)->pending == L2P_PARENT_FLUSH && coh_holders_has(&b->a, l, (unsigned)cu)) {
        take_data(l, m); /* the holder being flushed: its ack follows */
        return;
    }
    if (l && settled(l) && coh_meta(&b->a, l)->owner == cu) {
        take_data(l, m);
        /* A holder being recalled stays the recall's target: its answer
         * (a Fwd_Nack now) settles the line. */
        if (coh_meta(&b->a, l)->pending != L2P_RECALL && coh_meta(&b->a, l)->pending != L2P_PARENT_RECALL)
            coh_meta(&b->a, l)->owner = -1;
        return;
    }
    struct dir_wb *wb = l ? NULL : wb_find(b, m->block);
    if (wb && wb->state == DWB_FLUSHING) {
        wb->data = m->data;
        wb->dirty = true;
        return;
    }
    protocol_error(s, b, "a write-back from a CU that is not the holder", m);
}

/* ---- the parent ------------------------------------------------------------------ */

/* The bank's answer to the parent's forward, invalidation or flush, once
 * the CUs have given the block back. */
static void answer_parent(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l)
{
    gpu_l2_answer_parent(s, b, l);
}

static void fill(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, uint8_t state, uint64_t data);

/* The FRC's block takes the way of a victim, evicted as at a miss. */
static struct cgm_cache_line *frc_place(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool *had,
                                        uint64_t *victim)
{
    struct cgm_cache_line *v = cgm_cache_victim(&b->a.a, block, may_go, &b->a);
    if (!v)
        return NULL;
    *had = v->state != 0;
    *victim = v->block;
    if (!evict(s, b, v, NULL))
        return NULL;
    cgm_cache_insert(&b->a.a, v, block, CGM_HINT_NORMAL);
    v->dirty = false;
    v->state = MESI_IS; /* until the fill that follows */
    coh_meta(&b->a, v)->owner = -1;
    coh_holders_clear(&b->a, v);
    coh_meta(&b->a, v)->pending = L2P_NONE;
    return v;
}

/* The bank's part in its lower side's messages (gpu_l2_below.h). */
static const struct gpu_l2_upper upper = { .core_flush = gpu_flush, .parent_msg = parent_msg, .fill = fill,
                                           .wb_free = wb_free, .frc_place = frc_place };

/* A forward, invalidation or flush from the L3 directory, which tracks the
 * GPU as one holder. */
static void parent_msg(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    bool fwd = m->type == COH_GET_FWD || m->type == COH_GETX_FWD;
    int dir = gpu_l2_parent_node(s, m->block);
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, m->block);
    if (!l && gpu_l2_frc_parent_msg(s, b, m))
        return;
    if (l && !settled(l)) {
        /* The bank's own request is in flight. A forward means the
         * directory serves that request and keeps the forward: join it
         * once the block is back (deferred). An invalidation or flush is
         * of a copy the bank no longer has. */
        if (fwd)
            defer(b, m);
        else
            to_node(s, b, dir, (struct cgm_coh_msg){ .type = COH_INV_ACK, .block = m->block });
        return;
    }
    if (l && coh_meta(&b->a, l)->pending) {
        defer(b, m);
        return;
    }
    if (l) {
        coh_meta(&b->a, l)->req = m->type;
        coh_meta(&b->a, l)->requester = m->requester;
        coh_meta(&b->a, l)->instr = m->instr;
        unsigned n = 0;
        if (m->type == COH_GET_FWD || m->type == COH_GETX_FWD) {
            if (coh_meta(&b->a, l)->owner >= 0) {
                /* Take it back from its holder; the holder's L1 may join
                 * this (it is served meanwhile, *_Pending_Owned). */
                to_cu(s, b, coh_meta(&b->a, l)->owner, (struct cgm_coh_msg){ .type = m->type, .block = m->block,
                                                            .requester = b->node });
                coh_meta(&b->a, l)->pending = L2P_PARENT_RECALL;
                n = 1;
                b->st.recalls++;
            } else if (m->type == COH_GETX_FWD) {
                n = to_holders(s, b, l, COH_INVAL);
                coh_meta(&b->a, l)->pending = L2P_PARENT_FLUSH;
                b->st.invalidations += n;
            }
        } else {
            gather_holders(b, l);
            n = to_holders(s, b, l, m->type == COH_FLUSH ? COH_FLUSH : COH_INVAL);
            coh_meta(&b->a, l)->pending = L2P_PARENT_FLUSH;
            b->st.invalidations += n;
        }
        coh_meta(&b->a, l)->acks = (uint16_t)n;
        if (!n) {
            coh_meta(&b->a, l)->pending = L2P_NONE;
            answer_parent(s, b, l);
        }
        return;
    }
    struct dir_wb *wb = wb_find(b, m->block);
    if (wb && wb->state == DWB_FLUSHING) {
        defer(b, m);
        return;
    }
    gpu_l2_parent_msg_absent(s, b, m, wb, &upper);
}

/* The parent's data for the bank's request. */
static void fill(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, uint8_t state, uint64_t data)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&b->mshr, block, 0);
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    if (!e || !l || settled(l)) {
        struct cgm_coh_msg m = { .type = COH_PUTX, .dst = b->node, .block = block };
        protocol_error(s, b, "a block it is not waiting for", &m);
    }
    l->state = state;
    l->data = data;
    l->dirty = false;
    unsigned n = e->n;
    struct cgm_mshr_waiter w[n ? n : 1];
    memcpy(w, e->w, n * sizeof *w);
    cgm_mshr_release(&b->mshr, e);
    for (unsigned i = 0; i < n; i++)
        request(s, b, (int)w[i].tag, w[i].op, block);
    run_deferred(s, b, block);
}

/* A core asks to flush a block from the GPU's caches: the bank evicts it
 * (flushing the CUs' copies, writing it back) and acknowledges once it has
 * left. */
static void gpu_flush(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, uint64_t block)
{
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    struct dir_wb *wb = l ? NULL : wb_find(b, block);
    if (cgm_mshr_find(&b->mshr, block, 0) || (l && (coh_meta(&b->a, l)->pending || !settled(l))) ||
        (wb && wb->njoin == s->gpu_l2_joins) || (l && !evict(s, b, l, NULL))) {
        b->st.nacks_sent++;
        to_node(s, b, node, (struct cgm_coh_msg){ .type = COH_NACK, .block = block, .req = COH_FLUSH });
        return;
    }
    if (l) {
        b->st.flushes++;
        wb = wb_find(b, block);
    }
    if (wb) {
        /* On its way out: hurry it (no merging back), answer once it has
         * left. */
        if (wb->state == DWB_WRITABLE)
            wb_send(s, b, wb);
        wb->join[wb->njoin++] = (struct joined){ .src = node, .type = COH_FLUSH };
        return;
    }
    to_node(s, b, node, (struct cgm_coh_msg){ .type = COH_WB_ACK, .block = block, .req = COH_FLUSH });
}

void gpu_l2_deliver(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    const struct coh_node *from = &s->nodes[m->src];
    if (from->kind == CGM_NODE_GPU_L1) {
        switch (m->type) {
        case COH_GET:
        case COH_GETX:
            b->st.requests++;
            request(s, b, from->index, m->type, m->block);
            return;
        case COH_WB:
            cu_writeback(s, b, from->index, m);
            return;
        case COH_FWD_ACK:
        case COH_FWD_NACK:
        case COH_INV_ACK:
            cu_ack(s, b, from->index, m);
            return;
        default:
            protocol_error(s, b, "a message a bank cannot take from a CU", m);
        }
    }
    gpu_l2_deliver_below(s, b, m, &upper);
}

void gpu_l2_wake(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, int what)
{
    gpu_l2_wake_below(s, b, block, what, &upper);
}
