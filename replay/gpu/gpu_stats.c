/* The GPU's statistics, the "gpu" group of the registry (cgm/stats.h): per
 * compute unit (instructions by unit, busy, stall and idle cycles,
 * occupancy, LDS bank conflicts, memory requests), per kernel (start, end,
 * cycles in GPU cycles), the memory behind the compute units and the
 * driver's pages.
 *
 * A compute unit that sleeps counts the cycles it slept through when it
 * wakes; rp_gpu_stats_settle brings every unit's counts up to the GPU's
 * cycle into a copy the registry reads, so a snapshot taken while units
 * sleep (a region-of-interest marker) sees every cycle. */
#include "replay/gpu/gpu_internal.h"

#include <stddef.h>

#include "cgm/coh.h"
#include "cgm/memsys.h"
#include "replay/sim.h"

const char *const rp_cu_stall_names[CS_COUNT] = { "unit_busy", "memory_wait", "barrier", "dependency",
                                                  "fetch" };

static uint64_t cu_instructions(const void *ctx)
{
    const struct rp_cu_stats *st = ctx;
    uint64_t n = 0;
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        n += st->insts[u];
    return n;
}

static uint64_t cu_stalls(const void *ctx)
{
    const struct rp_cu_stats *st = ctx;
    uint64_t n = 0;
    for (unsigned c = 0; c < CS_COUNT; c++)
        n += st->stall[c];
    return n;
}

static void add_cu(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat cus, cgm_stat cycles, struct rp_cu *cu)
{
    const struct rp_cu_stats *st = &cu->shown;
    cgm_stat x = cgm_stats_object(reg, cus, NULL);
    cgm_stat_id(reg, x, "id", cu->id);
    cgm_stat_computed(reg, x, "wavefront_instructions", cu_instructions, st);
    cgm_stat ops = cgm_stat_counter(reg, x, "operations", &st->lane_ops);
    cgm_stat_ratio(reg, x, "opc", ops, cycles, 1, 1);
    cgm_stat_counters(reg, x, "instructions_by_unit", st->insts, g->unit_names, CGM_SI_UNIT_COUNT);
    if (g->cfg->energy.enable) /* what the energy of the vector units counts */
        cgm_stat_counters(reg, x, "lanes_by_unit", st->lanes, g->unit_names, CGM_SI_UNIT_COUNT);
    cgm_stat_counter(reg, x, "busy_cycles", &st->busy);
    /* One counter each (not cgm_stat_counters) so the text summary can
     * find them by path. */
    cgm_stat stalls = cgm_stats_object(reg, x, "stall_cycles");
    for (unsigned c = 0; c < CS_COUNT; c++)
        cgm_stat_counter(reg, stalls, rp_cu_stall_names[c], &st->stall[c]);
    cgm_stat_computed(reg, x, "stall_cycles_total", cu_stalls, st);
    cgm_stat_counter(reg, x, "idle_cycles", &st->idle);
    cgm_stat_counter(reg, x, "work_groups", &st->work_groups);
    cgm_stat_counter(reg, x, "work_group_cycles", &st->work_group_cycles);
    cgm_stat occ = cgm_stats_object(reg, x, "occupancy");
    cgm_stat waves = cgm_stat_counter(reg, occ, "wavefront_cycles", &st->wave_cycles);
    cgm_stat_ratio(reg, occ, "average_wavefronts", waves, cycles, 1, 1);
    cgm_stat_peak(reg, occ, "peak_wavefronts", &st->peak_waves);
    cgm_stat lds = cgm_stats_object(reg, x, "lds");
    cgm_stat_counter(reg, lds, "instructions", &st->lds_insts);
    cgm_stat_counter(reg, lds, "cycles", &st->lds_cycles);
    cgm_stat_counter(reg, lds, "bank_conflict_cycles", &st->lds_conflict_cycles);
    cgm_stat mem = cgm_stats_object(reg, x, "memory");
    cgm_stat_counter(reg, mem, "vector_instructions", &st->vmem_insts);
    cgm_stat_counter(reg, mem, "vector_requests", &st->vmem_requests);
    cgm_stat_counter(reg, mem, "scalar_requests", &st->smem_requests);
    cgm_stat_counter(reg, mem, "vector_unit_full_cycles", &st->vmem_stall);
    cgm_stat_counter(reg, mem, "port_refused", &st->port_refused);
    cgm_stat full = cgm_stat_counter(reg, mem, "vector_buffer_full_cycles", &st->vmb_full);
    cgm_stat_ratio(reg, mem, "vector_buffer_full_fraction", full, cycles, 1, 1);
    cgm_stat lat = cgm_stats_object(reg, mem, "vector_latency");
    cgm_stat done = cgm_stat_counter(reg, lat, "instructions", &st->vmem_done);
    cgm_stat sum = cgm_stat_counter(reg, lat, "cycles", &st->vmem_latency);
    cgm_stat_ratio(reg, lat, "mean", sum, done, 1, 1);
    cgm_stat_peak(reg, lat, "max", &st->vmem_latency_max);
}

