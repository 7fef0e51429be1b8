/* The core side of the CPU MESI protocol: the instruction cache (Table
 * 3.1), the data cache with its write-back queue (Table 3.2), and the
 * private-L2 duties folded into it: forwards, flushes from the directory,
 * NACK retries and the replay of coalesced requests. */
#include "mesi_internal.h"

#include <stdlib.h>
#include <string.h>

enum { KIND_DATA = 0, KIND_INSTR = 1, KIND_WBWAIT = 2 };

static int dir_node(struct cgm_coh_sys *s, uint64_t block) { return coh_slice_node(s, block); }

static void to_dir(struct cgm_coh_sys *s, struct core *c, uint8_t type, uint64_t block, bool instr)
{
    struct cgm_coh_msg m = { .type = type, .src = c->id, .dst = dir_node(s, block), .block = block,
                             .instr = instr, .requester = c->id };
    coh_send(s, m);
}

static struct core_wb *wb_find(struct cgm_coh_sys *s, struct core *c, uint64_t block)
{
    for (unsigned i = 0; i < s->cfg.wb_entries; i++)
        if (c->wb[i].used && c->wb[i].block == block)
            return &c->wb[i];
    return NULL;
}

static struct core_wb *wb_free_slot(struct cgm_coh_sys *s, struct core *c)
{
    for (unsigned i = 0; i < s->cfg.wb_entries; i++)
        if (!c->wb[i].used)
            return &c->wb[i];
    return NULL;
}

static bool stable(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return l->state == MESI_S || l->state == MESI_E || l->state == MESI_M;
}

static void finish(struct cgm_coh_sys *s, struct core *c, uint8_t op, uint64_t block, uint64_t tag,
                   uint64_t value)
{
    s->env.done(s->env.ctx, c->id, tag, op, block, value);
}

/* Performs a load or store on a line this core may access. */
static void perform(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *l, uint8_t op,
                    uint64_t tag, uint64_t value)
{
    cgm_cache_touch(&c->l1d, l);
    if (op == CGM_OP_STORE) {
        l->state = MESI_M;
        l->data = value;
        l->dirty = true;
    }
    finish(s, c, op, l->block, tag, l->data);
}

/* Frees the victim way: shared blocks are dropped silently; written blocks
 * go to the write-back queue; unwritten exclusive blocks go there too when
 * it has room (so the directory learns of it), else they are dropped (the
 * directory's copy is current, and a forward to this core gets a NACK).
 * false if a written block finds the queue full. */
static bool evict(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *v,
                  struct core_wb *slot)
{
    if (!v->state)
        return true;
    bool exclusive = v->state == MESI_E || v->state == MESI_M;
    if (exclusive && !v->dirty && !slot)
        slot = wb_free_slot(s, c); /* clean: tell the directory if there is room */
    if (v->dirty || (exclusive && slot)) {
        if (!slot)
            slot = wb_free_slot(s, c);
        if (!slot)
            return false;
        slot->used = true;
        slot->sent = false;
        slot->dirty = v->dirty;
        unsigned inuse = 0;
        for (unsigned i = 0; i < s->cfg.wb_entries; i++)
            inuse += c->wb[i].used;
        if (inuse > c->st.wb_queue_peak)
            c->st.wb_queue_peak = inuse;
        slot->block = v->block;
        slot->data = v->data;
        c->st.writebacks++;
        s->env.later(s->env.ctx, c->id, v->block, COH_WAKE_WB_DRAIN);
    }
    c->st.evictions++;
    v->state = MESI_I;
    v->dirty = false;
    return true;
}

static bool coalesce(struct core *c, struct cgm_coh_sys *s, struct cgm_mshr_entry *e, uint8_t op,
                     uint64_t tag, uint64_t value)
{
    struct cgm_mshr_waiter w = { .tag = tag, .value = value, .op = op };
    if (!cgm_mshr_push(e, s->cfg.coalesce, &w))
        return false;
    c->st.coalesced++;
    return true;
}

