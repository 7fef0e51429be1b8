/* VIPS-G's first level (a core's caches, a CU's vector L1): V/I lines
 * with a P/S bit (D for a core's written private block), misses by GetS,
 * written words of shared blocks through the coalescing write buffer as
 * diffs, private blocks written back, and the synchronisations: an
 * acquire self-invalidates the shared lines once nothing is in flight, a
 * release completes once the write buffer's diffs are acknowledged
 * (seed 002 Sec. 2.2-2.3). Requests that must wait are stalled and run
 * again (coh_stall), so each waits by asking again. */
#include "vips_internal.h"

#include <string.h>

/* A stalled synchronisation that has sent what it waits for. */
enum { VIPS_SENT = 16 };

static const int16_t core_rows[VIPS_C_NROWS] = {
#define CROW_BOTH(id) VC_##id
#define CROW_CORE(id) VC_##id
#define CROW_GPU(id) -1
#define CROW(id, where, text) [VIPS_C_##id] = CROW_##where(id),
#include "cgm/vips_client_rows.def"
#undef CROW
#undef CROW_BOTH
#undef CROW_CORE
#undef CROW_GPU
};
static const int16_t gpu_rows[VIPS_C_NROWS] = {
#define CROW_BOTH(id) VG_##id
#define CROW_CORE(id) -1
#define CROW_GPU(id) VG_##id
#define CROW(id, where, text) [VIPS_C_##id] = CROW_##where(id),
#include "cgm/vips_client_rows.def"
#undef CROW
#undef CROW_BOTH
#undef CROW_CORE
#undef CROW_GPU
};

static void row(struct cgm_coh_sys *s, const struct vips_client *v, enum vips_crow r)
{
    int id = (v->gpu ? gpu_rows : core_rows)[r];
    CGM_CHECK(id >= 0);
    vips_row(s, (unsigned)id);
}

struct vips_client vips_core_view(struct cgm_coh_sys *s, struct core *c)
{
    (void)s;
    return (struct vips_client){
        .ctrl = c, .id = c->id, .node = c->id, .a = &c->l2, .l1d = &c->l1d, .l1i = &c->l1i, .mshr = &c->mshr,
        .wbuf = &c->l1wb, .victims = &c->wb, .stall = &c->stall, .replaying = &c->replaying,
        .hits = &c->st.hits, .misses = &c->st.misses, .self_inv = &c->st.self_invalidations,
        .self_down = &c->st.self_downgrades, .diffs = &c->st.diffs, .diff_bytes = &c->st.diff_bytes,
        .page_downgrades = &c->st.page_downgrades,
    };
}

struct vips_client vips_gpu_l1_view(struct cgm_coh_sys *s, struct gpu_l1 *l1)
{
    (void)s;
    return (struct vips_client){
        .ctrl = l1, .gpu = true, .id = l1->id, .node = l1->node, .a = &l1->a, .mshr = &l1->mshr, .wbuf = &l1->wb,
        .stall = &l1->stall, .replaying = &l1->replaying, .sync_acks = &l1->sync_acks, .hits = &l1->st.hits,
        .misses = &l1->st.misses, .self_inv = &l1->st.self_invalidations, .self_down = &l1->st.self_downgrades,
        .diffs = &l1->st.diffs, .diff_bytes = &l1->st.diff_bytes,
    };
}

/* The node below: a core's slice, a vector L1's bank. */
static int parent(const struct cgm_coh_sys *s, const struct vips_client *v, uint64_t block)
{
    return v->gpu ? coh_gpu_bank_node(s, block) : coh_slice_node(s, block);
}

/* A request run again through the view its controller's call was given
 * (the requests of one replay are one controller's). */
static int access_again(struct cgm_coh_sys *s, void *view, const struct cgm_coh_req *r)
{
    return vips_client_access(s, view, r);
}

static void stall(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r)
{
    coh_stall(s, v->stall, v->node, r);
}

static void done(struct cgm_coh_sys *s, const struct vips_client *v, const struct cgm_coh_req *r, uint64_t value,
                 unsigned level)
{
    if (v->gpu)
        s->env.gpu_done(s->env.ctx, v->id, r->tag, r->op, r->block, value);
    else
        s->env.done(s->env.ctx, v->id, r->tag, r->op, r->block, value, level);
}

