/* The si protocol's vector L1 (cgm/coh_si.h): valid copies only, stores
 * written through with their byte masks, GLC bypassing, an invalidation of
 * the whole L1, over MESI's L2 banks.
 *
 * A line is V (MESI_S: valid, its data the bank's), or pending (MESI_IS a
 * load waiting for the bank's data, MESI_IM a store waiting for its
 * grant); the line's `instr` field says that the pending line is not to be
 * kept (a GLC load or a store reserving the way for the miss: the data
 * never stays). A store to a V block keeps the V line and asks for the
 * grant beside it. The bank may hold the CU as a holder of a block the L1
 * has dropped silently (V lines are clean): a forward or invalidation then
 * finds nothing and is answered so, as for MESI's clean copies; one that
 * finds the CU's own request in flight joins it, as under MESI. */
#include "si_internal.h"

#include <stdlib.h>

static void to_bank(struct cgm_coh_sys *s, struct gpu_l1 *l1, struct cgm_coh_msg m)
{
    m.src = l1->node;
    m.dst = coh_gpu_bank_node(s, m.block);
    coh_send(s, m);
}

static bool valid(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return l->state == MESI_S;
}

/* A way that may be given up: V, with no request of its block beside it
 * (the line keeps what that request waits for). */
static bool may_go(const struct cgm_cache_line *l, void *ctx)
{
    struct gpu_l1 *l1 = ctx;
    return l->state == MESI_S && !cgm_mshr_find(&l1->mshr, l->block, 0);
}

static bool pending(const struct cgm_cache_line *l) { return l && (l->state == MESI_IS || l->state == MESI_IM); }

/* V line l's copy goes; a request beside it keeps the way as its pending
 * line, its data not to be kept. */
static void drop_copy(struct gpu_l1 *l1, struct cgm_cache_line *l)
{
    const struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, l->block, 0);
    l->state = e ? (e->w[0].op == CGM_OP_STORE ? MESI_IM : MESI_IS) : MESI_I;
    coh_meta(&l1->a, l)->instr = true;
    l1->st.invalidations++;
}

static void hit(struct gpu_l1 *l1)
{
    if (!l1->replaying)
        l1->st.hits++;
}

/* A miss: an MSHR entry, a way for the pending line unless the V line
 * stays (keep), then Get or GetX. -1 if a resource is full. */
static int miss(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_req *req, struct cgm_cache_line *v,
                bool keep)
{
    if (l1->mshr.used >= l1->mshr.entries)
        return -1;
    bool st = req->op == CGM_OP_STORE;
    if (!v) {
        v = cgm_cache_victim(&l1->a.a, req->block, may_go, l1);
        if (!v)
            return -1;
        if (v->state)
            l1->st.evictions++; /* clean: leaves silently */
        cgm_cache_insert(&l1->a.a, v, req->block, CGM_HINT_NORMAL);
        v->state = st ? MESI_IM : MESI_IS;
        v->dirty = false;
        coh_meta(&l1->a, v)->pending = JOIN_NONE;
        coh_meta(&l1->a, v)->instr = !keep;
    }
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&l1->mshr, req->block, 0);
    struct cgm_mshr_waiter w = coh_waiter_of(req);
    cgm_mshr_push(e, s->cfg.gpu.l1_coalesce, &w);
    if (!l1->replaying)
        l1->st.misses++;
    to_bank(s, l1, (struct cgm_coh_msg){ .type = st ? COH_GETX : COH_GET, .block = req->block, .flags = req->flags,
                                         .mask = req->mask });
    return 0;
}

int si_gpu_l1_access(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_req *req)
{
    struct gpu_l1 *l1 = ctrl;
    bool st = req->op == CGM_OP_STORE;
    bool glc = req->flags & (CGM_COH_GLC | CGM_COH_SLC);
    struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, req->block, 0);
    if (e) {
        struct cgm_mshr_waiter w = coh_waiter_of(req);
        if (!cgm_mshr_push(e, s->cfg.gpu.l1_coalesce, &w))
            return -1;
        if (!l1->replaying)
            l1->st.coalesced++;
        si_row(s, st ? SI_PENDING_STORE : SI_PENDING_LOAD);
        return 0;
    }
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, req->block);
    if (l && !valid(l, NULL))
        l = NULL; /* pending with no entry cannot be: every pending line has one */
    int r;
    enum cgm_si_row row;
    if (l && !st && !glc) {
        hit(l1);
        cgm_cache_touch(&l1->a.a, l);
        s->env.gpu_done(s->env.ctx, l1->id, req->tag, req->op, req->block, l->data);
        r = 1;
        row = SI_V_LOAD;
    } else if (l) {
        r = miss(s, l1, req, l, true);
        row = st ? (glc ? SI_V_GLC_STORE : SI_V_STORE) : SI_V_GLC_LOAD;
    } else if (!cgm_cache_victim(&l1->a.a, req->block, may_go, l1) && l1->mshr.used < l1->mshr.entries) {
        /* Every way of the set waits for the bank: wait for one. */
        coh_stall(s, &l1->stall, l1->node, req);
        if (!l1->replaying)
            l1->st.coalesced++;
        r = 0;
        row = st ? SI_SET_BUSY_STORE : SI_SET_BUSY_LOAD;
    } else {
        r = miss(s, l1, req, NULL, !st && !glc);
        row = st ? SI_I_STORE : glc ? SI_I_GLC_LOAD : SI_I_LOAD;
    }
    if (r >= 0)
        si_row(s, row);
    return r;
}

