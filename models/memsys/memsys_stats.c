/* The memory system's statistics, registered once (cgm/stats.h): every
 * cache with its coherence messages, the protocol rows taken, the ring,
 * DRAM and the requests' latencies. */
#include "cgm/memsys.h"
#include "cgm/page_class.h"

#include <stdio.h>
#include <string.h>

static uint64_t l1d_accesses(const void *ctx)
{
    const struct cgm_coh_core_stats *c = ctx;
    return c->accesses - c->fetch_accesses;
}
static uint64_t l1d_hits(const void *ctx)
{
    const struct cgm_coh_core_stats *c = ctx;
    return c->hits - c->fetch_hits;
}
static uint64_t l1d_misses(const void *ctx)
{
    const struct cgm_coh_core_stats *c = ctx;
    return c->misses - c->fetch_misses;
}
static uint64_t l1d_evictions(const void *ctx)
{
    const struct cgm_coh_core_stats *c = ctx;
    return c->evictions - c->fetch_evictions;
}
static uint64_t l2_accesses(const void *ctx)
{
    const struct cgm_coh_core_stats *c = ctx;
    return c->l2_hits + c->l2_misses;
}

/* The coherence model fills in the MSHR peak when its statistics are asked for. */
struct core_ref {
    const struct cgm_coh_sys *coh;
    int core;
};
static uint64_t mshr_peak(const void *ctx)
{
    const struct core_ref *r = ctx;
    return cgm_coh_core_stats(r->coh, r->core)->mshr_peak;
}

static uint64_t mem_reads(const void *ctx) { return cgm_memsys_stats(ctx)->mem_reads; }
static uint64_t mem_writes(const void *ctx) { return cgm_memsys_stats(ctx)->mem_writes; }

static const uint64_t no_messages[COH_NTYPES];

/* A cache's entry in the caches array: its name and kind first; the caller
 * adds its counts and then cache_end. */
static cgm_stat cache_begin(struct cgm_stats *reg, cgm_stat caches, const char *name, const char *kind)
{
    cgm_stat x = cgm_stats_object(reg, caches, NULL);
    cgm_stat_label(reg, x, "name", name);
    cgm_stat_label(reg, x, "kind", kind);
    return x;
}

/* miss_rate = misses / accesses, last in the entry. */
static void cache_end(struct cgm_stats *reg, cgm_stat x, cgm_stat accesses, cgm_stat misses)
{
    cgm_stat_ratio(reg, x, "miss_rate", misses, accesses, 1, 1);
}

/* The names of the message types some protocol of the system sends, NULL
 * for the others (not listed). */
static void message_names(const struct cgm_memsys *m, const char *names[COH_NTYPES])
{
    const struct cgm_coh_sys *coh = cgm_memsys_coh(m);
    uint32_t used = 0;
    for (int k = 0; k < CGM_NODE_KINDS; k++)
        used |= cgm_coh_protocol_of(coh, (enum cgm_coh_node_kind)k)->messages;
    for (unsigned t = 0; t < COH_NTYPES; t++)
        names[t] = used >> t & 1 ? cgm_coh_msg_names[t] : NULL;
}

static void add_messages(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat x,
                         const struct cgm_coh_msg_stats *ms)
{
    const char *names[COH_NTYPES];
    message_names(m, names);
    cgm_stat g = cgm_stats_object(reg, x, "coherence_messages");
    cgm_stat_counters(reg, g, "sent", ms ? ms->sent : no_messages, names, COH_NTYPES);
    cgm_stat_counters(reg, g, "received", ms ? ms->received : no_messages, names, COH_NTYPES);
}

