/* Window statistics: at each window's end a snapshot of the registry
 * (rp_stats_snapshot, as the region of interest takes), less the one at
 * its start, printed as the registry's JSON with the window's index, first
 * cycle and the regions of interest it overlaps in front. Counters, and
 * the ratios computed from them, hold for the window alone; peaks are the
 * run's up to the window's end; the tree's "cycles" is the window's
 * length.
 *
 * Windows end every N cycles (the engine stops there). With roi_only they
 * are also cut where a region begins and ends, and only the pieces inside
 * a region are written: the regions' cycles in windows of at most N. */
#include "replay/windows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/check.h"
#include "replay/sim.h"

struct rp_windows {
    FILE *f;
    uint64_t cycles;      /* the windows' length */
    uint64_t next_end;    /* the next multiple of cycles: where the engine stops */
    uint64_t begin;       /* the current window's first cycle */
    uint64_t index;       /* of the next window written */
    uint64_t *start;      /* the snapshot at begin (NULL outside the regions with roi_only) */
    bool roi_only;
    /* the regions the current window overlaps: [first, first + n) (regions
     * follow one another, so the ones a window overlaps are consecutive) */
    bool region_open;
    size_t first, n;
    int failed;           /* a write failed: the rest is not written */
};

static uint64_t *snapshot(struct rp_sim *s, uint64_t cycle)
{
    uint64_t *v = rp_stats_snapshot(s, cycle);
    if (!v)
        cgm_oom("a window's snapshot");
    return v;
}

struct rp_windows *rp_windows_open(struct rp_sim *s, uint64_t cycles, const char *path, bool roi_only, char *err,
                                   size_t errlen)
{
    CGM_CHECK(cycles > 0);
    struct rp_windows *w = calloc(1, sizeof *w);
    if (!w)
        cgm_oom("the window statistics");
    w->cycles = w->next_end = cycles;
    w->roi_only = roi_only;
    if (!(w->f = fopen(path, "w"))) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    /* the first window's start: before the run, every counter at zero */
    if (!roi_only)
        w->start = snapshot(s, 0);
    return w;
}

uint64_t rp_windows_stop_at(const struct rp_windows *w, uint64_t limit)
{
    if (!w)
        return limit;
    return w->next_end < limit ? w->next_end : limit;
}

/* Writes the window [w->begin, cycle) and starts the next at cycle. */
static int cut(struct rp_windows *w, struct rp_sim *s, uint64_t cycle)
{
    size_t n = cgm_stats_slots(s->stats);
    uint64_t *now = snapshot(s, cycle), *delta = malloc((n + 1) * sizeof *delta);
    if (!delta)
        cgm_oom("a window's snapshot");
    memcpy(delta, now, n * sizeof *delta);
    cgm_stats_subtract(s->stats, delta, w->start);
    cJSON *tree = cgm_stats_json(s->stats, delta, CGM_STATS_ROOT);
    free(delta);
    char *text = tree ? cJSON_PrintUnformatted(tree) : NULL;
    cJSON_Delete(tree);
    if (!text)
        cgm_oom("a window's statistics");
    /* the window's place first, where a reader looks; the tree is an
     * object with members ("cycles" at least) */
    CGM_CHECK(text[0] == '{' && text[1] == '"');
    if (!w->failed && fprintf(w->f, "{\"window\":%llu,\"begin_cycle\":%llu,\"regions\":[",
                              (unsigned long long)w->index, (unsigned long long)w->begin) < 0)
        w->failed = 1;
    for (size_t i = 0; i < w->n && !w->failed; i++)
        if (fprintf(w->f, "%s%zu", i ? "," : "", w->first + i) < 0)
            w->failed = 1;
    if (!w->failed && fprintf(w->f, "],%s\n", text + 1) < 0)
        w->failed = 1;
    free(text);
    w->index++;
    free(w->start);
    w->start = now;
    w->begin = cycle;
    /* the next window overlaps the open region only */
    if (w->region_open) {
        w->first += w->n - 1;
        w->n = 1;
    } else {
        w->first += w->n;
        w->n = 0;
    }
    return w->failed ? -1 : 0;
}

int rp_windows_reached(struct rp_windows *w, struct rp_sim *s, uint64_t cycle)
{
    if (!w || cycle != w->next_end)
        return 0;
    w->next_end += w->cycles;
    if (!w->start) { /* outside the regions (roi_only) */
        w->begin = cycle;
        return 0;
    }
    return cut(w, s, cycle);
}

void rp_windows_region_begins(struct rp_windows *w, struct rp_sim *s, uint64_t cycle, size_t index)
{
    if (!w)
        return;
    if (!w->n)
        w->first = index;
    w->n = index - w->first + 1;
    w->region_open = true;
    if (w->roi_only) {
        w->start = snapshot(s, cycle);
        w->begin = cycle;
    }
}

void rp_windows_region_ends(struct rp_windows *w, struct rp_sim *s, uint64_t cycle)
{
    if (!w)
        return;
    if (w->roi_only && cycle > w->begin)
        cut(w, s, cycle); /* a failed write shows in the next call's result, or at the end */
    w->region_open = false;
    if (w->roi_only) {
        free(w->start);
        w->start = NULL;
        w->first += w->n;
        w->n = 0;
    }
}

int rp_windows_finish(struct rp_windows *w, struct rp_sim *s)
{
    int rc = 0;
    /* the engine ends with the last thread: no window ends after it */
    CGM_CHECK(s->end_cycle >= w->begin);
    if (w->start && s->end_cycle > w->begin)
        rc = cut(w, s, s->end_cycle);
    if (w->roi_only && !s->regions.count)
        fprintf(stderr, "replay: warning: %s has no region-of-interest markers; --roi leaves the windows "
                "file empty\n", s->trace_name);
    if (w->failed || fclose(w->f))
        rc = -1;
    w->f = NULL;
    rp_windows_free(w);
    return rc;
}

void rp_windows_free(struct rp_windows *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    free(w->start);
    free(w);
}