static int fetch(struct cgm_coh_sys *s, struct core *c, uint64_t block, uint64_t tag)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, block, KIND_INSTR);
    if (e)
        return coalesce(c, s, e, CGM_OP_FETCH, tag, 0) ? 0 : -1;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1i, block);
    if (l && l->state == MESI_S) {
        coh_row(s, R31_S_FETCH);
        if (!c->replaying) {
            c->st.hits++;
            c->st.fetch_hits++;
        }
        cgm_cache_touch(&c->l1i, l);
        finish(s, c, CGM_OP_FETCH, block, tag, l->data);
        return 1;
    }
    struct cgm_cache_line *v = cgm_cache_victim(&c->l1i, block, stable, NULL);
    if (!v || !(e = cgm_mshr_alloc(&c->mshr, block, KIND_INSTR)))
        return -1;
    coh_row(s, R31_I_FETCH);
    if (!c->replaying) {
        c->st.misses++;
        c->st.fetch_misses++;
    }
    if (v->state) {
        c->st.evictions++;
        c->st.fetch_evictions++;
    }
    cgm_cache_set_block(&c->l1i, v, block);
    v->state = MESI_IS;
    v->dirty = false;
    cgm_cache_touch(&c->l1i, v);
    coalesce(c, s, e, CGM_OP_FETCH, tag, 0);
    c->st.coalesced--; /* the first waiter is the miss itself */
    to_dir(s, c, COH_GETS, block, true);
    return 0;
}

int core_access(struct cgm_coh_sys *s, struct core *c, uint8_t op, uint64_t block, uint64_t tag,
                uint64_t value)
{
    if (op == CGM_OP_FETCH)
        return fetch(s, c, block, tag);
    bool st = op == CGM_OP_STORE;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1d, block);
    struct cgm_mshr_entry *e;
    /* A block in a stable state has no MSHR entry: skip the lookups. */
    if (l && (l->state == MESI_M || l->state == MESI_E || l->state == MESI_S))
        goto stable;

    e = cgm_mshr_find(&c->mshr, block, KIND_DATA);
    if (e) {
        if (l && l->state == MESI_SM)
            coh_row(s, st ? R32_SPU_STORE : R32_SPU_LOAD);
        return coalesce(c, s, e, op, tag, value) ? 0 : -1;
    }
    e = cgm_mshr_find(&c->mshr, block, KIND_WBWAIT);
    if (e) {
        coh_row(s, st ? R32_WBN_STORE : R32_WBN_LOAD);
        return coalesce(c, s, e, op, tag, value) ? 0 : -1;
    }

stable:
    if (l) {
        switch (l->state) {
        case MESI_M:
            coh_row(s, st ? R32_M_STORE : R32_M_LOAD);
            if (!c->replaying)
                c->st.hits++;
            perform(s, c, l, op, tag, value);
            return 1;
        case MESI_E:
            coh_row(s, st ? R32_E_STORE : R32_E_LOAD);
            if (!c->replaying)
                c->st.hits++;
            perform(s, c, l, op, tag, value);
            return 1;
        case MESI_S:
            if (!st) {
                coh_row(s, R32_S_LOAD);
                if (!c->replaying)
                    c->st.hits++;
                perform(s, c, l, op, tag, value);
                return 1;
            }
            if (!(e = cgm_mshr_alloc(&c->mshr, block, KIND_DATA)))
                return -1;
            coh_row(s, R32_S_STORE);
            c->st.upgrades++;
            l->state = MESI_SM;
            coalesce(c, s, e, op, tag, value);
            c->st.coalesced--;
            to_dir(s, c, COH_UPGRADE, block, false);
            return 0;
        default:
            break; /* transient states always have an MSHR entry */
        }
    }

    struct core_wb *wb = wb_find(s, c, block);
    if (wb && !wb->sent) {
        /* I_WB_Writable: merge the block back into the cache. The victim,
         * if written, takes the queue slot the block leaves. */
        struct cgm_cache_line *v = cgm_cache_victim(&c->l1d, block, stable, NULL);
        if (!v)
            return -1;
        uint64_t data = wb->data;
        bool dirty = wb->dirty;
        wb->used = false;
        evict(s, c, v, wb);
        coh_row(s, st ? R32_WBW_STORE : R32_WBW_LOAD);
        c->st.wb_hits++;
        if (!c->replaying)
            c->st.hits++;
        cgm_cache_set_block(&c->l1d, v, block);
        v->state = dirty ? MESI_M : MESI_E;
        v->data = data;
        v->dirty = dirty;
        perform(s, c, v, op, tag, value);
        return 1;
    }
    if (wb) {
        /* I_WB_Non_Writable: wait for the directory's write-back ack. */
        if (!(e = cgm_mshr_alloc(&c->mshr, block, KIND_WBWAIT)))
            return -1;
        coh_row(s, st ? R32_WBN_STORE : R32_WBN_LOAD);
        coalesce(c, s, e, op, tag, value);
        return 0;
    }

    struct cgm_cache_line *v = cgm_cache_victim(&c->l1d, block, stable, NULL);
    if (!v || c->mshr.used >= c->mshr.entries)
        return -1;
    if (v->state && v->dirty && !wb_free_slot(s, c))
        return -1;
    if (!c->replaying)
        c->st.misses++;
    evict(s, c, v, NULL);
    e = cgm_mshr_alloc(&c->mshr, block, KIND_DATA);
    coh_row(s, st ? R32_I_STORE : R32_I_LOAD);
    cgm_cache_set_block(&c->l1d, v, block);
    v->state = st ? MESI_IM : MESI_IS;
    v->dirty = false;
    cgm_cache_touch(&c->l1d, v);
    coalesce(c, s, e, op, tag, value);
    c->st.coalesced--;
    to_dir(s, c, st ? COH_GETX : COH_GET, block, false);
    return 0;
}

