/* The nmoesi protocol's vector L1 (cgm/coh_nmoesi.h): write-back,
 * write-allocate, stores without ownership (the N state), over MESI's
 * L2 banks.
 *
 * Every request to the bank is a Get: a store needs no ownership, so a
 * store miss fetches the block and writes it once it is there (running
 * again as a new access after the fill, like every waiter). A pending line
 * is IS. N and M lines are written: they leave through the write-back
 * queue (N with the byte mask of what this CU wrote), in order with the
 * requests that follow, and an access to a block still in the queue sends
 * its write-back first. The bank holds the CU as a sharer of an N block
 * (it granted S), so its Inval or Flush takes the written bytes back on
 * the acknowledgement, and its forwards only reach E and M lines (the
 * owner), as under MESI. An L1 line leaves its directory fields free: the
 * sharers word holds an N line's byte mask. */
#include "nmoesi_internal.h"

#include <stdlib.h>

/* A request's mask of 0 names every byte. */
static uint64_t bytes_of(uint64_t mask) { return mask ? mask : ~0ull; }

static void to_bank(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct cgm_coh_msg m)
{
    m.src = l1->node;
    m.dst = coh_gpu_bank_node(s, m.block);
    coh_send(s, m);
}

static bool settled(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return l->state == MESI_S || l->state == MESI_E || l->state == MESI_M || l->state == NMOESI_N;
}

static bool written(const struct cgm_cache_line *l) { return l->state == MESI_M || l->state == NMOESI_N; }

/* Way v leaves: written data to the write-back queue (false if it is
 * full), a clean copy silently. */
static bool evict(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct cgm_cache_line *v)
{
    if (!v->state)
        return true;
    if (written(v)) {
        struct core_wb *slot = wbq_free(&l1->wb);
        if (!slot)
            return false;
        uint64_t mask = v->state == NMOESI_N ? coh_meta(&l1->a, v)->sharers : 0;
        wbq_take(&l1->wb, slot,
                 (struct core_wb){ .block = v->block, .data = v->data, .used = true, .dirty = true, .mask = mask });
        l1->st.writebacks++;
        s->env.later(s->env.ctx, l1->node, v->block, COH_WAKE_WB_DRAIN);
    }
    nmoesi_row(s, written(v) ? NM_EVICT_WRITTEN : NM_EVICT_CLEAN);
    l1->st.evictions++;
    v->state = MESI_I;
    v->dirty = false;
    return true;
}

/* Queue entry w goes to the bank now. */
static void send_writeback(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct core_wb *w)
{
    to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_WB, .block = w->block, .data = w->data, .dirty = true,
                                         .mask = w->mask });
    wbq_release(&l1->wb, w);
}

static void hit(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct cgm_cache_line *l, const struct cgm_coh_req *req)
{
    if (!l1->replaying)
        l1->st.hits++;
    cgm_cache_touch(&l1->a.a, l);
    if (req->op == CGM_OP_STORE) {
        if (l->state == MESI_S) {
            l->state = NMOESI_N;
            coh_meta(&l1->a, l)->sharers = 0;
        }
        if (l->state == MESI_E)
            l->state = MESI_M;
        if (l->state == NMOESI_N)
            coh_meta(&l1->a, l)->sharers |= bytes_of(req->mask);
        l->data = req->value;
        l->dirty = true;
    }
    s->env.gpu_done(s->env.ctx, l1->id, req->tag, req->op, l->block, l->data);
}

/* A miss: an MSHR entry, a way (its victim evicted), then Get. -1 if a
 * resource is full. */
static int miss(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_req *req)
{
    if (l1->mshr.used >= l1->mshr.entries)
        return -1;
    struct cgm_cache_line *v = cgm_cache_victim(&l1->a.a, req->block, settled, NULL);
    if (!v || !evict(s, l1, v))
        return -1;
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&l1->mshr, req->block, 0);
    struct cgm_mshr_waiter w = coh_waiter_of(req);
    cgm_mshr_push(e, s->cfg.gpu.l1_coalesce, &w);
    cgm_cache_insert(&l1->a.a, v, req->block, CGM_HINT_NORMAL);
    v->state = MESI_IS;
    v->dirty = false;
    coh_meta(&l1->a, v)->pending = JOIN_NONE;
    if (!l1->replaying)
        l1->st.misses++;
    to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_GET, .block = req->block, .flags = req->flags, .mask = req->mask });
    return 0;
}

