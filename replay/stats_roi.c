/* Regions of interest (stats_roi.h): snapshots at the markers, each
 * region's change kept for the first few, all of them added up. */
#include "replay/stats_roi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/check.h"
#include "replay/sim.h"
#include "replay/windows.h"

void rp_regions_begin(struct rp_sim *s, uint64_t cycle)
{
    struct rp_regions *r = &s->regions;
    if (r->open)
        return;
    if (!(r->begin = rp_stats_snapshot(s, cycle)))
        cgm_oom("a region of interest's snapshot");
    r->open = true;
    r->begin_cycle = cycle;
    rp_windows_region_begins(s->windows, s, cycle, r->count);
}

void rp_regions_end(struct rp_sim *s, uint64_t cycle)
{
    struct rp_regions *r = &s->regions;
    if (!r->open)
        return;
    size_t n = cgm_stats_slots(s->stats);
    uint64_t *end = rp_stats_snapshot(s, cycle);
    if (!end || (!r->sum && !(r->sum = calloc(n + 1, sizeof *r->sum))))
        cgm_oom("a region of interest's snapshot");
    cgm_stats_accumulate(s->stats, r->sum, end, r->begin);
    if (r->count < RP_REGIONS_NUMBERED) {
        struct rp_roi *x = &r->numbered[r->count];
        cgm_stats_subtract(s->stats, end, r->begin);
        x->delta = end;
        x->begin_cycle = r->begin_cycle;
        x->end_cycle = cycle;
        end = NULL;
    } else if (r->count == RP_REGIONS_NUMBERED) {
        fprintf(stderr, "replay: warning: %s: more than %d regions of interest; those from region %d on "
                "are in \"roi\" (the regions added up) but not listed one by one\n", s->trace_name,
                RP_REGIONS_NUMBERED, RP_REGIONS_NUMBERED);
    }
    free(end);
    free(r->begin);
    r->begin = NULL;
    r->open = false;
    r->count++;
    rp_windows_region_ends(s->windows, s, cycle);
}

size_t rp_regions_numbered(const struct rp_regions *r)
{
    return r->count < RP_REGIONS_NUMBERED ? r->count : RP_REGIONS_NUMBERED;
}

void rp_regions_free(struct rp_regions *r)
{
    free(r->begin);
    free(r->sum);
    for (size_t i = 0; i < rp_regions_numbered(r); i++)
        free(r->numbered[i].delta);
    memset(r, 0, sizeof *r);
}
