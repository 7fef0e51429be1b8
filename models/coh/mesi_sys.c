/* The MESI system: construction, message and wake-up dispatch, statistics
 * and the views checkers use. */
#include "mesi_internal.h"

#include <stdlib.h>
#include <string.h>

static unsigned log2u(unsigned v)
{
    unsigned n = 0;
    while ((1u << n) < v)
        n++;
    return n;
}

static bool pow2(unsigned v) { return v && !(v & (v - 1)); }

/* The first thing wrong with cfg, or NULL. */
static const char *config_problem(const struct cgm_coh_config *cfg)
{
    if (!cfg->cores || cfg->cores > 64)
        return "cores must be 1 to 64";
    if (!pow2(cfg->slices))
        return "L3 slices must be a power of two";
    if (!cfg->blocks)
        return "memory must hold at least one block";
    if (cfg->block_bytes > 4096)
        return "a block holds at most 4096 bytes";
    if (!cfg->wb_entries || !cfg->l3_wb_entries || !cfg->l1_wb_entries)
        return "every write-back queue needs an entry";
    if (!cfg->l2_sets || !cfg->l2_ways)
        return "the L2 needs sets and ways";
    const struct cgm_coh_gpu_config *g = &cfg->gpu;
    if (!g->cus)
        return NULL;
    if (g->cus > 4096 || !pow2(g->banks))
        return "GPU: compute units 0 to 4096, L2 banks a power of two";
    if (!g->l1_sets || !g->l1_ways || !g->l1_mshr || !g->l1_coalesce || !g->l1_wb_entries)
        return "GPU L1: sets, ways, MSHR, coalescer and write-back queue must be non-zero";
    if (!g->l2_sets || !g->l2_ways || !g->l2_mshr || !g->l2_coalesce || !g->l2_wb_entries)
        return "GPU L2: sets, ways, MSHR, coalescer and write-back queue must be non-zero";
    if (g->coherent && !g->shared_llc)
        return "a coherent GPU needs the shared last level (the L3 directory tracks it)";
    return NULL;
}

/* Nodes are numbered cores, slices, GPU L1s, GPU L2 banks. */
static void number_nodes(struct cgm_coh_sys *s)
{
    const struct cgm_coh_config *cfg = &s->cfg;
    unsigned n = 0;
    for (unsigned i = 0; i < cfg->cores; i++)
        s->nodes[n++] = (struct coh_node){ .kind = CGM_NODE_CORE, .index = (int)i, .holder = (int)i };
    for (unsigned i = 0; i < cfg->slices; i++)
        s->nodes[n++] = (struct coh_node){ .kind = CGM_NODE_SLICE, .index = (int)i, .holder = -1 };
    for (unsigned i = 0; i < cfg->gpu.cus; i++)
        s->nodes[n++] = (struct coh_node){ .kind = CGM_NODE_GPU_L1, .index = (int)i, .holder = (int)i };
    /* All the banks are one holder at the L3 when it tracks the GPU. */
    for (unsigned i = 0; i < cfg->gpu.banks; i++)
        s->nodes[n++] = (struct coh_node){ .kind = CGM_NODE_GPU_L2, .index = (int)i,
                                           .holder = s->gpu_parent == GPU_PARENT_L3 ? (int)cfg->cores : -1 };
}