unsigned si_gpu_l1_invalidate(struct cgm_coh_sys *s, void *ctrl)
{
    struct gpu_l1 *l1 = ctrl;
    unsigned n = 0;
    for (unsigned i = 0; i < l1->a.a.sets * l1->a.a.ways; i++) {
        struct cgm_cache_line *l = &l1->a.a.lines[i];
        if (l->state == MESI_S) {
            drop_copy(l1, l);
            si_row(s, SI_V_INVALIDATE_L1);
            n++;
        }
    }
    return n;
}

/* ---- messages from the bank ---------------------------------------------- */

static void protocol_error(struct cgm_coh_sys *s, struct gpu_l1 *l1, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "si: GPU L1 %d: %s (%s for block %llu)\n", l1->id, what, cgm_coh_msg_names[m->type],
            (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

static void forward(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m);

/* The bank's answer to the entry's first request: a load's data or a
 * store's grant. The first waiter is served by it; the others run again. */
static void grant(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, m->block, 0);
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (!e || !e->n)
        protocol_error(s, l1, "a block it is not waiting for", m);
    struct cgm_mshr_waiter first = e->w[0];
    bool st = first.op == CGM_OP_STORE;
    if (st && m->type != COH_PUTX)
        protocol_error(s, l1, "a shared grant for a store", m);
    uint64_t data = st ? first.value : m->data;
    if (!l)
        protocol_error(s, l1, "a request in flight without its line", m);
    uint8_t j = coh_meta(&l1->a, l)->pending;
    struct cgm_coh_msg fwd = { .type = j == JOIN_GETX_FWD ? COH_GETX_FWD : COH_GET_FWD, .src = m->src,
                               .dst = l1->node, .block = m->block, .requester = coh_meta(&l1->a, l)->requester };
    coh_meta(&l1->a, l)->pending = JOIN_NONE;
    if (pending(l)) {
        if (coh_meta(&l1->a, l)->instr) {
            l->state = MESI_I;
        } else {
            l->state = MESI_S;
            l->data = data;
        }
        si_row(s, st ? SI_GRANT_WRITE : coh_meta(&l1->a, l)->instr ? SI_FILL_BYPASS : SI_FILL_KEEP);
    } else {
        /* The V line stayed beside the request. */
        l->data = data;
        if (st && (first.flags & (CGM_COH_GLC | CGM_COH_SLC))) {
            l->state = MESI_I;
            l1->st.evictions++;
        }
        si_row(s, st ? SI_GRANT_WRITE : SI_FILL_KEEP);
    }
    if (st) {
        /* Write through: the bytes go back to the bank at once. */
        l1->st.writebacks++;
        to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_WB, .block = m->block, .data = data, .dirty = true,
                                             .mask = first.mask });
    }
    /* The first waiter is done; the rest run again as new requests. */
    for (unsigned i = 1; i < e->n; i++)
        e->w[i - 1] = e->w[i];
    e->n--;
    s->env.gpu_done(s->env.ctx, l1->id, first.tag, first.op, m->block, data);
    coh_replay_entry(s, &l1->mshr, e, si_gpu_l1_access, l1, &l1->stall, l1->node, &l1->replaying);
    if (j != JOIN_NONE)
        forward(s, l1, &fwd);
}

/* The bank takes back a block it believes the CU holds (it names itself
 * as the requester): a V copy is clean, so Fwd_Ack carries no data. One
 * that finds the CU's own request in flight (the bank serves that one as
 * its *_Pending_Owned row) joins it: it is answered after the grant. */
static void forward(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (l && cgm_mshr_find(&l1->mshr, m->block, 0) && !coh_meta(&l1->a, l)->pending) {
        coh_meta(&l1->a, l)->pending = m->type == COH_GETX_FWD ? JOIN_GETX_FWD : JOIN_GET_FWD;
        coh_meta(&l1->a, l)->requester = m->requester;
        l1->st.joins++;
        si_row(s, SI_PENDING_FWD);
        return;
    }
    if (l && l->state == MESI_S) {
        if (m->type == COH_GETX_FWD)
            drop_copy(l1, l);
        si_row(s, SI_V_FWD);
        to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_FWD_ACK, .block = m->block, .data = l->data });
        return;
    }
    si_row(s, SI_I_FWD);
    to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_FWD_NACK, .block = m->block });
}

static void invalidate(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (l && l->state == MESI_S) {
        drop_copy(l1, l);
        si_row(s, SI_V_INVAL);
    } else {
        si_row(s, SI_I_INVAL);
    }
    to_bank(s, l1, (struct cgm_coh_msg){ .type = COH_INV_ACK, .block = m->block });
}

void si_gpu_l1_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct gpu_l1 *l1 = ctrl;
    switch (m->type) {
    case COH_PUTS:
    case COH_PUTCLNX:
    case COH_PUTX:
        grant(s, l1, m);
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

void si_gpu_l1_wake(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what)
{
    struct gpu_l1 *l1 = ctrl;
    if (what == COH_WAKE_RETRY) {
        const struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, block, 0);
        if (!e || !e->n)
            return;
        l1->st.retries++;
        to_bank(s, l1, (struct cgm_coh_msg){ .type = e->w[0].op == CGM_OP_STORE ? COH_GETX : COH_GET,
                                             .block = block, .flags = e->w[0].flags, .mask = e->w[0].mask });
    } else if (what == COH_WAKE_STALLED) {
        coh_replay_stalled(s, si_gpu_l1_access, l1, &l1->stall, l1->node, &l1->replaying);
    }
}
