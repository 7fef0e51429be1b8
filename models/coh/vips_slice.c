/* VIPS-G's L3 slice: a shared cache of memory without a directory (seed
 * 002 Sec. 2.2: no sharers are tracked, the first levels keep themselves
 * coherent by self-invalidation). GetS is answered with the block (after
 * a memory read on a miss); diffs and write-backs are merged into the
 * block, written or missing, and acknowledged; written victims go to
 * memory. A message that finds no way free (every one missing) or the
 * write-back queue full waits, and every later one behind it, so each
 * channel stays in order. */
#include "vips_internal.h"

#include <stdlib.h>
#include <string.h>

/* The cores waiting for a missing block are its line's sharers (bits by
 * core), its GPU bank the line's requester (a block has one bank). */
static void add_waiter(struct cgm_coh_sys *s, struct coh_line *ml, int src)
{
    if (s->nodes[src].kind == CGM_NODE_CORE)
        ml->sharers |= 1ull << s->nodes[src].index;
    else
        ml->requester = src;
}

static void put(struct cgm_coh_sys *s, struct slice *sl, int dst, uint64_t block, uint64_t data)
{
    coh_send(s, (struct cgm_coh_msg){ .type = COH_PUTS, .src = sl->node, .dst = dst, .block = block, .data = data });
}

static bool not_missing(const struct cgm_cache_line *l, void *ctx)
{
    const struct coh_array *a = ctx;
    return !a->line[cgm_cache_line_index(&a->a, l)].pending;
}

/* A line for block, missing (its memory read asked); NULL if every way
 * is missing or a written victim finds the write-back queue full. */
static struct cgm_cache_line *allocate(struct cgm_coh_sys *s, struct slice *sl, uint64_t block)
{
    struct cgm_cache_line *l = cgm_cache_victim(&sl->l3.a, block, not_missing, &sl->l3);
    if (!l)
        return NULL;
    if (l->state && l->dirty) {
        struct dir_wb *wb = dwbq_free(&sl->wb);
        if (!wb)
            return NULL;
        dwbq_take(&sl->wb, wb, l->block, DWB_WRITING);
        wb->data = l->data;
        wb->dirty = true;
        sl->st.mem_writes++;
        vips_row(s, VS_EVICT_DIRTY);
        s->env.later(s->env.ctx, sl->node, l->block, COH_WAKE_MEM_WRITE);
    }
    if (l->state)
        sl->st.evictions++;
    coh_line_clear(&sl->l3, l);
    cgm_cache_insert(&sl->l3.a, l, block, CGM_HINT_NORMAL);
    l->state = VIPS_V;
    coh_meta(&sl->l3, l)->pending = 1;
    coh_meta(&sl->l3, l)->requester = -1;
    sl->st.mem_reads++;
    s->env.later(s->env.ctx, sl->node, block, COH_WAKE_MEM_READ);
    return l;
}

/* false if m must wait. */
static bool gets(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, m->block);
    if (l && !coh_meta(&sl->l3, l)->pending) {
        cgm_cache_touch(&sl->l3.a, l);
        sl->st.hits++;
        vips_row(s, VS_GETS_HIT);
        put(s, sl, m->src, m->block, l->data);
        return true;
    }
    if (l) {
        vips_row(s, VS_GETS_JOIN);
        add_waiter(s, coh_meta(&sl->l3, l), m->src);
        return true;
    }
    struct dir_wb *wb = dwbq_find(&sl->wb, m->block);
    if (wb) {
        vips_row(s, VS_GETS_VICTIM);
        put(s, sl, m->src, m->block, wb->data);
        return true;
    }
    if (!(l = allocate(s, sl, m->block)))
        return false;
    sl->st.misses++;
    vips_row(s, VS_GETS_MISS);
    add_waiter(s, coh_meta(&sl->l3, l), m->src);
    return true;
}

/* A diff or a write-back: merged (one value per block stands for its
 * words: the newest written), then acknowledged. */