static int create_gpu(struct cgm_coh_sys *s)
{
    const struct cgm_coh_gpu_config *g = &s->cfg.gpu;
    s->gpu_l1 = calloc(g->cus, sizeof *s->gpu_l1);
    s->gpu_l2 = calloc(g->banks, sizeof *s->gpu_l2);
    if (!s->gpu_l1 || !s->gpu_l2)
        return -1;
    for (unsigned i = 0; i < g->cus; i++) {
        struct gpu_l1 *l1 = &s->gpu_l1[i];
        l1->id = (int)i;
        l1->node = (int)(s->cfg.cores + s->cfg.slices + i);
        if (!wbq_init(&l1->wb, g->l1_wb_entries) || !coh_array_init(&l1->a, g->l1_sets, g->l1_ways, 0, 0) ||
            cgm_mshr_init(&l1->mshr, g->l1_mshr, g->l1_coalesce))
            return -1;
    }
    /* A CU has at most one request per block in flight (its MSHR's), a
     * core one flush. */
    s->gpu_l2_joins = g->cus + s->cfg.cores;
    for (unsigned i = 0; i < g->banks; i++) {
        struct gpu_l2 *b = &s->gpu_l2[i];
        b->id = (int)i;
        b->node = (int)(s->cfg.cores + s->cfg.slices + g->cus + i);
        if (!dwbq_init(&b->wb, g->l2_wb_entries) ||
            !coh_array_init(&b->a, g->l2_sets, g->l2_ways, log2u(g->banks), g->cus) ||
            cgm_mshr_init(&b->mshr, g->l2_mshr, g->l2_coalesce))
            return -1;
        for (unsigned w = 0; w < g->l2_wb_entries; w++)
            if (!(b->wb.e[w].join = calloc(s->gpu_l2_joins, sizeof *b->wb.e[w].join)))
                return -1;
    }
    return 0;
}

struct cgm_coh_sys *cgm_coh_create(const struct cgm_coh_config *cfg, const struct cgm_coh_env *env, char *err,
                                   size_t errlen)
{
    const char *problem = config_problem(cfg);
    if (problem) {
        snprintf(err, errlen, "coherence: %s", problem);
        return NULL;
    }
    struct cgm_coh_sys *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (!s->cfg.block_bytes)
        s->cfg.block_bytes = 64;
    if (!cfg->gpu.cus)
        s->cfg.gpu.banks = 0;
    s->env = *env;
    s->gpu_parent = !cfg->gpu.shared_llc ? GPU_PARENT_MEMORY
                    : cfg->gpu.coherent  ? GPU_PARENT_L3
                                         : GPU_PARENT_L3_UNTRACKED;
    s->nnodes = cfg->cores + cfg->slices + s->cfg.gpu.cus + s->cfg.gpu.banks;
    s->l3_holders = cfg->cores + (s->cfg.gpu.cus && s->gpu_parent == GPU_PARENT_L3);
    /* Each holder has at most one data and one fetch request per block,
     * each core one flush. */
    s->l3_joins = 2 * s->l3_holders + cfg->cores;
    s->nodes = calloc(s->nnodes, sizeof *s->nodes);
    s->cores = calloc(cfg->cores, sizeof *s->cores);
    s->slices = calloc(cfg->slices, sizeof *s->slices);
    s->mem = calloc(cfg->blocks, sizeof *s->mem);
    s->node_msgs = calloc(s->nnodes, sizeof *s->node_msgs);
    if (!s->nodes || !s->cores || !s->slices || !s->mem || !s->node_msgs)
        goto fail;
    number_nodes(s);
    for (unsigned i = 0; i < cfg->cores; i++) {
        struct core *c = &s->cores[i];
        c->id = (int)i;
        if (!wbq_init(&c->wb, cfg->wb_entries) || !wbq_init(&c->l1wb, cfg->l1_wb_entries) ||
            cgm_cache_array_init(&c->l1d, cfg->l1_sets, cfg->l1_ways, 64, 0) ||
            cgm_cache_array_init(&c->l1i, cfg->l1i_sets, cfg->l1i_ways, 64, 0) ||
            !coh_array_init(&c->l2, cfg->l2_sets, cfg->l2_ways, 0, 0) ||
            cgm_mshr_init(&c->mshr, cfg->mshr, cfg->coalesce))
            goto fail;
    }
    for (unsigned i = 0; i < cfg->slices; i++) {
        struct slice *sl = &s->slices[i];
        sl->id = (int)i;
        sl->node = (int)(cfg->cores + i);
        if (!dwbq_init(&sl->wb, cfg->l3_wb_entries) ||
            !coh_array_init(&sl->l3, cfg->l3_sets, cfg->l3_ways, log2u(cfg->slices), s->l3_holders))
            goto fail;
        for (unsigned w = 0; w < cfg->l3_wb_entries; w++) {
            sl->wb.e[w].join = calloc(s->l3_joins, sizeof *sl->wb.e[w].join);
            if (!sl->wb.e[w].join)
                goto fail;
        }
    }
    if (s->cfg.gpu.cus && create_gpu(s))
        goto fail;
    return s;
fail: /* the configuration was checked above: only an allocation can fail */
    snprintf(err, errlen, "out of memory (coherence: caches, queues and the memory's values)");
    cgm_coh_destroy(s);
    return NULL;
}

