/* The coherence system: construction of the node table and its
 * controllers, the choice of each kind's protocol, dispatch of requests,
 * messages and wake-ups through it, statistics, the checkers' views and
 * the block dump. */
#include "coh_internal.h"
#include "cgm/bits.h"

#include <stdlib.h>
#include <string.h>

/* The first thing wrong with cfg, or NULL. */
static const char *config_problem(const struct cgm_coh_config *cfg)
{
    if (!cfg->cores || cfg->cores > 64)
        return "cores must be 1 to 64";
    if (!cgm_pow2(cfg->slices))
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
    if (g->cus > 4096 || !cgm_pow2(g->banks) || g->interleave_bits > 20)
        return "GPU: compute units 0 to 4096, L2 banks a power of two, interleaved in runs of at most 2^20 blocks";
    if (!g->l1_sets || !g->l1_ways || !g->l1_mshr || !g->l1_coalesce || !g->l1_wb_entries)
        return "GPU L1: sets, ways, MSHR, coalescer and write-back queue must be non-zero";
    if (!g->l2_sets || !g->l2_ways || !g->l2_mshr || !g->l2_coalesce || !g->l2_wb_entries)
        return "GPU L2: sets, ways, MSHR, coalescer and write-back queue must be non-zero";
    if (g->l2_frc_entries && (g->l2_frc_entries < 4 || g->l2_frc_entries > 512 || !cgm_pow2(g->l2_frc_entries) ||
                              (g->l2_frc_ways && g->l2_frc_ways < g->l2_frc_entries && !cgm_pow2(g->l2_frc_ways))))
        return "GPU L2 FRC: entries 0 (none) or a power of two from 4 to 512, ways a power of two (0: fully associative)";
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
            !coh_array_init(&b->a, g->l2_sets, g->l2_ways, cgm_log2_ceil(g->banks), g->cus) ||
            cgm_mshr_init(&b->mshr, g->l2_mshr, g->l2_coalesce) ||
            !frc_init(&b->frc, g->l2_frc_entries, g->l2_frc_ways, cgm_log2_ceil(g->banks), g->interleave_bits))
            return -1;
        cgm_cache_array_keep_low_bits(&b->a.a, g->interleave_bits);
        for (unsigned w = 0; w < g->l2_wb_entries; w++)
            if (!(b->wb.e[w].join = calloc(s->gpu_l2_joins, sizeof *b->wb.e[w].join)))
                return -1;
    }
    return 0;
}

/* p's operations at kind k, those it leaves NULL taken from the protocol
 * it extends (and so on). */
static struct coh_kind_ops resolved_ops(const struct cgm_coh_protocol *p, int k)
{
    struct coh_kind_ops o = *p->ops[k];
    for (const struct cgm_coh_protocol *q = p->extends; q; q = q->extends) {
        const struct coh_kind_ops *b = q->ops[k];
        if (!b)
            continue;
#define INHERIT(f) if (!o.f) o.f = b->f
        INHERIT(access);
        INHERIT(deliver);
        INHERIT(wake);
        INHERIT(copy);
        INHERIT(dump);
        INHERIT(admits);
        INHERIT(refusal_counted);
        INHERIT(invalidate);
#undef INHERIT
    }
    return o;
}

/* Each kind's protocol: the system's for the CPU's controllers, the GPU's
 * (or else the system's) for the GPU's; a system protocol without
 * controllers of a kind leaves it to mesi's. false (the reason in err) if
 * the GPU's has none for a GPU kind. */
