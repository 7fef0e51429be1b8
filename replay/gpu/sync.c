/* Copies and flushes between the CPU's and the GPU's memory
 * (replay/gpu/sync.h says what is charged, and why). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/check.h"
#include "replay/gpu/gpu_internal.h"
#include "replay/gpu/ranges.h"
#include "cgm/coh.h"
#include "cgm/dram.h"
#include "replay/sim.h"

enum { WORD = 4, BLOCK = 64 };

/* ---- the copy engine ----------------------------------------------------- */

static uint64_t to_ps(const struct rp_sync *y, uint64_t cycle)
{
    return (uint64_t)((unsigned __int128)cycle * 1000000000000ull / y->cpu_hz);
}

static uint64_t to_cycle_ceil(const struct rp_sync *y, uint64_t ps)
{
    return (uint64_t)(((unsigned __int128)ps * y->cpu_hz + 999999999999ull) / 1000000000000ull);
}

/* The DMA engine's read of a burst at host address VA: the L3's latency
 * when the L3 holds it, else the L3's and a DRAM read's (activate, CAS and
 * the burst: a row miss on an idle bank). */
static uint64_t burst_source(void *ctx, uint64_t va, bool *in_cache)
{
    struct rp_sync *y = ctx;
    struct rp_sim *s = y->gpu->sim;
    const struct cgm_memsys_config *mc = cgm_memsys_config_of(s->ms);
    uint64_t l3 = to_ps(y, mc->l3_latency);
    struct cgm_page_table *pt = s->pt;
    unsigned pb = cgm_page_table_page_bits(pt);
    uint64_t pfn;
    *in_cache = cgm_page_table_lookup(pt, 0, va >> pb, &pfn) &&
                cgm_coh_l3_holds(cgm_memsys_coh(s->ms), (pfn << pb | (va & ((1ull << pb) - 1))) / mc->block_bytes);
    if (*in_cache)
        return l3;
    const struct cgm_dram_config *d = &s->cfg.dram;
    return l3 + (uint64_t)((d->t.rcd + d->t.cl + d->t.bl / 2) * d->t.tck_ns * 1000);
}

static void adsm_move(void *ctx, bool to_gpu, uint64_t addr, uint64_t bytes, bool eager);

static int engine_init(struct rp_sync *y, const struct rp_config *cfg, char *err, size_t errlen)
{
    y->cpu_hz = cfg->frequency;
    y->discrete = cfg->gpu_attach == RP_GPU_DISCRETE;
    if (y->discrete) {
        struct cgm_link_config lc = { .lanes = cfg->pcie_lanes, .lane_mbps = cfg->pcie_lane_mbps,
                                      .latency_ps = cfg->pcie_latency * 1000, .max_payload = cfg->pcie_max_payload,
                                      .packet_overhead = cfg->pcie_packet_overhead };
        if (cgm_link_init(&y->link, &lc, err, errlen))
            return -1;
        cgm_dma_init(&y->dma, &y->link, cfg->pcie_dma_burst, burst_source, y);
    }
    y->adsm_on = cfg->gpu_copy_policy != RP_COPY_LAUNCH;
    if (y->adsm_on)
        rp_adsm_init(&y->adsm, (enum rp_copy_policy)cfg->gpu_copy_policy, cfg->gpu_copy_block, cfg->gpu_rolling_size,
                     cfg->gpu_rolling_growth, adsm_move, y);
    return 0;
}

/* A transfer of BYTES from ADDR (the host's, TO_GPU) whose data are ready
 * at CPU cycle NOW: the cycle it ends. */
static uint64_t engine(struct rp_sync *y, uint64_t now, bool to_gpu, uint64_t addr, uint64_t bytes)
{
    if (y->discrete) {
        uint64_t ps = to_ps(y, now);
        return to_cycle_ceil(y, to_gpu ? cgm_dma_copy(&y->dma, ps, addr, bytes) : cgm_link_send(&y->link, ps, bytes));
    }
    unsigned ports = (unsigned)y->gpu->cfg->mem_ports;
    uint64_t start = now > y->engine_free ? now : y->engine_free;
    y->engine_free = start + (2 * ((bytes + WORD - 1) / WORD) + ports - 1) / ports;
    return y->engine_free;
}