static bool write(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, m->block);
    struct dir_wb *wb = l ? NULL : dwbq_find(&sl->wb, m->block);
    if (l) {
        vips_row(s, VS_WRITE);
    } else if (wb) {
        vips_row(s, VS_WRITE_VICTIM);
        wb->data = m->data; /* its memory write, done or not, writes this */
    } else if ((l = allocate(s, sl, m->block))) {
        vips_row(s, VS_WRITE_MISS);
    } else {
        return false;
    }
    if (l) {
        l->data = m->data;
        l->dirty = true;
        l->state = VIPS_D;
    }
    coh_send(s, (struct cgm_coh_msg){ .type = m->type == COH_DIFF ? COH_DIFF_ACK : COH_WB_ACK, .src = sl->node,
                                      .dst = m->src, .block = m->block, .requester = m->requester });
    return true;
}

static bool take(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m)
{
    switch (m->type) {
    case COH_GETS: return gets(s, sl, m);
    case COH_DIFF: case COH_WB: return write(s, sl, m);
    default: CGM_CHECK(!"a message VIPS-G's slice does not take"); return true;
    }
}

static void defer(struct slice *sl, const struct cgm_coh_msg *m)
{
    if (sl->ndeferred == sl->capdeferred) {
        unsigned cap = sl->capdeferred ? 2 * sl->capdeferred : 16;
        struct cgm_coh_msg *q = realloc(sl->deferred, cap * sizeof *q);
        if (!q) /* bounded by the requests the first levels have in flight */
            cgm_oom("coherence: a slice's deferred messages");
        sl->deferred = q;
        sl->capdeferred = cap;
    }
    sl->deferred[sl->ndeferred++] = *m;
}

/* The deferred messages in order, up to the first that must wait again. */
static void run_deferred(struct cgm_coh_sys *s, struct slice *sl)
{
    unsigned i = 0;
    while (i < sl->ndeferred && take(s, sl, &sl->deferred[i]))
        i++;
    if (!i) /* nothing taken (and no array yet when none was deferred) */
        return;
    memmove(sl->deferred, sl->deferred + i, (sl->ndeferred - i) * sizeof *sl->deferred);
    sl->ndeferred -= i;
}

void vips_slice_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct slice *sl = ctrl;
    sl->st.requests++;
    if (sl->ndeferred || !take(s, sl, m)) {
        vips_row(s, VS_DEFER);
        defer(sl, m);
    }
}

void vips_slice_wake(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what)
{
    struct slice *sl = ctrl;
    if (what == COH_WAKE_MEM_READ) {
        struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block);
        struct coh_line *ml = l ? coh_meta(&sl->l3, l) : NULL;
        CGM_CHECK(ml && ml->pending);
        if (!l->dirty)
            l->data = s->mem[block];
        ml->pending = 0;
        vips_row(s, VS_FILL);
        for (uint64_t w = ml->sharers; w; w &= w - 1)
            put(s, sl, __builtin_ctzll(w), block, l->data);
        if (ml->requester >= 0)
            put(s, sl, ml->requester, block, l->data);
        ml->sharers = 0;
        ml->requester = -1;
    } else if (what == COH_WAKE_MEM_WRITE) {
        struct dir_wb *wb = dwbq_find(&sl->wb, block);
        CGM_CHECK(wb);
        s->mem[block] = wb->data;
        dwbq_release(&sl->wb, wb);
        vips_row(s, VS_MEM_WRITTEN);
    }
    run_deferred(s, sl);
}

void vips_slice_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out)
{
    (void)s;
    struct slice *sl = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block);
    fprintf(out, "  slice %d: %s", sl->id, !l ? "I" : l->state == VIPS_D ? "D" : "V");
    if (l)
        fprintf(out, " data %llu%s", (unsigned long long)l->data,
                coh_meta(&sl->l3, l)->pending ? " (memory read in flight)" : "");
    if (dwbq_find(&sl->wb, block))
        fputs(" (victim on its way to memory)", out);
    fprintf(out, ", %u deferred\n", sl->ndeferred);
}