int nmoesi_gpu_l1_access(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_req *req)
{
    struct gpu_l1 *l1 = ctrl;
    bool st = req->op == CGM_OP_STORE;
    struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, req->block, 0);
    if (e) {
        struct cgm_mshr_waiter w = coh_waiter_of(req);
        if (!cgm_mshr_push(e, s->cfg.gpu.l1_coalesce, &w))
            return -1;
        if (!l1->replaying)
            l1->st.coalesced++;
        nmoesi_row(s, st ? NM_PENDING_STORE : NM_PENDING_LOAD);
        return 0;
    }
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, req->block);
    if (l && settled(l, NULL)) {
        static const enum cgm_nmoesi_row rows[NMOESI_NSTATES][2] = {
            [MESI_S] = { NM_S_LOAD, NM_S_STORE },
            [MESI_E] = { NM_E_LOAD, NM_E_STORE },
            [MESI_M] = { NM_M_LOAD, NM_M_STORE },
            [NMOESI_N] = { NM_N_LOAD, NM_N_STORE },
        };
        enum cgm_nmoesi_row row = rows[l->state][st];
        hit(s, l1, l, req);
        nmoesi_row(s, row);
        return 1;
    }
    if (!cgm_cache_victim(&l1->a.a, req->block, settled, NULL) && l1->mshr.used < l1->mshr.entries) {
        /* Every way of the set waits for the bank: wait for one. */
        coh_stall(s, &l1->stall, l1->node, req);
        if (!l1->replaying)
            l1->st.coalesced++;
        nmoesi_row(s, NM_SET_BUSY);
        return 0;
    }
    struct core_wb *w = wbq_find(&l1->wb, req->block);
    if (w && l1->mshr.used < l1->mshr.entries) {
        /* The written bytes reach the bank before the Get (FIFO). */
        l1->st.wb_hits++;
        send_writeback(s, l1, w);
    }
    int r = miss(s, l1, req);
    if (r >= 0)
        nmoesi_row(s, w ? NM_WB_ACCESS : st ? NM_I_STORE : NM_I_LOAD);
    return r;
}

unsigned nmoesi_gpu_l1_invalidate(struct cgm_coh_sys *s, void *ctrl)
{
    struct gpu_l1 *l1 = ctrl;
    unsigned n = 0;
    for (unsigned i = 0; i < l1->a.a.sets * l1->a.a.ways; i++) {
        struct cgm_cache_line *l = &l1->a.a.lines[i];
        if (l->state == NMOESI_N) {
            /* Written back at once (not through the queue): the release
             * is its message on the channel, ahead of what follows. */
            to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_WB, .block = l->block, .data = l->data, .dirty = true,
                                                 .mask = coh_meta(&l1->a, l)->sharers });
            l1->st.writebacks++;
            nmoesi_row(s, NM_N_RELEASE);
        } else if (l->state == MESI_S) {
            nmoesi_row(s, NM_S_RELEASE);
        } else {
            continue;
        }
        l->state = MESI_I;
        l->dirty = false;
        l1->st.invalidations++;
        n++;
    }
    /* Written victims still queued go too. */
    for (unsigned k = 0; k < l1->wb.n; k++)
        if (l1->wb.e[k].used)
            send_writeback(s, l1, &l1->wb.e[k]);
    return n;
}

/* ---- messages from the bank ---------------------------------------------- */

static void protocol_error(struct cgm_coh_sys *s, struct gpu_l1 *l1, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "nmoesi: GPU L1 %d: %s (%s for block %llu)\n", l1->id, what, cgm_coh_msg_names[m->type],
            (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

static void forward(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m);

static void fill(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, m->block, 0);
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (!e || !l || l->state != MESI_IS)
        protocol_error(s, l1, "a block it is not waiting for", m);
    l->state = m->type == COH_PUTS ? MESI_S : m->type == COH_PUTCLNX ? MESI_E : MESI_M;
    l->data = m->data;
    l->dirty = false;
    nmoesi_row(s, m->type == COH_PUTS ? NM_FILL_S : m->type == COH_PUTCLNX ? NM_FILL_E : NM_FILL_M);
    uint8_t joined = coh_meta(&l1->a, l)->pending;
    struct cgm_coh_msg fwd = { .type = joined == JOIN_GETX_FWD ? COH_GETX_FWD : COH_GET_FWD, .src = m->src,
                               .dst = l1->node, .block = m->block, .requester = coh_meta(&l1->a, l)->requester };
    coh_meta(&l1->a, l)->pending = JOIN_NONE;
    coh_replay_entry(s, &l1->mshr, e, nmoesi_gpu_l1_access, l1, &l1->stall, l1->node, &l1->replaying);
    if (joined)
        forward(s, l1, &fwd);
}

/* The bank takes back a block this CU owns (it names itself as the
 * requester). */
static void forward(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    bool x = m->type == COH_GETX_FWD;
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (l && l->state == MESI_IS && !coh_meta(&l1->a, l)->pending) {
        /* This CU gave the block up and asked for it again: join. */
        coh_meta(&l1->a, l)->pending = x ? JOIN_GETX_FWD : JOIN_GET_FWD;
        coh_meta(&l1->a, l)->requester = m->requester;
        l1->st.joins++;
        nmoesi_row(s, NM_PENDING_FWD);
        return;
    }
    struct cgm_coh_msg ack = { .type = COH_FWD_ACK, .block = m->block };
    if (l && (l->state == MESI_E || l->state == MESI_M)) {
        /* A GetXFwd would serve a CU's GetX or a parent that tracks the
         * GPU: neither exists under nmoesi. */
        if (x)
            protocol_error(s, l1, "a GetXFwd (no CU asks for ownership)", m);
        ack.data = l->data;
        ack.dirty = l->dirty;
        l->dirty = false;
        l->state = MESI_S;
        nmoesi_row(s, NM_OWNED_GETFWD);
        to_bank(s, l1, ack);
        return;
    }
    struct core_wb *w = wbq_find(&l1->wb, m->block);
    if (w) {
        ack.data = w->data;
        ack.dirty = true;
        wbq_release(&l1->wb, w);
        nmoesi_row(s, NM_WB_FWD);
        to_bank(s, l1, ack);
        return;
    }
    if (l && settled(l, NULL))
        protocol_error(s, l1, "a forward for a copy it does not own", m);
    nmoesi_row(s, NM_I_FWD);
    to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_FWD_NACK, .block = m->block });
}