void cgm_coh_destroy(struct cgm_coh_sys *s)
{
    if (!s)
        return;
    for (unsigned i = 0; s->cores && i < s->cfg.cores; i++) {
        struct core *c = &s->cores[i];
        cgm_cache_array_free(&c->l1d);
        cgm_cache_array_free(&c->l1i);
        coh_array_free(&c->l2);
        cgm_mshr_free(&c->mshr);
        free(c->wb.e);
        free(c->l1wb.e);
        free(c->stall.q);
    }
    for (unsigned i = 0; s->gpu_l1 && i < s->cfg.gpu.cus; i++) {
        struct gpu_l1 *l1 = &s->gpu_l1[i];
        coh_array_free(&l1->a);
        cgm_mshr_free(&l1->mshr);
        free(l1->wb.e);
        free(l1->stall.q);
    }
    for (unsigned i = 0; s->gpu_l2 && i < s->cfg.gpu.banks; i++) {
        struct gpu_l2 *b = &s->gpu_l2[i];
        coh_array_free(&b->a);
        cgm_mshr_free(&b->mshr);
        for (unsigned w = 0; b->wb.e && w < b->wb.n; w++)
            free(b->wb.e[w].join);
        free(b->wb.e);
        free(b->deferred);
    }
    free(s->gpu_l1);
    free(s->gpu_l2);
    for (unsigned i = 0; s->slices && i < s->cfg.slices; i++) {
        struct slice *sl = &s->slices[i];
        coh_array_free(&sl->l3);
        for (unsigned w = 0; sl->wb.e && w < sl->wb.n; w++)
            free(sl->wb.e[w].join);
        free(sl->wb.e);
    }
    free(s->nodes);
    free(s->cores);
    free(s->slices);
    free(s->mem);
    free(s->node_msgs);
    free(s);
}

int cgm_coh_slice_of(const struct cgm_coh_sys *s, uint64_t block)
{
    return (int)(block & (s->cfg.slices - 1));
}

int coh_slice_node(const struct cgm_coh_sys *s, uint64_t block)
{
    return s->slices[cgm_coh_slice_of(s, block)].node;
}

int cgm_coh_gpu_bank_of(const struct cgm_coh_sys *s, uint64_t block)
{
    return (int)(block & (s->cfg.gpu.banks - 1));
}

int coh_gpu_bank_node(const struct cgm_coh_sys *s, uint64_t block)
{
    return s->gpu_l2[cgm_coh_gpu_bank_of(s, block)].node;
}

int cgm_coh_gpu_l1_node(const struct cgm_coh_sys *s, int cu) { return s->gpu_l1[cu].node; }
int cgm_coh_gpu_l2_node(const struct cgm_coh_sys *s, int bank) { return s->gpu_l2[bank].node; }

/* A core's holder number is its id; the GPU's (the cores' count) stands
 * for the bank of the block. */
int coh_l3_holder_node(const struct cgm_coh_sys *s, int h, uint64_t block)
{
    return h < (int)s->cfg.cores ? h : coh_gpu_bank_node(s, block);
}