static void add_core_caches(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat caches, int i)
{
    const struct cgm_coh_core_stats *cs = cgm_coh_core_stats(cgm_memsys_coh(m), i);
    char name[32], l2name[32];
    snprintf(l2name, sizeof l2name, "core%d.l2", i);
    cgm_stat a, ms;

    snprintf(name, sizeof name, "core%d.l1i", i);
    cgm_stat x = cache_begin(reg, caches, name, "l1i");
    a = cgm_stat_counter(reg, x, "accesses", &cs->fetch_accesses);
    cgm_stat_counter(reg, x, "hits", &cs->fetch_hits);
    ms = cgm_stat_counter(reg, x, "misses", &cs->fetch_misses);
    cgm_stat_counter(reg, x, "evictions", &cs->fetch_evictions);
    cgm_stat_constant(reg, x, "writebacks", 0); /* the instruction cache writes nothing */
    cgm_stat_constant(reg, x, "nacks", 0);
    /* The L1s act on their L2 within a step and exchange no messages: the
     * core's messages are under its L2. */
    cgm_stat_label(reg, x, "coherence_messages_in", l2name);
    cache_end(reg, x, a, ms);

    snprintf(name, sizeof name, "core%d.l1d", i);
    x = cache_begin(reg, caches, name, "l1d");
    a = cgm_stat_computed(reg, x, "accesses", l1d_accesses, cs);
    cgm_stat_computed(reg, x, "hits", l1d_hits, cs);
    ms = cgm_stat_computed(reg, x, "misses", l1d_misses, cs);
    cgm_stat_computed(reg, x, "evictions", l1d_evictions, cs);
    cgm_stat_counter(reg, x, "writebacks", &cs->l1_writebacks);
    cgm_stat_constant(reg, x, "nacks", 0); /* its L2 is the core's: nothing to refuse */
    /* Loads and stores that missed and joined a miss (or upgrade) to the
     * same block already in flight; a zero-latency cache counts them as hits. */
    cgm_stat_counter(reg, x, "secondary_misses", &cs->l1d_secondary_misses);
    cgm_stat_counter(reg, x, "writeback_queue_hits", &cs->l1_wb_hits);
    cgm_stat_counter(reg, x, "flush_conflict_nacks", &cs->l1_nacks);
    cgm_stat_label(reg, x, "coherence_messages_in", l2name);
    cache_end(reg, x, a, ms);

    x = cache_begin(reg, caches, l2name, "l2");
    a = cgm_stat_computed(reg, x, "accesses", l2_accesses, cs);
    cgm_stat_counter(reg, x, "hits", &cs->l2_hits);
    ms = cgm_stat_counter(reg, x, "misses", &cs->l2_misses);
    cgm_stat_counter(reg, x, "evictions", &cs->l2_evictions);
    /* writebacks: written blocks sent with their data; clean_evictions:
     * unwritten exclusive blocks given up with a notice (no data). */
    cgm_stat_counter(reg, x, "writebacks", &cs->writebacks);
    cgm_stat_counter(reg, x, "nacks", &cs->nacks_received);
    cgm_stat_counter(reg, x, "clean_evictions", &cs->clean_evictions);
    add_messages(m, reg, x, cgm_memsys_l2_msgs(m, i));
    /* The core's MSHR file and coalescer (shared by its L1s and L2). */
    cgm_stat mshr = cgm_stats_object(reg, x, "mshr");
    cgm_stat_counter(reg, mshr, "coalesced", &cs->coalesced);
    cgm_stat_counter(reg, mshr, "full_stalls", &cs->stalls);
    cgm_stat_counter(reg, mshr, "retries", &cs->retries);
    cgm_stat_counter(reg, mshr, "upgrades", &cs->upgrades);
    struct core_ref ref = { cgm_memsys_coh(m), i };
    cgm_stat_peak_computed(reg, mshr, "peak_entries", mshr_peak, cgm_stats_keep(reg, &ref, sizeof ref));
    cgm_stat_counter(reg, mshr, "writeback_queue_hits", &cs->wb_hits);
    cgm_stat_peak(reg, mshr, "writeback_queue_peak", &cs->wb_queue_peak);
    cache_end(reg, x, a, ms);
}

