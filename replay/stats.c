/* Statistics: a cJSON snapshot of every counter; the region of interest
 * is the difference of two snapshots; ratios are derived after the
 * subtraction so they hold for both. Only integers are snapshotted, so the
 * output is the same, byte for byte, for the same trace and configuration. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "replay/sim.h"

static void add_u(cJSON *o, const char *k, uint64_t v) { cJSON_AddNumberToObject(o, k, (double)v); }

static const char *const stall_names[ST_COUNT] = {
    "frontend_icache", "frontend_itlb", "frontend_branch", "frontend_serialize", "frontend_other",
    "memory", "execute", "syscall", "idle",
};

/* Core ID's statistics, its cycles CYCLES. */
static cJSON *core_json(const struct rp_core *c, unsigned id, uint64_t cycles)
{
    struct rp_core_stats st = *rp_core_stats(c);
    st.cycles = cycles;
    cJSON *x = cJSON_CreateObject();
    add_u(x, "id", id);
    add_u(x, "instructions", st.instructions);
    add_u(x, "uops", st.uops);
    add_u(x, "cycles", st.cycles);
    add_u(x, "loads", st.loads);
    add_u(x, "stores", st.stores);
    add_u(x, "fetches", st.fetches);
    add_u(x, "branches", st.branches);
    add_u(x, "mispredictions", st.mispredictions);
    add_u(x, "conditional_branches", st.cond_branches);
    add_u(x, "conditional_mispredictions", st.cond_mispredictions);
    add_u(x, "syscalls", st.syscalls);
    add_u(x, "context_switches", st.context_switches);
    add_u(x, "commit_cycles", st.commit_cycles);
    cJSON *stalls = cJSON_AddObjectToObject(x, "stall_cycles");
    for (int i = 0; i < ST_COUNT; i++)
        add_u(stalls, stall_names[i], st.stall[i]);
    cJSON *d = cJSON_AddObjectToObject(x, "dispatch_stalls");
    add_u(d, "rob_full", st.rob_full);
    add_u(d, "iq_full", st.iq_full);
    add_u(d, "lsq_full", st.lsq_full);
    add_u(x, "memory_refused", st.mem_refused);
    const struct cgm_mmu *tlbs[2] = { rp_core_tlb(c, false), rp_core_tlb(c, true) };
    static const char *const names[2] = { "itlb", "dtlb" };
    for (int i = 0; i < 2; i++) {
        cJSON *t = cJSON_AddObjectToObject(x, names[i]);
        add_u(t, "translations", tlbs[i]->st.translations);
        add_u(t, "hits", tlbs[i]->st.hits);
        add_u(t, "misses", tlbs[i]->st.misses);
        add_u(t, "first_touch_faults", tlbs[i]->st.hard_faults);
        add_u(t, "evictions", tlbs[i]->st.evictions);
        add_u(t, "shootdowns", tlbs[i]->st.shootdowns);
    }
    return x;
}

static cJSON *cache_json(const char *name, const char *kind, uint64_t acc, uint64_t hits, uint64_t misses,
                         uint64_t evictions, uint64_t writebacks, uint64_t nacks)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "name", name);
    cJSON_AddStringToObject(x, "kind", kind);
    add_u(x, "accesses", acc);
    add_u(x, "hits", hits);
    add_u(x, "misses", misses);
    add_u(x, "evictions", evictions);
    add_u(x, "writebacks", writebacks);
    add_u(x, "nacks", nacks);
    return x;
}

static cJSON *coherence_json(const struct cgm_coh_sys *coh)
{
    cJSON *m = cJSON_CreateObject();
    const uint64_t *mc = cgm_coh_msg_counts(coh);
    for (int t = 0; t < COH_NTYPES; t++)
        add_u(m, cgm_coh_msg_names[t], mc[t]);
    return m;
}

/* A cache's coherence messages by type, sent and received. */
static void add_msgs(cJSON *cache, const struct cgm_coh_msg_stats *ms)
{
    cJSON *m = cJSON_AddObjectToObject(cache, "coherence_messages");
    cJSON *sent = cJSON_AddObjectToObject(m, "sent"), *recv = cJSON_AddObjectToObject(m, "received");
    for (int t = 0; t < COH_NTYPES; t++) {
        add_u(sent, cgm_coh_msg_names[t], ms ? ms->sent[t] : 0);
        add_u(recv, cgm_coh_msg_names[t], ms ? ms->received[t] : 0);
    }
}