void coh_stall(struct cgm_coh_sys *s, struct stall_list *l, int node, const struct cgm_coh_req *r)
{
    if (l->n == l->cap) {
        unsigned cap = l->cap ? 2 * l->cap : 16;
        struct cgm_coh_req *q = realloc(l->q, cap * sizeof *q);
        if (!q) /* bounded by the MSHR and coalescer sizes; tiny */
            cgm_oom("coherence: a list of stalled requests");
        l->q = q;
        l->cap = cap;
    }
    l->q[l->n++] = *r;
    if (!l->wake_pending) {
        l->wake_pending = true;
        s->env.later(s->env.ctx, node, 0, COH_WAKE_STALLED);
    }
}

void coh_replay_entry(struct cgm_coh_sys *s, struct cgm_mshr *m, struct cgm_mshr_entry *e, coh_access_fn fn,
                      void *cache, struct stall_list *l, int node, bool *replaying)
{
    unsigned n = e->n;
    uint64_t block = e->block;
    struct cgm_mshr_waiter w[n ? n : 1];
    memcpy(w, e->w, n * sizeof *w);
    cgm_mshr_release(m, e);
    bool was = *replaying;
    *replaying = true;
    for (unsigned i = 0; i < n; i++) {
        struct cgm_coh_req r = coh_req_of(block, &w[i]);
        if (fn(s, cache, &r) < 0)
            coh_stall(s, l, node, &r);
    }
    *replaying = was;
}

void coh_replay_stalled(struct cgm_coh_sys *s, coh_access_fn fn, void *cache, struct stall_list *l, int node,
                        bool *replaying)
{
    struct stall_list taken = *l;
    *l = (struct stall_list){ 0 };
    bool was = *replaying;
    *replaying = true;
    for (unsigned i = 0; i < taken.n; i++)
        if (fn(s, cache, &taken.q[i]) < 0)
            coh_stall(s, l, node, &taken.q[i]);
    *replaying = was;
    free(taken.q);
}

void dwb_release(struct dir_wbq *q, struct dir_wb *wb,
                 void (*rerun)(struct cgm_coh_sys *s, void *dir, const struct joined *j, uint64_t block),
                 struct cgm_coh_sys *s, void *dir)
{
    uint64_t block = wb->block;
    unsigned n = wb->njoin;
    struct joined j[n ? n : 1];
    memcpy(j, wb->join, n * sizeof *j);
    dwbq_release(q, wb);
    wb->njoin = 0;
    for (unsigned i = 0; i < n; i++)
        rerun(s, dir, &j[i], block);
}

/* The kind of each kind's directory: a core's and a GPU L2 bank's is an
 * L3 slice (a bank's when the GPU shares the last level), a GPU L1's its
 * bank; a slice's is memory. */
static const uint8_t parent_kind[CGM_NODE_KINDS] = {
    [CGM_NODE_CORE] = CGM_NODE_SLICE, [CGM_NODE_SLICE] = CGM_NODE_KINDS,
    [CGM_NODE_GPU_L1] = CGM_NODE_GPU_L2, [CGM_NODE_GPU_L2] = CGM_NODE_SLICE,
};

enum cgm_coh_lane cgm_coh_msg_lane(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m)
{
    uint8_t src = s->nodes[m->src].kind, dst = s->nodes[m->dst].kind;
    if (parent_kind[src] == dst)
        return dst == CGM_NODE_GPU_L2 && cgm_coh_msgs[m->type].cls == COH_CLASS_ANSWER ? COH_LANE_COHERENCE
                                                                                      : COH_LANE_REQUEST;
    if (parent_kind[dst] == src)
        return COH_LANE_REPLY;
    return COH_LANE_COHERENCE;
}

unsigned cgm_coh_node_count(const struct cgm_coh_sys *s) { return s->nnodes; }
enum cgm_coh_node_kind cgm_coh_node_kind(const struct cgm_coh_sys *s, int node)
{
    return (enum cgm_coh_node_kind)s->nodes[node].kind;
}
int cgm_coh_node_index(const struct cgm_coh_sys *s, int node) { return s->nodes[node].index; }

