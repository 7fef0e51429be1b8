/* The si protocol's GPU L2 bank (cgm/si_rows.def, table "SI L2"): write-back
 * and non-inclusive. It keeps no holders: the vector L1s' copies are
 * valid-only and made coherent by software (their invalidation), so the bank
 * never recalls or invalidates them, and a CU's store arrives as a WriteDiff
 * (the written bytes and their byte mask) that the bank merges into its line
 * and acknowledges, with no grant first. Its lower side (requests to the
 * parent, the write-back queue, the parent's forwards and invalidations) is
 * gpu_l2_below.c's, as for MESI's bank, so coherence with the CPU is as
 * under mesi: in C-L3 the bank is the GPU's holder at the L3.
 *
 * A request is classified once (classify) and dispatched; the row is
 * counted where it was performed. A miss takes an MSHR entry, a way (a
 * victim leaves through the write-back queue if written, or notifies the
 * L3 if it was exclusive there) and asks below: a write asks for the block
 * exclusively, since it is merged into the whole block the parent gives.
 * Requests for a block in flight coalesce in its MSHR entry and run again
 * when the block arrives. An SLC request passes through: a miss of SLC
 * requests only gives its way up once they have run. The serialized victim
 * policy and the FRC (a miss taking an FRC entry instead of a way, its
 * victim chosen when the block arrives: frc_place) are gpu_l2_below.c's. */
#include "gpu_l2_below.h"
#include "si_internal.h"

#include <string.h>

/* ---- sending ------------------------------------------------------------ */

static void to_cu(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, struct cgm_coh_msg m)
{
    m.src = b->node;
    m.dst = s->gpu_l1[cu].node;
    coh_send(s, m);
}

static void nack_cu(struct cgm_coh_sys *s, struct gpu_l2 *b, int cu, uint8_t req, uint64_t block)
{
    b->st.nacks_sent++;
    to_cu(s, b, cu, (struct cgm_coh_msg){ .type = COH_NACK, .block = block, .req = req });
}

static void protocol_error(struct cgm_coh_sys *s, struct gpu_l2 *b, const char *what, const struct cgm_coh_msg *m)
{
    fprintf(stderr, "si: GPU L2 bank %d: %s (%s from %d, block %llu)\n", b->id, what, cgm_coh_msg_names[m->type],
            m->src, (unsigned long long)m->block);
    cgm_coh_dump_block(s, m->block, stderr);
    abort();
}

/* ---- lines and victims ---------------------------------------------------- */

static bool settled(const struct cgm_cache_line *l)
{
    return l->state == MESI_S || l->state == MESI_E || l->state == MESI_M;
}

/* A way that may be given up: settled (no request of its own in flight). */
static bool may_go(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return settled(l);
}

/* Frees way v: a written block (or, the L3 tracking the GPU, an exclusive
 * one the L3 must hear of) goes to the write-back queue, a clean one
 * leaves silently (an unwritten exclusive one too when the queue is full:
 * a forward for it then finds nothing). No CU is asked for anything: the
 * bank is not inclusive of the L1s. false if a written block finds the
 * queue full. */
static bool evict(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *v)
{
    if (!v->state)
        return true;
    bool notify = s->gpu_parent == GPU_PARENT_L3 && (v->state == MESI_E || v->state == MESI_M);
    struct dir_wb *slot = v->dirty || notify ? dwbq_free(&b->wb) : NULL;
    if (!slot && v->dirty)
        return false;
    if (slot) {
        dwbq_take(&b->wb, slot, v->block, DWB_WRITABLE);
        slot->data = v->data;
        slot->dirty = v->dirty;
        slot->notify = notify;
        slot->njoin = 0;
        s->env.later(s->env.ctx, b->node, v->block, COH_WAKE_WB_DRAIN);
    }
    b->st.evictions++;
    coh_line_clear(&b->a, v);
    return true;
}

/* ---- requests from the CUs -------------------------------------------------- */