static void add_caches(cJSON *root, struct rp_sim *s)
{
    const struct cgm_coh_sys *coh = cgm_memsys_coh(s->ms);
    cJSON *caches = cJSON_AddArrayToObject(root, "caches");
    char name[32];
    for (unsigned i = 0; i < s->cfg.cores; i++) {
        const struct cgm_coh_core_stats *cs = cgm_coh_core_stats(coh, (int)i);
        snprintf(name, sizeof name, "core%u.l1i", i);
        cJSON *x = cache_json(name, "l1i", cs->fetch_accesses, cs->fetch_hits, cs->fetch_misses,
                              cs->fetch_evictions, 0, 0);
        /* The L1s act on their L2 within a step and exchange no messages:
         * the core's messages are under its L2. */
        char l2name[32];
        snprintf(l2name, sizeof l2name, "core%u.l2", i);
        cJSON_AddStringToObject(x, "coherence_messages_in", l2name);
        cJSON_AddItemToArray(caches, x);
        snprintf(name, sizeof name, "core%u.l1d", i);
        x = cache_json(name, "l1d", cs->accesses - cs->fetch_accesses, cs->hits - cs->fetch_hits,
                       cs->misses - cs->fetch_misses, cs->evictions - cs->fetch_evictions, cs->l1_writebacks, 0);
        /* Loads and stores that missed and joined a miss (or upgrade) to
         * the same block already in flight. A zero-latency cache model
         * counts them as hits. */
        add_u(x, "secondary_misses", cs->l1d_secondary_misses);
        add_u(x, "writeback_queue_hits", cs->l1_wb_hits);
        add_u(x, "flush_conflict_nacks", cs->l1_nacks);
        cJSON_AddStringToObject(x, "coherence_messages_in", l2name);
        cJSON_AddItemToArray(caches, x);
        snprintf(name, sizeof name, "core%u.l2", i);
        x = cache_json(name, "l2", cs->l2_hits + cs->l2_misses, cs->l2_hits, cs->l2_misses, cs->l2_evictions,
                       cs->writebacks, cs->nacks_received);
        /* writebacks: written blocks sent with their data; clean_evictions:
         * unwritten exclusive blocks given up with a notice (no data). */
        add_u(x, "clean_evictions", cs->clean_evictions);
        add_msgs(x, cgm_memsys_l2_msgs(s->ms, (int)i));
        /* The core's MSHR file and coalescer (shared by its L1s and L2). */
        cJSON *m = cJSON_AddObjectToObject(x, "mshr");
        add_u(m, "coalesced", cs->coalesced);
        add_u(m, "full_stalls", cs->stalls);
        add_u(m, "retries", cs->retries);
        add_u(m, "upgrades", cs->upgrades);
        add_u(m, "peak_entries", cs->mshr_peak);
        add_u(m, "writeback_queue_hits", cs->wb_hits);
        add_u(m, "writeback_queue_peak", cs->wb_queue_peak);
        cJSON_AddItemToArray(caches, x);
    }
    for (unsigned i = 0; i < s->cfg.l3_slices; i++) {
        const struct cgm_coh_slice_stats *ss = cgm_coh_slice_stats(coh, (int)i);
        snprintf(name, sizeof name, "l3.%u", i);
        cJSON *x = cache_json(name, "l3", ss->requests, ss->hits, ss->misses, ss->evictions, ss->mem_writes,
                              ss->nacks_sent);
        add_u(x, "forwards", ss->forwards);
        add_u(x, "invalidations", ss->invalidations);
        add_u(x, "back_invalidations", ss->back_invalidations);
        add_u(x, "memory_reads", ss->mem_reads);
        add_u(x, "writeback_hits", ss->wb_hits);
        add_msgs(x, cgm_memsys_l3_msgs(s->ms, (int)i));
        cJSON_AddItemToArray(caches, x);
    }
}

static void add_network(cJSON *root, struct rp_sim *s)
{
    const struct cgm_net *net = cgm_memsys_net(s->ms);
    cJSON *n = cJSON_AddObjectToObject(root, "network");
    cJSON *sw = cJSON_AddArrayToObject(n, "switches");
    unsigned nsw = cgm_net_endpoints(net) / 2; /* two local ports per switch (memsys) */
    uint64_t packets = 0, blocked = 0;
    for (unsigned i = 0; i < nsw; i++) {
        const struct cgm_net_switch_stats *ss = cgm_net_switch_stats(net, i);
        cJSON *x = cJSON_CreateObject();
        add_u(x, "id", i);
        add_u(x, "packets", ss->packets);
        add_u(x, "blocked", ss->blocked);
        add_u(x, "request_lane", ss->lane_packets[CGM_LANE_REQUEST]);
        add_u(x, "reply_lane", ss->lane_packets[CGM_LANE_REPLY]);
        add_u(x, "coherence_lane", ss->lane_packets[CGM_LANE_COHERENCE]);
        add_u(x, "west_link_busy", ss->port_busy[0]);
        add_u(x, "east_link_busy", ss->port_busy[1]);
        add_u(x, "active_cycles", ss->active_cycles);
        packets += ss->packets;
        blocked += ss->blocked;
        cJSON_AddItemToArray(sw, x);
    }
    add_u(n, "packets", packets);
    add_u(n, "blocked", blocked);
}