static void stall_push(struct cgm_coh_sys *s, struct core *c, const struct stalled *r)
{
    if (c->nstall == c->capstall) {
        unsigned cap = c->capstall ? 2 * c->capstall : 16;
        struct stalled *n = realloc(c->stall, cap * sizeof *n);
        if (!n)
            abort(); /* bounded by the MSHR and coalescer sizes; tiny */
        c->stall = n;
        c->capstall = cap;
    }
    c->stall[c->nstall++] = *r;
    if (!c->stall_wake_pending) {
        c->stall_wake_pending = true;
        s->env.later(s->env.ctx, c->id, 0, COH_WAKE_STALLED);
    }
}

/* Runs the requests an MSHR entry held, in arrival order. */
static void replay(struct cgm_coh_sys *s, struct core *c, struct cgm_mshr_entry *e)
{
    unsigned n = e->n;
    uint64_t block = e->block;
    struct cgm_mshr_waiter w[n ? n : 1];
    memcpy(w, e->w, n * sizeof *w);
    cgm_mshr_release(&c->mshr, e);
    bool was = c->replaying;
    c->replaying = true;
    for (unsigned i = 0; i < n; i++) {
        if (core_access(s, c, w[i].op, block, w[i].tag, w[i].value) < 0) {
            struct stalled r = { .block = block, .tag = w[i].tag, .value = w[i].value, .op = w[i].op };
            stall_push(s, c, &r);
        }
    }
    c->replaying = was;
}

static void fill(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    struct cgm_cache_array *a = m->instr ? &c->l1i : &c->l1d;
    struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, m->block, m->instr ? KIND_INSTR : KIND_DATA);
    struct cgm_cache_line *l = cgm_cache_find(a, m->block);
    if (!e || !l || (l->state != MESI_IS && l->state != MESI_IM && l->state != MESI_SM)) {
        fprintf(stderr, "mesi: core %d got %s for block %llu it is not waiting for\n", c->id,
                cgm_coh_msg_names[m->type], (unsigned long long)m->block);
        cgm_coh_dump_block(s, m->block, stderr);
        abort();
    }
    if (m->type == COH_UPGRADE_ACK) {
        if (l->state != MESI_SM) {
            fprintf(stderr, "mesi: core %d: Upgrade_Ack for block %llu without a shared copy\n",
                    c->id, (unsigned long long)m->block);
            cgm_coh_dump_block(s, m->block, stderr);
            abort();
        }
        l->state = MESI_M;
    } else {
        l->state = m->type == COH_PUTS ? MESI_S : m->type == COH_PUTCLNX ? MESI_E : MESI_M;
        l->data = m->data;
    }
    l->dirty = false;
    if (m->src < (int)s->cfg.cores)
        to_dir(s, c, COH_UNBLOCK, m->block, m->instr);
    replay(s, c, e);
}

/* Resends a NACKed request. An upgrade is resent as an upgrade even if an
 * invalidation took the shared copy meanwhile (the directory then forwards
 * or sends the block); only when the slice has lost the block does it
 * become a GetX. */
static void retry(struct cgm_coh_sys *s, struct core *c, uint64_t block, bool instr, bool upgrade)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, block, instr ? KIND_INSTR : KIND_DATA);
    struct cgm_cache_line *l = cgm_cache_find(instr ? &c->l1i : &c->l1d, block);
    if (!e || !l)
        return;
    c->st.retries++;
    uint8_t t = instr ? COH_GETS : l->state == MESI_IS ? COH_GET : COH_GETX;
    if (!instr && (l->state == MESI_SM || (l->state == MESI_IM && upgrade)))
        t = COH_UPGRADE;
    to_dir(s, c, t, block, instr);
}

