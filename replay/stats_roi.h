/* Regions of interest: each cgm_roi_begin .. cgm_roi_end pair of the guest
 * is a region, numbered in the order they begin; a region is the
 * difference of the registry's snapshots at its ends, and "roi" is the
 * regions added up (what happened inside them, nothing of the gaps
 * between). A begin while a region is open and an end while none is are
 * ignored; a region still open when the run ends ends there. Memory is
 * the open region's first snapshot, the sum and the first
 * RP_REGIONS_NUMBERED regions: later ones are in the sum only (with a
 * warning), however many the guest marks. */
#ifndef REPLAY_STATS_ROI_H
#define REPLAY_STATS_ROI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_REGIONS_NUMBERED 16

struct rp_sim;

struct rp_roi {
    uint64_t begin_cycle, end_cycle;
    uint64_t *delta;               /* end less begin (cgm_stats_subtract) */
};

struct rp_regions {
    bool open;
    uint64_t begin_cycle;
    uint64_t *begin;               /* the open region's snapshot at its begin */
    size_t count;                  /* regions ended */
    uint64_t *sum;                 /* their changes added up; NULL before the first ends */
    struct rp_roi numbered[RP_REGIONS_NUMBERED];
};

/* The guest's markers, at CPU cycle CYCLE (from a core's context). */
void rp_regions_begin(struct rp_sim *s, uint64_t cycle);
void rp_regions_end(struct rp_sim *s, uint64_t cycle);
/* The numbered regions there are (at most RP_REGIONS_NUMBERED). */
size_t rp_regions_numbered(const struct rp_regions *r);
void rp_regions_free(struct rp_regions *r);

#endif