uint64_t cgm_coh_byte_mask(unsigned block_bytes, unsigned offset, unsigned bytes)
{
    unsigned granule = block_bytes > 64 ? block_bytes / 64 : 1, span = block_bytes / granule;
    if (!bytes || offset >= block_bytes)
        return 0;
    unsigned first = offset / granule, last = (offset + bytes - 1) / granule;
    if (last >= span)
        last = span - 1;
    if (!first && last == span - 1)
        return 0; /* the whole block */
    uint64_t upto = last == 63 ? ~0ull : (1ull << (last + 1)) - 1;
    return upto & ~((1ull << first) - 1);
}

static inline unsigned msg_bytes(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m)
{
    if (!cgm_coh_msg_has_data(m))
        return 0;
    unsigned block = s->cfg.block_bytes;
    if (!m->mask || cgm_coh_msgs[m->type].data != COH_DATA_MASKED)
        return block;
    unsigned granule = block > 64 ? block / 64 : 1;
    return (unsigned)__builtin_popcountll(m->mask) * granule;
}

unsigned cgm_coh_msg_bytes(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m) { return msg_bytes(s, m); }

void coh_send(struct cgm_coh_sys *s, struct cgm_coh_msg m)
{
    m.bytes = (uint16_t)msg_bytes(s, &m);
    s->msgs[m.type]++;
    s->node_msgs[m.src].sent[m.type]++;
    s->node_msgs[m.dst].received[m.type]++;
    s->env.send(s->env.ctx, &m);
}

int cgm_coh_gpu_access(struct cgm_coh_sys *s, int cu, const struct cgm_coh_req *req)
{
    struct gpu_l1 *l1 = &s->gpu_l1[cu];
    uint64_t block = req->block, tag = req->tag;
    uint8_t op = req->op;
    if (block >= s->cfg.blocks)
        return -1;
    /* The L1's controller asks again each cycle while its head request is
     * refused (an MSHR or a victim it waits for): until a message, a timer
     * or another request changes the L1, the answer is the same. */
    if (l1->refusal_stands && l1->refused_block == block && l1->refused_op == op && l1->refused_tag == tag) {
        l1->st.stalls++;
        return -1;
    }
    int r = gpu_l1_access(s, l1, req);
    if (r < 0) {
        l1->st.stalls++;
        l1->refusal_stands = true;
        l1->refused_block = block;
        l1->refused_op = op;
        l1->refused_tag = tag;
        return r;
    }
    l1->refusal_stands = false;
    l1->st.accesses++;
    if (op == CGM_OP_STORE)
        l1->st.stores++;
    else
        l1->st.loads++;
    return r;
}

int cgm_coh_access(struct cgm_coh_sys *s, int core, const struct cgm_coh_req *req)
{
    struct core *c = &s->cores[core];
    if (req->block >= s->cfg.blocks)
        return -1;
    c->st.accesses++;
    int r = core_access(s, c, req);
    if (r < 0) {
        c->st.accesses--;
        c->st.stalls++;
    } else if (req->op == CGM_OP_FETCH) {
        c->st.fetch_accesses++;
    }
    return r;
}

/* Messages and wake-ups go to the node's controller, chosen by its kind. */
void cgm_coh_deliver(struct cgm_coh_sys *s, const struct cgm_coh_msg *m)
{
    const struct coh_node *n = &s->nodes[m->dst];
    switch (n->kind) {
    case CGM_NODE_CORE:
        core_deliver(s, &s->cores[n->index], m);
        break;
    case CGM_NODE_SLICE:
        dir_deliver(s, &s->slices[n->index], m);
        break;
    case CGM_NODE_GPU_L1:
        s->gpu_l1[n->index].refusal_stands = false;
        gpu_l1_deliver(s, &s->gpu_l1[n->index], m);
        break;
    case CGM_NODE_GPU_L2:
        gpu_l2_deliver(s, &s->gpu_l2[n->index], m);
        break;
    default:
        break;
    }
}