static void add_slice(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat caches, int i)
{
    const struct cgm_coh_slice_stats *ss = cgm_coh_slice_stats(cgm_memsys_coh(m), i);
    char name[32];
    snprintf(name, sizeof name, "l3.%d", i);
    cgm_stat x = cache_begin(reg, caches, name, "l3");
    cgm_stat a = cgm_stat_counter(reg, x, "accesses", &ss->requests);
    cgm_stat_counter(reg, x, "hits", &ss->hits);
    cgm_stat ms = cgm_stat_counter(reg, x, "misses", &ss->misses);
    cgm_stat_counter(reg, x, "evictions", &ss->evictions);
    cgm_stat_counter(reg, x, "writebacks", &ss->mem_writes);
    cgm_stat_counter(reg, x, "nacks", &ss->nacks_sent);
    cgm_stat_counter(reg, x, "forwards", &ss->forwards);
    cgm_stat_counter(reg, x, "invalidations", &ss->invalidations);
    cgm_stat_counter(reg, x, "back_invalidations", &ss->back_invalidations);
    cgm_stat_counter(reg, x, "memory_reads", &ss->mem_reads);
    cgm_stat_counter(reg, x, "writeback_hits", &ss->wb_hits);
    cgm_stat_counter(reg, x, "joins", &ss->joins);
    cgm_stat_counter(reg, x, "mshr_nacks", &ss->mshr_nacks);
    cgm_stat_peak(reg, x, "mshr_peak", &ss->mshr_peak);
    add_messages(m, reg, x, cgm_memsys_l3_msgs(m, i));
    cache_end(reg, x, a, ms);
}

/* The GPU caches' MSHR peaks are filled in when their statistics are asked for. */
struct gpu_ref {
    const struct cgm_coh_sys *coh;
    int i;
};
static uint64_t gpu_l1_mshr_peak(const void *ctx)
{
    const struct gpu_ref *r = ctx;
    return cgm_coh_gpu_l1_stats(r->coh, r->i)->mshr_peak;
}
static uint64_t gpu_l2_mshr_peak(const void *ctx)
{
    const struct gpu_ref *r = ctx;
    return cgm_coh_gpu_l2_stats(r->coh, r->i)->mshr_peak;
}

static void add_gpu_l1(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat caches, int cu)
{
    const struct cgm_coh_sys *coh = cgm_memsys_coh(m);
    const struct cgm_coh_gpu_l1_stats *st = cgm_coh_gpu_l1_stats(coh, cu);
    char name[32];
    snprintf(name, sizeof name, "cu%d.l1v", cu);
    cgm_stat x = cache_begin(reg, caches, name, "gpu_l1v");
    cgm_stat a = cgm_stat_counter(reg, x, "accesses", &st->accesses);
    cgm_stat_counter(reg, x, "loads", &st->loads);
    cgm_stat_counter(reg, x, "stores", &st->stores);
    cgm_stat_counter(reg, x, "hits", &st->hits);
    cgm_stat ms = cgm_stat_counter(reg, x, "misses", &st->misses);
    cgm_stat_counter(reg, x, "evictions", &st->evictions);
    cgm_stat_counter(reg, x, "writebacks", &st->writebacks);
    cgm_stat_counter(reg, x, "nacks", &st->nacks_received);
    cgm_stat_counter(reg, x, "retries", &st->retries);
    cgm_stat_counter(reg, x, "coalesced", &st->coalesced);
    cgm_stat_counter(reg, x, "full_stalls", &st->stalls);
    cgm_stat_counter(reg, x, "writeback_queue_hits", &st->wb_hits);
    cgm_stat_counter(reg, x, "invalidations", &st->invalidations);
    cgm_stat_counter(reg, x, "joins", &st->joins);
    struct gpu_ref ref = { coh, cu };
    cgm_stat_peak_computed(reg, x, "mshr_peak", gpu_l1_mshr_peak, cgm_stats_keep(reg, &ref, sizeof ref));
    const struct cgm_memsys_gpu_l1_timing *t = cgm_memsys_gpu_l1_timing(m, (unsigned)cu);
    cgm_stat lat = cgm_stats_object(reg, x, "l2_latency");
    cgm_stat n = cgm_stat_counter(reg, lat, "requests", &t->requests);
    cgm_stat_ratio(reg, lat, "mean", cgm_stat_counter(reg, lat, "cycles", &t->cycles), n, 1, 1);
    cgm_stat_peak(reg, lat, "max", &t->max);
    add_messages(m, reg, x, cgm_coh_node_msgs(coh, cgm_coh_gpu_l1_node(coh, cu)));
    cache_end(reg, x, a, ms);
}