/* Inval (another core writes a shared block) or Flush (the directory
 * evicts the block): give up every copy, with the data if written. */
static void invalidate(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    struct cgm_coh_msg ack = { .type = COH_INV_ACK, .src = c->id, .dst = m->src, .block = m->block };
    struct cgm_cache_line *li = cgm_cache_find(&c->l1i, m->block);
    if (li && li->state == MESI_S)
        li->state = MESI_I;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1d, m->block);
    if (l) {
        if (l->state == MESI_S) {
            l->state = MESI_I;
        } else if (l->state == MESI_SM) {
            l->state = MESI_IM; /* the upgrade will be NACKed or answered with data */
        } else if (l->state == MESI_E || l->state == MESI_M) {
            ack.has_data = true;
            ack.dirty = l->dirty;
            ack.data = l->data;
            l->state = MESI_I;
            l->dirty = false;
        }
    }
    struct core_wb *wb = wb_find(s, c, m->block);
    if (wb && !wb->sent && m->type == COH_FLUSH) {
        ack.has_data = true;
        ack.dirty = wb->dirty;
        ack.data = wb->data;
        wb->used = false;
    }
    coh_send(s, ack);
}

static void forward(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    bool x = m->type == COH_GETX_FWD;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1d, m->block);
    if (l && (l->state == MESI_E || l->state == MESI_M)) {
        struct cgm_coh_msg data = { .type = x ? COH_PUTX : COH_PUTS, .src = c->id,
                                    .dst = m->requester, .block = m->block, .data = l->data,
                                    .has_data = true, .instr = m->instr };
        struct cgm_coh_msg ack = { .type = COH_FWD_ACK, .src = c->id, .dst = m->src,
                                   .block = m->block, .data = l->data, .has_data = true,
                                   .dirty = l->dirty };
        coh_send(s, data);
        coh_send(s, ack);
        l->dirty = false;
        l->state = x ? MESI_I : MESI_S;
        return;
    }
    struct core_wb *wb = wb_find(s, c, m->block);
    if (wb && !wb->sent) {
        /* The block waits in the write-back queue: send it now, ahead of
         * the NACK, so the directory has the data when the NACK arrives. */
        struct cgm_coh_msg w = { .type = COH_WB, .src = c->id, .dst = m->src, .block = m->block,
                                 .data = wb->data, .has_data = true, .dirty = wb->dirty };
        coh_send(s, w);
        wb->sent = true;
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
        s->env.later(s->env.ctx, c->id, m->block,
                     COH_WAKE_RETRY + (m->instr ? 16 : 0) +
                     (m->req == COH_UPGRADE && !m->absent ? 32 : 0));
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
        struct core_wb *wb = wb_find(s, c, m->block);
        if (wb && wb->sent)
            wb->used = false;
        struct cgm_mshr_entry *e = cgm_mshr_find(&c->mshr, m->block, KIND_WBWAIT);
        if (e)
            replay(s, c, e);
        break;
    }
    default:
        fprintf(stderr, "mesi: core %d cannot take %s\n", c->id, cgm_coh_msg_names[m->type]);
        abort();
    }
}

void core_wake(struct cgm_coh_sys *s, struct core *c, uint64_t block, int what)
{
    if ((what & 15) == COH_WAKE_RETRY) {
        retry(s, c, block, (what & 16) != 0, (what & 32) != 0);
    } else if (what == COH_WAKE_WB_DRAIN) {
        struct core_wb *wb = wb_find(s, c, block);
        if (wb && !wb->sent) {
            struct cgm_coh_msg w = { .type = COH_WB, .src = c->id, .dst = dir_node(s, block),
                                     .block = block, .data = wb->data, .has_data = true,
                                     .dirty = wb->dirty };
            coh_send(s, w);
            wb->sent = true;
        }
    } else if (what == COH_WAKE_STALLED) {
        c->stall_wake_pending = false;
        unsigned n = c->nstall;
        struct stalled *list = c->stall;
        c->stall = NULL;
        c->nstall = c->capstall = 0;
        c->replaying = true;
        for (unsigned i = 0; i < n; i++)
            if (core_access(s, c, list[i].op, list[i].block, list[i].tag, list[i].value) < 0)
                stall_push(s, c, &list[i]);
        c->replaying = false;
        free(list);
    }
}