void cgm_coh_wake(struct cgm_coh_sys *s, int node, uint64_t block, int what)
{
    const struct coh_node *n = &s->nodes[node];
    switch (n->kind) {
    case CGM_NODE_CORE:
        core_wake(s, &s->cores[n->index], block, what);
        break;
    case CGM_NODE_SLICE:
        dir_wake(s, &s->slices[n->index], block, what);
        break;
    case CGM_NODE_GPU_L1:
        s->gpu_l1[n->index].refusal_stands = false;
        gpu_l1_wake(s, &s->gpu_l1[n->index], block, what);
        break;
    case CGM_NODE_GPU_L2:
        gpu_l2_wake(s, &s->gpu_l2[n->index], block, what);
        break;
    default:
        break;
    }
}

const uint64_t *cgm_mesi_row_counts(const struct cgm_coh_sys *s) { return s->rows; }
const uint64_t *cgm_coh_msg_counts(const struct cgm_coh_sys *s) { return s->msgs; }
const struct cgm_coh_msg_stats *cgm_coh_node_msgs(const struct cgm_coh_sys *s, int node)
{
    if (node < 0 || (unsigned)node >= s->nnodes)
        return NULL;
    return &s->node_msgs[node];
}
const struct cgm_coh_core_stats *cgm_coh_core_stats(const struct cgm_coh_sys *s, int core)
{
    struct core *c = &s->cores[core];
    c->st.mshr_peak = c->mshr.peak_used;
    return &c->st;
}
const struct cgm_coh_slice_stats *cgm_coh_slice_stats(const struct cgm_coh_sys *s, int slice)
{
    return &s->slices[slice].st;
}
const struct cgm_coh_gpu_l1_stats *cgm_coh_gpu_l1_stats(const struct cgm_coh_sys *s, int cu)
{
    struct gpu_l1 *l1 = &s->gpu_l1[cu];
    l1->st.mshr_peak = l1->mshr.peak_used;
    return &l1->st;
}
const struct cgm_coh_gpu_l2_stats *cgm_coh_gpu_l2_stats(const struct cgm_coh_sys *s, int bank)
{
    struct gpu_l2 *b = &s->gpu_l2[bank];
    b->st.mshr_peak = b->mshr.peak_used;
    return &b->st;
}

enum cgm_mesi_state cgm_coh_gpu_copy(const struct cgm_coh_sys *s, int cu, uint64_t block, uint64_t *data)
{
    struct gpu_l1 *l1 = &s->gpu_l1[cu];
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
    if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M)) {
        *data = l->data;
        return (enum cgm_mesi_state)l->state;
    }
    struct core_wb *w = wbq_find(&l1->wb, block);
    if (w) {
        *data = w->data;
        return MESI_M;
    }
    return MESI_I;
}

enum cgm_mesi_state cgm_coh_gpu_l2_copy(const struct cgm_coh_sys *s, uint64_t block, uint64_t *data)
{
    if (!s->cfg.gpu.cus)
        return MESI_I;
    struct gpu_l2 *b = &s->gpu_l2[cgm_coh_gpu_bank_of(s, block)];
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    if (!l || coh_meta(&b->a, l)->owner >= 0 || coh_meta(&b->a, l)->pending ||
        (l->state != MESI_S && l->state != MESI_E && l->state != MESI_M))
        return MESI_I;
    *data = l->data;
    return (enum cgm_mesi_state)l->state;
}