/* Inval or Flush: the copy goes, with what this CU wrote. */
static void invalidate(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_coh_msg ack = { .type = COH_INV_ACK, .block = m->block };
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    struct core_wb *w = wbq_find(&l1->wb, m->block);
    enum cgm_nmoesi_row row = NM_I_INVAL;
    if (l && settled(l, NULL)) {
        row = l->state == NMOESI_N ? NM_N_INVAL : l->state == MESI_S ? NM_S_INVAL : NM_OWNED_INVAL;
        ack.data = l->data;
        ack.dirty = l->dirty;
        ack.mask = l->state == NMOESI_N ? coh_meta(&l1->a, l)->sharers : 0;
        l->state = MESI_I;
        l->dirty = false;
        l1->st.invalidations++;
    } else if (w) {
        row = NM_WB_INVAL;
        ack.data = w->data;
        ack.dirty = true;
        ack.mask = w->mask;
        wbq_release(&l1->wb, w);
    }
    nmoesi_row(s, row);
    to_bank(s, l1, ack);
}

void nmoesi_gpu_l1_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct gpu_l1 *l1 = ctrl;
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

void nmoesi_gpu_l1_wake(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what)
{
    struct gpu_l1 *l1 = ctrl;
    if (what == COH_WAKE_RETRY) {
        const struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, block, 0);
        if (!e || !e->n)
            return;
        l1->st.retries++;
        to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_GET, .block = block, .flags = e->w[0].flags,
                                             .mask = e->w[0].mask });
    } else if (what == COH_WAKE_WB_DRAIN) {
        struct core_wb *w = wbq_find(&l1->wb, block);
        if (w)
            send_writeback(s, l1, w);
    } else if (what == COH_WAKE_STALLED) {
        coh_replay_stalled(s, nmoesi_gpu_l1_access, l1, &l1->stall, l1->node, &l1->replaying);
    }
}

/* ---- what a checker and an error report see -------------------------------- */

unsigned nmoesi_gpu_l1_copy(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data)
{
    (void)s;
    struct gpu_l1 *l1 = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
    if (l && settled(l, NULL)) {
        *data = l->data;
        return l->state;
    }
    struct core_wb *w = wbq_find(&l1->wb, block);
    if (w) {
        *data = w->data;
        return w->mask ? NMOESI_N : MESI_M;
    }
    return MESI_I;
}

void nmoesi_gpu_l1_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out)
{
    (void)s;
    struct gpu_l1 *l1 = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
    const struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, block, 0);
    struct core_wb *w = wbq_find(&l1->wb, block);
    if (!l && !e && !w)
        return;
    fprintf(out, "  CU %d: L1 %s", l1->id, l ? cgm_coh_state_name(&cgm_coh_nmoesi, l->state) : "-");
    if (l)
        fprintf(out, " data %llu mask %llx join %u", (unsigned long long)l->data,
                (unsigned long long)coh_meta(&l1->a, l)->sharers, coh_meta(&l1->a, l)->pending);
    if (e)
        fprintf(out, " mshr %u waiting", e->n);
    if (w)
        fprintf(out, " wbq data %llu mask %llx", (unsigned long long)w->data, (unsigned long long)w->mask);
    fputc('\n', out);
}
