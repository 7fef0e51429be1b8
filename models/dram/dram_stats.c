/* DRAM statistics, registered once (cgm/stats.h) for every output that
 * shows them. bandwidth_gbps is the bytes the column commands moved over the
 * span from the first request's arrival to the last data beat or
 * completion, in GB/s (10^9 bytes per second). The write queue's counters
 * are there (zero) without a write queue too, so that configurations with
 * and without one compare key by key. */
#include "cgm/dram.h"

static uint64_t active_span(const void *ctx)
{
    const struct cgm_dram_stats *s = ctx;
    return s->any && s->last_done > s->first_arrival ? s->last_done - s->first_arrival : 0;
}

static uint64_t bytes_moved(const void *ctx)
{
    const struct cgm_dram *d = ctx;
    const struct cgm_dram_stats *s = cgm_dram_stats(d);
    return (s->row_hits + s->row_misses) * cgm_dram_burst_bytes(cgm_dram_config_of(d));
}

cgm_stat cgm_dram_stats_register(const struct cgm_dram *d, struct cgm_stats *reg, cgm_stat group)
{
    const struct cgm_dram_stats *s = cgm_dram_stats(d);
    const struct cgm_dram_config *c = cgm_dram_config_of(d);
    cgm_stat o = cgm_stats_object(reg, group, "dram");
    cgm_stat_label(reg, o, "preset", c->preset);
    cgm_stat reads = cgm_stat_counter(reg, o, "reads", &s->reads);
    cgm_stat writes = cgm_stat_counter(reg, o, "writes", &s->writes);
    cgm_stat_counter(reg, o, "reads_forwarded", &s->reads_forwarded);
    cgm_stat_counter(reg, o, "writes_merged", &s->writes_merged);
    cgm_stat_counter(reg, o, "write_drains", &s->write_drains);
    cgm_stat_counter(reg, o, "row_hits", &s->row_hits);
    cgm_stat_counter(reg, o, "row_misses", &s->row_misses);
    cgm_stat_counter(reg, o, "row_conflicts", &s->row_conflicts);
    cgm_stat_counter(reg, o, "activates", &s->activates);
    cgm_stat_counter(reg, o, "precharges", &s->precharges);
    cgm_stat_counter(reg, o, "refreshes", &s->refreshes);
    cgm_stat rsum = cgm_stat_counter(reg, o, "read_latency_sum_cycles", &s->read_latency_sum);
    cgm_stat wsum = cgm_stat_counter(reg, o, "write_latency_sum_cycles", &s->write_latency_sum);
    cgm_stat_peak(reg, o, "max_read_latency_cycles", &s->read_latency_max);
    cgm_stat cycles = cgm_stat_counter(reg, o, "cycles", &s->cycles);
    cgm_stat_counter(reg, o, "queue_full_stalls", &s->queue_full_stalls);
    cgm_stat occupancy = cgm_stat_counter(reg, o, "queue_occupancy_sum", &s->queue_occupancy_sum);
    cgm_stat bytes = cgm_stat_computed(reg, o, "bytes", bytes_moved, d);
    cgm_stat span = cgm_stat_computed(reg, o, "active_span_cycles", active_span, s);
    cgm_stat_constant(reg, o, "tck_ns", c->t.tck_ns);
    cgm_stat_constant(reg, o, "peak_bandwidth_gbps", cgm_dram_peak_gbytes_per_s(c));
    cgm_stat_histogram(reg, o, "read_latency_histogram", s->read_hist, CGM_DRAM_HIST_BUCKETS);
    cgm_stat_ratio(reg, o, "avg_read_latency_cycles", rsum, reads, 1, 1);
    cgm_stat_ratio(reg, o, "avg_write_latency_cycles", wsum, writes, 1, 1);
    cgm_stat_ratio(reg, o, "avg_read_latency_ns", rsum, reads, c->t.tck_ns, 1);
    cgm_stat one = cgm_stat_constant(reg, o, NULL, 1);
    cgm_stat ns = cgm_stat_ratio(reg, o, NULL, span, one, c->t.tck_ns, 1);
    cgm_stat_ratio(reg, o, "bandwidth_gbps", bytes, ns, 1, 1);
    cgm_stat_ratio(reg, o, "avg_queue_occupancy", occupancy, cycles, 1, 1);
    return o;
}

int cgm_dram_stats_write_json(const struct cgm_dram *d, FILE *out)
{
    struct cgm_stats *reg = cgm_stats_create();
    if (!reg)
        return -1;
    cgm_stat o = cgm_dram_stats_register(d, reg, CGM_STATS_ROOT);
    int rc = cgm_stats_failed(reg) ? -1 : cgm_stats_write_json(reg, o, out);
    cgm_stats_destroy(reg);
    return rc;
}
