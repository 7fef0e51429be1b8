/* The GPU's vector L1 (Table 3.6), one per compute unit: write-back and
 * write-allocate over MESI, an MSHR whose entries coalesce the requests to
 * one block, a write-back queue for written victims and a list of
 * requests to run again.
 *
 * The GPU never upgrades: a store to a shared block gives the copy up and
 * asks its L2 bank for the block with GetX, in the same way. Unwritten
 * victims leave silently; written ones travel to the bank as WriteBack, in
 * order with the requests that follow (channels are FIFO), so no
 * acknowledgement is needed. The bank takes a block back with a forward
 * that names the bank itself as the requester (GetFwd: keep it shared,
 * the seed's downgrade; GetXFwd: give it up, its getx_inval), answered by
 * Fwd_Ack with the data riding on it when written, or Fwd_Nack if the copy
 * is gone; a forward that finds the L1's own request for the block in
 * flight joins it and is answered once the block is back and the waiting
 * requests are done (the bank serves that request as a *_Pending_Owned
 * row). Inval and Flush take a copy away (Inv_Ack, with data if written).
 *
 * An access is classified into its Table 3.2 substate (l1_classify, the
 * first-level half the CPU's data cache uses too), here I_WB_Writable when
 * the set has a way that is not waiting for a fill, and dispatched; the
 * row of Table 3.6 is counted where it was performed. */
#include "mesi_internal.h"

#include <stdlib.h>
#include <string.h>

#define R ROW_NONE
static const uint8_t l1v_rows[L1_NSUBS][2] = {
    [L1_M] = { R36_M_LOAD, R36_M_STORE },
    [L1_E] = { R36_E_LOAD, R36_E_STORE },
    [L1_S] = { R36_S_LOAD, R36_S_STORE },
    [L1_S_PENDING_UPGRADE] = { R, R },
    [L1_I] = { R36_I_LOAD, R36_I_STORE },
    [L1_I_WB_WRITABLE] = { R36_WBW_LOAD, R36_WBW_STORE },
    [L1_I_WB_NON_WRITABLE] = { R36_WBN_LOAD, R36_WBN_STORE },
};
#undef R

static void to_bank(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct cgm_coh_msg m)
{
    m.src = l1->node;
    m.dst = coh_gpu_bank_node(s, m.block);
    coh_send(s, m);
}

/* A way that is not waiting for a fill may be given up. */
static bool settled(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return l->state == MESI_S || l->state == MESI_E || l->state == MESI_M;
}

static void finish(struct cgm_coh_sys *s, struct gpu_l1 *l1, uint8_t op, uint64_t block, uint64_t tag,
                   uint64_t value)
{
    s->env.gpu_done(s->env.ctx, l1->id, tag, op, block, value);
}

/* Frees way v: a written block goes to the write-back queue (slot, or a
 * free entry), others leave silently (the bank's copy is current). false
 * if the queue is full. */
static bool evict(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct cgm_cache_line *v, struct core_wb *slot)
{
    if (!v->state)
        return true;
    if (v->dirty) {
        if (!slot)
            slot = wbq_free(&l1->wb);
        if (!slot)
            return false;
        wbq_take(&l1->wb, slot, (struct core_wb){ .block = v->block, .data = v->data, .used = true, .dirty = true });
        l1->st.writebacks++;
        s->env.later(s->env.ctx, l1->node, v->block, COH_WAKE_WB_DRAIN);
    }
    l1->st.evictions++;
    v->state = MESI_I;
    v->dirty = false;
    return true;
}

static void perform(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct cgm_cache_line *l,
                    const struct cgm_coh_req *req)
{
    cgm_cache_touch(&l1->a.a, l);
    if (req->op == CGM_OP_STORE) {
        l->state = MESI_M;
        l->data = req->value;
        l->dirty = true;
    }
    finish(s, l1, req->op, l->block, req->tag, l->data);
}

/* I (or S for a store): an MSHR entry, a way (way, the shared copy the
 * store gives up, or a victim), then Get or GetX to the bank. */
