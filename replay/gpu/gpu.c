/* The GPU: building it, the host threads' GPU events, the kernel queue.
 *
 * A launch starts its kernel at the launching thread's point in time; the
 * thread goes on. Kernels run one after another in launch order. A host
 * thread reaching gpu_done for a kernel still running waits (off its core)
 * until the kernel's last work-group ends. The memory the driver maps for
 * itself (code objects, each launch's kernel arguments, dispatch packet and
 * private memory; gpu_map events) gets frames when replay sees it, and a
 * launch's region is given back when its kernel ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/gpu/gpu_internal.h"
#include "replay/sim.h"

bool rp_gpu_in_trace(struct cgm_reader *r)
{
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        const struct cgm_stream_info *info = &cgm_reader_stream(r, i)->info;
        if (info->kind == CGM_STREAM_GPU_WORKGROUP || info->kind == CGM_STREAM_GPU_WAVEFRONT ||
            (info->kind == CGM_STREAM_SECTION &&
             !strncmp(info->name, CGM_SI_STATIC_PREFIX, strlen(CGM_SI_STATIC_PREFIX))))
            return true;
    }
    return false;
}

static void mem_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t cycle)
{
    struct rp_gpu *g = ctx;
    (void)value;
    rp_cu_mem_done(&g->cus[r->cu], r->tag, cycle);
}

/* A kernel record for launch ID, kept by id (threads may launch in
 * another order than recorded). NULL when out of memory. */
static struct rp_kernel *new_kernel(struct rp_gpu *g, uint32_t id)
{
    if (g->nkernels == g->kernels_cap) {
        size_t cap = g->kernels_cap ? 2 * g->kernels_cap : 16;
        struct rp_kernel **v = realloc(g->kernels, cap * sizeof *v);
        if (!v)
            return NULL;
        g->kernels = v;
        g->kernels_cap = cap;
    }
    struct rp_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    size_t at = g->nkernels;
    while (at && g->kernels[at - 1]->launch > id) {
        g->kernels[at] = g->kernels[at - 1];
        at--;
    }
    g->kernels[at] = k;
    g->nkernels++;
    k->launch = id;
    k->end = RP_NEVER;
    snprintf(k->name, sizeof k->name, "launch%u", id);
    return k;
}

struct rp_gpu *rp_gpu_create(struct rp_sim *sim, ks_domain *domain, char *err, size_t errlen)
{
    struct rp_gpu *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const struct rp_config *cfg = &sim->cfg;
    g->sim = sim;
    g->cfg = cfg;
    g->eng = sim->eng;
    g->simd_cycles = (unsigned)((64 + cfg->cu.simd_lanes - 1) / cfg->cu.simd_lanes);
    ks_ec_init(&g->dispatch_ec, "gpu-dispatch", 0);
    g->next_launch = 1;
    if (rp_gpu_trace_init(&g->trace, sim->reader, sim->trace_name, err, errlen))
        goto fail;
    /* The kernels the trace holds work-groups of exist from the start, so
     * the statistics registry lists them before the run. */
    for (size_t i = 0; i < g->trace.nlaunches; i++)
    {
        struct rp_kernel *k = new_kernel(g, g->trace.launches[i].launch);
        if (!k) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        k->streams = g->trace.launches[i];
    }
    g->domain = domain;
    if (cfg->gpu_memory == RP_GPU_MEM_HIERARCHY) {
        /* the memory system translates through the CPU's page table: the
         * same frames (coherent) or the GPU's own address space */
        g->port = cgm_memsys_gpu_port(sim->ms, sim->pt, mem_done, g);
        g->room_ms = sim->ms;
        g->self_inv = cgm_coh_protocol_of(cgm_memsys_coh(sim->ms), CGM_NODE_GPU_L1)->self_invalidating;
    } else {
        rp_ideal_mem_init(&g->ideal, g->domain, cfg->ideal_latency, cfg->ideal_scalar_latency,
                          cfg->ideal_bytes_per_cycle, mem_done, g);
        g->port = rp_ideal_mem_port(&g->ideal);
    }
    if (rp_sync_init(&g->sync, g, cgm_memsys_cpu_domain(sim->ms), err, errlen))
        goto fail;
    ks_context_opts o = { .name = "gpu.dispatcher", .domain = g->domain };
    if (!ks_context_create_opts(sim->eng, rp_dispatcher_main, g, &o)) {
        snprintf(err, errlen, "%s", ks_engine_error(sim->eng));
        goto fail;
    }
    g->ncus = (unsigned)cfg->gpu_cus;
    g->cus = calloc(g->ncus, sizeof *g->cus);
    if (!g->cus) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (unsigned i = 0; i < g->ncus; i++) {
        if (rp_cu_init(&g->cus[i], g, i)) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        char name[32];
        snprintf(name, sizeof name, "gpu.cu.%u", i);
        o.name = name;
        if (!ks_context_create_opts(sim->eng, rp_cu_main, &g->cus[i], &o)) {
            snprintf(err, errlen, "%s", ks_engine_error(sim->eng));
            goto fail;
        }
    }
    return g;
fail:
    rp_gpu_destroy(g);
    return NULL;
}

