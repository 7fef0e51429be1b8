/* Energy per element: see energy.h. Each energy is a weighted sum of
 * counters found by path in the registry (energy_sum.h); the weights are
 * the profile's femtojoules, negative for a count taken away (a core's
 * committing cycles from its cycles). */
#include "replay/energy.h"

#include <stdio.h>
#include <string.h>

#include "replay/energy_dram.h"
#include "replay/energy_sum.h"
#include "cgm/check.h"
#include "replay/sim.h"

struct energy {
    struct cgm_stats *reg;
    cgm_stat cycles;
    double hz;             /* the CPU's clock: cycles to seconds */
    struct rp_esum *part[4];   /* cpu, gpu, network, dram: the totals of their elements */
    struct rp_esum *total;
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
static void element(struct energy *e, cgm_stat group, struct rp_esum *active, struct rp_esum *passive, int part)
{
    cgm_stat a = rp_esum_put(e->reg, group, "active_fj", active);
    cgm_stat p = rp_esum_put(e->reg, group, "passive_fj", passive);
    struct rp_esum *t = rp_esum_new(e->reg, 2);
    rp_esum_add(t, a, 1);
    rp_esum_add(t, p, 1);
    cgm_stat total = rp_esum_put(e->reg, group, "total_fj", t);
    power(e, group, total);
    rp_esum_add(e->part[part], total, 1);
}

static void cores(struct energy *e, const struct rp_energy_cfg *c, unsigned n)
{
    cgm_stat root = CGM_STATS_ROOT, arr = cgm_stats_array(e->reg, cgm_stats_child(e->reg, root, "energy"), "cores");
    cgm_stat src = cgm_stats_child(e->reg, root, "cores");
    for (unsigned i = 0; i < n; i++) {
        cgm_stat core = cgm_stats_member(e->reg, src, i), g = cgm_stats_object(e->reg, arr, NULL);
        cgm_stat_id(e->reg, g, "id", i);
        struct rp_esum *a = rp_esum_new(e->reg, RP_UC_COUNT + 2), *p = rp_esum_new(e->reg, 2);
        cgm_stat by = cgm_stats_child(e->reg, core, "uops_by_class");
        for (int k = 0; k < RP_UC_COUNT; k++)
            rp_esum_add_path(a, by, rp_uop_class_names[k], (int64_t)c->core_class[k]);
        rp_esum_add_path(a, core, "loads", (int64_t)c->core_load);
        rp_esum_add_path(a, core, "stores", (int64_t)c->core_store);
        rp_esum_add_path(p, core, "cycles", (int64_t)c->core_passive);
        rp_esum_add_path(p, core, "commit_cycles", -(int64_t)c->core_passive);
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

/* The counter of CACHE's (of kind K) accesses that write: the GPU's vector
 * L1 counts its stores; a core's data cache is written by the core's
 * stores (one access each: a straddling access is two micro-ops); the
 * others take only reads (fetches, fills of the level above; what comes
 * down written is charged as the upper level's write-back). -1: none. */
static cgm_stat cache_writes(struct energy *e, cgm_stat cache, int k)
{
    if (k == RP_E_GPU_L1V)
        return cgm_stats_child(e->reg, cache, "stores");
    unsigned core;
    const char *name = cgm_stats_label_of(e->reg, cgm_stats_child(e->reg, cache, "name"));
    if (k != RP_E_L1D || !name || sscanf(name, "core%u.l1d", &core) != 1)
        return -1;
    return cgm_stats_find(e->reg, cgm_stats_member(e->reg, cgm_stats_child(e->reg, CGM_STATS_ROOT, "cores"), core),
                          "stores");
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
        struct rp_esum *a = rp_esum_new(e->reg, 6), *p = rp_esum_new(e->reg, 1);
        /* reads: the accesses that do not write */
        cgm_stat writes = cache_writes(e, cache, k);
        rp_esum_add_path(a, cache, "accesses", (int64_t)(w[RP_E_READ] + w[RP_E_TAG]));
        rp_esum_add(a, writes, (int64_t)w[RP_E_WRITE] - (int64_t)w[RP_E_READ]);
        rp_esum_add_path(a, cache, "misses", (int64_t)w[RP_E_FILL]);
        rp_esum_add_path(a, cache, "writebacks", (int64_t)w[RP_E_WRITEBACK]);
        rp_esum_add(p, e->cycles, (int64_t)w[RP_E_CACHE_PASSIVE]);
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
    struct rp_esum *a = rp_esum_new(e->reg, 3 * n), *p = rp_esum_new(e->reg, 1);
    for (unsigned i = 0; i < n; i++) {
        cgm_stat s = cgm_stats_member(e->reg, sw, i);
        rp_esum_add_path(a, s, "packets", (int64_t)c->ring_hop);
        rp_esum_add_path(a, s, "west_link_busy", (int64_t)c->ring_flit);
        rp_esum_add_path(a, s, "east_link_busy", (int64_t)c->ring_flit);
    }
    rp_esum_add(p, e->cycles, (int64_t)c->ring_passive);
    element(e, g, a, p, PART_NETWORK);
}

/* Every memory controller's DRAM (controller 0's statistics are "dram",
 * the others' memory_controllers[i].dram). */
static void dram(struct energy *e, const struct rp_sim *s)
{
    const struct rp_energy_cfg *c = &s->cfg.energy;
    cgm_stat root = CGM_STATS_ROOT;
    unsigned n = s->ms ? cgm_memsys_controllers(s->ms) : 0;
    if (!n || cgm_stats_child(e->reg, root, "dram") < 0)
        return;
    const struct cgm_dram *d[64];
    cgm_stat stats[64];
    CGM_CHECK(n <= 64);
    for (unsigned i = 0; i < n; i++) {
        d[i] = cgm_memsys_controller_dram(s->ms, i);
        stats[i] = i ? cgm_stats_find(e->reg, cgm_stats_member(e->reg, cgm_stats_child(e->reg, root,
                                                                      "memory_controllers"), i), "dram")
                     : cgm_stats_child(e->reg, root, "dram");
    }
    cgm_stat g = cgm_stats_object(e->reg, cgm_stats_child(e->reg, root, "energy"), "dram");
    cgm_stat_label(e->reg, g, "from", c->dram_idd ? "IDD currents (dram.IDD*, dram.VDD)" : "energy.dram");
    struct rp_dram_counts k;
    if (rp_energy_dram_counts(e->reg, g, d, n, &k))
        return;
    struct rp_esum *a = rp_esum_new(e->reg, 5 * n), *p = rp_esum_new(e->reg, 2 * n);
    if (c->dram_idd) {
        rp_energy_dram_idd(e->reg, g, &s->cfg.dram, &k, stats, n, a, p);
    } else {
        rp_esum_add(a, k.read_bursts, (int64_t)c->dram_read);
        rp_esum_add(a, k.write_bursts, (int64_t)c->dram_write);
        for (unsigned i = 0; i < n; i++) {
            rp_esum_add_path(a, stats[i], "activates", (int64_t)c->dram_activate);
            rp_esum_add_path(a, stats[i], "precharges", (int64_t)c->dram_precharge);
            rp_esum_add_path(a, stats[i], "refreshes", (int64_t)c->dram_refresh);
            rp_esum_add_path(p, stats[i], "cycles", (int64_t)c->dram_passive);
        }
    }
    element(e, g, a, p, PART_DRAM);
}

/* A discrete GPU's own DRAM ("gpu.dram", of the [gpu.dram] settings): its
 * energy in energy.gpu_dram, added to the DRAM part beside the host's. */
static void gpu_dram(struct energy *e, const struct rp_sim *s)
{
    const struct rp_energy_cfg *c = &s->cfg.energy;
    const struct cgm_dram *d = s->ms ? cgm_memsys_gpu_dram(s->ms) : NULL;
    cgm_stat stats = cgm_stats_find(e->reg, CGM_STATS_ROOT, "gpu.dram");
    if (!d || stats < 0)
        return;
    cgm_stat g = cgm_stats_object(e->reg, cgm_stats_child(e->reg, CGM_STATS_ROOT, "energy"), "gpu_dram");
    cgm_stat_label(e->reg, g, "from", c->dram_idd ? "IDD currents (gpu.dram.IDD*, gpu.dram.VDD)" : "energy.dram");
    struct rp_dram_counts k;
    if (rp_energy_dram_counts(e->reg, g, &d, 1, &k))
        return;
    struct rp_esum *a = rp_esum_new(e->reg, 5), *p = rp_esum_new(e->reg, 2);
    if (c->dram_idd) {
        rp_energy_dram_idd(e->reg, g, &s->cfg.gpu_dram, &k, &stats, 1, a, p);
    } else {
        rp_esum_add(a, k.read_bursts, (int64_t)c->dram_read);
        rp_esum_add(a, k.write_bursts, (int64_t)c->dram_write);
        rp_esum_add_path(a, stats, "activates", (int64_t)c->dram_activate);
        rp_esum_add_path(a, stats, "precharges", (int64_t)c->dram_precharge);
        rp_esum_add_path(a, stats, "refreshes", (int64_t)c->dram_refresh);
        rp_esum_add_path(p, stats, "cycles", (int64_t)c->dram_passive);
    }
    element(e, g, a, p, PART_DRAM);
}

static void compute_units(struct energy *e, const struct rp_energy_cfg *c)
{
    cgm_stat root = CGM_STATS_ROOT, src = cgm_stats_find(e->reg, root, "gpu.compute_units");
    if (src < 0)
        return;
    /* the vector units per active lane, the scalar ones per instruction */
    static const struct { const char *counts; int event; } units[] = {
        { "instructions_by_unit.salu", RP_E_SALU }, { "lanes_by_unit.valu", RP_E_VALU },
        { "instructions_by_unit.smem", RP_E_SMEM }, { "lanes_by_unit.vmem", RP_E_VMEM },
        { "lanes_by_unit.lds", RP_E_LDS }, { "instructions_by_unit.branch", RP_E_BRANCH },
        { "instructions_by_unit.barrier", RP_E_CU_OTHER }, { "instructions_by_unit.waitcnt", RP_E_CU_OTHER },
        { "instructions_by_unit.end", RP_E_CU_OTHER }, { "instructions_by_unit.other", RP_E_CU_OTHER },
    };
    cgm_stat arr = cgm_stats_array(e->reg, cgm_stats_child(e->reg, root, "energy"), "compute_units");
    for (unsigned i = 0; i < cgm_stats_count(e->reg, src); i++) {
        cgm_stat cu = cgm_stats_member(e->reg, src, i);
        cgm_stat g = cgm_stats_object(e->reg, arr, NULL);
        cgm_stat_id(e->reg, g, "id", i);
        struct rp_esum *a = rp_esum_new(e->reg, sizeof units / sizeof units[0]), *p = rp_esum_new(e->reg, 1);
        for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
            rp_esum_add_path(a, cu, units[u].counts, (int64_t)c->cu[units[u].event]);
        rp_esum_add_path(p, cu, "idle_cycles", (int64_t)c->cu[RP_E_CU_PASSIVE]);
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
        e.part[p] = rp_esum_new(reg, n);
    cores(&e, c, (unsigned)s->cfg.cores);
    caches(&e, c);
    network(&e, c);
    dram(&e, s);
    gpu_dram(&e, s);
    compute_units(&e, c);
    cgm_stat parts = cgm_stats_object(reg, g, "parts");
    struct rp_esum *total = rp_esum_new(reg, 4);
    for (int p = 0; p < 4; p++) {
        cgm_stat x = cgm_stats_object(reg, parts, part_names[p]);
        cgm_stat fj = rp_esum_put(reg, x, "total_fj", e.part[p]);
        power(&e, x, fj);
        rp_esum_add(total, fj, 1);
    }
    cgm_stat fj = rp_esum_put(reg, g, "total_fj", total);
    power(&e, g, fj);
    /* fJ * cycles / Hz / 1e15 = J s: fJ over 1 / cycles */
    cgm_stat per_cycle = cgm_stat_ratio(reg, g, NULL, cgm_stat_constant(reg, g, NULL, 1), cycles, 1, 1);
    cgm_stat_ratio(reg, g, "energy_delay_product_js", fj, per_cycle, 1, e.hz * 1e15);
    return cgm_stats_failed(reg) ? -1 : 0;
}
