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
    cgm_stat_counters(reg, x, "instructions_by_unit", st->insts, g->unit_names, CGM_SI_UNIT_COUNT);
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
        cgm_stat_label(reg, m, "organisation", orgs[g->cfg->gpu_coherence == RP_GPU_COHERENT]
                                                   [g->cfg->gpu_connection == RP_GPU_TO_L3]);
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
