/* Window statistics: at each window's end a snapshot of the registry
 * (rp_stats_snapshot, as the region of interest takes), less the one at
 * its start, printed as the registry's JSON with the window's index and
 * first cycle in front. Counters, and the ratios computed from them, hold
 * for the window alone; peaks are the run's up to the window's end; the
 * tree's "cycles" is the window's length. */
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
    uint64_t begin;       /* the current window's first cycle */
    uint64_t index;
    uint64_t *start;      /* the snapshot at begin */
    int failed;           /* a write failed: the rest is not written */
};

struct rp_windows *rp_windows_open(struct rp_sim *s, uint64_t cycles, const char *path, char *err, size_t errlen)
{
    CGM_CHECK(cycles > 0);
    struct rp_windows *w = calloc(1, sizeof *w);
    if (!w)
        cgm_oom("the window statistics");
    w->cycles = cycles;
    if (!(w->f = fopen(path, "w"))) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    /* the first window's start: before the run, every counter at zero */
    if (!(w->start = rp_stats_snapshot(s, 0)))
        cgm_oom("a window's snapshot");
    return w;
}

uint64_t rp_windows_stop_at(const struct rp_windows *w, uint64_t limit)
{
    if (!w)
        return limit;
    uint64_t end = w->begin + w->cycles;
    return end < limit ? end : limit;
}

/* Writes the window [w->begin, cycle) and starts the next at cycle. */
static int cut(struct rp_windows *w, struct rp_sim *s, uint64_t cycle)
{
    size_t n = cgm_stats_slots(s->stats);
    uint64_t *now = rp_stats_snapshot(s, cycle), *delta = malloc((n + 1) * sizeof *delta);
    if (!now || !delta)
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
    if (!w->failed && fprintf(w->f, "{\"window\":%llu,\"begin_cycle\":%llu,%s\n", (unsigned long long)w->index,
                              (unsigned long long)w->begin, text + 1) < 0)
        w->failed = 1;
    free(text);
    w->index++;
    free(w->start);
    w->start = now;
    w->begin = cycle;
    return w->failed ? -1 : 0;
}

int rp_windows_reached(struct rp_windows *w, struct rp_sim *s, uint64_t cycle)
{
    if (!w || cycle != w->begin + w->cycles)
        return 0;
    return cut(w, s, cycle);
}

int rp_windows_finish(struct rp_windows *w, struct rp_sim *s)
{
    int rc = 0;
    /* the engine ends with the last thread: no window ends after it */
    CGM_CHECK(s->end_cycle >= w->begin);
    if (s->end_cycle > w->begin)
        rc = cut(w, s, s->end_cycle);
    if (fclose(w->f))
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
