/* The L3 slice: the directory over the cores (Tables 3.4 and 3.5). Its
 * lines carry the holders and a pending bit; its victims leave through a
 * write-back queue (flushed out of the holders first, which keeps the
 * hierarchy inclusive) that requests may join on their way to memory.
 *
 * A request is classified into its substate once (l3_classify), the row
 * is Table 3.4 or 3.5's for that substate and request (l3_rows), and the
 * dispatch in l3_request runs that row's actions; the row is counted there
 * when the actions were performed (not when a full MSHR or a set without a
 * victim refused them). Holders are numbered by the directory (a core's
 * holder number is its id, the GPU's the cores' count when the L3 tracks
 * it); messages go to the holder's node.
 *
 * Beside the tables: a GPU bank the L3 serves untracked (the shared LLC of
 * the non-coherent organisation) reads and writes blocks without becoming
 * a holder, and a core's flush (CGM_OP_FLUSH_CPU) evicts a block through
 * the write-back queue and is acknowledged once it has left. */
#include "mesi_internal.h"

#include <stdlib.h>
#include <string.h>

#define R ROW_NONE
/* Columns: fetch, load, store, upgrade. */
static const uint8_t l3_rows[DIR_NSUBS][DREQ_N] = {
    [DIR_M] = { R, R34_M_LOAD, R35_M_STORE, R },
    [DIR_M_OWNED] = { R, R34_M_OWNED_LOAD, R35_M_OWNED_STORE, R },
    [DIR_M_PENDING_OWNED] = { R, R34_M_PENDOWN_LOAD, R35_M_PENDOWN_STORE, R },
    [DIR_M_PENDING] = { R, R34_M_PENDING_LOAD, R35_M_PENDING_STORE, R35_M_PENDING_UPG },
    [DIR_M_HELD] = { R, R34_M_HELD_LOAD, R35_M_HELD_STORE, R35_M_HELD_UPG },
    [DIR_E] = { R, R34_E_LOAD, R35_E_STORE, R },
    [DIR_E_OWNED] = { R, R34_E_OWNED_LOAD, R35_E_OWNED_STORE, R },
    [DIR_E_PENDING_OWNED] = { R, R34_E_PENDOWN_LOAD, R35_E_PENDOWN_STORE, R },
    [DIR_E_PENDING] = { R, R34_E_PENDING_LOAD, R35_E_PENDING_STORE, R35_E_PENDING_UPG },
    [DIR_E_HELD] = { R, R34_E_HELD_LOAD, R35_E_HELD_STORE, R35_E_HELD_UPG },
    [DIR_S] = { R34_S_FETCH, R34_S_LOAD, R35_S_STORE, R35_S_UPG },
    [DIR_S_DIRTY_IN_NODE] = { R, R, R, R },
    [DIR_S_PENDING_OWNED] = { R, R, R, R },
    [DIR_S_PENDING] = { R, R, R, R },
    [DIR_I] = { R34_I_FETCH, R34_I_LOAD, R35_I_STORE, R35_I_UPG },
    [DIR_I_WB_FLUSH_CONFLICT] = { R, R34_WBFC_LOAD, R35_WBFC_STORE, R },
    [DIR_I_WB_NON_WRITABLE] = { R, R34_WBNW_LOAD, R35_WBNW_STORE, R },
    [DIR_I_WB_WRITABLE] = { R, R34_WBW_LOAD, R35_WBW_STORE, R },
    [DIR_I_WB_DIR_CONFLICT] = { R, R34_WBDC_LOAD, R35_WBDC_STORE, R },
};
#undef R

static void reply(struct cgm_coh_sys *s, struct slice *sl, int h, uint8_t type, uint64_t block,
                  uint64_t data, bool instr)
{
    struct cgm_coh_msg m = { .type = type, .src = sl->node, .dst = coh_l3_holder_node(s, h, block),
                             .block = block, .data = data,
                             .instr = instr };
    coh_send(s, m);
}

static void nack(struct cgm_coh_sys *s, struct slice *sl, int h, uint8_t req, uint64_t block, bool instr)
{
    struct cgm_coh_msg m = { .type = COH_NACK, .src = sl->node, .dst = coh_l3_holder_node(s, h, block),
                             .block = block, .req = req, .instr = instr };
    sl->st.nacks_sent++;
    coh_send(s, m);
}

