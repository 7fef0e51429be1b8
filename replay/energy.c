/* Energy per element: see energy.h. Each energy is a weighted sum of
 * counters found by path in the registry; the weights are the profile's
 * femtojoules, negative for a count taken away (a core's committing
 * cycles from its cycles). Unsigned arithmetic wraps, so a sum that ends
 * non-negative is exact whatever the order of its terms. */
#include "replay/energy.h"

#include <stdlib.h>
#include <string.h>

#include "cgm/check.h"
#include "replay/sim.h"

struct term {
    cgm_stat node;
    uint64_t weight;   /* femtojoules (two's complement when taken away) */
};

struct sum {
    const struct cgm_stats *reg;
    unsigned n, cap;
    struct term t[];
};

static uint64_t read_sum(const void *ctx)
{
    const struct sum *s = ctx;
    uint64_t v = 0;
    for (unsigned i = 0; i < s->n; i++)
        v += cgm_stats_read_one(s->reg, s->t[i].node) * s->t[i].weight;
    return v;
}

static struct sum *sum_new(const struct cgm_stats *reg, unsigned cap)
{
    struct sum *s = calloc(1, sizeof *s + cap * sizeof s->t[0]);
    if (!s)
        cgm_oom("the energy statistics");
    s->reg = reg;
    s->cap = cap;
    return s;
}

static void add_node(struct sum *s, cgm_stat node, int64_t weight)
{
    if (node < 0 || !weight)
        return;
    CGM_CHECK(s->n < s->cap);
    s->t[s->n++] = (struct term){ node, (uint64_t)weight };
}

static void add(struct sum *s, cgm_stat group, const char *path, int64_t weight)
{
    add_node(s, cgm_stats_find(s->reg, group, path), weight);
}

/* Registers S (freed here) as a computed counter NAME of GROUP. */
static cgm_stat put(struct cgm_stats *reg, cgm_stat group, const char *name, struct sum *s)
{
    const void *kept = cgm_stats_keep(reg, s, sizeof *s + s->n * sizeof s->t[0]);
    free(s);
    return kept ? cgm_stat_computed(reg, group, name, read_sum, kept) : -1;
}

struct energy {
    struct cgm_stats *reg;
    cgm_stat cycles;
    double hz;             /* the CPU's clock: cycles to seconds */
    struct sum *part[4];   /* cpu, gpu, network, dram: the totals of their elements */
    struct sum *total;
};
enum { PART_CPU, PART_GPU, PART_NETWORK, PART_DRAM };
static const char *const part_names[] = { "cpu", "gpu", "network", "dram" };

static void power(struct energy *e, cgm_stat group, cgm_stat fj)
{
    /* fJ / cycles * Hz / 1e15 = W */
    cgm_stat_ratio(e->reg, group, "power_w", fj, e->cycles, e->hz, 1e15);
}

/* An element's active_fj, passive_fj, total_fj and power_w in GROUP; its
 * total joins PART's. */
static void element(struct energy *e, cgm_stat group, struct sum *active, struct sum *passive, int part)
{
    cgm_stat a = put(e->reg, group, "active_fj", active);
    cgm_stat p = put(e->reg, group, "passive_fj", passive);
    struct sum *t = sum_new(e->reg, 2);
    add_node(t, a, 1);
    add_node(t, p, 1);
    cgm_stat total = put(e->reg, group, "total_fj", t);
    power(e, group, total);
    add_node(e->part[part], total, 1);
}