/* ---- the seed 001 figures' measures, over the whole GPU ------------------ */

/* A compute-unit counter summed over the units (the field at OFFSET of
 * struct rp_cu_stats), or its maximum. */
struct cu_field {
    const struct rp_gpu *g;
    size_t offset;
};

static uint64_t cu_field_of(const struct rp_cu *cu, size_t offset)
{
    const uint64_t *p = (const uint64_t *)(const void *)((const char *)&cu->shown + offset);
    return *p;
}

static uint64_t cus_sum(const void *ctx)
{
    const struct cu_field *f = ctx;
    uint64_t n = 0;
    for (unsigned i = 0; i < f->g->ncus; i++)
        n += cu_field_of(&f->g->cus[i], f->offset);
    return n;
}

static uint64_t cus_max(const void *ctx)
{
    const struct cu_field *f = ctx;
    uint64_t n = 0;
    for (unsigned i = 0; i < f->g->ncus; i++)
        if (cu_field_of(&f->g->cus[i], f->offset) > n)
            n = cu_field_of(&f->g->cus[i], f->offset);
    return n;
}

static cgm_stat cus_counter(struct cgm_stats *reg, cgm_stat x, const char *name, const struct rp_gpu *g,
                            size_t offset, bool max)
{
    struct cu_field f = { g, offset };
    const void *ctx = cgm_stats_keep(reg, &f, sizeof f);
    if (!ctx)
        return -1;
    return max ? cgm_stat_peak_computed(reg, x, name, cus_max, ctx) : cgm_stat_computed(reg, x, name, cus_sum, ctx);
}

/* Every L2 bank's misses (the hierarchy's). */
static uint64_t l2_misses(const void *ctx)
{
    const struct cgm_coh_sys *coh = cgm_memsys_coh(ctx);
    uint64_t n = 0;
    for (int node = 0; node < (int)cgm_coh_node_count(coh); node++)
        if (cgm_coh_node_kind(coh, node) == CGM_NODE_GPU_L2)
            n += cgm_coh_gpu_l2_stats(coh, cgm_coh_node_index(coh, node))->misses;
    return n;
}

/* A field of every L2 bank's miss timing (cgm_memsys_gpu_l2_timing) or
 * counts (cgm_coh_gpu_l2_stats), or of every vector L1's CU-to-L2 latency
 * (cgm_memsys_gpu_l1_timing), summed. */
enum node_field_source { L2_TIMING, L2_COH, L1_TIMING };

struct node_field {
    const struct cgm_memsys *ms;
    size_t offset;
    enum node_field_source source;
};

static uint64_t nodes_sum(const void *ctx)
{
    const struct node_field *f = ctx;
    const struct cgm_coh_sys *coh = cgm_memsys_coh(f->ms);
    enum cgm_coh_node_kind kind = f->source == L1_TIMING ? CGM_NODE_GPU_L1 : CGM_NODE_GPU_L2;
    uint64_t n = 0;
    for (int node = 0; node < (int)cgm_coh_node_count(coh); node++)
        if (cgm_coh_node_kind(coh, node) == kind) {
            int i = cgm_coh_node_index(coh, node);
            const void *t = f->source == L2_COH      ? (const void *)cgm_coh_gpu_l2_stats(coh, i)
                            : f->source == L2_TIMING ? (const void *)cgm_memsys_gpu_l2_timing(f->ms, (unsigned)i)
                                                     : (const void *)cgm_memsys_gpu_l1_timing(f->ms, (unsigned)i);
            n += *(const uint64_t *)(const void *)((const char *)t + f->offset);
        }
    return n;
}

