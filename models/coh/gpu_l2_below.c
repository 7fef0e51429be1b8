/* A GPU L2 bank's lower side (gpu_l2_below.h): what every bank protocol
 * says to its parent and how its victims leave. */
#include "gpu_l2_below.h"
#include "cgm/coh_mesi.h"

#include <stdlib.h>
#include <string.h>

void gpu_l2_to_node(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, struct cgm_coh_msg m)
{
    m.src = b->node;
    m.dst = node;
    coh_send(s, m);
}

int gpu_l2_parent_node(const struct cgm_coh_sys *s, uint64_t block) { return coh_slice_node(s, block); }

void gpu_l2_parent_get(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool exclusive)
{
    if (s->gpu_parent == GPU_PARENT_MEMORY) {
        b->st.mem_reads++;
        s->env.later(s->env.ctx, b->node, block, COH_WAKE_MEM_READ);
        return;
    }
    bool tracked = s->gpu_parent == GPU_PARENT_L3;
    gpu_l2_to_node(s, b, gpu_l2_parent_node(s, block),
                   (struct cgm_coh_msg){ .type = exclusive && tracked ? COH_GETX : COH_GET, .block = block,
                                         .noncoherent = !tracked });
}

static uint64_t now(const struct cgm_coh_sys *s) { return s->env.now ? s->env.now(s->env.ctx) : 0; }

void gpu_l2_fetch(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool exclusive, bool had_victim,
                  uint64_t victim_block)
{
    struct dir_wb *wb = NULL;
    if (had_victim && s->cfg.gpu.l2_victim_policy == CGM_COH_VICTIM_SERIALIZED)
        wb = dwbq_find(&b->wb, victim_block);
    if (!wb) {
        gpu_l2_parent_get(s, b, block, exclusive);
        return;
    }
    wb->then_fetch = true;
    wb->then_block = block;
    wb->since = now(s);
    b->st.victim_waits++;
    if (wb->state == DWB_WRITABLE)
        gpu_l2_wb_send(s, b, wb);
}

bool gpu_l2_victim_flushed(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb)
{
    if (!wb->then_fetch)
        return false;
    uint64_t t = now(s);
    b->st.invalidate_cycles += t - wb->since;
    wb->since = t;
    return true;
}

void gpu_l2_victim_gone(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb)
{
    gpu_l2_frc_victim_left(b, wb);
    if (!wb->then_fetch)
        return;
    wb->then_fetch = false;
    b->st.evict_cycles += now(s) - wb->since;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, wb->then_block);
    if (l && (l->state == MESI_IS || l->state == MESI_IM))
        gpu_l2_parent_get(s, b, wb->then_block, l->state == MESI_IM);
}

/* ---- the FRC ---------------------------------------------------------------- */

bool gpu_l2_frc_miss(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool exclusive)
{
    if (!frc_on(&b->frc))
        return false;
    if (!frc_take(&b->frc, block, exclusive ? FRC_FETCHING_X : FRC_FETCHING)) {
        b->st.frc_full++;
        return false;
    }
    b->st.frc_fetches++;
    b->st.parent_requests++;
    s->env.later(s->env.ctx, b->node, block, COH_WAKE_FRC_FETCH);
    return true;
}

static bool fetching(const struct cgm_cache_line *e)
{
    return e && (e->state == FRC_FETCHING || e->state == FRC_FETCHING_X);
}

bool gpu_l2_frc_pending(struct gpu_l2 *b, uint64_t block)
{
    struct cgm_cache_line *e = frc_find(&b->frc, block);
    return fetching(e) || (e && e->state == FRC_ARRIVED);
}

bool gpu_l2_frc_parent_msg(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    struct cgm_cache_line *e = frc_find(&b->frc, m->block);
    bool fwd = m->type == COH_GET_FWD || m->type == COH_GETX_FWD;
    if (fetching(e)) {
        /* as a line in flight: the directory serves the bank's request
         * first and keeps a forward for once the block is here; an
         * invalidation is of a copy the bank no longer has */
        if (fwd)
            gpu_l2_defer(b, m);
        else
            gpu_l2_to_node(s, b, gpu_l2_parent_node(s, m->block),
                           (struct cgm_coh_msg){ .type = COH_INV_ACK, .block = m->block });
        return true;
    }
    if (e && e->state == FRC_ARRIVED) {
        gpu_l2_defer(b, m); /* answered from the L2 once swapped in (the fill runs what waited) */
        return true;
    }
    return false;
}

void gpu_l2_frc_victim_hit(struct gpu_l2 *b, const struct dir_wb *wb)
{
    if (wb->frc_entry >= 0)
        b->st.frc_hits++;
}

void gpu_l2_frc_victim_left(struct gpu_l2 *b, struct dir_wb *wb)
{
    if (wb->frc_entry < 0)
        return;
    frc_release(&b->frc, &b->frc.a.lines[wb->frc_entry]);
    wb->frc_entry = -1;
}