static void to_holder(struct cgm_coh_sys *s, struct slice *sl, int h, struct cgm_coh_msg m)
{
    m.src = sl->node;
    m.dst = coh_l3_holder_node(s, h, m.block);
    coh_send(s, m);
}

static struct dir_wb *dwb_find(struct slice *sl, uint64_t block)
{
    return dwbq_find(&sl->wb, block);
}

static bool not_pending(const struct cgm_cache_line *l, void *ctx)
{
    return !coh_meta(ctx, l)->pending;
}

static void clear_line(struct slice *sl, struct cgm_cache_line *v) { coh_line_clear(&sl->l3, v); }

/* Moves victim v out of the array: into the write-back queue (slot, or a
 * free one) if it has holders to flush or dirty data; silently if clean and
 * unheld. false if the queue is full. */
static bool dir_evict(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *v, struct dir_wb *slot)
{
    if (!v->state)
        return true;
    bool owner_apart = coh_meta(&sl->l3, v)->owner >= 0 && !coh_holders_has(&sl->l3, v, (unsigned)coh_meta(&sl->l3, v)->owner);
    unsigned holders = coh_holders_count(&sl->l3, v) + owner_apart;
    if (holders || v->dirty) {
        if (!slot)
            slot = dwbq_free(&sl->wb);
        if (!slot)
            return false;
        dwbq_take(&sl->wb, slot, v->block, holders ? DWB_FLUSHING : DWB_WRITABLE);
        slot->data = v->data;
        slot->dirty = v->dirty;
        slot->njoin = 0;
        if (holders) {
            slot->acks = holders;
            sl->st.back_invalidations++;
            if (owner_apart)
                coh_holders_add(&sl->l3, v, (unsigned)coh_meta(&sl->l3, v)->owner);
            for (int h = coh_holders_next(&sl->l3, v, 0); h >= 0; h = coh_holders_next(&sl->l3, v, (unsigned)h + 1))
                to_holder(s, sl, h, (struct cgm_coh_msg){ .type = COH_FLUSH, .block = v->block });
        } else {
            s->env.later(s->env.ctx, sl->node, v->block, COH_WAKE_WB_DRAIN);
        }
    }
    sl->st.evictions++;
    clear_line(sl, v);
    return true;
}

/* Set_Core_Holder, then PutX for a store or a modified block, PutClnX for
 * a load of a clean one. */
static void grant_exclusive(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h,
                            bool store)
{
    coh_meta(&sl->l3, l)->owner = h;
    coh_holders_clear(&sl->l3, l);
    if (store)
        l->state = MESI_M;
    reply(s, sl, h, store || l->state == MESI_M ? COH_PUTX : COH_PUTCLNX, l->block, l->data, false);
}

static void grant_shared(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h, bool instr)
{
    coh_holders_add(&sl->l3, l, (unsigned)h);
    reply(s, sl, h, COH_PUTS, l->block, l->data, instr);
}

/* Set_Pending, then GetFwd / GetXFwd to the holder: the forward settles
 * with the holder's Fwd_Ack and the requester's Unblock. */
static void forward(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h, uint8_t req,
                    bool instr)
{
    coh_meta(&sl->l3, l)->pending = DP_FWD;
    coh_meta(&sl->l3, l)->requester = h;
    coh_meta(&sl->l3, l)->req = req;
    coh_meta(&sl->l3, l)->acks = 2;
    to_holder(s, sl, coh_meta(&sl->l3, l)->owner, (struct cgm_coh_msg){ .type = req == COH_GETX ? COH_GETX_FWD : COH_GET_FWD,
                                                     .block = l->block,
                                                     .requester = coh_l3_holder_node(s, h, l->block),
                                                     .instr = instr });
    sl->st.forwards++;
}

/* A store or upgrade to a shared block: M, the requester the holder,
 * Inval_N to the others; the reply waits for their acknowledgements. */
