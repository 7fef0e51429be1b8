/* The GPU's statistics as the "gpu" object of replay's JSON: per compute
 * unit (instructions by unit, busy, stall and idle cycles, occupancy, LDS
 * bank conflicts, memory requests), per kernel (start, end, cycles in GPU
 * cycles), the memory behind the compute units and the driver's pages.
 * Only integers go in, so snapshots subtract (the region of interest). */
#include <cJSON.h>

#include "replay/gpu/gpu_internal.h"

static void add_u(cJSON *o, const char *k, uint64_t v) { cJSON_AddNumberToObject(o, k, (double)v); }

static const char *const stall_names[CS_COUNT] = { "unit_busy", "memory_wait", "barrier", "dependency",
                                                   "fetch" };

static cJSON *cu_json(const struct rp_cu *cu, uint64_t now)
{
    struct rp_cu_stats stats;
    rp_cu_stats_at(cu, now, &stats);
    const struct rp_cu_stats *st = &stats;
    cJSON *x = cJSON_CreateObject();
    add_u(x, "id", cu->id);
    uint64_t total = 0, stalls = 0;
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        total += st->insts[u];
    add_u(x, "wavefront_instructions", total);
    cJSON *by = cJSON_AddObjectToObject(x, "instructions_by_unit");
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        add_u(by, cgm_si_unit_name(u), st->insts[u]);
    add_u(x, "busy_cycles", st->busy);
    cJSON *sc = cJSON_AddObjectToObject(x, "stall_cycles");
    for (unsigned c = 0; c < CS_COUNT; c++) {
        add_u(sc, stall_names[c], st->stall[c]);
        stalls += st->stall[c];
    }
    add_u(x, "stall_cycles_total", stalls);
    add_u(x, "idle_cycles", st->idle);
    add_u(x, "work_groups", st->work_groups);
    add_u(x, "work_group_cycles", st->work_group_cycles);
    cJSON *occ = cJSON_AddObjectToObject(x, "occupancy");
    add_u(occ, "wavefront_cycles", st->wave_cycles);
    add_u(occ, "peak_wavefronts", st->peak_waves);
    cJSON *lds = cJSON_AddObjectToObject(x, "lds");
    add_u(lds, "instructions", st->lds_insts);
    add_u(lds, "cycles", st->lds_cycles);
    add_u(lds, "bank_conflict_cycles", st->lds_conflict_cycles);
    cJSON *mem = cJSON_AddObjectToObject(x, "memory");
    add_u(mem, "vector_instructions", st->vmem_insts);
    add_u(mem, "vector_requests", st->vmem_requests);
    add_u(mem, "scalar_requests", st->smem_requests);
    add_u(mem, "vector_unit_full_cycles", st->vmem_stall);
    add_u(mem, "port_refused", st->port_refused);
    return x;
}

void *rp_gpu_json(const struct rp_gpu *g, uint64_t now)
{
    cJSON *x = cJSON_CreateObject();
    add_u(x, "cycles", now);
    add_u(x, "wavefront_instructions", g->issued);
    cJSON *cus = cJSON_AddArrayToObject(x, "compute_units");
    for (unsigned i = 0; i < g->ncus; i++)
        cJSON_AddItemToArray(cus, cu_json(&g->cus[i], now));
    cJSON *ks = cJSON_AddArrayToObject(x, "kernels");
    for (size_t i = 0; i < g->nkernels; i++) {
        const struct rp_kernel *k = g->kernels[i];
        if (!k->started)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", k->name);
        add_u(o, "launch", k->launch);
        add_u(o, "work_groups", k->groups);
        add_u(o, "start", k->start);
        add_u(o, "end", k->done ? k->end : now);
        add_u(o, "cycles", (k->done ? k->end : now) - k->start);
        cJSON_AddItemToArray(ks, o);
    }
    cJSON *m = cJSON_AddObjectToObject(x, "memory");
    cJSON_AddStringToObject(m, "model", "ideal");
    add_u(m, "vector_requests", g->ideal.requests);
    add_u(m, "vector_bytes", g->ideal.bytes);
    add_u(m, "scalar_requests", g->ideal.scalar_requests);
    add_u(m, "queued_cycles", g->ideal.queued_cycles);
    cJSON *d = cJSON_AddObjectToObject(x, "driver_memory");
    add_u(d, "regions", g->driver_regions);
    add_u(d, "pages", g->driver_pages);
    return x;
}