int rp_sync_init(struct rp_sync *y, struct rp_gpu *g, ks_domain *cpu, char *err, size_t errlen)
{
    const struct rp_config *cfg = g->cfg;
    *y = (struct rp_sync){ .gpu = g };
    ks_ec_init(&y->ec, "gpu-sync", 0);
    if (cfg->gpu_memory != RP_GPU_MEM_HIERARCHY)
        return 0; /* the ideal memory has no caches to flush, no pages of its own */
    y->copies = cfg->gpu_coherence == RP_GPU_NONCOHERENT;
    y->flushes = !(cfg->gpu_coherence == RP_GPU_COHERENT && cfg->gpu_connection == RP_GPU_TO_L3);
    if (!y->flushes)
        return 0;
    if (engine_init(y, cfg, err, errlen))
        return -1;
    y->njobs = g->sim->sched.nthreads;
    y->jobs = calloc(y->njobs ? y->njobs : 1, sizeof *y->jobs);
    if (!y->jobs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ks_context_opts o = { .name = "gpu.sync", .domain = cpu };
    if (!ks_context_create_opts(g->sim->eng, rp_sync_main, y, &o)) {
        snprintf(err, errlen, "%s", ks_engine_error(g->sim->eng));
        return -1;
    }
    return 0;
}

void rp_sync_free(struct rp_sync *y)
{
    if (y->adsm_on)
        rp_adsm_free(&y->adsm);
    for (size_t i = 0; i < y->njobs; i++)
        free(y->jobs[i].ph);
    free(y->jobs);
    free(y->regions);
}

/* ---- GPU buffers ---------------------------------------------------------- */

/* The index of the first region ending after VA. */
static size_t region_at(const struct rp_sync *y, uint64_t va)
{
    return rp_range_after(y->regions, y->nregions, sizeof *y->regions, va);
}

static struct rp_region *find_region(struct rp_sync *y, uint64_t va)
{
    size_t i = region_at(y, va);
    return i < y->nregions && y->regions[i].addr <= va ? &y->regions[i] : NULL;
}

/* The cores and compute units report stores into [lo, hi) of the sim. */
static void rewatch(struct rp_sync *y)
{
    struct rp_sim *s = y->gpu->sim;
    s->gpu_watch_lo = 1;
    s->gpu_watch_hi = 0;
    if (y->flushes && y->nregions) {
        s->gpu_watch_lo = y->regions[0].addr;
        s->gpu_watch_hi = y->regions[y->nregions - 1].addr + y->regions[y->nregions - 1].bytes;
    }
    s->gpu_watch_loads = y->adsm_on && !y->program_copies &&
                         (y->adsm.policy == RP_COPY_LAZY || y->adsm.policy == RP_COPY_ROLLING);
}

bool rp_sync_alloc(struct rp_sync *y, uint64_t addr, uint64_t bytes)
{
    if (!y->flushes || !bytes || addr + bytes < addr)
        return true;
    if (y->adsm_on && !rp_adsm_alloc(&y->adsm, addr, bytes))
        return false;
    if (y->nregions == y->regions_cap) {
        size_t cap = y->regions_cap ? 2 * y->regions_cap : 16;
        struct rp_region *r = realloc(y->regions, cap * sizeof *r);
        if (!r)
            return false;
        y->regions = r;
        y->regions_cap = cap;
    }
    size_t i = region_at(y, addr);
    if (i < y->nregions && y->regions[i].addr < addr + bytes)
        return true; /* overlaps one we know: the driver never does that; keep the first */
    memmove(&y->regions[i + 1], &y->regions[i], (y->nregions - i) * sizeof *y->regions);
    y->regions[i] = (struct rp_region){ .addr = addr, .bytes = bytes };
    y->nregions++;
    rewatch(y);
    return true;
}

void rp_sync_release(struct rp_sync *y, uint64_t addr)
{
    if (y->adsm_on)
        rp_adsm_release(&y->adsm, addr);
    struct rp_region *r = find_region(y, addr);
    if (!r || r->addr != addr)
        return;
    size_t i = (size_t)(r - y->regions);
    memmove(&y->regions[i], &y->regions[i + 1], (y->nregions - i - 1) * sizeof *y->regions);
    y->nregions--;
    rewatch(y);
}

void rp_sync_cpu_store(struct rp_sync *y, uint64_t va)
{
    struct rp_region *r = find_region(y, va);
    if (r)
        r->cpu_dirty = true;
}

void rp_sync_gpu_store(struct rp_sync *y, uint64_t va)
{
    struct rp_region *r = find_region(y, va);
    if (r)
        r->gpu_dirty = true;
}

/* ---- jobs ------------------------------------------------------------------ */

static struct rp_sync_job *job_of(struct rp_sync *y, struct rp_thread *t)
{
    struct rp_thread *first = y->gpu->sim->sched.threads;
    CGM_CHECK(t >= first && (size_t)(t - first) < y->njobs);
    return &y->jobs[t - first];
}

static bool add_phase(struct rp_sync_job *j, struct rp_sync_phase p)
{
    if (!p.bytes)
        return true;
    if (j->nph == j->cap) {
        unsigned cap = j->cap ? 2 * j->cap : 8;
        struct rp_sync_phase *v = realloc(j->ph, cap * sizeof *v);
        if (!v)
            return false;
        j->ph = v;
        j->cap = cap;
    }
    j->ph[j->nph++] = p;
    return true;
}

/* The phases of a copy of BYTES from SRC to DST towards the GPU (TO_GPU)
 * or back; GPU_SIDE is the GPU's address of the two. */
static bool copy_phases(const struct rp_sync *y, struct rp_sync_job *j, bool to_gpu, uint64_t dst,
                        uint64_t src, uint64_t bytes)
{
    uint8_t gpu_asid = y->copies ? 1 : 0;
    uint64_t gpu_side = to_gpu ? dst : src;
    struct rp_sync_phase copy = { .kind = PH_COPY, .dst = dst, .src = src, .bytes = bytes,
                                  .dst_asid = to_gpu ? gpu_asid : 0, .src_asid = to_gpu ? 0 : gpu_asid };
    struct rp_sync_phase flush = { .kind = to_gpu ? PH_FLUSH_CPU : PH_FLUSH_GPU, .src = gpu_side,
                                   .bytes = bytes, .src_asid = gpu_asid };
    if (to_gpu)
        return (!y->copies || add_phase(j, copy)) && add_phase(j, flush);
    return add_phase(j, flush) && (!y->copies || add_phase(j, copy));
}

/* J's phases on the timeline: "copy, CPU flush" and the bytes copied or flushed. */
static void timeline_begin(struct rp_sync *y, struct rp_sync_job *j)
{
    static const char *const kind[] = { [PH_COPY] = "copy", [PH_FLUSH_CPU] = "CPU flush",
                                        [PH_FLUSH_GPU] = "GPU flush" };
    char what[96] = "";
    uint64_t bytes = 0;
    for (unsigned i = 0; i < j->nph; i++) {
        size_t n = strlen(what);
        if (n + 16 < sizeof what)
            snprintf(what + n, sizeof what - n, "%s%s", n ? ", " : "", kind[j->ph[i].kind]);
        bytes += j->ph[i].bytes;
    }
    rp_timeline_sync_begin(y->gpu->sim->timeline, (size_t)(j - y->jobs), j->t->tid, what, bytes,
                           ks_domain_cycle_tick(cgm_memsys_cpu_domain(y->gpu->sim->ms), j->start));
}

static uint64_t cpu_now(const struct rp_sync *y)
{
    return ks_domain_cycle(cgm_memsys_cpu_domain(y->gpu->sim->ms));
}

/* Starts J for T if it has phases or ends later than now (UNTIL: the
 * CPU cycle its transfers on the copy engine end, 0 if none); false when
 * T must wait. */
static bool start(struct rp_sync *y, struct rp_sync_job *j, struct rp_thread *t, unsigned core, uint64_t until,
                  enum rp_sync_why why)
{
    uint64_t now = cpu_now(y);
    if (!j->nph && until <= now)
        return true;
    j->t = t;
    j->core = core;
    j->start = now;
    j->at = 0;
    j->offset = 0;
    j->inflight = 0;
    j->ready = until;
    j->why = (uint8_t)why;
    j->active = true;
    y->active++;
    t->state = TH_WAITING_GPU;
    if (y->gpu->sim->timeline)
        timeline_begin(y, j);
    ks_advance(&y->ec);
    return false;
}

static bool oom(struct rp_sync *y)
{
    rp_gpu_fail(y->gpu, "out of memory planning copies between the CPU's and the GPU's memory");
    return true;
}

/* A thread back from its job: the event that started it goes on. */
static bool resumed(struct rp_thread *t)
{
    if (!t->synced)
        return false;
    t->synced = false;
    return true;
}

bool rp_sync_copy(struct rp_sync *y, struct rp_thread *t, unsigned core, const struct cgm_event *ev)
{
    if (!y->flushes || resumed(t))
        return true;
    uint64_t dst = ev->f[CGM_EVF_GPU_COPY_DST], src = ev->f[CGM_EVF_GPU_COPY_SRC];
    uint64_t bytes = ev->f[CGM_EVF_GPU_COPY_BYTES];
    struct rp_region *rd = find_region(y, dst), *rs = find_region(y, src);
    y->program_copies = true;
    if (!rd == !rs)
        return true; /* buffer to buffer or host to host: no CPU time */
    struct rp_sync_job *j = job_of(y, t);
    j->nph = 0;
    y->bytes_copied += y->copies ? bytes : 0;
    if (y->discrete)
        return start(y, j, t, core, engine(y, cpu_now(y), rd != NULL, src, bytes), WHY_COPY);
    if (!copy_phases(y, j, rd != NULL, dst, src, bytes))
        return oom(y);
    return start(y, j, t, core, 0, WHY_COPY);
}

/* ---- the copy protocol ---------------------------------------------------- */

/* A block the protocol moves: a phase of the job collecting a launch's or
 * a gpu_done's copies (integrated), or a transfer on the copy engine. */
static void adsm_move(void *ctx, bool to_gpu, uint64_t addr, uint64_t bytes, bool eager)
{
    struct rp_sync *y = ctx;
    y->bytes_copied += bytes;
    if (y->collect) {
        if (!copy_phases(y, y->collect, to_gpu, addr, addr, bytes))
            y->move_failed = true;
        return;
    }
    uint64_t end = engine(y, y->move_now, to_gpu, addr, bytes);
    if (eager)
        y->eager_done = end > y->eager_done ? end : y->eager_done;
    else
        y->move_done = end > y->move_done ? end : y->move_done;
}

uint64_t rp_sync_cpu_touch(struct rp_sync *y, uint64_t va, bool write)
{
    if (!y->adsm_on || y->program_copies)
        return 0;
    uint64_t now = cpu_now(y), fault = y->gpu->cfg->gpu_fault_latency;
    bool oom_fifo = false;
    y->move_now = y->move_done = now + fault;
    if (!rp_adsm_touch(&y->adsm, va, write, &oom_fifo)) {
        if (oom_fifo)
            oom(y);
        return 0;
    }
    uint64_t wait = y->move_done - now;
    y->fault_wait_cycles += wait;
    return wait;
}

/* The copies of the protocol at a launch (TO_GPU) or a gpu_done. A launch
 * waits for the eager transfers still on the engine too. */
static bool adsm_copies(struct rp_sync *y, struct rp_thread *t, unsigned core, bool to_gpu)
{
    struct rp_sync_job *j = job_of(y, t);
    j->nph = 0;
    y->collect = y->discrete ? NULL : j;
    y->move_now = y->move_done = cpu_now(y);
    y->move_failed = false;
    if (to_gpu)
        rp_adsm_launch(&y->adsm);
    else
        rp_adsm_done(&y->adsm);
    y->collect = NULL;
    if (y->move_failed)
        return oom(y);
    uint64_t until = y->move_done;
    if (to_gpu && y->eager_done > until)
        until = y->eager_done;
    return start(y, j, t, core, until, to_gpu ? WHY_LAUNCH : WHY_DONE);
}

void rp_sync_copy_async(struct rp_sync *y, struct rp_thread *t, const struct cgm_event *ev)
{
    if (!y->flushes)
        return;
    uint64_t dst = ev->f[CGM_EVF_GPU_COPY_ASYNC_DST], src = ev->f[CGM_EVF_GPU_COPY_ASYNC_SRC];
    uint64_t bytes = ev->f[CGM_EVF_GPU_COPY_ASYNC_BYTES];
    struct rp_region *rd = find_region(y, dst), *rs = find_region(y, src);
    y->program_copies = true;
    if (!rd == !rs)
        return; /* buffer to buffer or host to host: no CPU time */
    struct rp_sync_job *j = job_of(y, t);
    uint64_t end = engine(y, cpu_now(y), rd != NULL, src, bytes);
    j->async_done = end > j->async_done ? end : j->async_done;
    y->bytes_copied += y->copies ? bytes : 0;
    y->async_copies++;
    y->async_bytes += bytes;
}

/* T waits for its asynchronous copies still on the engine: false when it must. */
static bool async_pending(struct rp_sync *y, struct rp_thread *t, unsigned core)
{
    struct rp_sync_job *j = job_of(y, t);
    j->nph = 0;
    return start(y, j, t, core, j->async_done, WHY_ASYNC);
}

bool rp_sync_wait_async(struct rp_sync *y, struct rp_thread *t, unsigned core)
{
    return !y->flushes || resumed(t) || async_pending(y, t, core);
}

/* The copies a program that shares its buffers by pointer would have made:
 * every buffer one side stored into goes to the other (to_gpu: the ones the
 * CPU stored into, before a launch; else the GPU's, after gpu_done). */
static bool implicit_copies(struct rp_sync *y, struct rp_thread *t, unsigned core, bool to_gpu)
{
    if (!y->flushes || resumed(t))
        return true;
    if (!async_pending(y, t, core))
        return false;
    if (y->program_copies)
        return true;
    if (y->adsm_on)
        return adsm_copies(y, t, core, to_gpu);
    struct rp_sync_job *j = job_of(y, t);
    j->nph = 0;
    uint64_t now = cpu_now(y), until = 0;
    for (size_t i = 0; i < y->nregions; i++) {
        struct rp_region *r = &y->regions[i];
        bool *dirty = to_gpu ? &r->cpu_dirty : &r->gpu_dirty;
        if (!*dirty)
            continue;
        *dirty = false;
        y->implicit_copies++;
        y->bytes_copied += y->copies ? r->bytes : 0;
        if (y->discrete) {
            uint64_t end = engine(y, now, to_gpu, r->addr, r->bytes);
            until = end > until ? end : until;
        } else if (!copy_phases(y, j, to_gpu, r->addr, r->addr, r->bytes)) {
            return oom(y);
        }
    }
    return start(y, j, t, core, until, to_gpu ? WHY_LAUNCH : WHY_DONE);
}

bool rp_sync_before_launch(struct rp_sync *y, struct rp_thread *t, unsigned core)
{
    return implicit_copies(y, t, core, true);
}

bool rp_sync_after_done(struct rp_sync *y, struct rp_thread *t, unsigned core)
{
    return implicit_copies(y, t, core, false);
}

void rp_sync_mem_done(struct rp_sync *y, uint64_t tag, uint64_t cycle)
{
    size_t i = (size_t)(tag & ~RP_SYNC_TAG);
    CGM_CHECK(i < y->njobs && y->jobs[i].inflight);
    struct rp_sync_job *j = &y->jobs[i];
    j->inflight--;
    if (cycle > j->ready)
        j->ready = cycle;
}

/* The physical address of VA in address space ASID (placing its page on
 * first touch); false when memory is exhausted. */
static bool physical(struct rp_sync *y, uint8_t asid, uint64_t va, uint64_t *pa)
{
    struct cgm_page_table *pt = y->gpu->sim->pt;
    unsigned pb = cgm_page_table_page_bits(pt);
    uint64_t pfn;
    if (!cgm_page_table_lookup(pt, asid, va >> pb, &pfn) && !cgm_page_table_map(pt, asid, va >> pb, &pfn))
        return false;
    *pa = pfn << pb | (va & ((1ull << pb) - 1));
    return true;
}

/* Issues what job J may this cycle: up to mem_ports accesses, no more
 * than lsq_size in flight, a phase only after the last one is done. */
static void issue(struct rp_sync *y, struct rp_sync_job *j, uint64_t now)
{
    const struct rp_config *cfg = y->gpu->cfg;
    struct rp_sim *s = y->gpu->sim;
    uint64_t tag = RP_SYNC_TAG | (uint64_t)(j - y->jobs);
    for (unsigned n = 0; n < cfg->mem_ports && j->at < j->nph && j->inflight < cfg->lsq_size;) {
        const struct rp_sync_phase *p = &j->ph[j->at];
        uint64_t end = p->kind == PH_COPY ? 2 * ((p->bytes + WORD - 1) / WORD)
                                          : (p->src + p->bytes - 1) / BLOCK - p->src / BLOCK + 1;
        if (j->offset == end) {
            if (j->inflight || j->ready > now)
                return; /* the fence */
            j->at++;
            j->offset = 0;
            continue;
        }
        uint8_t op, asid;
        uint64_t va;
        if (p->kind == PH_COPY) {
            bool store = j->offset & 1;
            op = store ? CGM_OP_STORE : CGM_OP_LOAD;
            asid = store ? p->dst_asid : p->src_asid;
            va = (store ? p->dst : p->src) + j->offset / 2 * WORD;
        } else {
            op = p->kind == PH_FLUSH_CPU ? CGM_OP_FLUSH_CPU : CGM_OP_FLUSH_GPU;
            asid = p->src_asid;
            va = (p->src & ~(uint64_t)(BLOCK - 1)) + j->offset * BLOCK;
        }
        uint64_t pa;
        if (!physical(y, asid, va, &pa)) {
            char msg[700];
            snprintf(msg, sizeof msg, "%.400s: physical memory exhausted copying between the CPU's and the "
                     "GPU's memory; raise memory.size", s->trace_name);
            rp_sim_fail(s, msg);
            return;
        }
        j->inflight++;
        if (!cgm_memsys_access(s->ms, (int)j->core, op, p->kind == PH_COPY ? pa : pa & ~(uint64_t)(BLOCK - 1),
                               tag, 0)) {
            j->inflight--;
            return; /* the core's queue is full: next cycle */
        }
        if (p->kind != PH_COPY)
            y->blocks_flushed++;
        j->offset++;
        n++;
    }
}

void rp_sync_main(void *arg)
{
    struct rp_sync *y = arg;
    struct rp_gpu *g = y->gpu;
    for (;;) {
        if (g->stopping)
            return;
        if (!y->active) {
            ks_await(&y->ec, ks_ec_count(&y->ec) + 1);
            continue;
        }
        uint64_t now = ks_cycle();
        for (size_t i = 0; i < y->njobs; i++) {
            struct rp_sync_job *j = &y->jobs[i];
            if (!j->active)
                continue;
            issue(y, j, now);
            if (j->at == j->nph && !j->inflight && j->ready <= now) {
                j->active = false;
                y->active--;
                y->jobs_done++;
                y->system_cycles += now + 1 - j->start;
                uint64_t *waited[] = { [WHY_COPY] = &y->copy_wait_cycles, [WHY_LAUNCH] = &y->launch_wait_cycles,
                                       [WHY_DONE] = &y->done_wait_cycles, [WHY_ASYNC] = &y->async_wait_cycles };
                *waited[j->why] += now + 1 - j->start;
                if (g->sim->timeline)
                    rp_timeline_sync_end(g->sim->timeline, i, ks_domain_cycle_tick(ks_context_domain(ks_self()), now + 1),
                                         now + 1 - j->start);
                j->t->synced = true;
                rp_sched_yield(&g->sim->sched, j->t);
            }
        }
        ks_pause(1);
    }
}