static void add_dram(cJSON *root, struct rp_sim *s)
{
    const struct cgm_dram_stats *ds = cgm_dram_stats(cgm_memsys_dram(s->ms));
    const struct cgm_memsys_stats *ms = cgm_memsys_stats(s->ms);
    cJSON *d = cJSON_AddObjectToObject(root, "dram");
    add_u(d, "reads", ds->reads);
    add_u(d, "writes", ds->writes);
    add_u(d, "row_hits", ds->row_hits);
    add_u(d, "row_misses", ds->row_misses);
    add_u(d, "row_conflicts", ds->row_conflicts);
    add_u(d, "activates", ds->activates);
    add_u(d, "refreshes", ds->refreshes);
    add_u(d, "read_latency_sum_dram_cycles", ds->read_latency_sum);
    add_u(d, "bytes", (ds->reads + ds->writes) * 64);
    cJSON *h = cJSON_AddArrayToObject(d, "read_latency_histogram");
    for (unsigned i = 0; i < CGM_DRAM_HIST_BUCKETS; i++)
        cJSON_AddItemToArray(h, cJSON_CreateNumber((double)ds->read_hist[i]));
    cJSON *m = cJSON_AddObjectToObject(root, "memory_requests");
    add_u(m, "completed", ms->completed);
    add_u(m, "latency_sum_cpu_cycles", ms->latency_sum);
    cJSON *mh = cJSON_AddArrayToObject(m, "latency_histogram");
    for (unsigned i = 0; i < 24; i++)
        cJSON_AddItemToArray(mh, cJSON_CreateNumber((double)ms->latency_hist[i]));
}

void *rp_stats_snapshot(struct rp_sim *s, uint64_t cycles)
{
    cJSON *root = cJSON_CreateObject();
    add_u(root, "cycles", cycles);
    uint64_t insns = 0;
    cJSON *cores = cJSON_AddArrayToObject(root, "cores");
    for (unsigned i = 0; i < s->cfg.cores; i++) {
        const struct rp_core *c = s->cores[i];
        /* A running core has run until now. */
        uint64_t ran = rp_core_done(c) ? rp_core_stats(c)->cycles : cycles;
        cJSON_AddItemToArray(cores, core_json(c, i, ran));
        insns += rp_core_stats(c)->instructions;
    }
    add_u(root, "instructions", insns);
    add_caches(root, s);
    cJSON_AddItemToObject(root, "coherence_messages", coherence_json(cgm_memsys_coh(s->ms)));
    add_network(root, s);
    add_dram(root, s);
    /* Pages given back by munmap, brk and MAP_FIXED; their frames are reused. */
    cJSON *vm = cJSON_AddObjectToObject(root, "virtual_memory");
    add_u(vm, "pages_unmapped", cgm_page_table_unmapped(s->pt));
    cJSON *th = cJSON_AddArrayToObject(root, "threads");
    for (size_t i = 0; i < s->sched.nthreads; i++) {
        cJSON *x = cJSON_CreateObject();
        add_u(x, "tid", s->sched.threads[i].tid);
        add_u(x, "instructions", s->sched.threads[i].instructions);
        cJSON_AddItemToArray(th, x);
    }
    return root;
}

/* Keys that name things rather than count them. */
static bool is_label(const char *k) { return k && (!strcmp(k, "id") || !strcmp(k, "tid")); }

