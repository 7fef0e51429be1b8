/* VIPS-G's GPU L2 bank: the cache of the GPU as one logical core (seed
 * 002 Sec. 2.2.2). It answers its CUs' GetS (a miss asks the L3 slice),
 * keeps each line's P/S bit from the request that brought it, writes every
 * diff through to the slice (so it never holds written data: a page
 * downgrade has nothing to write back here) and drops its shared lines at
 * a system-scope acquire (SelfInv). A CU's miss that finds the MSHR or its
 * entry's coalescer full is NACKed and asked again. */
#include "vips_internal.h"

/* An MSHR entry whose block was written or self-invalidated while
 * missing: its fill is passed on and not kept. */
enum { MISS_STALE = 1 };

/* The MSHR entry of block, stale or not. */
static struct cgm_mshr_entry *missing(struct gpu_l2 *b, uint64_t block)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&b->mshr, block, 0);
    return e ? e : cgm_mshr_find(&b->mshr, block, MISS_STALE);
}

static void put(struct cgm_coh_sys *s, struct gpu_l2 *b, int dst, uint64_t block, uint64_t data)
{
    coh_send(s, (struct cgm_coh_msg){ .type = COH_PUTS, .src = b->node, .dst = dst, .block = block, .data = data });
}

static void gets(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    b->st.requests++;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, m->block);
    if (l && (m->flags & CGM_COH_SHARED) && !coh_meta(&b->a, l)->shared) {
        vips_row(s, VB_CLASS_CHANGE);
        coh_line_clear(&b->a, l);
        l = NULL;
    }
    if (l) {
        cgm_cache_touch(&b->a.a, l);
        b->st.hits++;
        vips_row(s, VB_GETS_HIT);
        put(s, b, m->src, m->block, l->data);
        return;
    }
    struct cgm_mshr_waiter w = { .tag = (uint64_t)m->src, .flags = m->flags };
    struct cgm_mshr_entry *e = missing(b, m->block);
    bool fresh = !e;
    if (fresh)
        e = cgm_mshr_alloc(&b->mshr, m->block, 0);
    if (!e || !cgm_mshr_push(e, b->mshr.coalesce, &w)) {
        if (e && fresh)
            cgm_mshr_release(&b->mshr, e);
        b->st.nacks_sent++;
        vips_row(s, VB_NACK);
        coh_send(s, (struct cgm_coh_msg){ .type = COH_NACK, .src = b->node, .dst = m->src, .block = m->block,
                                          .req = COH_GETS });
        return;
    }
    if (!fresh) {
        b->st.coalesced++;
        vips_row(s, VB_GETS_JOIN);
        return;
    }
    b->st.misses++;
    b->st.parent_requests++;
    vips_row(s, VB_GETS_MISS);
    coh_send(s, (struct cgm_coh_msg){ .type = COH_GETS, .src = b->node, .dst = coh_slice_node(s, m->block),
                                      .block = m->block, .flags = m->flags & CGM_COH_SHARED });
}

static void fill(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    struct cgm_mshr_entry *e = missing(b, m->block);
    CGM_CHECK(e);
    if (e->kind == MISS_STALE) {
        vips_row(s, VB_FILL_STALE);
    } else {
        vips_row(s, VB_FILL);
        struct cgm_cache_line *l = cgm_cache_victim(&b->a.a, m->block, NULL, NULL);
        if (l->state)
            b->st.evictions++;
        coh_line_clear(&b->a, l);
        cgm_cache_insert(&b->a.a, l, m->block, CGM_HINT_NORMAL);
        l->state = VIPS_V;
        l->data = m->data;
        coh_meta(&b->a, l)->shared = e->n && (e->w[0].flags & CGM_COH_SHARED);
    }
    for (unsigned i = 0; i < e->n; i++)
        put(s, b, (int)e->w[i].tag, m->block, m->data);
    cgm_mshr_release(&b->mshr, e);
}

/* A CU's diff: the bank's copy takes it, the slice gets it, its
 * acknowledgement goes back to the CU (requester). A fill still to come
 * may predate it: it is not kept. */
static void diff(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, m->block);
    if (l)
        l->data = m->data;
    struct cgm_mshr_entry *e = missing(b, m->block);
    if (e)
        e->kind = MISS_STALE;
    vips_row(s, VB_DIFF);
    struct cgm_coh_msg f = *m;
    f.src = b->node;
    f.dst = coh_slice_node(s, m->block);
    f.requester = m->src;
    coh_send(s, f);
}

static void self_invalidate(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    struct cgm_cache_array *a = &b->a.a;
    for (size_t i = 0; i < (size_t)a->sets * a->ways; i++)
        if (a->lines[i].state && b->a.line[i].shared) {
            b->st.self_invalidations++;
            coh_line_clear(&b->a, &a->lines[i]);
        }
    for (unsigned i = 0; i < b->mshr.entries; i++)
        if (b->mshr.e[i].used && b->mshr.e[i].n && (b->mshr.e[i].w[0].flags & CGM_COH_SHARED))
            b->mshr.e[i].kind = MISS_STALE;
    vips_row(s, VB_SELF_INV);
    coh_send(s, (struct cgm_coh_msg){ .type = COH_SELF_INV_ACK, .src = b->node, .dst = m->src });
}

void vips_gpu_l2_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct gpu_l2 *b = ctrl;
    switch (m->type) {
    case COH_GETS: gets(s, b, m); break;
    case COH_PUTS: fill(s, b, m); break;
    case COH_DIFF: diff(s, b, m); break;
    case COH_DIFF_ACK:
        vips_row(s, VB_DIFF_ACK);
        coh_send(s, (struct cgm_coh_msg){ .type = COH_DIFF_ACK, .src = b->node, .dst = m->requester,
                                          .block = m->block });
        break;
    case COH_SELF_INV: self_invalidate(s, b, m); break;
    default: CGM_CHECK(!"a message VIPS-G's GPU L2 does not take");
    }
}

void vips_gpu_l2_wake(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what)
{
    (void)s, (void)ctrl, (void)block, (void)what; /* it asks nothing of memory itself */
}

unsigned vips_gpu_l2_copy(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data)
{
    (void)s;
    struct gpu_l2 *b = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    if (!l)
        return VIPS_I;
    *data = l->data;
    return l->state;
}

void vips_gpu_l2_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out)
{
    (void)s;
    struct gpu_l2 *b = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    fprintf(out, "  GPU L2 bank %d: %s", b->id, l ? "V" : "I");
    if (l)
        fprintf(out, " %s data %llu", coh_meta(&b->a, l)->shared ? "shared" : "private", (unsigned long long)l->data);
    if (missing(b, block))
        fputs(" (missing)", out);
    fputc('\n', out);
}

bool vips_gpu_l2_admits(struct cgm_coh_sys *s, void *ctrl)
{
    (void)s;
    struct gpu_l2 *b = ctrl;
    if (b->mshr.used < b->mshr.entries) {
        b->full = false;
        return true;
    }
    if (!b->full) {
        b->full = true;
        b->st.full_stalls++;
    }
    return false;
}

bool vips_gpu_l2_refusal_counted(const struct cgm_coh_sys *s, void *ctrl)
{
    (void)s;
    const struct gpu_l2 *b = ctrl;
    return b->full && b->mshr.used == b->mshr.entries;
}