static int miss(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_req *req,
                struct cgm_cache_line *way)
{
    uint64_t block = req->block;
    if (l1->mshr.used >= l1->mshr.entries)
        return -1;
    if (!way) {
        way = cgm_cache_victim(&l1->a.a, block, settled, NULL);
        if (!way || !evict(s, l1, way, NULL))
            return -1;
    }
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&l1->mshr, block, 0);
    struct cgm_mshr_waiter w = coh_waiter_of(req);
    cgm_mshr_push(e, s->cfg.gpu.l1_coalesce, &w);
    bool st = req->op == CGM_OP_STORE;
    uint8_t type = st ? COH_GETX : COH_GET;
    cgm_cache_insert(&l1->a.a, way, block, CGM_HINT_NORMAL);
    way->state = st ? MESI_IM : MESI_IS;
    way->dirty = false;
    coh_meta(&l1->a, way)->req = type;
    coh_meta(&l1->a, way)->pending = JOIN_NONE;
    if (!l1->replaying)
        l1->st.misses++;
    to_bank(s, l1, (struct cgm_coh_msg){ .type = type, .block = block, .flags = req->flags, .mask = req->mask });
    return 0;
}

/* I_WB_Writable: the written victim comes back into the array (the way it
 * takes, if written, leaves through the queue slot it frees). */
static int merge_back(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct core_wb *w,
                      const struct cgm_coh_req *req)
{
    uint64_t block = w->block;
    struct cgm_cache_line *v = cgm_cache_victim(&l1->a.a, block, settled, NULL);
    struct core_wb saved = *w;
    wbq_release(&l1->wb, w);
    if (!v || !evict(s, l1, v, w)) {
        wbq_take(&l1->wb, w, saved);
        return -1;
    }
    l1->st.wb_hits++;
    if (!l1->replaying)
        l1->st.hits++;
    cgm_cache_insert(&l1->a.a, v, block, CGM_HINT_NORMAL);
    v->state = MESI_M;
    v->data = saved.data;
    v->dirty = true;
    perform(s, l1, v, req);
    return 1;
}

static bool has_settled_way(struct gpu_l1 *l1, uint64_t block)
{
    return cgm_cache_victim(&l1->a.a, block, settled, NULL) != NULL;
}

int gpu_l1_access(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_req *req)
{
    uint64_t block = req->block;
    bool st = req->op == CGM_OP_STORE;
    struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, block, 0);
    if (e) {
        /* A miss of the block is in flight: coalesce (a secondary miss). */
        struct cgm_mshr_waiter w = coh_waiter_of(req);
        if (!cgm_mshr_push(e, s->cfg.gpu.l1_coalesce, &w))
            return -1;
        if (!l1->replaying)
            l1->st.coalesced++;
        return 0;
    }
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
    struct core_wb *w = l ? NULL : wbq_find(&l1->wb, block);
    enum l1_sub sub = l1_classify(l, w, w && has_settled_way(l1, block));
    int r;
    switch (sub) {
    case L1_M:
    case L1_E:
        if (!l1->replaying)
            l1->st.hits++;
        perform(s, l1, l, req);
        r = 1;
        break;
    case L1_S:
        if (st) {
            r = miss(s, l1, req, l); /* Invalidate -> GetX: no upgrade */
            break;
        }
        if (!l1->replaying)
            l1->st.hits++;
        perform(s, l1, l, req);
        r = 1;
        break;
    case L1_I_WB_WRITABLE:
        r = merge_back(s, l1, w, req);
        break;
    case L1_I_WB_NON_WRITABLE:
        /* Every way of the set waits for a fill: coalesce until one is
         * back. */
        coh_stall(s, &l1->stall, l1->node, req);
        if (!l1->replaying)
            l1->st.coalesced++;
        r = 0;
        break;
    default:
        r = miss(s, l1, req, NULL);
        break;
    }
    if (r >= 0)
        coh_row(s, l1v_rows[sub][st]);
    return r;
}

/* ---- messages from the bank ---------------------------------------------- */