static void shared_to_modified(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h,
                               bool upgrade)
{
    bool had_copy = coh_holders_has(&sl->l3, l, (unsigned)h);
    coh_holders_del(&sl->l3, l, (unsigned)h);
    unsigned others = coh_holders_count(&sl->l3, l);
    l->state = MESI_M;
    coh_meta(&sl->l3, l)->owner = h;
    coh_meta(&sl->l3, l)->req = upgrade && had_copy ? COH_UPGRADE : COH_GETX;
    if (others) {
        coh_meta(&sl->l3, l)->pending = DP_INV;
        coh_meta(&sl->l3, l)->requester = h;
        coh_meta(&sl->l3, l)->acks = (uint16_t)others;
        for (int o = coh_holders_next(&sl->l3, l, 0); o >= 0; o = coh_holders_next(&sl->l3, l, (unsigned)o + 1)) {
            to_holder(s, sl, o, (struct cgm_coh_msg){ .type = COH_INVAL, .block = l->block });
            sl->st.invalidations++;
        }
        coh_holders_clear(&sl->l3, l);
    } else {
        reply(s, sl, h, coh_meta(&sl->l3, l)->req == COH_UPGRADE ? COH_UPGRADE_ACK : COH_PUTX, l->block, l->data, false);
    }
}

/* A fetch of an exclusive block. Instruction blocks are never written, so
 * this only happens if a block is both fetched and loaded: give it shared
 * (from the holder, if another core holds it). */
static void fetch_exclusive(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h)
{
    if (coh_meta(&sl->l3, l)->owner >= 0 && coh_meta(&sl->l3, l)->owner != h) {
        forward(s, sl, l, h, COH_GETS, true);
        return;
    }
    l->state = MESI_S;
    coh_meta(&sl->l3, l)->owner = -1;
    coh_holders_clear(&sl->l3, l);
    grant_shared(s, sl, l, h, true);
}

/* I: a miss. An MSHR entry, a victim, then SDRAM_Load. false (after a
 * NACK) if the MSHR is full or no way may be given up. */
static bool miss(struct cgm_coh_sys *s, struct slice *sl, int h, uint8_t type, bool instr, uint64_t block)
{
    enum dir_req rq = dir_req_of(type);
    if (s->cfg.l3_mshr && sl->st.mshr_used >= s->cfg.l3_mshr) {
        sl->st.mshr_nacks++;
        nack(s, sl, h, type, block, instr);
        return false;
    }
    struct cgm_cache_line *v = cgm_cache_victim(&sl->l3.a, block, not_pending, &sl->l3);
    if (!v || !dir_evict(s, sl, v, NULL)) {
        nack(s, sl, h, type, block, instr);
        return false;
    }
    cgm_cache_insert(&sl->l3.a, v, block, CGM_HINT_NORMAL);
    v->state = rq == DREQ_FETCH ? MESI_S : rq == DREQ_LOAD ? MESI_E : MESI_M;
    coh_meta(&sl->l3, v)->owner = -1;
    coh_holders_clear(&sl->l3, v);
    v->dirty = false;
    coh_meta(&sl->l3, v)->pending = DP_MEM;
    coh_meta(&sl->l3, v)->requester = h;
    coh_meta(&sl->l3, v)->req = type;
    sl->st.mem_reads++;
    if (++sl->st.mshr_used > sl->st.mshr_peak)
        sl->st.mshr_peak = sl->st.mshr_used;
    s->env.later(s->env.ctx, sl->node, block, COH_WAKE_MEM_READ);
    return true;
}

/* I_WB_Writable: the victim queued for memory merges back into the array
 * (victim v may go without a flush) and the request is a hit. */
static void merge_back(struct cgm_coh_sys *s, struct slice *sl, struct dir_wb *wb, struct cgm_cache_line *v,
                       int h, enum dir_req rq, uint64_t block)
{
    uint64_t data = wb->data;
    bool dirty = wb->dirty;
    dwbq_release(&sl->wb, wb);
    dir_evict(s, sl, v, wb);
    sl->st.wb_hits++;
    cgm_cache_insert(&sl->l3.a, v, block, CGM_HINT_NORMAL);
    v->data = data;
    v->dirty = dirty;
    v->state = dirty ? MESI_M : MESI_E;
    coh_meta(&sl->l3, v)->owner = -1;
    coh_holders_clear(&sl->l3, v);
    if (rq == DREQ_FETCH) {
        v->state = MESI_S;
        grant_shared(s, sl, v, h, true);
    } else {
        grant_exclusive(s, sl, v, h, rq != DREQ_LOAD);
    }
}