static void add_gpu_l2(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat caches, int bank)
{
    const struct cgm_coh_sys *coh = cgm_memsys_coh(m);
    const struct cgm_coh_gpu_l2_stats *st = cgm_coh_gpu_l2_stats(coh, bank);
    char name[32];
    snprintf(name, sizeof name, "gpu_l2.%d", bank);
    cgm_stat x = cache_begin(reg, caches, name, "gpu_l2");
    cgm_stat a = cgm_stat_counter(reg, x, "accesses", &st->requests);
    cgm_stat_counter(reg, x, "hits", &st->hits);
    cgm_stat ms = cgm_stat_counter(reg, x, "misses", &st->misses);
    cgm_stat_counter(reg, x, "evictions", &st->evictions);
    cgm_stat_counter(reg, x, "writebacks", &st->writebacks);
    cgm_stat_counter(reg, x, "nacks", &st->nacks_sent);
    cgm_stat_counter(reg, x, "nacks_received", &st->nacks_received);
    cgm_stat_counter(reg, x, "mshr_nacks", &st->mshr_nacks);
    cgm_stat_counter(reg, x, "full_stalls", &st->full_stalls);
    cgm_stat_counter(reg, x, "retries", &st->retries);
    cgm_stat_counter(reg, x, "coalesced", &st->coalesced);
    cgm_stat_counter(reg, x, "recalls", &st->recalls);
    cgm_stat_counter(reg, x, "invalidations", &st->invalidations);
    cgm_stat_counter(reg, x, "back_invalidations", &st->back_invalidations);
    cgm_stat_counter(reg, x, "clean_evictions", &st->clean_evictions);
    cgm_stat_counter(reg, x, "writeback_hits", &st->wb_hits);
    cgm_stat_counter(reg, x, "joins", &st->joins);
    cgm_stat_counter(reg, x, "parent_requests", &st->parent_requests);
    cgm_stat_counter(reg, x, "parent_forwards", &st->parent_forwards);
    cgm_stat_counter(reg, x, "memory_reads", &st->mem_reads);
    cgm_stat_counter(reg, x, "memory_writes", &st->mem_writes);
    cgm_stat_counter(reg, x, "flushes", &st->flushes);
    struct gpu_ref ref = { coh, bank };
    cgm_stat_peak_computed(reg, x, "mshr_peak", gpu_l2_mshr_peak, cgm_stats_keep(reg, &ref, sizeof ref));
    /* where its misses spend their time (GPU cycles) */
    const struct cgm_memsys_gpu_l2_timing *t = cgm_memsys_gpu_l2_timing(m, (unsigned)bank);
    cgm_stat lat = cgm_stats_object(reg, x, "miss_latency");
    cgm_stat fetches = cgm_stat_counter(reg, lat, "fetches", &t->fetches);
    cgm_stat fetch = cgm_stat_counter(reg, lat, "fetch_cycles", &t->fetch_cycles);
    cgm_stat_ratio(reg, lat, "fetch_mean", fetch, fetches, 1, 1);
    cgm_stat_peak(reg, lat, "fetch_max", &t->fetch_max);
    cgm_stat_counter(reg, lat, "entry_waits", &t->entry_waits);
    cgm_stat_counter(reg, lat, "entry_wait_cycles", &t->entry_wait_cycles);
    if (cgm_memsys_config_of(m)->coh.gpu.l2_frc_entries) {
        /* its FRC (only when on): the misses it took, the share of the misses they are (Fig. 5.7) */
        cgm_stat f = cgm_stats_object(reg, x, "frc");
        cgm_stat taken = cgm_stat_counter(reg, f, "fetches", &st->frc_fetches);
        cgm_stat_counter(reg, f, "full", &st->frc_full);
        cgm_stat_counter(reg, f, "swaps", &st->frc_swaps);
        cgm_stat_counter(reg, f, "swap_waits", &st->frc_swap_waits);
        cgm_stat_counter(reg, f, "hits", &st->frc_hits);
        cgm_stat_ratio(reg, f, "served_fraction", taken, ms, 1, 1);
    }
    if (cgm_memsys_config_of(m)->coh.gpu.l2_victim_policy == CGM_COH_VICTIM_SERIALIZED) {
        cgm_stat_counter(reg, lat, "victim_waits", &st->victim_waits);
        cgm_stat_counter(reg, lat, "invalidate_cycles", &st->invalidate_cycles);
        cgm_stat_counter(reg, lat, "evict_cycles", &st->evict_cycles);
    }
    add_messages(m, reg, x, cgm_coh_node_msgs(coh, cgm_coh_gpu_l2_node(coh, bank)));
    cache_end(reg, x, a, ms);
}