/* A core's level for a hit on block: 1 if its first-level cache has the
 * tag, else 2 (the tag comes in). */
static unsigned hit_level(struct vips_client *v, uint64_t block, uint8_t op)
{
    if (v->gpu)
        return 1;
    struct cgm_cache_array *l1 = op == CGM_OP_FETCH ? v->l1i : v->l1d;
    struct cgm_cache_line *t = cgm_cache_find(l1, block);
    if (t) {
        cgm_cache_touch(l1, t);
        return 1;
    }
    t = cgm_cache_victim(l1, block, NULL, NULL);
    cgm_cache_insert(l1, t, block, CGM_HINT_NORMAL);
    t->state = VIPS_V;
    return 2;
}

static void drop_tags(struct vips_client *v, uint64_t block)
{
    if (v->gpu)
        return;
    struct cgm_cache_line *t = cgm_cache_find(v->l1d, block);
    if (t)
        *t = (struct cgm_cache_line){ 0 };
    if ((t = cgm_cache_find(v->l1i, block)))
        *t = (struct cgm_cache_line){ 0 };
}

static void send_diff(struct cgm_coh_sys *s, struct vips_client *v, struct core_wb *e)
{
    struct cgm_coh_msg m = { .type = COH_DIFF, .src = v->node, .dst = parent(s, v, e->block), .block = e->block,
                             .data = e->data, .mask = e->mask, .dirty = true, .requester = v->node };
    e->sent = true;
    (*v->diffs)++;
    *v->diff_bytes += cgm_coh_msg_bytes(s, &m);
    coh_send(s, m);
}

/* Sends every entry not sent yet; returns how many. */
static unsigned send_all(struct cgm_coh_sys *s, struct vips_client *v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < v->wbuf->n; i++)
        if (v->wbuf->e[i].used && !v->wbuf->e[i].sent) {
            send_diff(s, v, &v->wbuf->e[i]);
            n++;
        }
    return n;
}

static bool wbuf_empty(const struct vips_client *v)
{
    for (unsigned i = 0; i < v->wbuf->n; i++)
        if (v->wbuf->e[i].used)
            return false;
    return true;
}

static struct core_wb *unsent_entry(const struct vips_client *v, uint64_t block)
{
    for (unsigned i = 0; i < v->wbuf->n; i++)
        if (v->wbuf->e[i].used && !v->wbuf->e[i].sent && v->wbuf->e[i].block == block)
            return &v->wbuf->e[i];
    return NULL;
}

/* Line l leaves: a written private block as a victim (there is a free
 * victim entry), a shared one's unsent diff sent first so a refetch finds it. */
static void drop_line(struct cgm_coh_sys *s, struct vips_client *v, struct cgm_cache_line *l)
{
    if (l->dirty) {
        struct core_wb *slot = wbq_free(v->victims);
        CGM_CHECK(slot);
        wbq_take(v->victims, slot, (struct core_wb){ .block = l->block, .data = l->data, .used = true, .sent = true,
                                                     .dirty = true });
        coh_send(s, (struct cgm_coh_msg){ .type = COH_WB, .src = v->node, .dst = parent(s, v, l->block),
                                          .block = l->block, .data = l->data, .dirty = true });
    } else {
        struct core_wb *e = unsent_entry(v, l->block);
        if (e)
            send_diff(s, v, e);
    }
    drop_tags(v, l->block);
    coh_line_clear(v->a, l);
}

