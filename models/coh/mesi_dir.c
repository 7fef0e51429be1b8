/* The directory side of the CPU MESI protocol: an L3 slice whose lines
 * carry the core holders and a pending bit (Tables 3.4 and 3.5), with a
 * write-back queue for its victims (flushed out of the cores first, which
 * keeps the hierarchy inclusive) and a join list for requests that find
 * their block on its way to memory. */
#include "mesi_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t bit(int core) { return 1ull << core; }

static int popcount64(uint64_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static int node(const struct cgm_coh_sys *s, const struct slice *sl) { return (int)s->cfg.cores + sl->id; }

static void reply(struct cgm_coh_sys *s, struct slice *sl, int dst, uint8_t type, uint64_t block,
                  uint64_t data, bool instr)
{
    struct cgm_coh_msg m = { .type = type, .src = node(s, sl), .dst = dst, .block = block,
                             .data = data, .has_data = type == COH_PUTS || type == COH_PUTCLNX || type == COH_PUTX,
                             .instr = instr };
    coh_send(s, m);
}

static void nack(struct cgm_coh_sys *s, struct slice *sl, int dst, uint8_t req, uint64_t block, bool instr)
{
    struct cgm_coh_msg m = { .type = COH_NACK, .src = node(s, sl), .dst = dst, .block = block,
                             .req = req, .instr = instr };
    sl->st.nacks_sent++;
    coh_send(s, m);
}

static struct dir_wb *dwb_find(struct cgm_coh_sys *s, struct slice *sl, uint64_t block)
{
    for (unsigned i = 0; i < s->cfg.l3_wb_entries; i++)
        if (sl->wb[i].state && sl->wb[i].block == block)
            return &sl->wb[i];
    return NULL;
}

static struct dir_wb *dwb_free(struct cgm_coh_sys *s, struct slice *sl)
{
    for (unsigned i = 0; i < s->cfg.l3_wb_entries; i++)
        if (!sl->wb[i].state)
            return &sl->wb[i];
    return NULL;
}

static bool not_pending(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return !l->pending;
}

static bool quiet(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return !l->pending && !l->sharers && l->owner < 0;
}

/* Moves victim v out of the array: into the write-back queue (slot, or a
 * free one) if it has holders to flush or dirty data; silently if clean and
 * unheld. false if the queue is full. */
static bool dir_evict(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *v, struct dir_wb *slot)
{
    if (!v->state)
        return true;
    uint64_t holders = v->sharers | (v->owner >= 0 ? bit(v->owner) : 0);
    if (holders || v->dirty) {
        if (!slot)
            slot = dwb_free(s, sl);
        if (!slot)
            return false;
        slot->block = v->block;
        slot->data = v->data;
        slot->dirty = v->dirty;
        slot->njoin = 0;
        if (holders) {
            slot->state = DWB_FLUSHING;
            slot->acks = (unsigned)popcount64(holders);
            sl->st.back_invalidations++;
            for (int c = 0; c < (int)s->cfg.cores; c++)
                if (holders & bit(c)) {
                    struct cgm_coh_msg f = { .type = COH_FLUSH, .src = node(s, sl), .dst = c,
                                             .block = v->block };
                    coh_send(s, f);
                }
        } else {
            slot->state = DWB_WRITABLE;
            s->env.later(s->env.ctx, node(s, sl), v->block, COH_WAKE_WB_DRAIN);
        }
    }
    sl->st.evictions++;
    memset(v, 0, sizeof *v);
    v->owner = -1;
    return true;
}

static void grant_exclusive(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int c,
                            bool store)
{
    /* Set_Core_Holder, then PutX for a store or a modified block, PutClnX
     * for a load of a clean one. */
    l->owner = c;
    l->sharers = 0;
    if (store)
        l->state = MESI_M;
    reply(s, sl, c, store || l->state == MESI_M ? COH_PUTX : COH_PUTCLNX, l->block, l->data, false);
}

static void handle_request(struct cgm_coh_sys *s, struct slice *sl, int c, uint8_t type, bool instr,
                           uint64_t block);

static void hit(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int c, uint8_t type,
                bool instr)
{
    bool load = type == COH_GET, fetch = type == COH_GETS, upg = type == COH_UPGRADE;
    cgm_cache_touch(&sl->l3, l);
    sl->st.hits++;
    if (l->state == MESI_S) {
        if (load || fetch) {
            coh_row(s, fetch ? R34_S_FETCH : R34_S_LOAD);
            l->sharers |= bit(c);
            reply(s, sl, c, COH_PUTS, l->block, l->data, instr);
            return;
        }
        /* Upgrade or store: M, the requester the holder, Inval_N to the
         * others; the reply waits for their acknowledgements. */
        bool had_copy = (l->sharers & bit(c)) != 0;
        coh_row(s, upg ? R35_S_UPG : R35_S_STORE);
        uint64_t others = l->sharers & ~bit(c);
        l->state = MESI_M;
        l->owner = c;
        l->sharers = 0;
        l->req = upg && had_copy ? COH_UPGRADE : COH_GETX;
        if (others) {
            l->pending = DP_INV;
            l->requester = c;
            l->acks = (uint16_t)popcount64(others);
            for (int o = 0; o < (int)s->cfg.cores; o++)
                if (others & bit(o)) {
                    struct cgm_coh_msg m = { .type = COH_INVAL, .src = node(s, sl), .dst = o,
                                             .block = l->block };
                    coh_send(s, m);
                    sl->st.invalidations++;
                }
        } else {
            reply(s, sl, c, l->req == COH_UPGRADE ? COH_UPGRADE_ACK : COH_PUTX, l->block, l->data, false);
        }
        return;
    }
    /* E or M. */
    bool m = l->state == MESI_M;
    if (fetch) {
        /* Instruction blocks are never written, so this only happens if a
         * block is both fetched and loaded: give it shared. */
        if (l->owner >= 0 && l->owner != c) {
            l->pending = DP_FWD;
            l->requester = c;
            l->req = COH_GETS;
            l->acks = 2;
            struct cgm_coh_msg f = { .type = COH_GET_FWD, .src = node(s, sl), .dst = l->owner,
                                     .block = l->block, .requester = c, .instr = true };
            coh_send(s, f);
            sl->st.forwards++;
            return;
        }
        l->state = MESI_S;
        l->owner = -1;
        l->sharers = bit(c);
        reply(s, sl, c, COH_PUTS, l->block, l->data, true);
        return;
    }
    if (l->owner == c) {
        if (load)
            coh_row(s, m ? R34_M_OWNED_LOAD : R34_E_OWNED_LOAD);
        else if (!upg)
            coh_row(s, m ? R35_M_OWNED_STORE : R35_E_OWNED_STORE);
        grant_exclusive(s, sl, l, c, !load);
        return;
    }
    if (l->owner < 0) {
        if (load)
            coh_row(s, m ? R34_M_LOAD : R34_E_LOAD);
        else if (!upg)
            coh_row(s, m ? R35_M_STORE : R35_E_STORE);
        grant_exclusive(s, sl, l, c, !load);
        return;
    }
    /* Held by another core: Set_Pending, GetFwd / GetXFwd. */
    if (load)
        coh_row(s, m ? R34_M_HELD_LOAD : R34_E_HELD_LOAD);
    else
        coh_row(s, upg ? (m ? R35_M_HELD_UPG : R35_E_HELD_UPG) : (m ? R35_M_HELD_STORE : R35_E_HELD_STORE));
    l->pending = DP_FWD;
    l->requester = c;
    l->req = load ? COH_GET : COH_GETX;
    l->acks = 2; /* the owner's Fwd_Ack and the requester's Unblock */
    struct cgm_coh_msg f = { .type = load ? COH_GET_FWD : COH_GETX_FWD, .src = node(s, sl),
                             .dst = l->owner, .block = l->block, .requester = c };
    coh_send(s, f);
    sl->st.forwards++;
}

static void handle_request(struct cgm_coh_sys *s, struct slice *sl, int c, uint8_t type, bool instr,
                           uint64_t block)
{
    bool load = type == COH_GET, fetch = type == COH_GETS, upg = type == COH_UPGRADE;
    sl->st.requests++;
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3, block);
    if (l) {
        if (l->pending) {
            bool owned = l->pending == DP_FWD && l->owner == c;
            if (owned && (load || type == COH_GETX)) {
                /* *_Pending_Owned: the holder dropped its clean copy (or
                 * wrote it back) and asks again while the forward to it is
                 * on its way. Serve it from the slice's current copy and
                 * keep the forward pending: the holder joins it once its
                 * own requests are done. */
                bool m = l->state == MESI_M;
                if (load)
                    coh_row(s, m ? R34_M_PENDOWN_LOAD : R34_E_PENDOWN_LOAD);
                else
                    coh_row(s, m ? R35_M_PENDOWN_STORE : R35_E_PENDOWN_STORE);
                sl->st.hits++;
                sl->st.joins++;
                reply(s, sl, c, load && !m ? COH_PUTCLNX : COH_PUTX, block, l->data, false);
                return;
            }
            /* M_Pending / E_Pending: NACK. */
            if (!owned && l->state != MESI_S && !fetch) {
                bool m = l->state == MESI_M;
                if (load)
                    coh_row(s, m ? R34_M_PENDING_LOAD : R34_E_PENDING_LOAD);
                else if (upg)
                    coh_row(s, m ? R35_M_PENDING_UPG : R35_E_PENDING_UPG);
                else
                    coh_row(s, m ? R35_M_PENDING_STORE : R35_E_PENDING_STORE);
            }
            nack(s, sl, c, type, block, instr);
            return;
        }
        hit(s, sl, l, c, type, instr);
        return;
    }
    sl->st.misses++;
    struct dir_wb *wb = dwb_find(s, sl, block);
    if (upg) {
        coh_row(s, R35_I_UPG); /* the block left the L3 before the upgrade arrived */
        struct cgm_coh_msg m = { .type = COH_NACK, .src = node(s, sl), .dst = c, .block = block,
                                 .req = type, .absent = true };
        sl->st.nacks_sent++;
        coh_send(s, m);
        return;
    }
    if (wb) {
        if (wb->state == DWB_FLUSHING) {
            if (!fetch)
                coh_row(s, load ? R34_WBFC_LOAD : R35_WBFC_STORE);
            nack(s, sl, c, type, block, instr);
            return;
        }
        if (wb->state == DWB_WRITING) {
            if (!fetch)
                coh_row(s, load ? R34_WBNW_LOAD : R35_WBNW_STORE);
            struct joined *j = &wb->join[wb->njoin++];
            j->src = c;
            j->type = type;
            j->instr = instr;
            sl->st.joins++;
            return;
        }
        /* Writable: merge it back if a victim may go without a flush. */
        struct cgm_cache_line *v = cgm_cache_victim(&sl->l3, block, quiet, NULL);
        if (!v || (v->state && !quiet(v, NULL))) {
            if (!fetch)
                coh_row(s, load ? R34_WBDC_LOAD : R35_WBDC_STORE);
            wb->state = DWB_WRITING;
            sl->st.mem_writes++;
            s->env.later(s->env.ctx, node(s, sl), block, COH_WAKE_MEM_WRITE);
            nack(s, sl, c, type, block, instr);
            return;
        }
        uint64_t data = wb->data;
        bool dirty = wb->dirty;
        wb->state = 0;
        dir_evict(s, sl, v, wb);
        if (!fetch)
            coh_row(s, load ? R34_WBW_LOAD : R35_WBW_STORE);
        sl->st.wb_hits++;
        cgm_cache_set_block(&sl->l3, v, block);
        v->data = data;
        v->dirty = dirty;
        v->state = dirty ? MESI_M : MESI_E;
        v->owner = -1;
        v->sharers = 0;
        cgm_cache_touch(&sl->l3, v);
        if (fetch) {
            v->state = MESI_S;
            v->sharers = bit(c);
            reply(s, sl, c, COH_PUTS, block, data, true);
        } else {
            grant_exclusive(s, sl, v, c, !load);
        }
        return;
    }
    /* A miss: an MSHR entry, a victim, then SDRAM_Load. */
    if (s->cfg.l3_mshr && sl->st.mshr_used >= s->cfg.l3_mshr) {
        sl->st.mshr_nacks++;
        nack(s, sl, c, type, block, instr);
        return;
    }
    struct cgm_cache_line *v = cgm_cache_victim(&sl->l3, block, not_pending, NULL);
    if (!v || !dir_evict(s, sl, v, NULL)) {
        nack(s, sl, c, type, block, instr);
        return;
    }
    coh_row(s, fetch ? R34_I_FETCH : load ? R34_I_LOAD : R35_I_STORE);
    cgm_cache_set_block(&sl->l3, v, block);
    v->state = fetch ? MESI_S : load ? MESI_E : MESI_M;
    v->owner = -1;
    v->sharers = 0;
    v->dirty = false;
    v->pending = DP_MEM;
    v->requester = c;
    v->req = type;
    cgm_cache_touch(&sl->l3, v);
    sl->st.mem_reads++;
    if (++sl->st.mshr_used > sl->st.mshr_peak)
        sl->st.mshr_peak = sl->st.mshr_used;
    s->env.later(s->env.ctx, node(s, sl), block, COH_WAKE_MEM_READ);
}

