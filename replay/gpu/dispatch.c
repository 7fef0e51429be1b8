/* The dispatcher: one KnightSim context in the GPU clock domain. Kernels
 * run one after another in launch order (an in-order queue: a kernel may
 * read what the one before wrote). The running kernel's work-groups go in
 * linear id order (x fastest, as the recording ran them) onto compute units
 * round robin, as many in one cycle as fit (as M2S-CGM maps them): a work-group
 * fits a unit with a free work-group slot and room for its LDS (rounded up
 * to lds_alloc), whose pools take its wavefronts one each in turn, each
 * pool bounded by its wavefront slots, VGPRs and SGPRs (the kernel's
 * recorded use; no register limit for traces that do not record it). Its
 * wavefronts start fetching dispatch_latency cycles later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/gpu/gpu_internal.h"
#include "replay/sim.h"

/* Chooses a pool for each of K's wavefronts on CU into POOL_OF; false if
 * the work-group does not fit now. */
static bool place(const struct rp_cu *cu, const struct rp_kernel *k, unsigned *pool_of)
{
    const struct rp_cu_cfg *c = &cu->gpu->cfg->cu;
    unsigned simds = (unsigned)c->simds;
    if (cu->nwgs >= c->max_work_groups)
        return false;
    uint64_t lds = (k->lds_bytes + c->lds_alloc - 1) / c->lds_alloc * c->lds_alloc;
    if (cu->lds_used + lds > c->lds_size)
        return false;
    unsigned waves[16];
    uint64_t vgprs[16], sgprs[16];
    for (unsigned p = 0; p < simds; p++) {
        waves[p] = cu->pools[p].waves;
        vgprs[p] = cu->pools[p].vgprs;
        sgprs[p] = cu->pools[p].sgprs;
    }
    unsigned next = cu->next_pool;
    for (unsigned i = 0; i < k->waves; i++) {
        unsigned tried = 0;
        for (; tried < simds; tried++, next = (next + 1) % simds)
            if (waves[next] < c->wavefronts_per_simd && vgprs[next] + k->vgprs <= c->vgprs_per_simd &&
                sgprs[next] + k->sgprs <= c->sgprs_per_simd)
                break;
        if (tried == simds)
            return false;
        pool_of[i] = next;
        waves[next]++;
        vgprs[next] += k->vgprs;
        sgprs[next] += k->sgprs;
        next = (next + 1) % simds;
    }
    return true;
}

/* The work-group's recorded id must be the one it is dispatched as. */
static bool stream_matches(const struct rp_gpu *g, const struct rp_kernel *k, uint64_t id, size_t stream)
{
    const struct cgm_stream_info *info = &cgm_reader_stream(g->trace.r, stream)->info;
    uint64_t gx = k->grid[0] / k->group[0], gy = k->grid[1] / k->group[1];
    return info->group[0] == id % gx && info->group[1] == id / gx % gy && info->group[2] == id / gx / gy;
}

/* Maps K's next work-group onto CU with its wavefronts in POOL_OF. */
static bool map(struct rp_gpu *g, struct rp_cu *cu, struct rp_kernel *k, const unsigned *pool_of,
                uint64_t now)
{
    const struct rp_cu_cfg *c = &g->cfg->cu;
    char err[700];
    size_t stream = k->streams.first + g->next_group;
    if (!stream_matches(g, k, g->next_group, stream)) {
        snprintf(err, sizeof err, "%s: stream %u: launch %u's work-group streams are not in dispatch order "
                 "(work-group %llu expected)", g->trace.name, cgm_reader_stream(g->trace.r, stream)->info.id,
                 k->launch, (unsigned long long)g->next_group);
        rp_gpu_fail(g, err);
        return false;
    }
    const char *section = cgm_reader_stream(g->trace.r, stream)->info.name;
    const struct rp_si_program *prog = rp_gpu_trace_program(&g->trace, section, err, sizeof err);
    struct rp_wg *wg = calloc(1, sizeof *wg);
    if (wg)
        wg->waves = calloc(k->waves, sizeof *wg->waves);
    if (!prog || !wg || !wg->waves) {
        rp_gpu_fail(g, prog ? "out of memory" : err);
        if (wg)
            free(wg->waves);
        free(wg);
        return false;
    }
    wg->k = k;
    wg->id = g->next_group++;
    wg->cu = cu;
    wg->nwaves = wg->waves_left = wg->live = k->waves;
    wg->lds = (k->lds_bytes + c->lds_alloc - 1) / c->lds_alloc * c->lds_alloc;
    wg->start = now;
    if (g->sim->timeline)
        rp_timeline_wg_begin(g->sim->timeline, cu->id, wg, k->launch, wg->id, ks_domain_cycle_tick(g->domain, now));
    if (rp_wg_stream_open(&wg->stream, g->trace.r, stream, prog, k->waves, RP_WAVE_QUEUE_WORDS, g->trace.name, err,
                          sizeof err)) {
        free(wg->waves);
        free(wg);
        rp_gpu_fail(g, err);
        return false;
    }
    for (unsigned i = 0; i < k->waves; i++) {
        struct rp_wave *w = &wg->waves[i];
        w->wg = wg;
        w->index = i;
        w->pool = pool_of[i];
        struct rp_pool *pool = &cu->pools[w->pool];
        for (unsigned s = 0; s < c->wavefronts_per_simd; s++)
            if (!pool->slot[s]) {
                pool->slot[s] = w;
                w->slot = s;
                break;
            }
        pool->waves++;
        pool->vgprs += k->vgprs;
        pool->sgprs += k->sgprs;
        rp_cu_wave_start(cu, w, now + g->cfg->gpu_dispatch_latency);
    }
    rp_cu_wg_start(cu, k);
    cu->next_pool = (pool_of[k->waves - 1] + 1) % (unsigned)c->simds;
    struct rp_wg **tail = &cu->wgs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = wg;
    cu->nwgs++;
    cu->waves += k->waves;
    cu->lds_used += wg->lds;
    k->dispatched++;
    ks_advance(&cu->ec);
    return true;
}