/* A CU's request as the MSHR keeps it: tag the CU, op Get or WriteDiff,
 * value and mask a write's. */
static struct cgm_mshr_waiter cu_request(int cu, uint8_t type, uint8_t flags, uint64_t data, uint64_t mask)
{
    return (struct cgm_mshr_waiter){ .tag = (uint64_t)cu, .op = type, .flags = flags, .value = data, .mask = mask };
}

static void request(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_mshr_waiter *w, uint64_t block);

/* The bytes of a write go into the line, which is then written. */
static void merge(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, const struct cgm_mshr_waiter *w)
{
    l->data = w->value;
    l->dirty = true;
    l->state = MESI_M;
    to_cu(s, b, (int)w->tag, (struct cgm_coh_msg){ .type = COH_DIFF_ACK, .block = l->block });
}

static void start_miss(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l, bool exclusive,
                       bool had_victim, uint64_t victim_block)
{
    l->state = exclusive ? MESI_IM : MESI_IS;
    coh_meta(&b->a, l)->owner = -1;
    coh_meta(&b->a, l)->pending = 0;
    /* Whether to keep the line once its waiters have run: no while only
     * SLC requests wait for it. */
    coh_meta(&b->a, l)->instr = false;
    b->st.parent_requests++;
    gpu_l2_fetch(s, b, l->block, exclusive, had_victim, victim_block);
}

/* Waiter w joins the entry of a block in flight; a non-SLC one makes the
 * line stay. false if the entry is full. */
static bool coalesce(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_mshr_entry *e, const struct cgm_mshr_waiter *w)
{
    if (!cgm_mshr_push(e, s->cfg.gpu.l2_coalesce, w))
        return false;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, e->block);
    if (l && !(w->flags & CGM_COH_SLC))
        coh_meta(&b->a, l)->instr = false;
    return true;
}

/* I (or S for a write): an MSHR entry, a way (the line's own for an S
 * write), then the parent. This is where a victim is chosen and leaves:
 * a replacement policy's hook belongs here. false if the MSHR is full or
 * no way may be given up. */
static bool miss(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_mshr_waiter *w, uint64_t block,
                 struct cgm_cache_line *l)
{
    if (b->mshr.used >= b->mshr.entries) {
        b->st.mshr_nacks++;
        return false;
    }
    bool had = false;
    uint64_t vblock = 0;
    if (!l && gpu_l2_frc_miss(s, b, block, w->op == COH_DIFF)) {
        /* the FRC fetches it; the way is chosen when it arrives (frc_place) */
        cgm_mshr_push(cgm_mshr_alloc(&b->mshr, block, 0), s->cfg.gpu.l2_coalesce, w);
        return true;
    }
    if (!l) {
        l = cgm_cache_victim(&b->a.a, block, may_go, NULL);
        had = l && l->state;
        vblock = l ? l->block : 0;
        if (!l || !evict(s, b, l))
            return false;
        cgm_cache_insert(&b->a.a, l, block, CGM_HINT_NORMAL);
        l->dirty = false;
    }
    struct cgm_mshr_entry *e = cgm_mshr_alloc(&b->mshr, block, 0);
    cgm_mshr_push(e, s->cfg.gpu.l2_coalesce, w);
    start_miss(s, b, l, w->op == COH_DIFF, had, vblock);
    coh_meta(&b->a, l)->instr = (w->flags & CGM_COH_SLC) != 0;
    return true;
}

/* I_WB_Writable: the victim comes back into a way (one that may go) and
 * the request is a hit. */
