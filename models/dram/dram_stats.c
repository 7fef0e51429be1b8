/* DRAM statistics as JSON. Bandwidth is bytes moved over the span from the
 * first request's arrival to the last request's completion, in GB/s
 * (10^9 bytes per second). */
#include "cgm/dram.h"

#include <cJSON.h>
#include <stdlib.h>

static double avg(uint64_t sum, uint64_t n) { return n ? (double)sum / (double)n : 0.0; }

int cgm_dram_stats_write_json(const struct cgm_dram *d, FILE *out)
{
    const struct cgm_dram_stats *s = cgm_dram_stats(d);
    const struct cgm_dram_config *c = cgm_dram_config_of(d);
    uint64_t span = s->any && s->last_done > s->first_arrival ? s->last_done - s->first_arrival : 0;
    double bytes = (double)(s->reads + s->writes) * cgm_dram_burst_bytes(c);
    double ns = (double)span * c->t.tck_ns;

    cJSON *o = cJSON_CreateObject();
    if (!o)
        return -1;
    cJSON_AddStringToObject(o, "preset", c->preset);
    cJSON_AddNumberToObject(o, "reads", (double)s->reads);
    cJSON_AddNumberToObject(o, "writes", (double)s->writes);
    cJSON_AddNumberToObject(o, "row_hits", (double)s->row_hits);
    cJSON_AddNumberToObject(o, "row_misses", (double)s->row_misses);
    cJSON_AddNumberToObject(o, "row_conflicts", (double)s->row_conflicts);
    cJSON_AddNumberToObject(o, "activates", (double)s->activates);
    cJSON_AddNumberToObject(o, "precharges", (double)s->precharges);
    cJSON_AddNumberToObject(o, "refreshes", (double)s->refreshes);
    cJSON_AddNumberToObject(o, "avg_read_latency_cycles", avg(s->read_latency_sum, s->reads));
    cJSON_AddNumberToObject(o, "avg_write_latency_cycles", avg(s->write_latency_sum, s->writes));
    cJSON_AddNumberToObject(o, "max_read_latency_cycles", (double)s->read_latency_max);
    cJSON_AddNumberToObject(o, "avg_read_latency_ns", avg(s->read_latency_sum, s->reads) * c->t.tck_ns);
    cJSON_AddNumberToObject(o, "bandwidth_gbps", ns > 0 ? bytes / ns : 0.0);
    cJSON_AddNumberToObject(o, "peak_bandwidth_gbps", cgm_dram_peak_gbytes_per_s(c));
    cJSON_AddNumberToObject(o, "cycles", (double)s->cycles);
    cJSON_AddNumberToObject(o, "tck_ns", c->t.tck_ns);
    cJSON_AddNumberToObject(o, "queue_full_stalls", (double)s->queue_full_stalls);
    cJSON_AddNumberToObject(o, "avg_queue_occupancy",
                            s->cycles ? (double)s->queue_occupancy_sum / (double)s->cycles : 0.0);
    cJSON *h = cJSON_AddArrayToObject(o, "read_latency_histogram");
    for (unsigned i = 0; h && i < CGM_DRAM_HIST_BUCKETS; i++) {
        if (!s->read_hist[i])
            continue;
        cJSON *b = cJSON_CreateObject();
        if (!b)
            break;
        cJSON_AddNumberToObject(b, "from", i ? (double)(1ull << (i - 1)) : 0.0);
        cJSON_AddNumberToObject(b, "below", (double)(1ull << i));
        cJSON_AddNumberToObject(b, "count", (double)s->read_hist[i]);
        cJSON_AddItemToArray(h, b);
    }
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (!text)
        return -1;
    int rc = fprintf(out, "%s\n", text) < 0 ? -1 : 0;
    free(text);
    return rc;
}