static int store_hit(struct cgm_coh_sys *s, struct vips_client *v, struct cgm_cache_line *l,
                     const struct cgm_coh_req *r)
{
    if (!coh_meta(v->a, l)->shared) {
        l->data = r->value;
        l->dirty = true;
        l->state = VIPS_D;
        row(s, v, VIPS_C_STORE_PRIVATE);
        done(s, v, r, r->value, hit_level(v, r->block, r->op));
        return 1;
    }
    /* One pass over the write buffer (a store waiting for room asks again
     * every cycle): the block's unsent entry, the first free one, the
     * first unsent one. */
    struct core_wb *e = NULL, *slot = NULL, *oldest = NULL;
    for (unsigned i = 0; i < v->wbuf->n; i++) {
        struct core_wb *w = &v->wbuf->e[i];
        if (!w->used) {
            if (!slot)
                slot = w;
        } else if (!w->sent) {
            if (!oldest)
                oldest = w;
            if (w->block == r->block) {
                e = w;
                break;
            }
        }
    }
    if (e) {
        e->mask = vips_mask_merge(e->mask, r->mask);
        e->data = r->value;
    } else if ((e = slot)) {
        wbq_take(v->wbuf, e, (struct core_wb){ .block = r->block, .data = r->value, .mask = r->mask, .used = true,
                                               .dirty = true });
    } else {
        if (oldest) /* every entry in use: the first unsent is the oldest not sent */
            send_diff(s, v, oldest);
        row(s, v, VIPS_C_WBUF_FULL);
        stall(s, v, r);
        return 0;
    }
    l->data = r->value;
    row(s, v, VIPS_C_STORE_SHARED);
    done(s, v, r, r->value, hit_level(v, r->block, r->op));
    return 1;
}

static int miss(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r)
{
    if (v->victims && wbq_find(v->victims, r->block)) {
        row(s, v, VIPS_C_VICTIM_WAIT);
        stall(s, v, r);
        return 0;
    }
    struct cgm_mshr_waiter w = coh_waiter_of(r);
    struct cgm_mshr_entry *e = cgm_mshr_find(v->mshr, r->block, 0);
    if (e) {
        if (!cgm_mshr_push(e, v->mshr->coalesce, &w))
            return -1;
        row(s, v, VIPS_C_JOIN);
        return 0;
    }
    if (!(e = cgm_mshr_alloc(v->mshr, r->block, 0)))
        return -1;
    cgm_mshr_push(e, v->mshr->coalesce, &w);
    if (!*v->replaying) /* a parked request run again was counted when it came */
        (*v->misses)++;
    row(s, v, r->op == CGM_OP_STORE ? VIPS_C_STORE_MISS : VIPS_C_LOAD_MISS);
    coh_send(s, (struct cgm_coh_msg){ .type = COH_GETS, .src = v->node, .dst = parent(s, v, r->block),
                                      .block = r->block, .flags = r->flags & CGM_COH_SHARED,
                                      .instr = r->op == CGM_OP_FETCH });
    return 0;
}

static int memory_op(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r)
{
    struct cgm_cache_line *l = cgm_cache_find(&v->a->a, r->block);
    if (l && !v->gpu && (r->flags & CGM_COH_SHARED) && !coh_meta(v->a, l)->shared) {
        /* the page turned shared since the block came in (no downgrade
         * reached it): what was written goes back before it is missed */
        if (l->dirty && !wbq_free(v->victims))
            return -1;
        row(s, v, VIPS_C_CLASS_CHANGE);
        drop_line(s, v, l);
        l = NULL;
    }
    if (!l)
        return miss(s, v, r);
    cgm_cache_touch(&v->a->a, l);
    if (r->op == CGM_OP_STORE)
        return store_hit(s, v, l, r);
    if (!*v->replaying)
        (*v->hits)++;
    row(s, v, VIPS_C_LOAD_HIT);
    done(s, v, r, l->data, hit_level(v, r->block, r->op));
    return 1;
}

/* Drops every shared line (nothing is missing: an acquire waits). */
static void self_invalidate(struct cgm_coh_sys *s, struct vips_client *v)
{
    struct cgm_cache_array *a = &v->a->a;
    for (size_t i = 0; i < (size_t)a->sets * a->ways; i++) {
        struct cgm_cache_line *l = &a->lines[i];
        if (l->state && (v->gpu || v->a->line[i].shared)) {
            (*v->self_inv)++;
            drop_line(s, v, l);
        }
    }
}