static bool choose_protocols(struct cgm_coh_sys *s, char *err, size_t errlen)
{
    static const char *const kind_names[CGM_NODE_KINDS] = { "cores", "L3 slices", "GPU vector L1s", "GPU L2 banks" };
    const struct cgm_coh_protocol *sys = s->cfg.protocol ? s->cfg.protocol : cgm_coh_protocols[0];
    const struct cgm_coh_protocol *gpu = s->cfg.gpu.protocol;
    for (int k = 0; k < CGM_NODE_KINDS; k++) {
        bool gpu_kind = k == CGM_NODE_GPU_L1 || k == CGM_NODE_GPU_L2;
        const struct cgm_coh_protocol *p = gpu_kind && gpu ? gpu : sys;
        if (!p->ops[k] && p == gpu) {
            snprintf(err, errlen, "coherence: the %s protocol has no controller for the %s", p->name, kind_names[k]);
            return false;
        }
        if (!p->ops[k])
            p = cgm_coh_protocols[0];
        s->proto[k] = p;
        s->ops[k] = resolved_ops(p, k);
    }
    /* A protocol without a directory cannot serve or be served by one
     * that keeps one. */
    for (int k = 1; k < CGM_NODE_KINDS; k++)
        if (s->proto[k]->self_invalidating != s->proto[0]->self_invalidating &&
            (s->cfg.gpu.cus || (k != CGM_NODE_GPU_L1 && k != CGM_NODE_GPU_L2))) {
            int other = s->proto[0]->self_invalidating ? k : 0; /* the kind that keeps a directory */
            snprintf(err, errlen, "coherence: %s keeps no directory and must run every cache (the %s run %s)",
                     s->proto[other ? 0 : k]->name, kind_names[other], s->proto[other]->name);
            return false;
        }
    if (s->proto[CGM_NODE_GPU_L1]->gpu_noncoherent && s->cfg.gpu.cus && s->cfg.gpu.shared_llc &&
        s->cfg.gpu.coherent) {
        snprintf(err, errlen, "coherence: %s is for a GPU not coherent with the CPU (gpu.coherence = noncoherent)",
                 s->proto[CGM_NODE_GPU_L1]->name);
        return false;
    }
    if (s->proto[0]->self_invalidating && s->cfg.gpu.cus && !s->cfg.gpu.shared_llc) {
        snprintf(err, errlen, "coherence: %s needs the GPU to share the L3 (its caches write through to it)",
                 s->proto[0]->name);
        return false;
    }
    return true;
}

/* p is q or extends it, directly or not. */
static bool runs_rows_of(const struct cgm_coh_protocol *p, const struct cgm_coh_protocol *q)
{
    for (; p; p = p->extends)
        if (p == q)
            return true;
    return false;
}

/* Where row r of q is counted in the table of p, which runs a controller
 * of the row's kind: at r if p is q or extends it; where p's table has
 * the row if p borrows q's controller (the rows q adds to those of the
 * protocol it extends); NULL if p's table has no such row. */
static uint64_t *row_cell_in(const struct cgm_coh_sys *s, const struct cgm_coh_protocol *p,
                             const struct cgm_coh_protocol *q, unsigned r)
{
    if (runs_rows_of(p, q))
        return &s->row_arrays[p->id][r];
    unsigned inherited = q->extends ? q->extends->nrows : 0;
    if (p->borrows == q && r >= inherited)
        return &s->row_arrays[p->id][p->borrowed_at + (r - inherited)];
    return NULL;
}

/* Row r of q counts in the table of the protocol that runs the row's kind
 * of controller, else in that of one that runs another kind and has it
 * (a row some other kind's controller takes), else nowhere shown (spare,
 * q's own array). NULL if out of memory. */
static uint64_t *row_home(struct cgm_coh_sys *s, const struct cgm_coh_protocol *q, unsigned r, uint64_t **spare)
{
    uint64_t *cell = row_cell_in(s, s->proto[q->rows[r].kind], q, r);
    for (int k = 0; !cell && k < CGM_NODE_KINDS; k++)
        cell = row_cell_in(s, s->proto[k], q, r);
    if (cell)
        return cell;
    if (!*spare)
        *spare = calloc(q->nrows, sizeof **spare);
    return *spare ? &(*spare)[r] : NULL;
}

/* One array of row counters for each protocol a controller runs, and the
 * cell of each row of those protocols and of those they extend or
 * borrow. false if out of memory. */