/* A kernel whose work-group cannot fit even an empty compute unit. */
static bool never_fits(struct rp_gpu *g, const struct rp_kernel *k)
{
    const struct rp_cu_cfg *c = &g->cfg->cu;
    uint64_t lds = (k->lds_bytes + c->lds_alloc - 1) / c->lds_alloc * c->lds_alloc;
    uint64_t per_pool = (k->waves + c->simds - 1) / c->simds;
    if (lds <= c->lds_size && per_pool <= c->wavefronts_per_simd && per_pool * k->vgprs <= c->vgprs_per_simd &&
        per_pool * k->sgprs <= c->sgprs_per_simd)
        return false;
    char msg[700];
    snprintf(msg, sizeof msg, "launch %u (%s): a work-group of %u wavefronts (%u VGPRs, %u SGPRs each, %llu "
             "bytes of LDS) does not fit a compute unit (gpu.cu: %llu SIMDs of %llu wavefronts, %llu VGPRs, %llu "
             "SGPRs; %llu bytes of LDS)", k->launch, k->name, k->waves, k->vgprs, k->sgprs,
             (unsigned long long)lds, (unsigned long long)c->simds, (unsigned long long)c->wavefronts_per_simd,
             (unsigned long long)c->vgprs_per_simd, (unsigned long long)c->sgprs_per_simd,
             (unsigned long long)c->lds_size);
    rp_gpu_fail(g, msg);
    return true;
}

/* Maps work-groups of K, round robin over the compute units, while any fits. */
static void dispatch(struct rp_gpu *g, struct rp_kernel *k, uint64_t now)
{
    unsigned pool_of[CGM_SI_WAVES_MAX];
    bool mapped = true;
    while (mapped && g->next_group < k->groups && !g->stopping) {
        mapped = false;
        for (unsigned i = 0; i < g->ncus; i++) {
            unsigned c = (g->rr + i) % g->ncus;
            if (place(&g->cus[c], k, pool_of)) {
                if (!map(g, &g->cus[c], k, pool_of, now))
                    return;
                g->rr = (c + 1) % g->ncus;
                mapped = true;
                break;
            }
        }
    }
}

void rp_dispatcher_main(void *arg)
{
    struct rp_gpu *g = arg;
    for (;;) {
        if (g->stopping)
            return;
        uint64_t seen = ks_ec_count(&g->dispatch_ec), now = ks_cycle();
        struct rp_kernel *k = g->queue_head;
        if (k && k->launch != g->next_launch)
            k = NULL; /* an earlier launch is yet to come */
        if (k && !k->started && g->last_end > now) {
            /* the kernel before ended within this cycle */
            ks_pause(g->last_end - now);
            continue;
        }
        if (k && !k->started) {
            k->started = true;
            k->start = now;
            if (g->kstats)
                rp_kstats_begin(g->kstats, k, now);
            if (g->sim->timeline)
                rp_timeline_kernel_begin(g->sim->timeline, k->launch, k->name, ks_domain_cycle_tick(g->domain, now));
            g->next_group = 0;
            /* A kernel starts with its CUs' vector L1s invalidated (under
             * si; the launch latency covers the cycles it takes). */
            for (unsigned i = 0; g->port.invalidate && i < g->ncus; i++)
                g->port.invalidate(g->port.ctx, i);
            if (never_fits(g, k))
                return;
        }
        if (k && now < k->start + g->cfg->gpu_launch_latency) {
            ks_pause(k->start + g->cfg->gpu_launch_latency - now);
            continue;
        }
        if (k && k->groups == 0) {
            rp_gpu_kernel_done(g, k);
            continue;
        }
        if (k)
            dispatch(g, k, now);
        ks_await(&g->dispatch_ec, seen + 1);
    }
}

void rp_dispatch_wg_done(struct rp_gpu *g, struct rp_wg *wg)
{
    struct rp_kernel *k = wg->k;
    if (++k->finished == k->groups)
        rp_gpu_kernel_done(g, k);
    ks_advance(&g->dispatch_ec);
}
