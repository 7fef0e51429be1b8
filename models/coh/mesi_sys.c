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

struct cgm_coh_sys *cgm_coh_create(const struct cgm_coh_config *cfg, const struct cgm_coh_env *env)
{
    if (!cfg->cores || cfg->cores > 64 || !cfg->slices || (cfg->slices & (cfg->slices - 1)) ||
        !cfg->blocks || !cfg->wb_entries || !cfg->l3_wb_entries || !cfg->l1_wb_entries ||
        !cfg->l2_sets || !cfg->l2_ways)
        return NULL;
    struct cgm_coh_sys *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cfg = *cfg;
    s->env = *env;
    s->nnodes = cfg->cores + cfg->slices;
    s->l3_holders = cfg->cores;
    s->nodes = calloc(s->nnodes, sizeof *s->nodes);
    s->cores = calloc(cfg->cores, sizeof *s->cores);
    s->slices = calloc(cfg->slices, sizeof *s->slices);
    s->mem = calloc(cfg->blocks, sizeof *s->mem);
    s->node_msgs = calloc(s->nnodes, sizeof *s->node_msgs);
    if (!s->nodes || !s->cores || !s->slices || !s->mem || !s->node_msgs)
        goto fail;
    for (unsigned i = 0; i < s->nnodes; i++) {
        bool core = i < cfg->cores;
        s->nodes[i] = (struct coh_node){ .kind = core ? CGM_NODE_CORE : CGM_NODE_SLICE,
                                         .index = core ? (int)i : (int)(i - cfg->cores),
                                         .holder = core ? (int)i : -1 };
    }
    for (unsigned i = 0; i < cfg->cores; i++) {
        struct core *c = &s->cores[i];
        c->id = (int)i;
        c->wb = calloc(cfg->wb_entries, sizeof *c->wb);
        c->l1wb = calloc(cfg->l1_wb_entries, sizeof *c->l1wb);
        if (!c->wb || !c->l1wb || cgm_cache_array_init(&c->l1d, cfg->l1_sets, cfg->l1_ways, 64, 0) ||
            cgm_cache_array_init(&c->l1i, cfg->l1i_sets, cfg->l1i_ways, 64, 0) ||
            cgm_cache_array_init(&c->l2, cfg->l2_sets, cfg->l2_ways, 64, 0) ||
            cgm_mshr_init(&c->mshr, cfg->mshr, cfg->coalesce))
            goto fail;
    }
    for (unsigned i = 0; i < cfg->slices; i++) {
        struct slice *sl = &s->slices[i];
        sl->id = (int)i;
        sl->node = (int)(cfg->cores + i);
        sl->wb = calloc(cfg->l3_wb_entries, sizeof *sl->wb);
        if (!sl->wb || cgm_cache_array_init(&sl->l3, cfg->l3_sets, cfg->l3_ways, 64, log2u(cfg->slices)) ||
            cgm_cache_array_set_holders(&sl->l3, s->l3_holders))
            goto fail;
        for (unsigned w = 0; w < cfg->l3_wb_entries; w++) {
            /* Each holder has at most one data and one fetch request per block. */
            sl->wb[w].join = calloc(2 * s->l3_holders, sizeof *sl->wb[w].join);
            if (!sl->wb[w].join)
                goto fail;
        }
        for (size_t k = 0; k < (size_t)cfg->l3_sets * cfg->l3_ways; k++)
            sl->l3.lines[k].owner = -1;
    }
    return s;
fail:
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
        cgm_cache_array_free(&c->l2);
        cgm_mshr_free(&c->mshr);
        free(c->wb);
        free(c->l1wb);
        free(c->stall);
    }
    for (unsigned i = 0; s->slices && i < s->cfg.slices; i++) {
        struct slice *sl = &s->slices[i];
        cgm_cache_array_free(&sl->l3);
        for (unsigned w = 0; sl->wb && w < s->cfg.l3_wb_entries; w++)
            free(sl->wb[w].join);
        free(sl->wb);
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

int coh_l3_holder_node(const struct cgm_coh_sys *s, int h, uint64_t block)
{
    (void)s;
    (void)block;
    return h; /* cores: holder number = node id */
}

unsigned cgm_coh_node_count(const struct cgm_coh_sys *s) { return s->nnodes; }
enum cgm_coh_node_kind cgm_coh_node_kind(const struct cgm_coh_sys *s, int node)
{
    return (enum cgm_coh_node_kind)s->nodes[node].kind;
}
int cgm_coh_node_index(const struct cgm_coh_sys *s, int node) { return s->nodes[node].index; }

void coh_send(struct cgm_coh_sys *s, struct cgm_coh_msg m)
{
    s->msgs[m.type]++;
    s->node_msgs[m.src].sent[m.type]++;
    s->node_msgs[m.dst].received[m.type]++;
    s->env.send(s->env.ctx, &m);
}

int cgm_coh_access(struct cgm_coh_sys *s, int core, uint8_t op, uint64_t block, uint64_t tag,
                   uint64_t store_value)
{
    struct core *c = &s->cores[core];
    if (block >= s->cfg.blocks)
        return -1;
    c->st.accesses++;
    int r = core_access(s, c, op, block, tag, store_value);
    if (r < 0) {
        c->st.accesses--;
        c->st.stalls++;
    } else if (op == CGM_OP_FETCH) {
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
        if (c->l1wb[i].used && c->l1wb[i].block == block) {
            *data = c->l1wb[i].data;
            return MESI_M;
        }
    l = cgm_cache_find(&c->l2, block);
    if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M || l->state == MESI_SM)) {
        *data = l->data;
        return l->state == MESI_SM ? MESI_S : (enum cgm_mesi_state)l->state;
    }
    for (unsigned i = 0; i < s->cfg.wb_entries; i++)
        if (c->wb[i].used && !c->wb[i].sent && c->wb[i].block == block) {
            *data = c->wb[i].data;
            return c->wb[i].dirty ? MESI_M : MESI_E;
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

void cgm_coh_dump_block(const struct cgm_coh_sys *s, uint64_t block, FILE *out)
{
    fprintf(out, "block %llu (slice %d, memory value %llu):\n", (unsigned long long)block,
            cgm_coh_slice_of(s, block), (unsigned long long)(block < s->cfg.blocks ? s->mem[block] : 0));
    for (unsigned i = 0; i < s->cfg.cores; i++) {
        struct core *c = &s->cores[i];
        struct cgm_cache_line *l = cgm_cache_find(&c->l1d, block);
        struct cgm_cache_line *li = cgm_cache_find(&c->l1i, block);
        struct cgm_cache_line *l2 = cgm_cache_find(&c->l2, block);
        fprintf(out, "  core %u: L1D %s", i, l ? state_name(l->state) : "-");
        if (l)
            fprintf(out, " data %llu%s", (unsigned long long)l->data, l->dirty ? " dirty" : "");
        fprintf(out, ", L1I %s", li ? state_name(li->state) : "-");
        for (unsigned w = 0; w < s->cfg.l1_wb_entries; w++)
            if (c->l1wb[w].used && c->l1wb[w].block == block)
                fprintf(out, ", L1D write-back %s data %llu", c->l1wb[w].sent ? "sent" : "queued",
                        (unsigned long long)c->l1wb[w].data);
        fprintf(out, ", L2 %s", l2 ? state_name(l2->state) : "-");
        if (l2)
            fprintf(out, " data %llu%s (request %s)", (unsigned long long)l2->data, l2->dirty ? " dirty" : "",
                    cgm_coh_msg_names[l2->req < COH_NTYPES ? l2->req : 0]);
        for (unsigned w = 0; w < s->cfg.wb_entries; w++)
            if (c->wb[w].used && c->wb[w].block == block)
                fprintf(out, ", L2 write-back %s data %llu",
                        c->wb[w].sent ? "sent" : c->wb[w].flushing ? "flushing the data cache" : "queued",
                        (unsigned long long)c->wb[w].data);
        for (unsigned e = 0; e < c->mshr.entries; e++)
            if (c->mshr.e[e].used && c->mshr.e[e].block == block)
                fprintf(out, ", MSHR kind %u with %u waiting", c->mshr.e[e].kind, c->mshr.e[e].n);
        fprintf(out, ", %u stalled requests\n", c->nstall);
    }
    struct slice *sl = &s->slices[cgm_coh_slice_of(s, block)];
    struct cgm_cache_line *l = cgm_cache_find((struct cgm_cache_array *)&sl->l3, block);
    if (l)
        fprintf(out, "  L3: %s owner %d sharers %#llx pending %u (requester %d, %s, %u acks) data %llu%s\n",
                state_name(l->state), l->owner, (unsigned long long)l->sharers, l->pending,
                l->requester, cgm_coh_msg_names[l->req < COH_NTYPES ? l->req : 0], l->acks,
                (unsigned long long)l->data, l->dirty ? " dirty" : "");
    else
        fprintf(out, "  L3: not present\n");
    for (unsigned w = 0; w < s->cfg.l3_wb_entries; w++)
        if (sl->wb[w].state && sl->wb[w].block == block)
            fprintf(out, "  L3 write-back: state %u, %u acks, %u joined, data %llu%s\n", sl->wb[w].state,
                    sl->wb[w].acks, sl->wb[w].njoin, (unsigned long long)sl->wb[w].data,
                    sl->wb[w].dirty ? " dirty" : "");
}