/* The substate of a request from holder h for block (line l, NULL if
 * absent). For I_WB_Writable, *victim is the way the block merges into. */
static enum dir_sub l3_classify(struct slice *sl, const struct cgm_cache_line *l, int h, enum dir_req rq,
                                uint64_t block, struct dir_wb **wbp, struct cgm_cache_line **victim)
{
    if (l) {
        if (coh_meta(&sl->l3, l)->pending)
            return dir_pending_sub(l->state, coh_meta(&sl->l3, l)->pending == DP_FWD && coh_meta(&sl->l3, l)->owner == h);
        if (l->state == MESI_S)
            return DIR_S;
        return dir_held_sub(l->state == MESI_M, coh_meta(&sl->l3, l)->owner == h, coh_meta(&sl->l3, l)->owner >= 0 && coh_meta(&sl->l3, l)->owner != h);
    }
    if (rq == DREQ_UPGRADE)
        return DIR_I; /* the block left the L3 before the upgrade arrived */
    struct dir_wb *wb = *wbp = dwb_find(sl, block);
    return dir_absent_sub(&sl->l3, wb, block, victim);
}

/* A request from holder h. Returns after counting the row it took. */
static void l3_request(struct cgm_coh_sys *s, struct slice *sl, int h, uint8_t type, bool instr, uint64_t block)
{
    enum dir_req rq = dir_req_of(type);
    sl->st.requests++;
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block), *victim = NULL;
    struct dir_wb *wb = NULL;
    enum dir_sub sub = l3_classify(sl, l, h, rq, block, &wb, &victim);
    bool performed = true;
    if (!l)
        sl->st.misses++;
    else if (!coh_meta(&sl->l3, l)->pending) {
        cgm_cache_touch(&sl->l3.a, l);
        sl->st.hits++;
    }
    switch (sub) {
    case DIR_M_PENDING_OWNED:
    case DIR_E_PENDING_OWNED:
        if (rq == DREQ_LOAD || rq == DREQ_STORE) {
            /* The holder dropped its clean copy (or wrote it back) and
             * asks again while the forward to it is on its way. Serve it
             * from the slice's current copy and keep the forward pending:
             * the holder joins it once its own requests are done. */
            sl->st.hits++;
            sl->st.joins++;
            reply(s, sl, h, rq == DREQ_LOAD && l->state != MESI_M ? COH_PUTCLNX : COH_PUTX, block, l->data,
                  false);
            break;
        }
        nack(s, sl, h, type, block, instr);
        break;
    case DIR_M_PENDING:
    case DIR_E_PENDING:
    case DIR_S_PENDING_OWNED:
    case DIR_S_PENDING:
        nack(s, sl, h, type, block, instr);
        break;
    case DIR_S:
        if (rq == DREQ_FETCH || rq == DREQ_LOAD)
            grant_shared(s, sl, l, h, instr);
        else
            shared_to_modified(s, sl, l, h, rq == DREQ_UPGRADE);
        break;
    case DIR_M:
    case DIR_E:
    case DIR_M_OWNED:
    case DIR_E_OWNED:
        if (rq == DREQ_FETCH)
            fetch_exclusive(s, sl, l, h);
        else
            grant_exclusive(s, sl, l, h, rq != DREQ_LOAD);
        break;
    case DIR_M_HELD:
    case DIR_E_HELD:
        if (rq == DREQ_FETCH)
            fetch_exclusive(s, sl, l, h);
        else
            forward(s, sl, l, h, rq == DREQ_LOAD ? COH_GET : COH_GETX, false);
        break;
    case DIR_I:
        if (rq == DREQ_UPGRADE) {
            struct cgm_coh_msg m = { .type = COH_NACK, .block = block, .req = type, .absent = true };
            sl->st.nacks_sent++;
            to_holder(s, sl, h, m);
            break;
        }
        performed = miss(s, sl, h, type, instr, block);
        break;
    case DIR_I_WB_FLUSH_CONFLICT:
        nack(s, sl, h, type, block, instr);
        break;
    case DIR_I_WB_NON_WRITABLE:
        wb->join[wb->njoin++] = (struct joined){ .src = h, .type = type, .instr = instr };
        sl->st.joins++;
        break;
    case DIR_I_WB_DIR_CONFLICT:
        /* No way may take the block back without a flush: send the
         * write-back now, and NACK the request (it finds the block again
         * once memory has it). */
        wb->state = DWB_WRITING;
        sl->st.mem_writes++;
        s->env.later(s->env.ctx, sl->node, block, COH_WAKE_MEM_WRITE);
        nack(s, sl, h, type, block, instr);
        break;
    case DIR_I_WB_WRITABLE:
        merge_back(s, sl, wb, victim, h, rq, block);
        break;
    default:
        break;
    }
    if (performed)
        coh_row(s, l3_rows[sub][rq]);
}