static cgm_stat nodes_counter(struct cgm_stats *reg, cgm_stat x, const char *name, const struct cgm_memsys *ms,
                              enum node_field_source source, size_t offset)
{
    struct node_field f = { ms, offset, source };
    const void *ctx = cgm_stats_keep(reg, &f, sizeof f);
    return ctx ? cgm_stat_computed(reg, x, name, nodes_sum, ctx) : -1;
}

static cgm_stat banks_counter(struct cgm_stats *reg, cgm_stat x, const char *name, const struct cgm_memsys *ms,
                              size_t offset)
{
    return nodes_counter(reg, x, name, ms, L2_TIMING, offset);
}

static cgm_stat banks_coh_counter(struct cgm_stats *reg, cgm_stat x, const char *name, const struct cgm_memsys *ms,
                                  size_t offset)
{
    return nodes_counter(reg, x, name, ms, L2_COH, offset);
}

/* The bytes between the L2 banks and what is below them, both ways over
 * every hub (the banks' only way down). */
static uint64_t l2_memory_bytes(const void *ctx)
{
    const struct cgm_memsys *ms = ctx;
    uint64_t n = 0;
    for (unsigned i = 0; i < cgm_memsys_hubs(ms); i++)
        n += cgm_memsys_hub_link_stats(ms, i, false)->bytes + cgm_memsys_hub_link_stats(ms, i, true)->bytes;
    return n;
}

/* OPC (operations per GPU cycle), MPKO (L2 misses per thousand
 * operations), the vector memory instructions' latency, the vector memory
 * buffer's full cycles and the L2's traffic to memory (seed 001 Figs. 3.7,
 * 3.8, 6.6-6.9). */
