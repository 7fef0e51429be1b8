/* Statistics of the timed memory system as one JSON object. */
#include "cgm/memsys.h"

#include <cJSON.h>
#include <stdlib.h>

static void add_u(cJSON *o, const char *k, uint64_t v) { cJSON_AddNumberToObject(o, k, (double)v); }

/* "messages_sent" and "messages_received", by type; types never seen are left out. */
static void add_msgs(cJSON *o, const struct cgm_coh_msg_stats *ms)
{
    cJSON *snt = cJSON_AddObjectToObject(o, "messages_sent");
    cJSON *rcv = cJSON_AddObjectToObject(o, "messages_received");
    for (int t = 0; ms && snt && rcv && t < COH_NTYPES; t++) {
        if (ms->sent[t])
            add_u(snt, cgm_coh_msg_names[t], ms->sent[t]);
        if (ms->received[t])
            add_u(rcv, cgm_coh_msg_names[t], ms->received[t]);
    }
}

int cgm_memsys_write_json(const struct cgm_memsys *m, FILE *out)
{
    const struct cgm_memsys_stats *st = cgm_memsys_stats(m);
    const struct cgm_coh_sys *coh = cgm_memsys_coh(m);
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return -1;
    add_u(o, "requests", st->completed);
    cJSON_AddNumberToObject(o, "avg_latency_cpu_cycles",
                            st->completed ? (double)st->latency_sum / (double)st->completed : 0.0);
    add_u(o, "max_latency_cpu_cycles", st->latency_max);
    cJSON *h = cJSON_AddArrayToObject(o, "latency_histogram");
    for (unsigned i = 0; h && i < 24; i++)
        if (st->latency_hist[i]) {
            cJSON *b = cJSON_CreateObject();
            add_u(b, "from", i ? 1ull << (i - 1) : 0);
            add_u(b, "below", 1ull << i);
            add_u(b, "count", st->latency_hist[i]);
            cJSON_AddItemToArray(h, b);
        }
    add_u(o, "memory_reads", st->mem_reads);
    add_u(o, "memory_writes", st->mem_writes);

    const struct cgm_memsys_config *cfg = cgm_memsys_config_of(m);
    cJSON *cores = cJSON_AddArrayToObject(o, "cores");
    for (int c = 0; cores && c < (int)cfg->cores; c++) {
        const struct cgm_coh_core_stats *cs = cgm_coh_core_stats(coh, c);
        cJSON *x = cJSON_CreateObject();
        add_u(x, "accesses", cs->accesses);
        add_u(x, "hits", cs->hits);
        add_u(x, "misses", cs->misses);
        add_u(x, "upgrades", cs->upgrades);
        add_u(x, "coalesced", cs->coalesced);
        add_u(x, "stalls", cs->stalls);
        add_u(x, "nacks", cs->nacks_received);
        add_u(x, "retries", cs->retries);
        add_u(x, "evictions", cs->evictions);
        add_u(x, "writebacks", cs->writebacks);
        add_u(x, "clean_evictions", cs->clean_evictions);
        add_u(x, "l1d_secondary_misses", cs->l1d_secondary_misses);
        add_u(x, "l1d_flush_conflict_nacks", cs->l1_nacks);
        add_u(x, "writeback_hits", cs->wb_hits);
        add_u(x, "l1d_writebacks", cs->l1_writebacks);
        add_u(x, "l1d_writeback_hits", cs->l1_wb_hits);
        add_u(x, "l2_hits", cs->l2_hits);
        add_u(x, "l2_misses", cs->l2_misses);
        add_u(x, "l2_evictions", cs->l2_evictions);
        add_u(x, "mshr_peak", cs->mshr_peak);
        add_u(x, "writeback_queue_peak", cs->wb_queue_peak);
        add_msgs(x, cgm_memsys_l2_msgs(m, c));
        cJSON_AddItemToArray(cores, x);
    }
    cJSON *slices = cJSON_AddArrayToObject(o, "l3_slices");
    for (int i = 0; slices && i < (int)cfg->slices; i++) {
        const struct cgm_coh_slice_stats *ss = cgm_coh_slice_stats(coh, i);
        cJSON *x = cJSON_CreateObject();
        add_u(x, "requests", ss->requests);
        add_u(x, "hits", ss->hits);
        add_u(x, "misses", ss->misses);
        add_u(x, "nacks", ss->nacks_sent);
        add_u(x, "mshr_nacks", ss->mshr_nacks);
        add_u(x, "mshr_peak", ss->mshr_peak);
        add_u(x, "forwards", ss->forwards);
        add_u(x, "invalidations", ss->invalidations);
        add_u(x, "evictions", ss->evictions);
        add_u(x, "back_invalidations", ss->back_invalidations);
        add_u(x, "joins", ss->joins);
        add_u(x, "writeback_hits", ss->wb_hits);
        add_msgs(x, cgm_memsys_l3_msgs(m, i));
        cJSON_AddItemToArray(slices, x);
    }
    cJSON *msgs = cJSON_AddObjectToObject(o, "coherence_messages");
    const uint64_t *mc = cgm_coh_msg_counts(coh);
    for (int t = 0; msgs && t < COH_NTYPES; t++)
        add_u(msgs, cgm_coh_msg_names[t], mc[t]);
    cJSON *rows = cJSON_AddObjectToObject(o, "protocol_rows");
    const uint64_t *rc = cgm_mesi_row_counts(coh);
    for (int r = 0; rows && r < MESI_NROWS; r++) {
        char key[160];
        snprintf(key, sizeof key, "%s %s", cgm_mesi_rows[r].table, cgm_mesi_rows[r].text);
        add_u(rows, key, rc[r]);
    }
    cJSON *sw = cJSON_AddArrayToObject(o, "switches");
    const struct cgm_net *net = cgm_memsys_net(m);
    for (unsigned i = 0; sw && i < cgm_net_endpoints(net) / cfg->net.local_ports; i++) {
        const struct cgm_net_switch_stats *ss = cgm_net_switch_stats(net, i);
        cJSON *x = cJSON_CreateObject();
        add_u(x, "packets", ss->packets);
        add_u(x, "blocked", ss->blocked);
        add_u(x, "request_lane", ss->lane_packets[CGM_LANE_REQUEST]);
        add_u(x, "reply_lane", ss->lane_packets[CGM_LANE_REPLY]);
        add_u(x, "coherence_lane", ss->lane_packets[CGM_LANE_COHERENCE]);
        add_u(x, "west_link_busy", ss->port_busy[0]);
        add_u(x, "east_link_busy", ss->port_busy[1]);
        cJSON_AddItemToArray(sw, x);
    }
    const struct cgm_dram_stats *ds = cgm_dram_stats(cgm_memsys_dram(m));
    cJSON *d = cJSON_AddObjectToObject(o, "dram");
    if (d) {
        add_u(d, "reads", ds->reads);
        add_u(d, "writes", ds->writes);
        add_u(d, "row_hits", ds->row_hits);
        add_u(d, "row_misses", ds->row_misses);
        add_u(d, "refreshes", ds->refreshes);
        cJSON_AddNumberToObject(d, "avg_read_latency_cycles",
                                ds->reads ? (double)ds->read_latency_sum / (double)ds->reads : 0.0);
        add_u(d, "timing_violations", st->dram_violations);
    }
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (!text)
        return -1;
    int rc2 = fprintf(out, "%s\n", text) < 0 ? -1 : 0;
    free(text);
    return rc2;
}
