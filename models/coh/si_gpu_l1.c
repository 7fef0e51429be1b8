/* The si protocol's vector L1 (cgm/coh_si.h): valid copies only, stores
 * written through with their byte masks, GLC bypassing, an invalidation of
 * the whole L1, over si's L2 banks (si_gpu_l2.c).
 *
 * A line is V (MESI_S: valid, its data the bank's), or pending (MESI_IS: a
 * load waiting for the bank's data); the line's `instr` field says that
 * the pending line is not to be kept (a GLC load: the data never stays).
 * A store takes no way: it waits in the MSHR for the bank's Diff_Ack, the
 * WriteDiff with its bytes already sent (a V copy beside it takes the
 * bytes when it is acknowledged). Requests of a block in flight coalesce
 * in its entry, so a CU's writes of one block reach the bank in order.
 * The bank keeps no holders: it never forwards or invalidates, and V
 * copies go only when software invalidates the L1 or a way is needed. */
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

static bool pending(const struct cgm_cache_line *l) { return l && l->state == MESI_IS; }

/* V line l's copy goes; a load beside it keeps the way as its pending
 * line, its data not to be kept (a store needs no way). */
static void drop_copy(struct gpu_l1 *l1, struct cgm_cache_line *l)
{
    const struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, l->block, 0);
    l->state = e && e->w[0].op != CGM_OP_STORE ? MESI_IS : MESI_I;
    coh_meta(&l1->a, l)->instr = true;
    l1->st.invalidations++;
}

static void hit(struct gpu_l1 *l1)
{
    if (!l1->replaying)
        l1->st.hits++;
}

/* The request to the bank for the entry's first waiter w: a load's Get,
 * or a store's WriteDiff with its bytes. */
static void ask_bank(struct cgm_coh_sys *s, struct gpu_l1 *l1, uint64_t block, const struct cgm_mshr_waiter *w)
{
    bool st = w->op == CGM_OP_STORE;
    to_bank(s, l1, (struct cgm_coh_msg){ .type = st ? COH_DIFF : COH_GET, .block = block, .flags = w->flags,
                                         .data = st ? w->value : 0, .dirty = st, .mask = w->mask });
}

/* A miss: an MSHR entry, for a load a way for the pending line unless the
 * V line stays (keep), then the bank is asked. -1 if a resource is full. */
static int miss(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_req *req, struct cgm_cache_line *v,
                bool keep)
{
    if (l1->mshr.used >= l1->mshr.entries)
        return -1;
    bool st = req->op == CGM_OP_STORE;
    if (!v && !st) {
        v = cgm_cache_victim(&l1->a.a, req->block, may_go, l1);
        if (!v)
            return -1;
        if (v->state)
            l1->st.evictions++; /* clean: leaves silently */
        cgm_cache_insert(&l1->a.a, v, req->block, CGM_HINT_NORMAL);
        v->state = MESI_IS;
        v->dirty = false;
        coh_meta(&l1->a, v)->pending = 0;
        coh_meta(&l1->a, v)->instr = !keep;
    }
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&l1->mshr, req->block, 0);
    struct cgm_mshr_waiter w = coh_waiter_of(req);
    cgm_mshr_push(e, s->cfg.gpu.l1_coalesce, &w);
    if (!l1->replaying)
        l1->st.misses++;
    if (st)
        l1->st.writebacks++; /* written through */
    ask_bank(s, l1, req->block, &w);
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
    } else if (st) {
        r = miss(s, l1, req, l, true);
        row = l ? (glc ? SI_V_GLC_STORE : SI_V_STORE) : SI_I_STORE;
    } else if (l) {
        r = miss(s, l1, req, l, true);
        row = SI_V_GLC_LOAD;
    } else if (!cgm_cache_victim(&l1->a.a, req->block, may_go, l1) && l1->mshr.used < l1->mshr.entries) {
        /* Every way of the set waits for the bank: wait for one. */
        coh_stall(s, &l1->stall, l1->node, req);
        if (!l1->replaying)
            l1->st.coalesced++;
        r = 0;
        row = SI_SET_BUSY_LOAD;
    } else {
        r = miss(s, l1, req, NULL, !glc);
        row = glc ? SI_I_GLC_LOAD : SI_I_LOAD;
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

/* The bank's answer to the entry's first request: a load's data (PutS) or
 * a store's Diff_Ack. The first waiter is served by it; the others run
 * again. */
static void answer(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&l1->mshr, m->block, 0);
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, m->block);
    if (!e || !e->n)
        protocol_error(s, l1, "a block it is not waiting for", m);
    struct cgm_mshr_waiter first = e->w[0];
    bool st = first.op == CGM_OP_STORE;
    if (st != (m->type == COH_DIFF_ACK))
        protocol_error(s, l1, st ? "data for a store" : "an acknowledgement for a load", m);
    uint64_t data = st ? first.value : m->data;
    if (!st && !l)
        protocol_error(s, l1, "a load in flight without its line", m);
    if (pending(l)) {
        if (coh_meta(&l1->a, l)->instr) {
            l->state = MESI_I;
        } else {
            l->state = MESI_S;
            l->data = data;
        }
        si_row(s, coh_meta(&l1->a, l)->instr ? SI_FILL_BYPASS : SI_FILL_KEEP);
    } else {
        if (l && l->state == MESI_S) {
            /* The V line stayed beside the request. */
            l->data = data;
            if (st && (first.flags & (CGM_COH_GLC | CGM_COH_SLC))) {
                l->state = MESI_I;
                l1->st.evictions++;
            }
        }
        si_row(s, st ? SI_WRITE_DONE : SI_FILL_KEEP);
    }
    /* The first waiter is done; the rest run again as new requests. */
    for (unsigned i = 1; i < e->n; i++)
        e->w[i - 1] = e->w[i];
    e->n--;
    s->env.gpu_done(s->env.ctx, l1->id, first.tag, first.op, m->block, data);
    coh_replay_entry(s, &l1->mshr, e, si_gpu_l1_access, l1, &l1->stall, l1->node, &l1->replaying);
}

void si_gpu_l1_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct gpu_l1 *l1 = ctrl;
    switch (m->type) {
    case COH_PUTS:
    case COH_DIFF_ACK:
        answer(s, l1, m);
        break;
    case COH_NACK:
        l1->st.nacks_received++;
        s->env.later(s->env.ctx, l1->node, m->block, COH_WAKE_RETRY);
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
        ask_bank(s, l1, block, &e->w[0]);
    } else if (what == COH_WAKE_STALLED) {
        coh_replay_stalled(s, si_gpu_l1_access, l1, &l1->stall, l1->node, &l1->replaying);
    }
}