static void cores(struct energy *e, const struct rp_energy_cfg *c, unsigned n)
{
    cgm_stat root = CGM_STATS_ROOT, arr = cgm_stats_array(e->reg, cgm_stats_child(e->reg, root, "energy"), "cores");
    cgm_stat src = cgm_stats_child(e->reg, root, "cores");
    for (unsigned i = 0; i < n; i++) {
        cgm_stat core = cgm_stats_member(e->reg, src, i), g = cgm_stats_object(e->reg, arr, NULL);
        cgm_stat_id(e->reg, g, "id", i);
        struct sum *a = sum_new(e->reg, 3), *p = sum_new(e->reg, 2);
        /* the micro-ops that are neither loads nor stores: uops - loads - stores */
        add(a, core, "uops", (int64_t)c->core_uop);
        add(a, core, "loads", (int64_t)c->core_load - (int64_t)c->core_uop);
        add(a, core, "stores", (int64_t)c->core_store - (int64_t)c->core_uop);
        add(p, core, "cycles", (int64_t)c->core_passive);
        add(p, core, "commit_cycles", -(int64_t)c->core_passive);
        element(e, g, a, p, PART_CPU);
    }
}

static int cache_kind(const char *kind)
{
    static const char *const kinds[RP_E_CACHE_KINDS] = {
        [RP_E_L1I] = "l1i", [RP_E_L1D] = "l1d", [RP_E_L2] = "l2", [RP_E_L3] = "l3",
        [RP_E_GPU_L1V] = "gpu_l1v", [RP_E_GPU_L2] = "gpu_l2", [RP_E_GPU_SCALAR] = "gpu_scalar",
    };
    for (int k = 0; k < RP_E_CACHE_KINDS; k++)
        if (kind && !strcmp(kind, kinds[k]))
            return k;
    return -1;
}

static void caches(struct energy *e, const struct rp_energy_cfg *c)
{
    cgm_stat root = CGM_STATS_ROOT, src = cgm_stats_child(e->reg, root, "caches");
    if (src < 0)
        return;
    cgm_stat arr = cgm_stats_array(e->reg, cgm_stats_child(e->reg, root, "energy"), "caches");
    for (unsigned i = 0; i < cgm_stats_count(e->reg, src); i++) {
        cgm_stat cache = cgm_stats_member(e->reg, src, i);
        int k = cache_kind(cgm_stats_label_of(e->reg, cgm_stats_child(e->reg, cache, "kind")));
        if (k < 0)
            continue;
        cgm_stat g = cgm_stats_object(e->reg, arr, NULL);
        cgm_stat_label_ref(e->reg, g, "name", cgm_stats_label_of(e->reg, cgm_stats_child(e->reg, cache, "name")));
        const uint64_t *w = c->cache[k];
        struct sum *a = sum_new(e->reg, 3), *p = sum_new(e->reg, 1);
        add(a, cache, "accesses", (int64_t)w[RP_E_ACCESS]);
        add(a, cache, "misses", (int64_t)w[RP_E_FILL]);
        add(a, cache, "writebacks", (int64_t)w[RP_E_WRITEBACK]);
        add_node(p, e->cycles, (int64_t)w[RP_E_CACHE_PASSIVE]);
        element(e, g, a, p, k >= RP_E_GPU_L1V ? PART_GPU : PART_CPU);
    }
}

static void network(struct energy *e, const struct rp_energy_cfg *c)
{
    cgm_stat root = CGM_STATS_ROOT, sw = cgm_stats_find(e->reg, root, "network.switches");
    if (sw < 0)
        return;
    unsigned n = cgm_stats_count(e->reg, sw);
    cgm_stat g = cgm_stats_object(e->reg, cgm_stats_child(e->reg, root, "energy"), "network");
    struct sum *a = sum_new(e->reg, 3 * n), *p = sum_new(e->reg, 1);
    for (unsigned i = 0; i < n; i++) {
        cgm_stat s = cgm_stats_member(e->reg, sw, i);
        add(a, s, "packets", (int64_t)c->ring_hop);
        add(a, s, "west_link_busy", (int64_t)c->ring_flit);
        add(a, s, "east_link_busy", (int64_t)c->ring_flit);
    }
    add_node(p, e->cycles, (int64_t)c->ring_passive);
    element(e, g, a, p, PART_NETWORK);
}