void rp_gpu_stop(struct rp_gpu *g)
{
    if (!g || g->stopping)
        return;
    g->stopping = true;
    ks_advance(&g->dispatch_ec);
    ks_advance(&g->sync.ec);
    for (unsigned i = 0; g->cus && i < g->ncus; i++)
        ks_advance(&g->cus[i].ec);
}

void rp_gpu_destroy(struct rp_gpu *g)
{
    if (!g)
        return;
    for (unsigned i = 0; g->cus && i < g->ncus; i++)
        if (g->cus[i].gpu)
            rp_cu_free(&g->cus[i]);
    free(g->cus);
    for (size_t i = 0; i < g->nkernels; i++)
        free(g->kernels[i]);
    free(g->kernels);
    rp_gpu_trace_free(&g->trace);
    rp_sync_free(&g->sync);
    rp_kstats_free(g->kstats);
    free(g);
}

void rp_gpu_fail(struct rp_gpu *g, const char *msg)
{
    rp_sim_fail(g->sim, msg);
}

bool rp_gpu_idle(const struct rp_gpu *g) { return !g->queue_head; }

uint64_t rp_gpu_cycle(const struct rp_gpu *g) { return ks_domain_cycle(g->domain); }

uint64_t rp_gpu_instructions(const struct rp_gpu *g) { return g->issued; }

bool rp_gpu_stuck(struct rp_gpu *g, char *msg, size_t len)
{
    uint64_t now = ks_domain_cycle(g->domain);
    const struct rp_kernel *k = g->queue_head;
    if (!k || !k->started || g->issued != g->watch_issued) {
        g->watch_issued = g->issued;
        g->watch_cycle = now;
        return false;
    }
    if (now - g->watch_cycle < RP_GPU_STUCK_CYCLES)
        return false;
    snprintf(msg, len, "%.200s: kernel %.100s (launch %u) issued no instruction from GPU cycle %llu to %llu: "
             "its memory requests are not answered (a deadlock or livelock below the compute units)",
             g->trace.name, k->name, k->launch, (unsigned long long)g->watch_cycle, (unsigned long long)now);
    return true;
}

void rp_gpu_cpu_store(struct rp_gpu *g, uint64_t va) { rp_sync_cpu_store(&g->sync, va); }
uint64_t rp_gpu_cpu_touch(struct rp_gpu *g, uint64_t va, bool write) { return rp_sync_cpu_touch(&g->sync, va, write); }

void rp_gpu_sync_done(struct rp_gpu *g, uint64_t tag, uint64_t cycle) { rp_sync_mem_done(&g->sync, tag, cycle); }

/* ---- kernels ------------------------------------------------------------- */

static struct rp_kernel *find_kernel(const struct rp_gpu *g, uint32_t launch)
{
    /* launch ids grow with each launch: the array is sorted */
    size_t lo = 0, hi = g->nkernels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->kernels[mid]->launch < launch)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->nkernels && g->kernels[lo]->launch == launch ? g->kernels[lo] : NULL;
}

static bool fail_event(struct rp_gpu *g, const char *fmt, uint32_t launch, const char *why)
{
    char msg[700];
    snprintf(msg, sizeof msg, fmt, g->trace.name, launch, why);
    rp_gpu_fail(g, msg);
    return true;
}