static void cpu_flush(struct cgm_coh_sys *s, struct slice *sl, int node, uint64_t block);

static void rerun(struct cgm_coh_sys *s, void *dir, const struct joined *j, uint64_t block)
{
    if (j->type == COH_FLUSH)
        cpu_flush(s, dir, j->src, block);
    else
        l3_request(s, dir, j->src, j->type, j->instr, block);
}

/* A victim has left: the requests that joined it run again. */
static void wb_free(struct cgm_coh_sys *s, struct slice *sl, struct dir_wb *wb)
{
    dwb_release(&sl->wb, wb, rerun, s, sl);
}

/* ---- beside the tables: a GPU served untracked, a core's flush -------------- */

static void to_node(struct cgm_coh_sys *s, struct slice *sl, int node, struct cgm_coh_msg m)
{
    m.src = sl->node;
    m.dst = node;
    coh_send(s, m);
}

static void untracked_nack(struct cgm_coh_sys *s, struct slice *sl, int node, uint8_t req, uint64_t block)
{
    sl->st.nacks_sent++;
    to_node(s, sl, node, (struct cgm_coh_msg){ .type = COH_NACK, .block = block, .req = req, .noncoherent = true });
}

static void untracked_data(struct cgm_coh_sys *s, struct slice *sl, int node, uint64_t block, uint64_t data)
{
    to_node(s, sl, node, (struct cgm_coh_msg){ .type = COH_PUTCLNX, .block = block, .data = data,
                                               .noncoherent = true });
}

/* A GPU bank's read: the slice's copy (or memory's, through the slice),
 * whatever the cores hold; the bank becomes no holder. */
static void untracked_get(struct cgm_coh_sys *s, struct slice *sl, int node, uint64_t block)
{
    sl->st.untracked_requests++;
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block);
    if (l) {
        if (coh_meta(&sl->l3, l)->pending) {
            untracked_nack(s, sl, node, COH_GET, block);
            return;
        }
        cgm_cache_touch(&sl->l3.a, l);
        sl->st.hits++;
        untracked_data(s, sl, node, block, l->data);
        return;
    }
    sl->st.misses++;
    struct dir_wb *wb = dwb_find(sl, block);
    if (wb) {
        if (wb->state == DWB_FLUSHING)
            untracked_nack(s, sl, node, COH_GET, block);
        else
            untracked_data(s, sl, node, block, wb->data);
        return;
    }
    struct cgm_cache_line *v = NULL;
    if ((!s->cfg.l3_mshr || sl->st.mshr_used < s->cfg.l3_mshr) &&
        (v = cgm_cache_victim(&sl->l3.a, block, not_pending, &sl->l3)) && !dir_evict(s, sl, v, NULL))
        v = NULL;
    if (!v) {
        untracked_nack(s, sl, node, COH_GET, block);
        return;
    }
    cgm_cache_insert(&sl->l3.a, v, block, CGM_HINT_NORMAL);
    v->state = MESI_E;
    coh_meta(&sl->l3, v)->owner = -1;
    coh_holders_clear(&sl->l3, v);
    v->dirty = false;
    coh_meta(&sl->l3, v)->pending = DP_MEM_UNTRACKED;
    coh_meta(&sl->l3, v)->requester = node;
    coh_meta(&sl->l3, v)->req = COH_GET;
    sl->st.mem_reads++;
    if (++sl->st.mshr_used > sl->st.mshr_peak)
        sl->st.mshr_peak = sl->st.mshr_used;
    s->env.later(s->env.ctx, sl->node, block, COH_WAKE_MEM_READ);
}

