/* The system's topology (struct topology): the ring, and on it besides the
 * caches the memory side, made of objects the builder creates as many times
 * as the configuration asks: per memory controller a system agent in front
 * of it and its DRAM, per GPU hub its link. Memory requests go to the
 * system agent of the controller owning their block (struct mem_map). A
 * discrete GPU's own memory controller sits off the ring, behind the hubs. */
#include "memsys_internal.h"

#include <stdio.h>

int memsys_context(struct cgm_memsys *m, ks_entry_fn fn, void *arg, ks_domain *d, const char *name, unsigned id,
                   char *err, size_t errlen)
{
    char full[32];
    if (id)
        snprintf(full, sizeof full, "%s.%u", name, id);
    else
        snprintf(full, sizeof full, "%s", name);
    ks_context_opts o = { .name = full, .domain = d };
    if (!ks_context_create_opts(m->eng, fn, arg, &o)) {
        snprintf(err, errlen, "memsys: %s", ks_engine_error(m->eng));
        return -1;
    }
    return 0;
}

int memsys_topology_create(struct cgm_memsys *m, ks_engine *eng, cgm_net_deliver_fn deliver, char *err,
                           size_t errlen)
{
    const struct cgm_memsys_config *cfg = &m->cfg;
    struct topology *t = &m->topo;
    if (memsys_map_init(&t->map, cfg, err, errlen))
        return -1;
    unsigned hubs = cfg->coh.gpu.cus ? cfg->gpu_hubs : 0;
    unsigned caches = cfg->cores > cfg->slices ? cfg->cores : cfg->slices;
    unsigned memory = cfg->mem_controllers > hubs ? cfg->mem_controllers : hubs;
    struct cgm_net_config nc = cfg->net;
    nc.switches = caches + memory;
    t->switches = nc.switches;
    m->net = cgm_net_create(eng, m->sys, &nc, deliver, m, err, errlen);
    if (!m->net)
        return -1;
    t->eps = calloc(cgm_net_endpoints(m->net), sizeof *t->eps);
    t->mcs = calloc(cfg->mem_controllers, sizeof *t->mcs);
    t->sas = calloc(cfg->mem_controllers, sizeof *t->sas);
    t->hubs = hubs ? calloc(hubs, sizeof *t->hubs) : NULL;
    if (!t->eps || !t->mcs || !t->sas || (hubs && !t->hubs)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (unsigned k = 0; k < cfg->mem_controllers; k++) {
        int ep = cgm_net_endpoint(m->net, caches + k, 0);
        t->eps[ep] = (struct endpoint){ EP_SA, &t->sas[k] };
        t->nmcs = k + 1; /* what destroy frees */
        if (memsys_sa_create(m, &t->sas[k], k, ep, &t->mcs[k], &cfg->dram, err, errlen))
            return -1;
    }
    for (unsigned k = 0; k < hubs; k++) {
        int ep = cgm_net_endpoint(m->net, caches + k, 1);
        t->eps[ep] = (struct endpoint){ EP_HUB, &t->hubs[k] };
        memsys_hub_init(m, &t->hubs[k], k, ep);
    }
    t->nhubs = hubs;
    if (cfg->gpu_dram_on) {
        t->gpu_sa = calloc(1, sizeof *t->gpu_sa);
        if (!t->gpu_sa) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (memsys_gpu_sa_create(m, t->gpu_sa, &t->gpu_mc, &cfg->gpu_dram, err, errlen))
            return -1;
    }
    return 0;
}

int memsys_topology_start(struct cgm_memsys *m, char *err, size_t errlen)
{
    struct topology *t = &m->topo;
    for (unsigned k = 0; k < t->nhubs; k++)
        if (memsys_hub_start(&t->hubs[k], err, errlen))
            return -1;
    for (unsigned k = 0; k < t->nmcs; k++)
        if (memsys_sa_start(&t->sas[k], err, errlen))
            return -1;
    if (t->gpu_sa && memsys_sa_start(t->gpu_sa, err, errlen))
        return -1;
    return 0;
}

void memsys_topology_stop(struct cgm_memsys *m)
{
    struct topology *t = &m->topo;
    for (unsigned k = 0; k < t->nmcs; k++) {
        memsys_sa_stop(&t->sas[k]);
        memsys_mc_stop(&t->mcs[k]);
    }
    if (t->gpu_sa) {
        memsys_sa_stop(t->gpu_sa);
        memsys_mc_stop(&t->gpu_mc);
    }
    for (unsigned k = 0; k < t->nhubs; k++)
        memsys_hub_stop(&t->hubs[k]);
    cgm_net_stop(m->net);
}

void memsys_topology_free(struct cgm_memsys *m)
{
    struct topology *t = &m->topo;
    for (unsigned k = 0; k < t->nhubs; k++)
        memsys_hub_free(&t->hubs[k]);
    for (unsigned k = 0; k < t->nmcs; k++) {
        memsys_sa_free(&t->sas[k]);
        memsys_mc_free(&t->mcs[k]);
    }
    if (t->gpu_sa) {
        memsys_sa_free(t->gpu_sa);
        memsys_mc_free(&t->gpu_mc);
        free(t->gpu_sa);
    }
    free(t->hubs);
    free(t->sas);
    free(t->mcs);
    free(t->eps);
    cgm_net_destroy(m->net);
}

/* ---- the memory controllers' statistics -------------------------------- */

unsigned cgm_memsys_controllers(const struct cgm_memsys *m) { return m->topo.nmcs; }

const struct cgm_dram *cgm_memsys_controller_dram(const struct cgm_memsys *m, unsigned i)
{
    return i < m->topo.nmcs ? m->topo.mcs[i].dram : NULL;
}

const struct cgm_memsys_mc_stats *cgm_memsys_controller_stats(const struct cgm_memsys *m, unsigned i)
{
    return i < m->topo.nmcs ? &m->topo.mcs[i].st : NULL;
}

uint64_t cgm_memsys_controller_violations(const struct cgm_memsys *m, unsigned i)
{
    const struct cgm_dram_checker *k = i < m->topo.nmcs ? m->topo.mcs[i].checker : NULL;
    return k ? cgm_dram_checker_violations(k) : 0;
}

const struct cgm_dram *cgm_memsys_dram(const struct cgm_memsys *m) { return cgm_memsys_controller_dram(m, 0); }

const struct cgm_dram *cgm_memsys_gpu_dram(const struct cgm_memsys *m)
{
    return m->topo.gpu_sa ? m->topo.gpu_mc.dram : NULL;
}

const struct cgm_memsys_mc_stats *cgm_memsys_gpu_dram_requests(const struct cgm_memsys *m)
{
    return m->topo.gpu_sa ? &m->topo.gpu_mc.st : NULL;
}

const struct cgm_memsys_stats *cgm_memsys_stats(const struct cgm_memsys *m)
{
    struct cgm_memsys *w = (struct cgm_memsys *)m; /* refresh the sums */
    w->st.mem_reads = w->st.mem_writes = w->st.dram_violations = 0;
    for (unsigned k = 0; k < m->topo.nmcs; k++) {
        const struct mem_ctrl *mc = &m->topo.mcs[k];
        w->st.mem_reads += mc->st.reads;
        w->st.mem_writes += mc->st.writes;
        w->st.dram_violations += cgm_memsys_controller_violations(m, k);
    }
    if (m->topo.gpu_sa && m->topo.gpu_mc.checker)
        w->st.dram_violations += cgm_dram_checker_violations(m->topo.gpu_mc.checker);
    return &m->st;
}

const char *cgm_memsys_dram_check_error(const struct cgm_memsys *m)
{
    for (unsigned k = 0; k < m->topo.nmcs; k++) {
        const struct mem_ctrl *mc = &m->topo.mcs[k];
        if (mc->checker && *cgm_dram_checker_first_error(mc->checker))
            return cgm_dram_checker_first_error(mc->checker);
    }
    const struct cgm_dram_checker *g = m->topo.gpu_sa ? m->topo.gpu_mc.checker : NULL;
    if (g && *cgm_dram_checker_first_error(g))
        return cgm_dram_checker_first_error(g);
    return "";
}