static bool launch(struct rp_gpu *g, const struct cgm_event *ev)
{
    uint32_t id = (uint32_t)ev->f[CGM_EVF_GPU_LAUNCH_LAUNCH];
    struct rp_kernel *k = id ? find_kernel(g, id) : NULL;
    if (id == 0 || id != ev->f[CGM_EVF_GPU_LAUNCH_LAUNCH] || (k && k->launched))
        return fail_event(g, "%s: gpu_launch %u: %s", id, "a launch id seen before (or 0)");
    if (!k && !(k = new_kernel(g, id)))
        return fail_event(g, "%s: gpu_launch %u: %s", id, "out of memory");
    k->launched = true;
    k->kernel = (uint32_t)ev->f[CGM_EVF_GPU_LAUNCH_KERNEL];
    k->groups = 1;
    for (int i = 0; i < 3; i++) {
        k->grid[i] = (uint32_t)ev->f[CGM_EVF_GPU_LAUNCH_GRID_X + i];
        k->group[i] = (uint32_t)ev->f[CGM_EVF_GPU_LAUNCH_GROUP_X + i];
        if (!k->group[i] || !k->grid[i] || k->grid[i] % k->group[i] ||
            ev->f[CGM_EVF_GPU_LAUNCH_GRID_X + i] > UINT32_MAX)
            return fail_event(g, "%s: gpu_launch %u: %s", id, "the grid is not whole work-groups");
        k->groups *= k->grid[i] / k->group[i];
    }
    uint64_t items = (uint64_t)k->group[0] * k->group[1] * k->group[2];
    k->waves = (uint32_t)((items + CGM_SI_LANES - 1) / CGM_SI_LANES);
    if (k->waves > CGM_SI_WAVES_MAX)
        return fail_event(g, "%s: gpu_launch %u: %s", id, "more than 16 wavefronts per work-group");
    k->lds_bytes = ev->f[CGM_EVF_GPU_LAUNCH_LDS_BYTES];
    k->launched_tick = ks_now(g->eng);
    struct cgm_si_kernel_info info;
    char err[600];
    int known = rp_gpu_trace_kernel(&g->trace, k->kernel, &info, err, sizeof err);
    if (known < 0) {
        rp_gpu_fail(g, err);
        return true;
    }
    if (known) {
        snprintf(k->name, sizeof k->name, "%s", info.name);
        k->vgprs = info.vgprs;
        k->sgprs = info.sgprs;
    } else {
        snprintf(k->name, sizeof k->name, "kernel%u", k->kernel);
        if (!g->warned_resources)
            fprintf(stderr, "replay: warning: %s does not record its kernels' registers; the compute "
                    "units' VGPR and SGPR limits are not applied\n", g->trace.name);
        g->warned_resources = true;
    }
    k->streams = rp_gpu_trace_launch(&g->trace, id);
    if (k->streams.count && k->streams.count != k->groups) {
        char why[128];
        snprintf(why, sizeof why, "its grid has %llu work-groups, the trace %zu work-group streams",
                 (unsigned long long)k->groups, k->streams.count);
        return fail_event(g, "%s: gpu_launch %u: %s", id, why);
    }
    if (!k->streams.count)
        k->groups = 0; /* not recorded (outside a --roi-only region): no GPU time */
    /* The queue runs kernels in launch order (the recorded order). */
    struct rp_kernel **pp = &g->queue_head;
    while (*pp && (*pp)->launch < id)
        pp = &(*pp)->next;
    k->next = *pp;
    *pp = k;
    ks_advance(&g->dispatch_ec);
    return true;
}

void rp_gpu_kernel_done(struct rp_gpu *g, struct rp_kernel *k)
{
    k->done = true;
    k->end = g->last_end = ks_domain_cycle(g->domain) + 1;
    if (g->kstats)
        rp_kstats_end(g->kstats, k, ks_domain_cycle(g->domain));
    if (g->sim->timeline)
        rp_timeline_kernel_end(g->sim->timeline, ks_domain_cycle_tick(g->domain, k->end), k->end - k->start);
    /* kernels end in launch order: K is the queue's head */
    g->queue_head = k->next;
    g->next_launch = k->launch + 1;
    k->next = NULL;
    if (k->map_bytes)
        rp_sim_unmap(g->sim, k->map_addr, k->map_bytes);
    if (k->waiter) {
        rp_sched_yield(&g->sim->sched, k->waiter);
        k->waiter = NULL;
    }
    ks_advance(&g->dispatch_ec);
    if (!g->queue_head)
        rp_sim_gpu_idle(g->sim);
}