enum cgm_mesi_state cgm_coh_core_copy(const struct cgm_coh_sys *s, int core, uint64_t block,
                                      uint64_t *data)
{
    struct core *c = &s->cores[core];
    struct cgm_cache_line *l = cgm_cache_find(&c->l1d, block);
    if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M || l->state == MESI_SM)) {
        *data = l->data;
        return l->state == MESI_SM ? MESI_S : (enum cgm_mesi_state)l->state;
    }
    for (unsigned i = 0; i < s->cfg.l1_wb_entries; i++)
        if (c->l1wb.e[i].used && c->l1wb.e[i].block == block) {
            *data = c->l1wb.e[i].data;
            return MESI_M;
        }
    l = cgm_cache_find(&c->l2.a, block);
    if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M || l->state == MESI_SM)) {
        *data = l->data;
        return l->state == MESI_SM ? MESI_S : (enum cgm_mesi_state)l->state;
    }
    for (unsigned i = 0; i < s->cfg.wb_entries; i++)
        if (c->wb.e[i].used && !c->wb.e[i].sent && c->wb.e[i].block == block) {
            *data = c->wb.e[i].data;
            return c->wb.e[i].dirty ? MESI_M : MESI_E;
        }
    l = cgm_cache_find(&c->l1i, block);
    if (l && l->state == MESI_S) {
        *data = l->data;
        return MESI_S;
    }
    return MESI_I;
}

static const char *state_name(unsigned st)
{
    static const char *const n[] = { "I", "S", "E", "M", "IS", "IM", "SM" };
    return st < 7 ? n[st] : "?";
}

static void dump_holders(const struct coh_array *a, const struct cgm_cache_line *l, FILE *out)
{
    fprintf(out, " holders {");
    for (int h = coh_holders_next(a, l, 0); h >= 0; h = coh_holders_next(a, l, (unsigned)h + 1))
        fprintf(out, " %d", h);
    fprintf(out, " }");
}

static void dump_gpu(const struct cgm_coh_sys *s, uint64_t block, FILE *out)
{
    for (unsigned i = 0; i < s->cfg.gpu.cus; i++) {
        struct gpu_l1 *l1 = &s->gpu_l1[i];
        struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
        struct cgm_mshr_entry *e = NULL;
        for (unsigned k = 0; k < l1->mshr.entries; k++)
            if (l1->mshr.e[k].used && l1->mshr.e[k].block == block)
                e = &l1->mshr.e[k];
        struct core_wb *w = wbq_find(&l1->wb, block);
        if (!l && !e && !w)
            continue;
        fprintf(out, "  CU %u: L1 %s", i, l ? state_name(l->state) : "-");
        if (l)
            fprintf(out, " data %llu%s join %u", (unsigned long long)l->data, l->dirty ? " dirty" : "",
                    coh_meta(&l1->a, l)->pending);
        if (e)
            fprintf(out, ", MSHR with %u waiting", e->n);
        if (w)
            fprintf(out, ", write-back data %llu", (unsigned long long)w->data);
        fprintf(out, ", %u stalled requests\n", l1->stall.n);
    }
    struct gpu_l2 *b = &s->gpu_l2[cgm_coh_gpu_bank_of(s, block)];
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    if (l) {
        const struct coh_line *d = coh_meta(&b->a, l);
        fprintf(out, "  GPU L2 bank %d: %s owner %d", b->id, state_name(l->state), d->owner);
        dump_holders(&b->a, l, out);
        fprintf(out, " pending %u (requester %d, %s, %u acks) data %llu%s\n", d->pending, d->requester,
                cgm_coh_msg_names[d->req < COH_NTYPES ? d->req : 0], d->acks, (unsigned long long)l->data,
                l->dirty ? " dirty" : "");
    } else {
        fprintf(out, "  GPU L2 bank %d: not present\n", b->id);
    }
    for (unsigned k = 0; k < b->mshr.entries; k++)
        if (b->mshr.e[k].used && b->mshr.e[k].block == block)
            fprintf(out, "  GPU L2 MSHR: %u waiting\n", b->mshr.e[k].n);
    for (unsigned w = 0; w < s->cfg.gpu.l2_wb_entries; w++)
        if (b->wb.e[w].state && b->wb.e[w].block == block)
            fprintf(out, "  GPU L2 write-back: state %u, %u acks, %u joined, data %llu%s\n", b->wb.e[w].state,
                    b->wb.e[w].acks, b->wb.e[w].njoin, (unsigned long long)b->wb.e[w].data,
                    b->wb.e[w].dirty ? " dirty" : "");
    for (unsigned k = 0; k < b->ndeferred; k++)
        if (b->deferred[k].block == block)
            fprintf(out, "  GPU L2 deferred: %s\n", cgm_coh_msg_names[b->deferred[k].type]);
}