static int acquire(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r)
{
    if (r->flags & VIPS_SENT) {
        if (*v->sync_acks) {
            stall(s, v, r);
            return 0;
        }
        row(s, v, VIPS_C_ACQUIRE);
        done(s, v, r, 0, 1);
        return 1;
    }
    send_all(s, v);
    /* a miss in flight may bring a block older than the release */
    if (!wbuf_empty(v) || v->mshr->used) {
        row(s, v, VIPS_C_ACQUIRE_WAIT);
        stall(s, v, r);
        return 0;
    }
    self_invalidate(s, v);
    if (v->gpu && (r->flags & CGM_COH_SCOPE_SYSTEM)) {
        for (unsigned b = 0; b < s->cfg.gpu.banks; b++)
            coh_send(s, (struct cgm_coh_msg){ .type = COH_SELF_INV, .src = v->node, .dst = s->gpu_l2[b].node });
        *v->sync_acks += s->cfg.gpu.banks;
        struct cgm_coh_req q = *r;
        q.flags |= VIPS_SENT;
        row(s, v, VIPS_C_SCOPE_SYSTEM);
        stall(s, v, &q);
        return 0;
    }
    row(s, v, VIPS_C_ACQUIRE);
    done(s, v, r, 0, 1);
    return 1;
}

static int release(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r)
{
    *v->self_down += send_all(s, v);
    if (!wbuf_empty(v)) {
        row(s, v, VIPS_C_RELEASE_WAIT);
        stall(s, v, r);
        return 0;
    }
    row(s, v, VIPS_C_RELEASE);
    done(s, v, r, 0, 1);
    return 1;
}

/* The block's page turns shared: a written private copy goes back and
 * the copy is kept, shared. A vector L1 holds nothing written. */
static int downgrade(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r)
{
    if (v->gpu) {
        done(s, v, r, 0, 1);
        return 1;
    }
    if (wbq_find(v->victims, r->block) || cgm_mshr_find(v->mshr, r->block, 0)) {
        row(s, v, VIPS_C_VICTIM_WAIT);
        stall(s, v, r);
        return 0;
    }
    struct cgm_cache_line *l = cgm_cache_find(&v->a->a, r->block);
    if (l && l->dirty) {
        struct core_wb *slot = wbq_free(v->victims);
        if (!slot)
            return -1;
        wbq_take(v->victims, slot, (struct core_wb){ .block = l->block, .data = l->data, .used = true, .sent = true,
                                                     .dirty = true });
        coh_send(s, (struct cgm_coh_msg){ .type = COH_WB, .src = v->node, .dst = parent(s, v, l->block),
                                          .block = l->block, .data = l->data, .dirty = true });
        l->dirty = false;
        l->state = VIPS_V;
        coh_meta(v->a, l)->shared = true;
        (*v->page_downgrades)++;
        row(s, v, VIPS_C_DOWNGRADE_DIRTY);
        stall(s, v, r); /* done once the victim entry is acknowledged */
        return 0;
    }
    if (l)
        coh_meta(v->a, l)->shared = true;
    row(s, v, VIPS_C_DOWNGRADE);
    done(s, v, r, 0, 1);
    return 1;
}

int vips_client_access(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r)
{
    switch (r->op) {
    case CGM_OP_ACQUIRE: return acquire(s, v, r);
    case CGM_OP_RELEASE: return release(s, v, r);
    case CGM_OP_DOWNGRADE: return downgrade(s, v, r);
    case CGM_OP_LOAD: case CGM_OP_STORE: case CGM_OP_FETCH: return memory_op(s, v, r);
    default: /* flushes: nothing to flush beyond a release */
        done(s, v, r, 0, 2);
        return 1;
    }
}

static bool clean(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return !l->dirty;
}

/* The waiting requests of a fill no line can take (every way written,
 * the victim queue full): loads get its data, stores ask again. */
static void serve_unkept(struct cgm_coh_sys *s, struct vips_client *v, struct cgm_mshr_entry *e, uint64_t data)
{
    unsigned n = e->n;
    uint64_t block = e->block;
    struct cgm_mshr_waiter w[n ? n : 1];
    if (n)
        memcpy(w, e->w, n * sizeof *w);
    cgm_mshr_release(v->mshr, e);
    for (unsigned i = 0; i < n; i++) {
        struct cgm_coh_req r = coh_req_of(block, &w[i]);
        if (r.op == CGM_OP_STORE)
            stall(s, v, &r);
        else
            done(s, v, &r, data, 2);
    }
}