/* A GPU bank's written victim: into the slice's copy, or on to memory. */
static void untracked_writeback(struct cgm_coh_sys *s, struct slice *sl, int node, const struct cgm_coh_msg *m)
{
    sl->st.untracked_writebacks++;
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, m->block);
    struct dir_wb *wb = l ? NULL : dwb_find(sl, m->block);
    if ((l && coh_meta(&sl->l3, l)->pending) || (wb && wb->state == DWB_WRITING)) {
        untracked_nack(s, sl, node, COH_WB, m->block);
        return;
    }
    if (l) {
        l->data = m->data;
        l->dirty = true;
    } else if (wb) {
        wb->data = m->data;
        wb->dirty = true;
    } else {
        /* Not cached: straight to memory, through a write-back entry. */
        if (!(wb = dwbq_free(&sl->wb))) {
            untracked_nack(s, sl, node, COH_WB, m->block);
            return;
        }
        *wb = (struct dir_wb){ .data = m->data, .dirty = true, .join = wb->join };
        dwbq_take(&sl->wb, wb, m->block, DWB_WRITING);
        sl->st.mem_writes++;
        s->env.later(s->env.ctx, sl->node, m->block, COH_WAKE_MEM_WRITE);
    }
    to_node(s, sl, node, (struct cgm_coh_msg){ .type = COH_WB_ACK, .block = m->block, .req = COH_WB,
                                               .noncoherent = true });
}

/* A core's flush: the block leaves the slice (its holders flushed, its
 * written data to memory); acknowledged once it has. */
static void cpu_flush(struct cgm_coh_sys *s, struct slice *sl, int node, uint64_t block)
{
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block);
    struct dir_wb *wb = l ? NULL : dwb_find(sl, block);
    if ((l && coh_meta(&sl->l3, l)->pending) || (wb && wb->njoin == s->l3_joins)) {
        nack(s, sl, s->nodes[node].holder, COH_FLUSH, block, false);
        return;
    }
    if (l) {
        if (!dir_evict(s, sl, l, NULL)) {
            nack(s, sl, s->nodes[node].holder, COH_FLUSH, block, false);
            return;
        }
        sl->st.flushes++;
        wb = dwb_find(sl, block);
    }
    if (wb) {
        if (wb->state == DWB_WRITABLE) {
            wb->state = DWB_WRITING;
            sl->st.mem_writes++;
            s->env.later(s->env.ctx, sl->node, block, COH_WAKE_MEM_WRITE);
        }
        wb->join[wb->njoin++] = (struct joined){ .src = node, .type = COH_FLUSH };
        return;
    }
    to_node(s, sl, node, (struct cgm_coh_msg){ .type = COH_WB_ACK, .block = block, .req = COH_FLUSH });
}