/* The block the FRC fetched is here: it waits for its swap. */
static bool frc_arrive(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, uint8_t state, uint64_t data)
{
    struct cgm_cache_line *e = frc_find(&b->frc, block);
    if (!fetching(e))
        return false;
    e->state = FRC_ARRIVED;
    e->data = data;
    b->frc.fill[cgm_cache_line_index(&b->frc.a, e)] = state;
    s->env.later(s->env.ctx, b->node, block, COH_WAKE_FRC_SWAP);
    return true;
}

/* Swap: the block takes the L2 victim's way, the victim the entry while it
 * leaves (or the entry frees if it left silently); then the bank's fill. */
static void frc_swap(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, const struct gpu_l2_upper *u)
{
    struct cgm_cache_line *e = frc_find(&b->frc, block);
    if (!e || e->state != FRC_ARRIVED)
        return;
    bool had = false;
    uint64_t victim = 0;
    if (!u->frc_place(s, b, block, &had, &victim)) {
        b->st.frc_swap_waits++;
        s->env.later(s->env.ctx, b->node, block, COH_WAKE_FRC_SWAP);
        return;
    }
    uint8_t state = b->frc.fill[cgm_cache_line_index(&b->frc.a, e)];
    uint64_t data = e->data;
    struct dir_wb *wb = had ? dwbq_find(&b->wb, victim) : NULL;
    if (wb) {
        /* the victim holds the entry (in the block's set, whatever its own)
         * while it leaves; its write-back entry names it */
        frc_retag(&b->frc, e, victim, FRC_EVICTING);
        wb->frc_entry = (int)cgm_cache_line_index(&b->frc.a, e);
    } else {
        frc_release(&b->frc, e);
    }
    b->st.frc_swaps++;
    u->fill(s, b, block, state, data);
}

void gpu_l2_wb_transmit(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb)
{
    if (s->gpu_parent == GPU_PARENT_MEMORY) {
        b->st.mem_writes++;
        s->env.later(s->env.ctx, b->node, wb->block, COH_WAKE_MEM_WRITE);
        return;
    }
    gpu_l2_to_node(s, b, gpu_l2_parent_node(s, wb->block),
                   (struct cgm_coh_msg){ .type = wb->dirty ? COH_WB : COH_EVICT, .block = wb->block,
                                         .data = wb->data, .dirty = wb->dirty,
                                         .noncoherent = s->gpu_parent == GPU_PARENT_L3_UNTRACKED });
}

void gpu_l2_wb_send(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb)
{
    wb->state = DWB_WRITING;
    if (wb->dirty)
        b->st.writebacks++;
    else
        b->st.clean_evictions++;
    gpu_l2_wb_transmit(s, b, wb);
}

void gpu_l2_defer(struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    if (b->ndeferred == b->capdeferred) {
        unsigned cap = b->capdeferred ? 2 * b->capdeferred : 8;
        struct cgm_coh_msg *d = realloc(b->deferred, cap * sizeof *d);
        if (!d) /* at most one parent message per block in flight */
            cgm_oom("coherence: a GPU L2 bank's deferred messages");
        b->deferred = d;
        b->capdeferred = cap;
    }
    b->deferred[b->ndeferred++] = *m;
    b->st.deferred++;
}

bool gpu_l2_undefer(struct gpu_l2 *b, uint64_t block, struct cgm_coh_msg *m)
{
    for (unsigned i = 0; i < b->ndeferred; i++) {
        if (b->deferred[i].block != block)
            continue;
        *m = b->deferred[i];
        memmove(&b->deferred[i], &b->deferred[i + 1], (b->ndeferred - i - 1) * sizeof *m);
        b->ndeferred--;
        return true;
    }
    return false;
}

void gpu_l2_answer_parent(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l)
{
    int dir = gpu_l2_parent_node(s, l->block);
    uint64_t block = l->block;
    const struct coh_line *d = coh_meta(&b->a, l);
    switch (d->req) {
    case COH_GET_FWD:
        gpu_l2_to_node(s, b, d->requester, (struct cgm_coh_msg){ .type = COH_PUTS, .block = block, .data = l->data,
                                                                  .instr = d->instr });
        gpu_l2_to_node(s, b, dir, (struct cgm_coh_msg){ .type = COH_FWD_ACK, .block = block, .data = l->data,
                                                         .dirty = l->dirty });
        l->dirty = false;
        l->state = MESI_S;
        break;
    case COH_GETX_FWD:
        gpu_l2_to_node(s, b, d->requester, (struct cgm_coh_msg){ .type = COH_PUTX, .block = block, .data = l->data,
                                                                  .instr = d->instr });
        gpu_l2_to_node(s, b, dir, (struct cgm_coh_msg){ .type = COH_FWD_ACK, .block = block, .data = l->data,
                                                         .dirty = l->dirty });
        coh_line_clear(&b->a, l);
        break;
    default: /* Inval, Flush */
        gpu_l2_to_node(s, b, dir, (struct cgm_coh_msg){ .type = COH_INV_ACK, .block = block, .data = l->data,
                                                         .dirty = l->dirty });
        coh_line_clear(&b->a, l);
        break;
    }
    b->st.parent_forwards++;
}