static void fill(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_msg *m)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(v->mshr, m->block, 0);
    CGM_CHECK(e);
    row(s, v, VIPS_C_FILL);
    struct cgm_cache_line *l = cgm_cache_victim(&v->a->a, m->block, NULL, NULL);
    if (l->state && l->dirty && !wbq_free(v->victims))
        l = cgm_cache_victim(&v->a->a, m->block, clean, NULL);
    if (!l) {
        serve_unkept(s, v, e, m->data);
        return;
    }
    if (l->state) {
        if (l->dirty)
            row(s, v, VIPS_C_EVICT_DIRTY);
        drop_line(s, v, l);
    }
    cgm_cache_insert(&v->a->a, l, m->block, CGM_HINT_NORMAL);
    l->state = VIPS_V;
    l->data = m->data;
    coh_meta(v->a, l)->shared = v->gpu || (e->n && (e->w[0].flags & CGM_COH_SHARED));
    coh_replay_entry(s, v->mshr, e, access_again, v, v->stall, v->node, v->replaying);
}

static struct core_wb *sent_entry(struct core_wbq *q, uint64_t block)
{
    for (unsigned i = 0; q && i < q->n; i++)
        if (q->e[i].used && q->e[i].sent && q->e[i].block == block)
            return &q->e[i];
    return NULL;
}

void vips_client_deliver(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_msg *m)
{
    struct core_wb *e;
    switch (m->type) {
    case COH_PUTS: fill(s, v, m); break;
    case COH_NACK:
        row(s, v, VIPS_C_NACK);
        s->env.later(s->env.ctx, v->node, m->block, COH_WAKE_RETRY);
        break;
    case COH_WB_ACK:
        e = sent_entry(v->victims, m->block);
        CGM_CHECK(e);
        wbq_release(v->victims, e);
        row(s, v, VIPS_C_WB_ACK);
        break;
    case COH_DIFF_ACK:
        e = sent_entry(v->wbuf, m->block);
        CGM_CHECK(e);
        wbq_release(v->wbuf, e);
        row(s, v, VIPS_C_DIFF_ACK);
        break;
    case COH_SELF_INV_ACK:
        CGM_CHECK(v->sync_acks && *v->sync_acks);
        (*v->sync_acks)--;
        break;
    default: CGM_CHECK(!"a message VIPS-G's first level does not take");
    }
}

void vips_client_wake(struct cgm_coh_sys *s, struct vips_client *v, uint64_t block, int what)
{
    if (what == COH_WAKE_STALLED) {
        v->stall->wake_pending = false;
        coh_replay_stalled(s, access_again, v, v->stall, v->node, v->replaying);
    } else if (what == COH_WAKE_RETRY) {
        struct cgm_mshr_entry *e = cgm_mshr_find(v->mshr, block, 0);
        CGM_CHECK(e && e->n);
        coh_send(s, (struct cgm_coh_msg){ .type = COH_GETS, .src = v->node, .dst = parent(s, v, block),
                                          .block = block, .flags = e->w[0].flags & CGM_COH_SHARED,
                                          .instr = e->w[0].op == CGM_OP_FETCH });
    }
}

unsigned vips_client_copy(const struct vips_client *v, uint64_t block, uint64_t *data)
{
    struct cgm_cache_line *l = cgm_cache_find(&v->a->a, block);
    if (!l)
        return VIPS_I;
    *data = l->data;
    return l->state;
}

void vips_client_dump(const struct vips_client *v, uint64_t block, FILE *out)
{
    struct cgm_cache_line *l = cgm_cache_find(&v->a->a, block);
    fprintf(out, "  %s %d: %s", v->gpu ? "CU" : "core", v->id, l ? (l->state == VIPS_D ? "D" : "V") : "I");
    if (l)
        fprintf(out, " %s data %llu", v->a->line[cgm_cache_line_index(&v->a->a, l)].shared ? "shared" : "private",
                (unsigned long long)l->data);
    if (cgm_mshr_find(v->mshr, block, 0))
        fputs(" (missing)", out);
    for (unsigned i = 0; i < v->wbuf->n; i++)
        if (v->wbuf->e[i].used && v->wbuf->e[i].block == block)
            fprintf(out, " diff %s %llu", v->wbuf->e[i].sent ? "sent" : "held", (unsigned long long)v->wbuf->e[i].data);
    if (v->victims && wbq_find(v->victims, block))
        fputs(" (victim on the way)", out);
    fputc('\n', out);
}