static bool merge_back(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb, const struct cgm_mshr_waiter *w)
{
    struct cgm_cache_line *v = cgm_cache_victim(&b->a.a, wb->block, may_go, NULL);
    if (!v)
        return false;
    uint64_t block = wb->block, data = wb->data;
    bool dirty = wb->dirty;
    gpu_l2_frc_victim_hit(b, wb);
    gpu_l2_frc_victim_left(b, wb);
    dwbq_release(&b->wb, wb); /* nothing joins a writable entry */
    if (!evict(s, b, v))
        protocol_error(s, b, "no write-back entry for a victim after one was freed",
                       &(struct cgm_coh_msg){ .type = COH_WB, .block = block });
    b->st.wb_hits++;
    cgm_cache_insert(&b->a.a, v, block, CGM_HINT_NORMAL);
    v->data = data;
    v->dirty = dirty;
    v->state = dirty ? MESI_M : MESI_E;
    if (w->op == COH_DIFF)
        merge(s, b, v, w);
    else
        to_cu(s, b, (int)w->tag, (struct cgm_coh_msg){ .type = COH_PUTS, .block = block, .data = v->data });
    return true;
}

/* The substates of a CU's request at the bank. */
enum sub { SUB_S, SUB_E, SUB_M, SUB_PENDING, SUB_I, SUB_WB_WRITABLE, SUB_WB_LEAVING };

static enum sub classify(struct gpu_l2 *b, const struct cgm_cache_line *l, uint64_t block, struct dir_wb **wbp)
{
    if (l)
        return l->state == MESI_M ? SUB_M : l->state == MESI_E ? SUB_E : l->state == MESI_S ? SUB_S : SUB_PENDING;
    if (gpu_l2_frc_pending(b, block))
        return SUB_PENDING; /* in flight in the FRC (its MSHR entry as a line's) */
    struct dir_wb *wb = *wbp = dwbq_find(&b->wb, block);
    return !wb ? SUB_I : wb->state == DWB_WRITABLE ? SUB_WB_WRITABLE : SUB_WB_LEAVING;
}

static void request(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_mshr_waiter *w, uint64_t block)
{
    bool wr = w->op == COH_DIFF, slc = w->flags & CGM_COH_SLC;
    int cu = (int)w->tag;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    struct dir_wb *wb = NULL;
    enum sub sub = classify(b, l, block, &wb);
    enum cgm_si_row row;
    bool done = true;
    /* Counted as MESI's bank counts: a miss where the line is absent, a
     * hit where it is present and settled (an S line's write included). */
    if (!l && sub != SUB_PENDING) {
        b->st.misses++;
    } else if (l && settled(l)) {
        cgm_cache_touch(&b->a.a, l);
        b->st.hits++;
    }
    switch (sub) {
    case SUB_M:
    case SUB_E:
    case SUB_S:
        if (wr && sub == SUB_S) {
            /* Shared at the L3: the write waits for the exclusive copy. */
            done = miss(s, b, w, block, l);
            row = SIB_S_WRITE;
            break;
        }
        if (wr)
            merge(s, b, l, w);
        else
            to_cu(s, b, cu, (struct cgm_coh_msg){ .type = COH_PUTS, .block = block, .data = l->data });
        row = !wr ? SIB_HIT_LOAD : sub == SUB_M ? SIB_M_WRITE : SIB_E_WRITE;
        break;
    case SUB_PENDING:
        done = coalesce(s, b, cgm_mshr_find(&b->mshr, block, 0), w);
        if (done)
            b->st.coalesced++;
        row = wr ? SIB_PENDING_WRITE : SIB_PENDING_LOAD;
        break;
    case SUB_I:
        done = miss(s, b, w, block, NULL);
        row = wr ? (slc ? SIB_I_SLC_WRITE : SIB_I_WRITE) : (slc ? SIB_I_SLC_LOAD : SIB_I_LOAD);
        break;
    case SUB_WB_WRITABLE:
        done = merge_back(s, b, wb, w);
        row = wr ? SIB_WBW_WRITE : SIB_WBW_LOAD;
        break;
    default: /* SUB_WB_LEAVING: a load waits for the victim to leave; a
              * write, whose bytes a join cannot keep, is asked again */
        done = !wr && wb->njoin < s->gpu_l2_joins;
        if (done) {
            wb->join[wb->njoin++] = (struct joined){ .src = cu, .type = COH_GET };
            b->st.joins++;
            gpu_l2_frc_victim_hit(b, wb);
        }
        row = SIB_WBNW_LOAD;
        break;
    }
    if (!done) {
        nack_cu(s, b, cu, wr ? COH_DIFF : COH_GET, block);
        row = wr ? SIB_NACK_WRITE : SIB_NACK_LOAD;
    }
    si_row(s, row);
}