/* A self-invalidating protocol's counts (none under the others): per
 * first level the shared blocks self-invalidated at acquires, the write
 * buffer's entries self-downgraded at releases, the diffs and their data
 * bytes, the page downgrades; per GPU L2 bank its self-invalidations; the
 * pages by class and their transitions. */
static void add_self_invalidation(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group)
{
    const struct cgm_memsys_config *cfg = cgm_memsys_config_of(m);
    const struct cgm_coh_sys *coh = cgm_memsys_coh(m);
    cgm_stat x = cgm_stats_object(reg, group, "self_invalidation");
    char name[32];
    for (int i = 0; i < (int)cfg->cores; i++) {
        const struct cgm_coh_core_stats *cs = cgm_coh_core_stats(coh, i);
        snprintf(name, sizeof name, "core%d", i);
        cgm_stat o = cgm_stats_object(reg, x, name);
        cgm_stat_counter(reg, o, "self_invalidated_blocks", &cs->self_invalidations);
        cgm_stat_counter(reg, o, "self_downgraded_blocks", &cs->self_downgrades);
        cgm_stat_counter(reg, o, "diff_messages", &cs->diffs);
        cgm_stat_counter(reg, o, "diff_bytes", &cs->diff_bytes);
        cgm_stat_counter(reg, o, "page_downgrade_writebacks", &cs->page_downgrades);
    }
    for (int i = 0; i < (int)cfg->coh.gpu.cus; i++) {
        const struct cgm_coh_gpu_l1_stats *st = cgm_coh_gpu_l1_stats(coh, i);
        snprintf(name, sizeof name, "cu%d", i);
        cgm_stat o = cgm_stats_object(reg, x, name);
        cgm_stat_counter(reg, o, "self_invalidated_blocks", &st->self_invalidations);
        cgm_stat_counter(reg, o, "self_downgraded_blocks", &st->self_downgrades);
        cgm_stat_counter(reg, o, "diff_messages", &st->diffs);
        cgm_stat_counter(reg, o, "diff_bytes", &st->diff_bytes);
    }
    for (int i = 0; i < (int)cfg->coh.gpu.banks && cfg->coh.gpu.cus; i++) {
        snprintf(name, sizeof name, "gpu_l2.%d", i);
        cgm_stat o = cgm_stats_object(reg, x, name);
        cgm_stat_counter(reg, o, "self_invalidated_blocks", &cgm_coh_gpu_l2_stats(coh, i)->self_invalidations);
    }
    const struct cgm_page_class_stats *ps = cgm_page_class_stats(cgm_memsys_page_classes(m));
    cgm_stat pg = cgm_stats_object(reg, x, "pages");
    static const char *const kinds[CGM_PAGE_KINDS] = { "unused", "private_cpu", "private_gpu", "shared" };
    for (int k = 0; k < CGM_PAGE_KINDS; k++) /* levels, which fall as pages change class */
        cgm_stat_level(reg, pg, kinds[k], &ps->pages[k]);
    cgm_stat_counter(reg, pg, "private_to_shared", &ps->to_shared);
    cgm_stat_counter(reg, pg, "shared_to_private", &ps->to_private);
    cgm_stat_counter(reg, pg, "downgrades", &ps->downgrades);
}