void cgm_coh_dump_block(const struct cgm_coh_sys *s, uint64_t block, FILE *out)
{
    fprintf(out, "block %llu (slice %d, memory value %llu):\n", (unsigned long long)block,
            cgm_coh_slice_of(s, block), (unsigned long long)(block < s->cfg.blocks ? s->mem[block] : 0));
    for (unsigned i = 0; i < s->cfg.cores; i++) {
        struct core *c = &s->cores[i];
        struct cgm_cache_line *l = cgm_cache_find(&c->l1d, block);
        struct cgm_cache_line *li = cgm_cache_find(&c->l1i, block);
        struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, block);
        fprintf(out, "  core %u: L1D %s", i, l ? state_name(l->state) : "-");
        if (l)
            fprintf(out, " data %llu%s", (unsigned long long)l->data, l->dirty ? " dirty" : "");
        fprintf(out, ", L1I %s", li ? state_name(li->state) : "-");
        for (unsigned w = 0; w < s->cfg.l1_wb_entries; w++)
            if (c->l1wb.e[w].used && c->l1wb.e[w].block == block)
                fprintf(out, ", L1D write-back %s data %llu", c->l1wb.e[w].sent ? "sent" : "queued",
                        (unsigned long long)c->l1wb.e[w].data);
        fprintf(out, ", L2 %s", l2 ? state_name(l2->state) : "-");
        if (l2)
            fprintf(out, " data %llu%s (request %s)", (unsigned long long)l2->data, l2->dirty ? " dirty" : "",
                    cgm_coh_msg_names[coh_meta(&c->l2, l2)->req < COH_NTYPES ? coh_meta(&c->l2, l2)->req : 0]);
        for (unsigned w = 0; w < s->cfg.wb_entries; w++)
            if (c->wb.e[w].used && c->wb.e[w].block == block)
                fprintf(out, ", L2 write-back %s data %llu",
                        c->wb.e[w].sent ? "sent" : c->wb.e[w].flushing ? "flushing the data cache" : "queued",
                        (unsigned long long)c->wb.e[w].data);
        for (unsigned e = 0; e < c->mshr.entries; e++)
            if (c->mshr.e[e].used && c->mshr.e[e].block == block)
                fprintf(out, ", MSHR kind %u with %u waiting", c->mshr.e[e].kind, c->mshr.e[e].n);
        fprintf(out, ", %u stalled requests\n", c->stall.n);
    }
    struct slice *sl = &s->slices[cgm_coh_slice_of(s, block)];
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block);
    if (l) {
        const struct coh_line *d = coh_meta(&sl->l3, l);
        fprintf(out, "  L3: %s owner %d sharers %#llx pending %u (requester %d, %s, %u acks) data %llu%s\n",
                state_name(l->state), d->owner, (unsigned long long)d->sharers, d->pending, d->requester,
                cgm_coh_msg_names[d->req < COH_NTYPES ? d->req : 0], d->acks, (unsigned long long)l->data,
                l->dirty ? " dirty" : "");
    }
    else
        fprintf(out, "  L3: not present\n");
    for (unsigned w = 0; w < s->cfg.l3_wb_entries; w++)
        if (sl->wb.e[w].state && sl->wb.e[w].block == block)
            fprintf(out, "  L3 write-back: state %u, %u acks, %u joined, data %llu%s\n", sl->wb.e[w].state,
                    sl->wb.e[w].acks, sl->wb.e[w].njoin, (unsigned long long)sl->wb.e[w].data,
                    sl->wb.e[w].dirty ? " dirty" : "");
    if (s->cfg.gpu.cus)
        dump_gpu(s, block, out);
}