static bool count_rows(struct cgm_coh_sys *s)
{
    bool counted[CGM_COH_NPROTOCOLS] = { false };
    for (int k = 0; k < CGM_NODE_KINDS; k++) {
        const struct cgm_coh_protocol *p = s->proto[k];
        if (!s->row_arrays[p->id] && !(s->row_arrays[p->id] = calloc(p->nrows ? p->nrows : 1, sizeof(uint64_t))))
            return false;
        for (; p; p = p->extends)
            counted[p->id] = true;
        if (s->proto[k]->borrows)
            counted[s->proto[k]->borrows->id] = true;
    }
    for (unsigned id = 0; id < CGM_COH_NPROTOCOLS; id++) {
        const struct cgm_coh_protocol *q = cgm_coh_protocols[id];
        if (!counted[id])
            continue;
        if (!(s->row_cell[id] = calloc(q->nrows ? q->nrows : 1, sizeof *s->row_cell[id])))
            return false;
        for (unsigned r = 0; r < q->nrows; r++)
            if (!(s->row_cell[id][r] = row_home(s, q, r, &s->row_spares[id])))
                return false;
    }
    return true;
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
    if (!choose_protocols(s, err, errlen)) {
        free(s);
        return NULL;
    }
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
    if (!count_rows(s))
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
            !coh_array_init(&sl->l3, cfg->l3_sets, cfg->l3_ways, cgm_log2_ceil(cfg->slices), s->l3_holders))
            goto fail;
        for (unsigned w = 0; w < cfg->l3_wb_entries; w++) {
            sl->wb.e[w].join = calloc(s->l3_joins, sizeof *sl->wb.e[w].join);
            if (!sl->wb.e[w].join)
                goto fail;
        }
    }
    if (s->cfg.gpu.cus && create_gpu(s))
        goto fail;
    for (unsigned i = 0; i < s->nnodes; i++) {
        struct coh_node *n = &s->nodes[i];
        switch (n->kind) {
        case CGM_NODE_CORE: n->ctrl = &s->cores[n->index]; break;
        case CGM_NODE_SLICE: n->ctrl = &s->slices[n->index]; break;
        case CGM_NODE_GPU_L1: n->ctrl = &s->gpu_l1[n->index]; break;
        default: n->ctrl = &s->gpu_l2[n->index]; break;
        }
    }
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
        free(c->stall.spare);
    }
    for (unsigned i = 0; s->gpu_l1 && i < s->cfg.gpu.cus; i++) {
        struct gpu_l1 *l1 = &s->gpu_l1[i];
        coh_array_free(&l1->a);
        cgm_mshr_free(&l1->mshr);
        free(l1->wb.e);
        free(l1->stall.q);
        free(l1->stall.spare);
    }
    for (unsigned i = 0; s->gpu_l2 && i < s->cfg.gpu.banks; i++) {
        struct gpu_l2 *b = &s->gpu_l2[i];
        coh_array_free(&b->a);
        frc_free(&b->frc);
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
        free(sl->deferred);
    }
    free(s->nodes);
    free(s->cores);
    free(s->slices);
    free(s->mem);
    free(s->node_msgs);
    for (unsigned i = 0; i < CGM_COH_NPROTOCOLS; i++) {
        free(s->row_arrays[i]);
        free(s->row_spares[i]);
        free(s->row_cell[i]);
    }
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
    return (int)((block >> s->cfg.gpu.interleave_bits) & (s->cfg.gpu.banks - 1));
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

unsigned cgm_coh_node_count(const struct cgm_coh_sys *s) { return s->nnodes; }
enum cgm_coh_node_kind cgm_coh_node_kind(const struct cgm_coh_sys *s, int node)
{
    return (enum cgm_coh_node_kind)s->nodes[node].kind;
}
int cgm_coh_node_index(const struct cgm_coh_sys *s, int node) { return s->nodes[node].index; }

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
    int r = s->ops[CGM_NODE_GPU_L1].access(s, l1, req);
    if (r < 0) {
        l1->st.stalls++;
        l1->refusal_stands = true;
        l1->refused_block = block;
        l1->refused_op = op;
        l1->refused_tag = tag;
        return r;
    }
    l1->refusal_stands = false;
    if (cgm_coh_op_is_sync(op))
        return r;
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
    if (cgm_coh_op_is_sync(req->op))
        return s->ops[CGM_NODE_CORE].access(s, c, req);
    c->st.accesses++;
    int r = s->ops[CGM_NODE_CORE].access(s, c, req);
    if (r < 0) {
        c->st.accesses--;
        c->st.stalls++;
    } else if (req->op == CGM_OP_FETCH) {
        c->st.fetch_accesses++;
    }
    return r;
}

/* Messages and wake-ups go to the node's controller, through its kind's
 * protocol. Either may change what a vector L1 refused. */
void cgm_coh_deliver(struct cgm_coh_sys *s, const struct cgm_coh_msg *m)
{
    const struct coh_node *n = &s->nodes[m->dst];
    if (n->kind == CGM_NODE_GPU_L1)
        ((struct gpu_l1 *)n->ctrl)->refusal_stands = false;
    s->ops[n->kind].deliver(s, n->ctrl, m);
}