uint8_t gpu_l2_fill_state(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    if (s->gpu_parent == GPU_PARENT_L3 && m->src != gpu_l2_parent_node(s, m->block))
        gpu_l2_to_node(s, b, gpu_l2_parent_node(s, m->block), (struct cgm_coh_msg){ .type = COH_UNBLOCK, .block = m->block });
    return s->gpu_parent != GPU_PARENT_L3 ? MESI_E
           : m->type == COH_PUTS          ? MESI_S
           : m->type == COH_PUTCLNX       ? MESI_E
                                          : MESI_M;
}

static void below_error(struct cgm_coh_sys *s, struct gpu_l2 *b, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "%s: GPU L2 bank %d: %s (%s from %d, block %llu)\n", s->proto[CGM_NODE_GPU_L2]->name, b->id, what,
            cgm_coh_msg_names[m->type], m->src, (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

void gpu_l2_parent_msg_absent(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m, struct dir_wb *wb,
                              const struct gpu_l2_upper *u)
{
    bool fwd = m->type == COH_GET_FWD || m->type == COH_GETX_FWD;
    int dir = gpu_l2_parent_node(s, m->block);
    if (wb && wb->state == DWB_WRITABLE) {
        if (fwd) {
            gpu_l2_wb_send(s, b, wb);
        } else if (m->type == COH_FLUSH) {
            gpu_l2_to_node(s, b, dir, (struct cgm_coh_msg){ .type = COH_INV_ACK, .block = m->block, .data = wb->data,
                                                             .dirty = wb->dirty });
            u->wb_free(s, b, wb);
            return;
        }
    }
    gpu_l2_to_node(s, b, dir, (struct cgm_coh_msg){ .type = fwd ? COH_FWD_NACK : COH_INV_ACK, .block = m->block });
}

void gpu_l2_deliver_below(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m,
                          const struct gpu_l2_upper *u)
{
    switch (m->type) {
    case COH_FLUSH:
        if (s->nodes[m->src].kind == CGM_NODE_CORE) {
            u->core_flush(s, b, m->src, m->block);
            return;
        }
        u->parent_msg(s, b, m);
        return;
    case COH_GET_FWD:
    case COH_GETX_FWD:
    case COH_INVAL:
        u->parent_msg(s, b, m);
        return;
    case COH_PUTS:
    case COH_PUTCLNX:
    case COH_PUTX: {
        uint8_t state = gpu_l2_fill_state(s, b, m);
        if (!frc_arrive(s, b, m->block, state, m->data))
            u->fill(s, b, m->block, state, m->data);
        return;
    }
    case COH_NACK:
        b->st.nacks_received++;
        s->env.later(s->env.ctx, b->node, m->block, COH_WAKE_RETRY);
        return;
    case COH_WB_ACK: {
        struct dir_wb *wb = dwbq_find(&b->wb, m->block);
        if (!wb || wb->state != DWB_WRITING)
            below_error(s, b, "a write-back acknowledgement nobody waits for", m);
        u->wb_free(s, b, wb);
        return;
    }
    default:
        below_error(s, b, "unexpected message", m);
    }
}

void gpu_l2_wake_below(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, int what,
                       const struct gpu_l2_upper *u)
{
    struct dir_wb *wb = dwbq_find(&b->wb, block);
    switch (what) {
    case COH_WAKE_RETRY: {
        struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
        struct cgm_cache_line *e = l ? NULL : frc_find(&b->frc, block);
        b->st.retries++;
        if (l && (l->state == MESI_IS || l->state == MESI_IM))
            gpu_l2_parent_get(s, b, block, l->state == MESI_IM);
        else if (fetching(e))
            gpu_l2_parent_get(s, b, block, e->state == FRC_FETCHING_X);
        else if (wb && wb->state == DWB_WRITING)
            gpu_l2_wb_transmit(s, b, wb);
        break;
    }
    case COH_WAKE_WB_DRAIN:
        if (wb && wb->state == DWB_WRITABLE)
            gpu_l2_wb_send(s, b, wb);
        break;
    case COH_WAKE_MEM_READ:
        if (!frc_arrive(s, b, block, MESI_E, s->mem[block]))
            u->fill(s, b, block, MESI_E, s->mem[block]);
        break;
    case COH_WAKE_FRC_FETCH: {
        struct cgm_cache_line *e = frc_find(&b->frc, block);
        if (fetching(e))
            gpu_l2_parent_get(s, b, block, e->state == FRC_FETCHING_X);
        break;
    }
    case COH_WAKE_FRC_SWAP:
        frc_swap(s, b, block, u);
        break;
    case COH_WAKE_MEM_WRITE:
        if (wb && wb->state == DWB_WRITING) {
            s->mem[block] = wb->data;
            u->wb_free(s, b, wb);
        }
        break;
    default:
        break;
    }
}