static void dram(struct energy *e, const struct rp_energy_cfg *c)
{
    cgm_stat root = CGM_STATS_ROOT, d = cgm_stats_child(e->reg, root, "dram");
    if (d < 0)
        return;
    cgm_stat g = cgm_stats_object(e->reg, cgm_stats_child(e->reg, root, "energy"), "dram");
    struct sum *a = sum_new(e->reg, 5), *p = sum_new(e->reg, 1);
    add(a, d, "activates", (int64_t)c->dram_activate);
    add(a, d, "reads", (int64_t)c->dram_read);
    add(a, d, "writes", (int64_t)c->dram_write);
    add(a, d, "precharges", (int64_t)c->dram_precharge);
    add(a, d, "refreshes", (int64_t)c->dram_refresh);
    add(p, d, "cycles", (int64_t)c->dram_passive);
    element(e, g, a, p, PART_DRAM);
}

static void compute_units(struct energy *e, const struct rp_energy_cfg *c)
{
    cgm_stat root = CGM_STATS_ROOT, src = cgm_stats_find(e->reg, root, "gpu.compute_units");
    if (src < 0)
        return;
    static const struct { const char *unit; int event; } units[] = {
        { "salu", RP_E_SALU }, { "valu", RP_E_VALU }, { "smem", RP_E_SMEM }, { "vmem", RP_E_VMEM },
        { "lds", RP_E_LDS }, { "branch", RP_E_BRANCH }, { "barrier", RP_E_CU_OTHER },
        { "waitcnt", RP_E_CU_OTHER }, { "end", RP_E_CU_OTHER }, { "other", RP_E_CU_OTHER },
    };
    cgm_stat arr = cgm_stats_array(e->reg, cgm_stats_child(e->reg, root, "energy"), "compute_units");
    for (unsigned i = 0; i < cgm_stats_count(e->reg, src); i++) {
        cgm_stat cu = cgm_stats_member(e->reg, src, i), by = cgm_stats_child(e->reg, cu, "instructions_by_unit");
        cgm_stat g = cgm_stats_object(e->reg, arr, NULL);
        cgm_stat_id(e->reg, g, "id", i);
        struct sum *a = sum_new(e->reg, sizeof units / sizeof units[0]), *p = sum_new(e->reg, 1);
        for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
            add(a, by, units[u].unit, (int64_t)c->cu[units[u].event]);
        add(p, cu, "idle_cycles", (int64_t)c->cu[RP_E_CU_PASSIVE]);
        element(e, g, a, p, PART_GPU);
    }
}

int rp_energy_register(struct rp_sim *s, cgm_stat cycles)
{
    struct cgm_stats *reg = s->stats;
    const struct rp_energy_cfg *c = &s->cfg.energy;
    struct energy e = { .reg = reg, .cycles = cycles, .hz = (double)s->cfg.frequency };
    cgm_stat g = cgm_stats_object(reg, CGM_STATS_ROOT, "energy");
    cgm_stat_label(reg, g, "unit", "fJ (power_w: watts)");
    /* enough room for every element's total in its part */
    unsigned n = (unsigned)s->cfg.cores + 64;
    cgm_stat src = cgm_stats_child(reg, CGM_STATS_ROOT, "caches");
    n += src >= 0 ? cgm_stats_count(reg, src) : 0;
    src = cgm_stats_find(reg, CGM_STATS_ROOT, "gpu.compute_units");
    n += src >= 0 ? cgm_stats_count(reg, src) : 0;
    for (int p = 0; p < 4; p++)
        e.part[p] = sum_new(reg, n);
    cores(&e, c, (unsigned)s->cfg.cores);
    caches(&e, c);
    network(&e, c);
    dram(&e, c);
    compute_units(&e, c);
    cgm_stat parts = cgm_stats_object(reg, g, "parts");
    struct sum *total = sum_new(reg, 4);
    for (int p = 0; p < 4; p++) {
        cgm_stat x = cgm_stats_object(reg, parts, part_names[p]);
        cgm_stat fj = put(reg, x, "total_fj", e.part[p]);
        power(&e, x, fj);
        add_node(total, fj, 1);
    }
    cgm_stat fj = put(reg, g, "total_fj", total);
    power(&e, g, fj);
    return cgm_stats_failed(reg) ? -1 : 0;
}