static void add_measures(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat x, cgm_stat cycles)
{
    cgm_stat ops = cus_counter(reg, x, "operations", g, offsetof(struct rp_cu_stats, lane_ops), false);
    cgm_stat_ratio(reg, x, "opc", ops, cycles, 1, 1);
    if (g->room_ms) {
        cgm_stat misses = cgm_stat_computed(reg, x, "l2_misses", l2_misses, g->room_ms);
        cgm_stat_ratio(reg, x, "mpko", misses, ops, 1000, 1);
        cgm_stat bytes = cgm_stat_computed(reg, x, "l2_memory_bytes", l2_memory_bytes, g->room_ms);
        cgm_stat_ratio(reg, x, "l2_memory_bytes_per_cycle", bytes, cycles, 1, 1);
        cgm_stat l = cgm_stats_object(reg, x, "l2_miss_latency");
        cgm_stat n = banks_counter(reg, l, "fetches", g->room_ms, offsetof(struct cgm_memsys_gpu_l2_timing, fetches));
        cgm_stat c = banks_counter(reg, l, "fetch_cycles", g->room_ms,
                                   offsetof(struct cgm_memsys_gpu_l2_timing, fetch_cycles));
        cgm_stat_ratio(reg, l, "fetch_mean", c, n, 1, 1);
        cgm_stat w = banks_counter(reg, l, "entry_wait_cycles", g->room_ms,
                                   offsetof(struct cgm_memsys_gpu_l2_timing, entry_wait_cycles));
        /* the waits at the banks' doors per fetch: a miss's share of them */
        cgm_stat_ratio(reg, l, "entry_wait_per_fetch", w, n, 1, 1);
        if (cgm_memsys_config_of(g->room_ms)->coh.gpu.l2_frc_entries) {
            /* the banks' FRCs (only when on): seed 001 Fig. 5.7's share of the misses they served */
            cgm_stat f = cgm_stats_object(reg, x, "l2_frc");
            cgm_stat taken = banks_coh_counter(reg, f, "fetches", g->room_ms,
                                               offsetof(struct cgm_coh_gpu_l2_stats, frc_fetches));
            banks_coh_counter(reg, f, "swaps", g->room_ms, offsetof(struct cgm_coh_gpu_l2_stats, frc_swaps));
            banks_coh_counter(reg, f, "hits", g->room_ms, offsetof(struct cgm_coh_gpu_l2_stats, frc_hits));
            cgm_stat_ratio(reg, f, "served_fraction", taken, misses, 1, 1);
        }
        if (cgm_memsys_config_of(g->room_ms)->coh.gpu.l2_victim_policy == CGM_COH_VICTIM_SERIALIZED) {
            /* the victim's parts of a miss, before its fetch (0 under early: not on its path) */
            banks_coh_counter(reg, l, "victim_waits", g->room_ms,
                              offsetof(struct cgm_coh_gpu_l2_stats, victim_waits));
            cgm_stat ic = banks_coh_counter(reg, l, "invalidate_cycles", g->room_ms,
                                            offsetof(struct cgm_coh_gpu_l2_stats, invalidate_cycles));
            cgm_stat ec = banks_coh_counter(reg, l, "evict_cycles", g->room_ms,
                                            offsetof(struct cgm_coh_gpu_l2_stats, evict_cycles));
            cgm_stat_ratio(reg, l, "invalidate_per_fetch", ic, n, 1, 1);
            cgm_stat_ratio(reg, l, "evict_per_fetch", ec, n, 1, 1);
        }
        /* the CU-to-L2 latency (seed 002 Figs. 7, 8), over every CU */
        cgm_stat cl = cgm_stats_object(reg, x, "l2_latency");
        cgm_stat cn = nodes_counter(reg, cl, "requests", g->room_ms, L1_TIMING,
                                    offsetof(struct cgm_memsys_gpu_l1_timing, requests));
        cgm_stat cc = nodes_counter(reg, cl, "cycles", g->room_ms, L1_TIMING,
                                    offsetof(struct cgm_memsys_gpu_l1_timing, cycles));
        cgm_stat_ratio(reg, cl, "mean", cc, cn, 1, 1);
    }
    cgm_stat lat = cgm_stats_object(reg, x, "vector_memory_latency");
    cgm_stat done = cus_counter(reg, lat, "instructions", g, offsetof(struct rp_cu_stats, vmem_done), false);
    cgm_stat sum = cus_counter(reg, lat, "cycles", g, offsetof(struct rp_cu_stats, vmem_latency), false);
    cgm_stat_ratio(reg, lat, "mean", sum, done, 1, 1);
    cus_counter(reg, lat, "max", g, offsetof(struct rp_cu_stats, vmem_latency_max), true);
    cgm_stat full = cus_counter(reg, x, "vector_buffer_full_cycles", g, offsetof(struct rp_cu_stats, vmb_full), false);
    /* summed over the units: as a share of their cycles */
    cgm_stat unit_cycles = cgm_stat_ratio(reg, x, NULL, cycles, cgm_stat_constant(reg, x, NULL, 1), g->ncus, 1);
    cgm_stat_ratio(reg, x, "vector_buffer_full_fraction", full, unit_cycles, 1, 1);
}

/* A kernel's start and end are the GPU cycles they happened at (0 before
 * then), read as they are at a snapshot: registered as peaks, which only
 * grow and are never subtracted. Its cycles are a counter, so a region of
 * interest shows the cycles each kernel ran inside the region. */
static void add_kernel(struct cgm_stats *reg, cgm_stat ks, struct rp_kernel *k)
{
    cgm_stat x = cgm_stats_object(reg, ks, NULL);
    cgm_stat_label_ref(reg, x, "name", k->name);
    cgm_stat_id(reg, x, "launch", k->launch);
    cgm_stat_id(reg, x, "work_groups", k->streams.count);
    cgm_stat_peak(reg, x, "start", &k->shown_start);
    cgm_stat_peak(reg, x, "end", &k->shown_end);
    cgm_stat_counter(reg, x, "cycles", &k->shown_cycles);
}