/* end -= begin, numbers only, recursively (same shapes). */
static void subtract(cJSON *end, const cJSON *begin)
{
    cJSON *e = end->child;
    const cJSON *b = begin->child;
    for (; e && b; e = e->next, b = b->next) {
        if (cJSON_IsNumber(e) && cJSON_IsNumber(b) && !is_label(e->string))
            cJSON_SetNumberValue(e, e->valuedouble - b->valuedouble);
        else if (cJSON_IsObject(e) || cJSON_IsArray(e))
            subtract(e, b);
    }
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void derive(cJSON *root, const struct rp_config *cfg)
{
    double cycles = num(root, "cycles");
    cJSON_AddNumberToObject(root, "seconds", cycles / (double)cfg->frequency);
    cJSON_AddNumberToObject(root, "ipc", cycles ? num(root, "instructions") / cycles : 0);
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "cores")) {
        double cy = num(c, "cycles");
        cJSON_AddNumberToObject(c, "ipc", cy ? num(c, "instructions") / cy : 0);
    }
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "caches")) {
        double a = num(c, "accesses");
        cJSON_AddNumberToObject(c, "miss_rate", a ? num(c, "misses") / a : 0);
    }
    cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "dram");
    double secs = cycles / (double)cfg->frequency, reads = num(d, "reads");
    cJSON_AddNumberToObject(d, "bandwidth_gbytes_per_s", secs > 0 ? num(d, "bytes") / secs / 1e9 : 0);
    cJSON_AddNumberToObject(d, "avg_read_latency_dram_cycles",
                            reads ? num(d, "read_latency_sum_dram_cycles") / reads : 0);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "memory_requests");
    double done = num(m, "completed");
    cJSON_AddNumberToObject(m, "avg_latency_cpu_cycles", done ? num(m, "latency_sum_cpu_cycles") / done : 0);
}

static void text_summary(const cJSON *root, FILE *out, const char *title)
{
    fprintf(out, "%s: %.0f cycles (%.6f s simulated), %.0f instructions, IPC %.3f\n", title,
            num(root, "cycles"), num(root, "seconds"), num(root, "instructions"), num(root, "ipc"));
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "cores")) {
        if (!num(c, "instructions"))
            continue;
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "stall_cycles");
        fprintf(out, "  core %.0f: %.0f instructions, IPC %.3f, branches %.0f (%.2f%% mispredicted), "
                "stalls: memory %.0f, execute %.0f, front end %.0f (I-cache %.0f, branch %.0f), "
                "syscall %.0f\n",
                num(c, "id"), num(c, "instructions"), num(c, "ipc"), num(c, "branches"),
                num(c, "branches") ? 100 * num(c, "mispredictions") / num(c, "branches") : 0,
                num(st, "memory"), num(st, "execute"),
                num(st, "frontend_icache") + num(st, "frontend_itlb") + num(st, "frontend_branch") +
                    num(st, "frontend_serialize") + num(st, "frontend_other"),
                num(st, "frontend_icache"), num(st, "frontend_branch"), num(st, "syscall"));
    }
    static const char *const kinds[] = { "l1i", "l1d", "l2", "l3" };
    for (int k = 0; k < 4; k++) {
        double a = 0, m = 0, sec = 0;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "caches")) {
            const cJSON *kind = cJSON_GetObjectItemCaseSensitive(c, "kind");
            if (cJSON_IsString(kind) && !strcmp(kind->valuestring, kinds[k])) {
                a += num(c, "accesses");
                m += num(c, "misses");
                sec += num(c, "secondary_misses");
            }
        }
        fprintf(out, "  %-3s: %.0f accesses, %.0f misses (%.2f%%)", kinds[k], a, m, a ? 100 * m / a : 0);
        if (sec)
            fprintf(out, ", %.0f of them joined a miss in flight", sec);
        fputc('\n', out);
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "dram");
    fprintf(out, "  dram: %.0f reads, %.0f writes, row hits %.0f, row misses %.0f, %.3f GB/s\n",
            num(d, "reads"), num(d, "writes"), num(d, "row_hits"), num(d, "row_misses"),
            num(d, "bandwidth_gbytes_per_s"));
}

int rp_stats_write(struct rp_sim *s, FILE *json, FILE *text, bool roi_only)
{
    cJSON *root = rp_stats_snapshot(s, s->end_cycle);
    if (!root)
        return -1;
    derive(root, &s->cfg);
    cJSON *roi = NULL;
    if (s->roi_seen && s->roi_begin && s->roi_end) {
        roi = cJSON_Duplicate(s->roi_end, 1);
        subtract(roi, s->roi_begin);
        derive(roi, &s->cfg);
        cJSON_AddItemToObject(root, "roi", roi);
    }
    cJSON_AddStringToObject(root, "trace", s->trace_name);
    if (roi_only && !roi)
        fprintf(stderr, "replay: warning: %s has no region-of-interest markers; reporting the whole run\n",
                s->trace_name);
    int rc = 0;
    if (json) {
        cJSON *shown = root;
        if (roi_only && roi) {
            shown = roi;
            cJSON_AddStringToObject(roi, "trace", s->trace_name);
        }
        char *txt = cJSON_Print(shown);
        if (!txt || fprintf(json, "%s\n", txt) < 0)
            rc = -1;
        free(txt);
    }
    if (text) {
        if (!roi_only || !roi)
            text_summary(root, text, "whole run");
        if (roi)
            text_summary(roi, text, "region of interest");
    }
    cJSON_Delete(root);
    return rc;
}