static void protocol_error(struct cgm_coh_sys *s, struct gpu_l1 *l1, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "mesi: GPU L1 %d: %s (%s for block %llu)\n", l1->id, what, cgm_coh_msg_names[m->type],
            (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

static int access_fn(struct cgm_coh_sys *s, void *cache, const struct cgm_coh_req *req)
{
    return gpu_l1_access(s, cache, req);
}

static void forward(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m);

static void fill(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, m->block, 0);
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (!e || !l || (l->state != MESI_IS && l->state != MESI_IM))
        protocol_error(s, l1, "a block it is not waiting for", m);
    l->state = m->type == COH_PUTS ? MESI_S : m->type == COH_PUTCLNX ? MESI_E : MESI_M;
    l->data = m->data;
    l->dirty = false;
    uint8_t joined = coh_meta(&l1->a, l)->pending;
    struct cgm_coh_msg fwd = { .type = joined == JOIN_GETX_FWD ? COH_GETX_FWD : COH_GET_FWD, .src = m->src,
                               .dst = l1->node, .block = m->block, .requester = coh_meta(&l1->a, l)->requester };
    coh_meta(&l1->a, l)->pending = JOIN_NONE;
    coh_replay_entry(s, &l1->mshr, e, access_fn, l1, &l1->stall, l1->node, &l1->replaying);
    if (joined)
        forward(s, l1, &fwd);
}

/* The bank takes the block back (it names itself as the requester). */
static void forward(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    bool x = m->type == COH_GETX_FWD;
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (l && (l->state == MESI_IS || l->state == MESI_IM) && !coh_meta(&l1->a, l)->pending) {
        /* This CU gave the block up and has asked for it again: the bank
         * serves that request and keeps this forward; join it once the
         * block is back and the waiting requests are done. */
        coh_meta(&l1->a, l)->pending = x ? JOIN_GETX_FWD : JOIN_GET_FWD;
        coh_meta(&l1->a, l)->requester = m->requester;
        l1->st.joins++;
        return;
    }
    struct cgm_coh_msg ack = { .type = COH_FWD_ACK, .block = m->block };
    if (l && (l->state == MESI_E || l->state == MESI_M)) {
        ack.data = l->data;
        ack.dirty = l->dirty;
        l->dirty = false;
        if (x)
            l->state = MESI_I;
        else
            l->state = MESI_S;
        to_bank(s, l1, ack);
        return;
    }
    struct core_wb *w = wbq_find(&l1->wb, m->block);
    if (w) {
        /* Written and on its way out: the data goes with the ack instead. */
        ack.data = w->data;
        ack.dirty = true;
        wbq_release(&l1->wb, w);
        to_bank(s, l1, ack);
        return;
    }
    if (l && l->state == MESI_S)
        protocol_error(s, l1, "a forward for a shared copy", m);
    to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_FWD_NACK, .block = m->block });
}

/* Inval (a sharer's copy) or Flush (the bank gives the block up): the
 * copy goes, with its data if written. */
static void invalidate(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_coh_msg ack = { .type = COH_INV_ACK, .block = m->block };
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (l && settled(l, NULL)) {
        ack.data = l->data;
        ack.dirty = l->dirty;
        l->state = MESI_I;
        l->dirty = false;
        l1->st.invalidations++;
    }
    struct core_wb *w = m->type == COH_FLUSH ? wbq_find(&l1->wb, m->block) : NULL;
    if (w) {
        ack.data = w->data;
        ack.dirty = true;
        wbq_release(&l1->wb, w);
    }
    to_bank(s, l1, ack);
}

void gpu_l1_deliver(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    switch (m->type) {
    case COH_PUTS:
    case COH_PUTCLNX:
    case COH_PUTX:
        fill(s, l1, m);
        break;
    case COH_NACK:
        l1->st.nacks_received++;
        s->env.later(s->env.ctx, l1->node, m->block, COH_WAKE_RETRY);
        break;
    case COH_GET_FWD:
    case COH_GETX_FWD:
        forward(s, l1, m);
        break;
    case COH_INVAL:
    case COH_FLUSH:
        invalidate(s, l1, m);
        break;
    default:
        protocol_error(s, l1, "a message a GPU L1 cannot take", m);
    }
}

void gpu_l1_wake(struct cgm_coh_sys *s, struct gpu_l1 *l1, uint64_t block, int what)
{
    if (what == COH_WAKE_RETRY) {
        /* Resend the request the bank refused. */
        struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
        const struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, block, 0);
        if (!e || !l || (l->state != MESI_IS && l->state != MESI_IM))
            return;
        l1->st.retries++;
        to_bank(s, l1, (struct cgm_coh_msg){ .type = coh_meta(&l1->a, l)->req, .block = block, .flags = e->w[0].flags,
                                             .mask = e->w[0].mask });
    } else if (what == COH_WAKE_WB_DRAIN) {
        struct core_wb *w = wbq_find(&l1->wb, block);
        if (w) {
            to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_WB, .block = block, .data = w->data,
                                                 .dirty = true });
            wbq_release(&l1->wb, w);
        }
    } else if (what == COH_WAKE_STALLED) {
        coh_replay_stalled(s, access_fn, l1, &l1->stall, l1->node, &l1->replaying);
    }
}