/* A scalar cache: every access hits (the seed's model). */
static const uint64_t never;
static void add_scalar(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat caches, unsigned i)
{
    const struct cgm_memsys_scalar_stats *st = cgm_memsys_scalar_stats(m, i);
    char name[32];
    snprintf(name, sizeof name, "scalar.%u", i);
    cgm_stat x = cache_begin(reg, caches, name, "gpu_scalar");
    cgm_stat_constant(reg, x, "compute_units", cgm_memsys_config_of(m)->gpu_scalar_share);
    cgm_stat a = cgm_stat_counter(reg, x, "accesses", &st->accesses);
    cgm_stat_counter(reg, x, "hits", &st->accesses);
    cgm_stat ms = cgm_stat_counter(reg, x, "misses", &never);
    cgm_stat_counter(reg, x, "wait_cycles", &st->wait_cycles);
    cache_end(reg, x, a, ms);
}

/* The CUs' TLBs and the IOMMU's walker. */
static void add_translation(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group)
{
    cgm_stat tlbs = cgm_stats_array(reg, group, "gpu_tlbs");
    unsigned cus = cgm_memsys_config_of(m)->coh.gpu.cus;
    for (unsigned cu = 0; cgm_memsys_gpu_tlb(m, cu); cu++) {
        const struct cgm_mmu *t = cgm_memsys_gpu_tlb(m, cu);
        char name[32];
        if (cu < cus)
            snprintf(name, sizeof name, "cu%u.tlb", cu);
        else
            snprintf(name, sizeof name, "shared.tlb");
        cgm_stat x = cgm_stats_object(reg, tlbs, NULL);
        cgm_stat_label(reg, x, "name", name);
        cgm_mmu_stats_register(t, reg, x);
    }
    const struct cgm_memsys_iommu_stats *io = cgm_memsys_iommu_stats(m);
    cgm_stat x = cgm_stats_object(reg, group, "iommu");
    cgm_stat_counter(reg, x, "walks", &io->walks);
    cgm_stat_counter(reg, x, "joined_walks", &io->joined);
    cgm_stat_counter(reg, x, "wait_cycles", &io->wait_cycles);
}

/* Hub i's link, each way, into x. */
static void add_hub_link(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat x, unsigned i)
{
    static const char *const ways[2] = { "to_memory", "to_gpu" };
    for (int up = 0; up < 2; up++) {
        const struct cgm_memsys_hub_stats *st = cgm_memsys_hub_link_stats(m, i, up);
        cgm_stat w = cgm_stats_object(reg, x, ways[up]);
        cgm_stat_counter(reg, w, "packets", &st->packets);
        cgm_stat_counter(reg, w, "bytes", &st->bytes);
        cgm_stat_counter(reg, w, "link_full_cycles", &st->link_full_cycles);
    }
}

/* The GPU hubs' links: hub 0's in "gpu_hub"; with several, every hub in
 * the array "gpu_hubs" beside it. */
static void add_hubs(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group)
{
    const struct cgm_memsys_config *cfg = cgm_memsys_config_of(m);
    cgm_stat h = cgm_stats_object(reg, group, "gpu_hub");
    cgm_stat_constant(reg, h, "link_bytes_per_cycle", cfg->gpu_link_bytes);
    cgm_stat_constant(reg, h, "latency_gpu_cycles", cfg->hub_latency);
    add_hub_link(m, reg, h, 0);
    if (cgm_memsys_hubs(m) < 2)
        return;
    cgm_stat all = cgm_stats_array(reg, group, "gpu_hubs");
    for (unsigned i = 0; i < cgm_memsys_hubs(m); i++) {
        cgm_stat x = cgm_stats_object(reg, all, NULL);
        cgm_stat_id(reg, x, "id", i);
        if (i == 0)
            cgm_stat_label(reg, x, "counts_in", "gpu_hub");
        else
            add_hub_link(m, reg, x, i);
    }
}