/* ---- below: fills, the write-back queue, the parent ---------------------- */

static void gpu_flush(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, uint64_t block);
static void parent_msg(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m);

static void rerun(struct cgm_coh_sys *s, void *bank, const struct joined *j, uint64_t block)
{
    if (j->type == COH_FLUSH) {
        gpu_flush(s, bank, j->src, block);
    } else {
        struct cgm_mshr_waiter w = cu_request(j->src, COH_GET, 0, 0, 0);
        request(s, bank, &w, block);
    }
}

static void wb_free(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb)
{
    gpu_l2_victim_gone(s, b, wb);
    dwb_release(&b->wb, wb, rerun, s, b);
}

static void run_deferred(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block)
{
    struct cgm_coh_msg m;
    if (gpu_l2_undefer(b, block, &m))
        parent_msg(s, b, &m);
}

/* The block arrives for the bank's request: the waiters run again in
 * order (now hits); a line only SLC requests waited for then leaves. */
static void fill(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, uint8_t state, uint64_t data)
{
    struct cgm_mshr_entry *e = cgm_mshr_find(&b->mshr, block, 0);
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    if (!e || !l || settled(l))
        protocol_error(s, b, "a block it is not waiting for",
                       &(struct cgm_coh_msg){ .type = COH_PUTX, .src = b->node, .block = block });
    bool keep = !coh_meta(&b->a, l)->instr;
    l->state = state;
    l->data = data;
    l->dirty = false;
    unsigned n = e->n;
    struct cgm_mshr_waiter w[n ? n : 1];
    memcpy(w, e->w, n * sizeof *w);
    cgm_mshr_release(&b->mshr, e);
    si_row(s, keep ? SIB_FILL : SIB_FILL_BYPASS);
    for (unsigned i = 0; i < n; i++)
        request(s, b, &w[i], block);
    /* Passed through: the way goes unless a waiter started another
     * request of the block (an S line's write) or a victim finds no
     * write-back entry (then it stays, as an ordinary line). */
    l = cgm_cache_find(&b->a.a, block);
    if (!keep && l && settled(l) && !cgm_mshr_find(&b->mshr, block, 0))
        evict(s, b, l);
    run_deferred(s, b, block);
}

/* A core asks to flush a block from the GPU's caches (the CUs' copies are
 * software's to drop): the line leaves and the core hears once it is
 * written. */
static void gpu_flush(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, uint64_t block)
{
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    struct dir_wb *wb = l ? NULL : dwbq_find(&b->wb, block);
    if ((l && !settled(l)) || cgm_mshr_find(&b->mshr, block, 0) || (wb && wb->njoin == s->gpu_l2_joins) ||
        (l && !evict(s, b, l))) {
        b->st.nacks_sent++;
        gpu_l2_to_node(s, b, node, (struct cgm_coh_msg){ .type = COH_NACK, .block = block, .req = COH_FLUSH });
        si_row(s, SIB_CORE_FLUSH_BUSY);
        return;
    }
    si_row(s, l ? SIB_CORE_FLUSH : SIB_CORE_FLUSH_ABSENT);
    if (l) {
        b->st.flushes++;
        wb = dwbq_find(&b->wb, block);
    }
    if (wb) {
        if (wb->state == DWB_WRITABLE)
            gpu_l2_wb_send(s, b, wb);
        wb->join[wb->njoin++] = (struct joined){ .src = node, .type = COH_FLUSH };
        return;
    }
    gpu_l2_to_node(s, b, node, (struct cgm_coh_msg){ .type = COH_WB_ACK, .block = block, .req = COH_FLUSH });
}