/* ---- events ----------------------------------------------------------- */

static bool gpu_map(struct rp_gpu *g, const struct cgm_event *ev)
{
    uint64_t addr = ev->f[CGM_EVF_GPU_MAP_ADDR], bytes = ev->f[CGM_EVF_GPU_MAP_BYTES];
    uint64_t pages = rp_sim_map(g->sim, addr, bytes);
    g->driver_pages += pages;
    g->driver_regions++;
    if (ev->f[CGM_EVF_GPU_MAP_WHAT] == CGM_GPU_MAP_LAUNCH) {
        /* its launch comes next; it is given back when the kernel ends */
        g->pending_map_addr = addr;
        g->pending_map_bytes = bytes;
        g->pending_map_launch = (uint32_t)ev->f[CGM_EVF_GPU_MAP_LAUNCH];
    }
    return true;
}

/* Whether a kernel thread T launched is not done yet. */
static bool host_kernels_in_flight(const struct rp_gpu *g, const struct rp_thread *t)
{
    for (const struct rp_kernel *k = g->queue_head; k; k = k->next)
        if (k->host == t)
            return true;
    return false;
}

bool rp_gpu_event(struct rp_gpu *g, struct rp_thread *t, unsigned core, const struct cgm_event *ev)
{
    switch (ev->type) {
    case CGM_EV_GPU_MAP:
        return gpu_map(g, ev);
    case CGM_EV_GPU_ALLOC:
        if (!rp_sync_alloc(&g->sync, ev->f[CGM_EVF_GPU_ALLOC_ADDR], ev->f[CGM_EVF_GPU_ALLOC_BYTES]))
            rp_gpu_fail(g, "out of memory recording a GPU buffer");
        return true;
    case CGM_EV_GPU_FREE:
        rp_sync_release(&g->sync, ev->f[CGM_EVF_GPU_FREE_ADDR]);
        return true;
    case CGM_EV_GPU_COPY:
        return rp_sync_copy(&g->sync, t, core, ev);
    case CGM_EV_GPU_COPY_ASYNC:
        rp_sync_copy_async(&g->sync, t, ev);
        return true;
    case CGM_EV_GPU_WAIT:
        return rp_sync_wait_async(&g->sync, t, core);
    case CGM_EV_GPU_LAUNCH: {
        /* buffers shared by pointer go to the GPU's side first */
        if (!rp_sync_before_launch(&g->sync, t, core))
            return false;
        launch(g, ev);
        uint32_t id = (uint32_t)ev->f[CGM_EVF_GPU_LAUNCH_LAUNCH];
        struct rp_kernel *k = find_kernel(g, id);
        if (k && k->launched) {
            k->host = t;
            if (g->pending_map_bytes && g->pending_map_launch == id) {
                k->map_addr = g->pending_map_addr;
                k->map_bytes = g->pending_map_bytes;
            }
        }
        g->pending_map_bytes = 0;
        return true;
    }
    case CGM_EV_GPU_DONE: {
        uint32_t id = (uint32_t)ev->f[CGM_EVF_GPU_DONE_LAUNCH];
        struct rp_kernel *k = find_kernel(g, id);
        if (!k || !k->launched)
            return fail_event(g, "%s: gpu_done %u: %s", id, "no such launch before it");
        /* Buffers shared by pointer come back once the thread's last kernel
         * in flight is done, as a program for the non-coherent system copies
         * its results after waiting for its kernels: not while a later
         * kernel still writes them. */
        if (k->done)
            return host_kernels_in_flight(g, t) || rp_sync_after_done(&g->sync, t, core);
        if (k->waiter)
            return fail_event(g, "%s: gpu_done %u: %s", id, "two threads wait for it");
        k->waiter = t;
        t->state = TH_WAITING_GPU;
        return false;
    }
    default:
        return true; /* load, launch_mem, wait: no GPU time */
    }
}