int rp_gpu_stats_register(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat parent)
{
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        g->unit_names[u] = cgm_si_unit_name(u);
    cgm_stat x = cgm_stats_object(reg, parent, "gpu");
    cgm_stat cycles = cgm_stat_counter(reg, x, "cycles", &g->shown_cycle);
    cgm_stat_constant(reg, x, "frequency", (double)g->cfg->gpu_frequency);
    cgm_stat_counter(reg, x, "wavefront_instructions", &g->issued);
    add_measures(g, reg, x, cycles);
    cgm_stat cus = cgm_stats_array(reg, x, "compute_units");
    for (unsigned i = 0; i < g->ncus; i++)
        add_cu(g, reg, cus, cycles, &g->cus[i]);
    /* The launches the trace holds work-groups of (rp_gpu_create made
     * their kernels before the run). */
    cgm_stat ks = cgm_stats_array(reg, x, "kernels");
    for (size_t i = 0; i < g->nkernels; i++)
        add_kernel(reg, ks, g->kernels[i]);
    /* per kernel of the program (the memory system's caches, registered
     * before the GPU, are among its sources) */
    if (!(g->kstats = rp_kstats_register(g, reg, x)))
        return -1;
    cgm_stat m = cgm_stats_object(reg, x, "memory");
    if (g->cfg->gpu_memory == RP_GPU_MEM_HIERARCHY) {
        /* its caches are in the memory system's "caches" array */
        static const char *const orgs[2][2] = { { "NC-MC", "NC-L3" }, { "C-MC", "C-L3" } };
        cgm_stat_label(reg, m, "model", "hierarchy");
        cgm_stat_label(reg, m, "organisation", g->sync.discrete ? "discrete"
                                               : orgs[g->cfg->gpu_coherence == RP_GPU_COHERENT]
                                                     [g->cfg->gpu_connection == RP_GPU_TO_L3]);
        /* a discrete GPU's own memory: "gpu.dram" beside the host's "dram" */
        const struct cgm_dram *own = cgm_memsys_gpu_dram(g->sim->ms);
        if (own)
            cgm_dram_stats_register(own, reg, x);
    } else {
        cgm_stat_label(reg, m, "model", "ideal");
        cgm_stat_counter(reg, m, "vector_requests", &g->ideal.requests);
        cgm_stat_counter(reg, m, "vector_bytes", &g->ideal.bytes);
        cgm_stat_counter(reg, m, "scalar_requests", &g->ideal.scalar_requests);
        cgm_stat_counter(reg, m, "queued_cycles", &g->ideal.queued_cycles);
    }
    cgm_stat y = cgm_stats_object(reg, x, "copies");
    cgm_stat_counter(reg, y, "system_cycles", &g->sync.system_cycles);
    cgm_stat_counter(reg, y, "jobs", &g->sync.jobs_done);
    cgm_stat_counter(reg, y, "bytes_copied", &g->sync.bytes_copied);
    cgm_stat_counter(reg, y, "blocks_flushed", &g->sync.blocks_flushed);
    cgm_stat_counter(reg, y, "implicit", &g->sync.implicit_copies);
    if (g->sync.adsm_on || g->sync.discrete)
        rp_gpu_data_movement_register(g, reg, x);
    cgm_stat d = cgm_stats_object(reg, x, "driver_memory");
    cgm_stat_counter(reg, d, "regions", &g->driver_regions);
    cgm_stat_counter(reg, d, "pages", &g->driver_pages);
    return cgm_stats_failed(reg) ? -1 : 0;
}

uint64_t rp_gpu_busy_cycles(const struct rp_gpu *g)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < g->ncus; i++)
        n += g->cus[i].shown.busy;
    return n;
}

uint64_t rp_gpu_stall_cycles(const struct rp_gpu *g)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < g->ncus; i++)
        for (int c = 0; c < CS_COUNT; c++)
            n += g->cus[i].shown.stall[c];
    return n;
}

uint64_t rp_gpu_system_cycles(const struct rp_gpu *g) { return g->sync.system_cycles; }

void rp_gpu_settle_cus(struct rp_gpu *g, uint64_t now)
{
    for (unsigned i = 0; i < g->ncus; i++)
        rp_cu_stats_at(&g->cus[i], now, &g->cus[i].shown);
}

void rp_gpu_stats_settle(struct rp_gpu *g)
{
    uint64_t now = rp_gpu_cycle(g);
    g->shown_cycle = now;
    rp_gpu_settle_cus(g, now);
    if (g->kstats)
        rp_kstats_settle(g->kstats, now);
    for (size_t i = 0; i < g->nkernels; i++) {
        struct rp_kernel *k = g->kernels[i];
        if (!k->started)
            continue;
        k->shown_start = k->start;
        k->shown_end = k->done ? k->end : now;
        k->shown_cycles = k->shown_end - k->start;
    }
}

void rp_gpu_kernels_out(struct rp_gpu *g, FILE *out) { rp_kstats_write_to(g->kstats, out); }

bool rp_gpu_kernels_written(const struct rp_gpu *g) { return rp_kstats_written(g->kstats); }