/* A memory controller's DRAM into group, with its timing checker's count. */
struct dram_ref {
    const struct cgm_memsys *m;
    unsigned i;
};
static uint64_t dram_violations(const void *ctx)
{
    const struct dram_ref *r = ctx;
    return cgm_memsys_controller_violations(r->m, r->i);
}
static void add_dram(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group, unsigned i)
{
    cgm_stat d = cgm_dram_stats_register(cgm_memsys_controller_dram(m, i), reg, group);
    struct dram_ref ref = { m, i };
    if (cgm_memsys_config_of(m)->check_dram)
        cgm_stat_computed(reg, d, "timing_violations", dram_violations, cgm_stats_keep(reg, &ref, sizeof ref));
}

/* Memory controller 0's DRAM in "dram"; with several controllers, every
 * controller in the array "memory_controllers" beside it: the requests it
 * took and its DRAM. */
static void add_controllers(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group)
{
    add_dram(m, reg, group, 0);
    if (cgm_memsys_controllers(m) < 2)
        return;
    cgm_stat all = cgm_stats_array(reg, group, "memory_controllers");
    for (unsigned i = 0; i < cgm_memsys_controllers(m); i++) {
        const struct cgm_memsys_mc_stats *st = cgm_memsys_controller_stats(m, i);
        cgm_stat x = cgm_stats_object(reg, all, NULL);
        cgm_stat_id(reg, x, "id", i);
        cgm_stat_counter(reg, x, "memory_reads", &st->reads);
        cgm_stat_counter(reg, x, "memory_writes", &st->writes);
        if (i == 0)
            cgm_stat_label(reg, x, "dram_in", "dram");
        else
            add_dram(m, reg, x, i);
    }
}

/* A sum over the ring's switches. */
static uint64_t sum_switches(const struct cgm_memsys *m, bool blocked)
{
    const struct cgm_net *net = cgm_memsys_net(m);
    unsigned n = cgm_net_endpoints(net) / cgm_memsys_config_of(m)->net.local_ports;
    uint64_t sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += blocked ? cgm_net_switch_stats(net, i)->blocked : cgm_net_switch_stats(net, i)->packets;
    return sum;
}
static uint64_t net_packets(const void *ctx) { return sum_switches(ctx, false); }
static uint64_t net_blocked(const void *ctx) { return sum_switches(ctx, true); }

static void add_network(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group)
{
    const struct cgm_net *net = cgm_memsys_net(m);
    cgm_stat n = cgm_stats_object(reg, group, "network");
    cgm_stat sw = cgm_stats_array(reg, n, "switches");
    unsigned nsw = cgm_net_endpoints(net) / cgm_memsys_config_of(m)->net.local_ports;
    for (unsigned i = 0; i < nsw; i++) {
        const struct cgm_net_switch_stats *ss = cgm_net_switch_stats(net, i);
        cgm_stat x = cgm_stats_object(reg, sw, NULL);
        cgm_stat_id(reg, x, "id", i);
        cgm_stat_counter(reg, x, "packets", &ss->packets);
        cgm_stat_counter(reg, x, "blocked", &ss->blocked);
        cgm_stat_counter(reg, x, "request_lane", &ss->lane_packets[CGM_LANE_REQUEST]);
        cgm_stat_counter(reg, x, "reply_lane", &ss->lane_packets[CGM_LANE_REPLY]);
        cgm_stat_counter(reg, x, "coherence_lane", &ss->lane_packets[CGM_LANE_COHERENCE]);
        cgm_stat_counter(reg, x, "west_link_busy", &ss->port_busy[0]);
        cgm_stat_counter(reg, x, "east_link_busy", &ss->port_busy[1]);
        cgm_stat_counter(reg, x, "active_cycles", &ss->active_cycles);
    }
    cgm_stat_computed(reg, n, "packets", net_packets, m);
    cgm_stat_computed(reg, n, "blocked", net_blocked, m);
}

/* The rows of protocol p that the controllers of the kinds it runs here
 * took, as protocol_rows (the rows of the GPU's kinds only in a system
 * with compute units, so a CPU-only system's statistics are its CPU
 * tables'). */