/* The FRC's block takes the way of a victim, evicted as at a miss; the
 * line is kept after its fill unless only SLC requests waited for it. */
static struct cgm_cache_line *frc_place(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool *had,
                                        uint64_t *victim)
{
    struct cgm_cache_line *v = cgm_cache_victim(&b->a.a, block, may_go, NULL);
    if (!v)
        return NULL;
    *had = v->state != 0;
    *victim = v->block;
    if (!evict(s, b, v))
        return NULL;
    cgm_cache_insert(&b->a.a, v, block, CGM_HINT_NORMAL);
    v->dirty = false;
    v->state = MESI_IS; /* until the fill that follows */
    coh_meta(&b->a, v)->owner = -1;
    coh_meta(&b->a, v)->pending = 0;
    const struct cgm_mshr_entry *e = cgm_mshr_find(&b->mshr, block, 0);
    bool slc_only = true;
    for (unsigned i = 0; e && i < e->n; i++)
        slc_only = slc_only && (e->w[i].flags & CGM_COH_SLC);
    coh_meta(&b->a, v)->instr = slc_only;
    return v;
}

/* The bank's part in its lower side's messages (gpu_l2_below.h). */
static const struct gpu_l2_upper upper = { .core_flush = gpu_flush, .parent_msg = parent_msg, .fill = fill,
                                           .wb_free = wb_free, .frc_place = frc_place };

/* A forward, invalidation or flush from the L3 directory. No CU is asked:
 * the bank answers from its own line at once. */
static void parent_msg(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m)
{
    bool fwd = m->type == COH_GET_FWD || m->type == COH_GETX_FWD;
    int dir = gpu_l2_parent_node(s, m->block);
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, m->block);
    if (!l && gpu_l2_frc_parent_msg(s, b, m))
        return; /* the FRC's (gpu_l2_below.h), not a row of the table */
    if (l && !settled(l)) {
        /* The bank's own request is in flight: a forward means the
         * directory serves it first (answered once the block is here); an
         * invalidation is of a copy the bank no longer has. */
        if (fwd)
            gpu_l2_defer(b, m);
        else
            gpu_l2_to_node(s, b, dir, (struct cgm_coh_msg){ .type = COH_INV_ACK, .block = m->block });
        si_row(s, fwd ? SIB_PENDING_FWD : SIB_PENDING_INVAL);
        return;
    }
    if (l) {
        coh_meta(&b->a, l)->req = m->type;
        coh_meta(&b->a, l)->requester = m->requester;
        coh_meta(&b->a, l)->instr = m->instr;
        si_row(s, fwd ? SIB_FWD : SIB_INVAL);
        gpu_l2_answer_parent(s, b, l);
        return;
    }
    struct dir_wb *wb = dwbq_find(&b->wb, m->block);
    si_row(s, fwd ? SIB_ABSENT_FWD : SIB_ABSENT_INVAL);
    gpu_l2_parent_msg_absent(s, b, m, wb, &upper);
}

void si_gpu_l2_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct gpu_l2 *b = ctrl;
    const struct coh_node *from = &s->nodes[m->src];
    if (from->kind == CGM_NODE_GPU_L1) {
        if (m->type != COH_GET && m->type != COH_DIFF)
            protocol_error(s, b, "a message a bank cannot take from a CU", m);
        b->st.requests++;
        struct cgm_mshr_waiter w = cu_request(from->index, m->type, m->flags, m->data, m->mask);
        request(s, b, &w, m->block);
        return;
    }
    gpu_l2_deliver_below(s, b, m, &upper);
}

void si_gpu_l2_wake(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what)
{
    gpu_l2_wake_below(s, ctrl, block, what, &upper);
}