static void protocol_error(struct cgm_coh_sys *s, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "mesi: slice %d: %s (%s from %d, block %llu)\n", m->dst - (int)s->cfg.cores, what,
            cgm_coh_msg_names[m->type], m->src, (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

/* A forward ends when both the holder's Fwd_Ack and the requester's
 * Unblock have arrived. */
static void fwd_settle(struct cgm_cache_line *l)
{
    if (--l->acks == 0)
        l->pending = DP_NONE;
}

void dir_deliver(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m)
{
    switch (m->type) {
    case COH_GETS:
    case COH_GET:
    case COH_GETX:
    case COH_UPGRADE:
        handle_request(s, sl, m->src, m->type, m->instr, m->block);
        return;
    default:
        break;
    }
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3, m->block);
    struct dir_wb *wb = l ? NULL : dwb_find(s, sl, m->block);
    switch (m->type) {
    case COH_WB:
    case COH_EVICT:
        if (l && l->pending == DP_FWD && l->req == COH_GETX && l->requester == m->src) {
            /* The new owner got the forwarded block and evicted it before
             * the old owner's Fwd_Ack arrived. Written, its data is the
             * newer and the Fwd_Ack must not overwrite it. */
            if (m->dirty) {
                l->data = m->data;
                l->dirty = true;
            }
            l->req = m->dirty ? REQ_WB_DIRTY : REQ_WB_CLEAN;
        } else if (l) {
            if (l->owner != m->src)
                protocol_error(s, "write-back from a core that is not the holder", m);
            /* While a forward to the holder is pending it stays the
             * forward's target (its Fwd_Nack or, after a join, Fwd_Ack
             * settles the block). */
            if (l->pending != DP_FWD)
                l->owner = -1;
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
        reply(s, sl, m->src, COH_WB_ACK, m->block, 0, false);
        return;
    case COH_FWD_ACK:
        if (!l || l->pending != DP_FWD)
            protocol_error(s, "forward acknowledgement without a forward", m);
        if (l->req == REQ_WB_DIRTY || l->req == REQ_WB_CLEAN) {
            /* The requester has written the block back already. */
            if (l->req == REQ_WB_CLEAN && m->dirty) {
                l->data = m->data;
                l->dirty = true;
            }
            l->state = MESI_M;
            l->owner = -1;
            l->sharers = 0;
            fwd_settle(l);
            return;
        }
        if (m->dirty) {
            l->data = m->data;
            l->dirty = true;
        }
        if (l->req == COH_GET || l->req == COH_GETS) {
            l->state = MESI_S;
            l->sharers = bit(m->src) | bit(l->requester);
            l->owner = -1;
        } else {
            l->state = MESI_M;
            l->owner = l->requester;
            l->sharers = 0;
        }
        fwd_settle(l);
        return;
    case COH_UNBLOCK:
        if (!l || l->pending != DP_FWD)
            protocol_error(s, "unblock without a forward", m);
        fwd_settle(l);
        return;
    case COH_FWD_NACK:
        /* The holder dropped the block (a write-back, if any, came first):
         * the slice's copy is current; send it. */
        if (!l || l->pending != DP_FWD)
            protocol_error(s, "forward NACK without a forward", m);
        l->pending = DP_NONE;
        l->owner = -1;
        if (l->req == COH_GETS) {
            l->state = MESI_S;
            l->sharers = bit(l->requester);
            reply(s, sl, l->requester, COH_PUTS, l->block, l->data, true);
        } else {
            grant_exclusive(s, sl, l, l->requester, l->req != COH_GET);
        }
        return;
    case COH_INV_ACK:
        if (l && l->pending == DP_INV) {
            if (--l->acks == 0) {
                l->pending = DP_NONE;
                reply(s, sl, l->requester, l->req == COH_UPGRADE ? COH_UPGRADE_ACK : COH_PUTX,
                      l->block, l->data, false);
            }
        } else if (wb && wb->state == DWB_FLUSHING) {
            if (m->has_data && m->dirty) {
                wb->data = m->data;
                wb->dirty = true;
            }
            if (--wb->acks == 0) {
                if (wb->dirty) {
                    wb->state = DWB_WRITABLE;
                    s->env.later(s->env.ctx, node(s, sl), wb->block, COH_WAKE_WB_DRAIN);
                } else {
                    wb->state = 0;
                }
            }
        } else {
            protocol_error(s, "invalidation acknowledgement nobody waits for", m);
        }
        return;
    default:
        protocol_error(s, "unexpected message", m);
    }
}

void dir_wake(struct cgm_coh_sys *s, struct slice *sl, uint64_t block, int what)
{
    if (what == COH_WAKE_MEM_READ) {
        struct cgm_cache_line *l = cgm_cache_find(&sl->l3, block);
        if (!l || l->pending != DP_MEM)
            return;
        l->data = s->mem[block];
        l->pending = DP_NONE;
        sl->st.mshr_used--;
        int c = l->requester;
        if (l->req == COH_GETS) {
            l->sharers = bit(c);
            reply(s, sl, c, COH_PUTS, block, l->data, true);
        } else {
            grant_exclusive(s, sl, l, c, l->req == COH_GETX);
        }
    } else if (what == COH_WAKE_WB_DRAIN) {
        struct dir_wb *wb = dwb_find(s, sl, block);
        if (wb && wb->state == DWB_WRITABLE) {
            wb->state = DWB_WRITING;
            sl->st.mem_writes++;
            s->env.later(s->env.ctx, node(s, sl), block, COH_WAKE_MEM_WRITE);
        }
    } else if (what == COH_WAKE_MEM_WRITE) {
        struct dir_wb *wb = dwb_find(s, sl, block);
        if (!wb || wb->state != DWB_WRITING)
            return;
        s->mem[block] = wb->data;
        unsigned n = wb->njoin;
        struct joined j[n ? n : 1];
        memcpy(j, wb->join, n * sizeof *j);
        wb->state = 0;
        wb->njoin = 0;
        for (unsigned i = 0; i < n; i++)
            handle_request(s, sl, j[i].src, j[i].type, j[i].instr, block);
    }
}