void cgm_coh_wake(struct cgm_coh_sys *s, int node, uint64_t block, int what)
{
    const struct coh_node *n = &s->nodes[node];
    if (n->kind == CGM_NODE_GPU_L1)
        ((struct gpu_l1 *)n->ctrl)->refusal_stands = false;
    s->ops[n->kind].wake(s, n->ctrl, block, what);
}

unsigned cgm_coh_gpu_invalidate(struct cgm_coh_sys *s, int cu)
{
    const struct coh_kind_ops *o = &s->ops[CGM_NODE_GPU_L1];
    s->gpu_l1[cu].refusal_stands = false;
    return o->invalidate ? o->invalidate(s, &s->gpu_l1[cu]) : 0;
}

bool cgm_coh_gpu_invalidates(const struct cgm_coh_sys *s) { return s->ops[CGM_NODE_GPU_L1].invalidate != NULL; }

bool cgm_coh_gpu_bank_admits(struct cgm_coh_sys *s, int bank)
{
    return s->ops[CGM_NODE_GPU_L2].admits(s, &s->gpu_l2[bank]);
}

bool cgm_coh_gpu_bank_refusal_counted(const struct cgm_coh_sys *s, int bank)
{
    return s->ops[CGM_NODE_GPU_L2].refusal_counted(s, &s->gpu_l2[bank]);
}

const struct cgm_coh_protocol *cgm_coh_protocol_of(const struct cgm_coh_sys *s, enum cgm_coh_node_kind k)
{
    return s->proto[k];
}

const uint64_t *cgm_coh_row_counts(const struct cgm_coh_sys *s, const struct cgm_coh_protocol *p)
{
    for (int k = 0; k < CGM_NODE_KINDS; k++)
        if (s->proto[k] == p)
            return s->row_arrays[p->id];
    return NULL;
}

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
unsigned cgm_coh_gpu_frc_copies(const struct cgm_coh_sys *s, int bank, uint64_t block)
{
    struct gpu_l2 *b = &s->gpu_l2[bank];
    unsigned n = frc_count(&b->frc, block);
    struct cgm_cache_line *e = n ? frc_find(&b->frc, block) : NULL;
    if (e && e->state != FRC_EVICTING && cgm_cache_find(&b->a.a, block))
        n++;
    return n;
}

const struct cgm_coh_gpu_l2_stats *cgm_coh_gpu_l2_stats(const struct cgm_coh_sys *s, int bank)
{
    struct gpu_l2 *b = &s->gpu_l2[bank];
    b->st.mshr_peak = b->mshr.peak_used;
    return &b->st;
}

unsigned cgm_coh_core_copy(const struct cgm_coh_sys *s, int core, uint64_t block, uint64_t *data)
{
    return s->ops[CGM_NODE_CORE].copy(s, &s->cores[core], block, data);
}

unsigned cgm_coh_gpu_copy(const struct cgm_coh_sys *s, int cu, uint64_t block, uint64_t *data)
{
    return s->ops[CGM_NODE_GPU_L1].copy(s, &s->gpu_l1[cu], block, data);
}

unsigned cgm_coh_gpu_l2_copy(const struct cgm_coh_sys *s, uint64_t block, uint64_t *data)
{
    if (!s->cfg.gpu.cus)
        return 0;
    return s->ops[CGM_NODE_GPU_L2].copy(s, &s->gpu_l2[cgm_coh_gpu_bank_of(s, block)], block, data);
}

/* Every core, the block's slice, every CU, the block's bank. */
void cgm_coh_dump_block(const struct cgm_coh_sys *s, uint64_t block, FILE *out)
{
    fprintf(out, "block %llu (slice %d, memory value %llu):\n", (unsigned long long)block,
            cgm_coh_slice_of(s, block), (unsigned long long)(block < s->cfg.blocks ? s->mem[block] : 0));
    for (unsigned i = 0; i < s->cfg.cores; i++)
        s->ops[CGM_NODE_CORE].dump(s, &s->cores[i], block, out);
    s->ops[CGM_NODE_SLICE].dump(s, &s->slices[cgm_coh_slice_of(s, block)], block, out);
    if (!s->cfg.gpu.cus)
        return;
    for (unsigned i = 0; i < s->cfg.gpu.cus; i++)
        s->ops[CGM_NODE_GPU_L1].dump(s, &s->gpu_l1[i], block, out);
    s->ops[CGM_NODE_GPU_L2].dump(s, &s->gpu_l2[cgm_coh_gpu_bank_of(s, block)], block, out);
}