static void protocol_error(struct cgm_coh_sys *s, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "mesi: slice %d: %s (%s from %d, block %llu)\n", s->nodes[m->dst].index, what,
            cgm_coh_msg_names[m->type], m->src, (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

/* A forward ends when both the holder's Fwd_Ack and the requester's
 * Unblock have arrived. */
static void fwd_settle(struct slice *sl, struct cgm_cache_line *l)
{
    struct coh_line *d = coh_meta(&sl->l3, l);
    if (--d->acks == 0)
        d->pending = DP_NONE;
}

/* WriteBack or Evict from holder h. */
static void writeback(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, struct dir_wb *wb,
                      int h, const struct cgm_coh_msg *m)
{
    if (l && coh_meta(&sl->l3, l)->pending == DP_FWD && coh_meta(&sl->l3, l)->req == COH_GETX && coh_meta(&sl->l3, l)->requester == h) {
        /* The new owner got the forwarded block and evicted it before
         * the old owner's Fwd_Ack arrived. Written, its data is the
         * newer and the Fwd_Ack must not overwrite it. */
        if (m->dirty) {
            l->data = m->data;
            l->dirty = true;
        }
        coh_meta(&sl->l3, l)->early_wb = m->dirty ? EWB_DIRTY : EWB_CLEAN;
    } else if (l) {
        if (coh_meta(&sl->l3, l)->owner != h)
            protocol_error(s, "write-back from a core that is not the holder", m);
        /* While a forward to the holder is pending it stays the
         * forward's target (its Fwd_Nack or, after a join, Fwd_Ack
         * settles the block). */
        if (coh_meta(&sl->l3, l)->pending != DP_FWD)
            coh_meta(&sl->l3, l)->owner = -1;
        if (m->dirty) {
            l->data = m->data;
            l->dirty = true;
            l->state = MESI_M;
        }
    } else if (wb && wb->state == DWB_FLUSHING) {
        if (m->dirty) {
            wb->data = m->data;
            wb->dirty = true;
        }
    } else {
        protocol_error(s, "write-back of a block the slice does not track", m);
    }
    to_holder(s, sl, h, (struct cgm_coh_msg){ .type = COH_WB_ACK, .block = m->block, .req = m->type });
}

static void fwd_ack(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h,
                    const struct cgm_coh_msg *m)
{
    if (!l || coh_meta(&sl->l3, l)->pending != DP_FWD)
        protocol_error(s, "forward acknowledgement without a forward", m);
    if (coh_meta(&sl->l3, l)->early_wb) {
        /* The requester has written the block back already. */
        if (coh_meta(&sl->l3, l)->early_wb == EWB_CLEAN && m->dirty) {
            l->data = m->data;
            l->dirty = true;
        }
        coh_meta(&sl->l3, l)->early_wb = EWB_NONE;
        l->state = MESI_M;
        coh_meta(&sl->l3, l)->owner = -1;
        coh_holders_clear(&sl->l3, l);
        fwd_settle(sl, l);
        return;
    }
    if (m->dirty) {
        l->data = m->data;
        l->dirty = true;
    }
    if (coh_meta(&sl->l3, l)->req == COH_GET || coh_meta(&sl->l3, l)->req == COH_GETS) {
        l->state = MESI_S;
        coh_holders_clear(&sl->l3, l);
        coh_holders_add(&sl->l3, l, (unsigned)h);
        coh_holders_add(&sl->l3, l, (unsigned)coh_meta(&sl->l3, l)->requester);
        coh_meta(&sl->l3, l)->owner = -1;
    } else {
        l->state = MESI_M;
        coh_meta(&sl->l3, l)->owner = coh_meta(&sl->l3, l)->requester;
        coh_holders_clear(&sl->l3, l);
    }
    fwd_settle(sl, l);
}

/* The holder dropped the block (a write-back, if any, came first): the
 * slice's copy is current; send it. */
static void fwd_nack(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, const struct cgm_coh_msg *m)
{
    if (!l || coh_meta(&sl->l3, l)->pending != DP_FWD)
        protocol_error(s, "forward NACK without a forward", m);
    coh_meta(&sl->l3, l)->pending = DP_NONE;
    coh_meta(&sl->l3, l)->owner = -1;
    if (coh_meta(&sl->l3, l)->req == COH_GETS) {
        l->state = MESI_S;
        coh_holders_clear(&sl->l3, l);
        grant_shared(s, sl, l, coh_meta(&sl->l3, l)->requester, true);
    } else {
        grant_exclusive(s, sl, l, coh_meta(&sl->l3, l)->requester, coh_meta(&sl->l3, l)->req != COH_GET);
    }
}

static void inv_ack(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, struct dir_wb *wb,
                    const struct cgm_coh_msg *m)
{
    if (l && coh_meta(&sl->l3, l)->pending == DP_INV) {
        if (--coh_meta(&sl->l3, l)->acks == 0) {
            coh_meta(&sl->l3, l)->pending = DP_NONE;
            reply(s, sl, coh_meta(&sl->l3, l)->requester, coh_meta(&sl->l3, l)->req == COH_UPGRADE ? COH_UPGRADE_ACK : COH_PUTX, l->block, l->data,
                  false);
        }
    } else if (wb && wb->state == DWB_FLUSHING) {
        if (m->dirty) {
            wb->data = m->data;
            wb->dirty = true;
        }
        if (--wb->acks == 0) {
            if (wb->dirty && wb->njoin) {
                /* A core's flush waits on it: no merging back, out now. */
                wb->state = DWB_WRITING;
                sl->st.mem_writes++;
                s->env.later(s->env.ctx, sl->node, wb->block, COH_WAKE_MEM_WRITE);
            } else if (wb->dirty) {
                wb->state = DWB_WRITABLE;
                s->env.later(s->env.ctx, sl->node, wb->block, COH_WAKE_WB_DRAIN);
            } else {
                wb_free(s, sl, wb);
            }
        }
    } else {
        protocol_error(s, "invalidation acknowledgement nobody waits for", m);
    }
}

void dir_deliver(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m)
{
    if (m->noncoherent) {
        if (m->type == COH_GET)
            untracked_get(s, sl, m->src, m->block);
        else if (m->type == COH_WB)
            untracked_writeback(s, sl, m->src, m);
        else
            protocol_error(s, "an untracked message it cannot take", m);
        return;
    }
    if (m->type == COH_FLUSH) {
        cpu_flush(s, sl, m->src, m->block);
        return;
    }
    int h = s->nodes[m->src].holder;
    switch (m->type) {
    case COH_GETS:
    case COH_GET:
    case COH_GETX:
    case COH_UPGRADE:
        l3_request(s, sl, h, m->type, m->instr, m->block);
        return;
    default:
        break;
    }
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, m->block);
    struct dir_wb *wb = l ? NULL : dwb_find(sl, m->block);
    switch (m->type) {
    case COH_WB:
    case COH_EVICT:
        writeback(s, sl, l, wb, h, m);
        return;
    case COH_FWD_ACK:
        fwd_ack(s, sl, l, h, m);
        return;
    case COH_UNBLOCK:
        if (!l || coh_meta(&sl->l3, l)->pending != DP_FWD)
            protocol_error(s, "unblock without a forward", m);
        fwd_settle(sl, l);
        return;
    case COH_FWD_NACK:
        fwd_nack(s, sl, l, m);
        return;
    case COH_INV_ACK:
        inv_ack(s, sl, l, wb, m);
        return;
    default:
        protocol_error(s, "unexpected message", m);
    }
}

void dir_wake(struct cgm_coh_sys *s, struct slice *sl, uint64_t block, int what)
{
    if (what == COH_WAKE_MEM_READ) {
        struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block);
        if (l && coh_meta(&sl->l3, l)->pending == DP_MEM_UNTRACKED) {
            l->data = s->mem[block];
            coh_meta(&sl->l3, l)->pending = DP_NONE;
            sl->st.mshr_used--;
            untracked_data(s, sl, coh_meta(&sl->l3, l)->requester, block, l->data);
            return;
        }
        if (!l || coh_meta(&sl->l3, l)->pending != DP_MEM)
            return;
        l->data = s->mem[block];
        coh_meta(&sl->l3, l)->pending = DP_NONE;
        sl->st.mshr_used--;
        int h = coh_meta(&sl->l3, l)->requester;
        if (coh_meta(&sl->l3, l)->req == COH_GETS)
            grant_shared(s, sl, l, h, true);
        else
            grant_exclusive(s, sl, l, h, coh_meta(&sl->l3, l)->req == COH_GETX);
    } else if (what == COH_WAKE_WB_DRAIN) {
        struct dir_wb *wb = dwb_find(sl, block);
        if (wb && wb->state == DWB_WRITABLE) {
            wb->state = DWB_WRITING;
            sl->st.mem_writes++;
            s->env.later(s->env.ctx, sl->node, block, COH_WAKE_MEM_WRITE);
        }
    } else if (what == COH_WAKE_MEM_WRITE) {
        struct dir_wb *wb = dwb_find(sl, block);
        if (!wb || wb->state != DWB_WRITING)
            return;
        s->mem[block] = wb->data;
        wb_free(s, sl, wb);
    }
}