static void add_rows(const struct cgm_memsys_config *cfg, const struct cgm_coh_sys *coh, const struct cgm_coh_protocol *p,
                     struct cgm_stats *reg, cgm_stat group, const char *name)
{
    const char *names[p->nrows ? p->nrows : 1];
    for (unsigned r = 0; r < p->nrows; r++) {
        enum cgm_coh_node_kind k = (enum cgm_coh_node_kind)p->rows[r].kind;
        bool present = cfg->coh.gpu.cus || (k != CGM_NODE_GPU_L1 && k != CGM_NODE_GPU_L2);
        names[r] = present && cgm_coh_protocol_of(coh, k) == p ? p->rows[r].name : NULL;
    }
    const char *const *kept = cgm_stats_keep(reg, names, p->nrows * sizeof *names);
    if (kept)
        cgm_stat_counters(reg, group, name, cgm_coh_row_counts(coh, p), kept, p->nrows);
}

int cgm_memsys_stats_register(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group)
{
    const struct cgm_memsys_config *cfg = cgm_memsys_config_of(m);
    const struct cgm_coh_sys *coh = cgm_memsys_coh(m);
    cgm_stat caches = cgm_stats_child(reg, group, "caches");
    if (caches < 0)
        caches = cgm_stats_array(reg, group, "caches");
    for (int i = 0; i < (int)cfg->cores; i++)
        add_core_caches(m, reg, caches, i);
    for (int i = 0; i < (int)cfg->slices; i++)
        add_slice(m, reg, caches, i);
    for (int i = 0; i < (int)cfg->coh.gpu.cus; i++)
        add_gpu_l1(m, reg, caches, i);
    for (int i = 0; i < (int)cfg->coh.gpu.banks && cfg->coh.gpu.cus; i++)
        add_gpu_l2(m, reg, caches, i);
    for (unsigned i = 0; i < cgm_memsys_scalar_caches(m); i++)
        add_scalar(m, reg, caches, i);
    const char *names[COH_NTYPES];
    message_names(m, names);
    cgm_stat_counters(reg, group, "coherence_messages", cgm_coh_msg_counts(coh), names, COH_NTYPES);
    /* The system's protocol's rows; the GPU's apart when it runs another. */
    const struct cgm_coh_protocol *cpu = cgm_coh_protocol_of(coh, CGM_NODE_CORE);
    const struct cgm_coh_protocol *gpu = cgm_coh_protocol_of(coh, CGM_NODE_GPU_L1);
    add_rows(cfg, coh, cpu, reg, group, "protocol_rows");
    if (gpu != cpu && cfg->coh.gpu.cus)
        add_rows(cfg, coh, gpu, reg, group, "gpu_protocol_rows");
    add_network(m, reg, group);
    if (cfg->coh.gpu.cus) {
        add_hubs(m, reg, group);
        add_translation(m, reg, group);
    }
    add_controllers(m, reg, group);
    if (cgm_memsys_page_classes(m))
        add_self_invalidation(m, reg, group);
    const struct cgm_memsys_stats *st = cgm_memsys_stats(m);
    cgm_stat r = cgm_stats_object(reg, group, "memory_requests");
    cgm_stat done = cgm_stat_counter(reg, r, "completed", &st->completed);
    cgm_stat sum = cgm_stat_counter(reg, r, "latency_sum_cpu_cycles", &st->latency_sum);
    cgm_stat_peak(reg, r, "max_latency_cpu_cycles", &st->latency_max);
    cgm_stat_histogram(reg, r, "latency_histogram", st->latency_hist, 24);
    cgm_stat_computed(reg, r, "memory_reads", mem_reads, m);
    cgm_stat_computed(reg, r, "memory_writes", mem_writes, m);
    cgm_stat_ratio(reg, r, "avg_latency_cpu_cycles", sum, done, 1, 1);
    return cgm_stats_failed(reg) ? -1 : 0;
}

int cgm_memsys_write_json(const struct cgm_memsys *m, FILE *out)
{
    struct cgm_stats *reg = cgm_stats_create();
    if (!reg)
        return -1;
    int rc = cgm_memsys_stats_register(m, reg, CGM_STATS_ROOT);
    if (!rc)
        rc = cgm_stats_write_json(reg, CGM_STATS_ROOT, out);
    cgm_stats_destroy(reg);
    return rc;
}
