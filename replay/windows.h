/* Statistics per window of the run: the change of every counter of the
 * registry over each span of CYCLES CPU cycles, one JSON object per line,
 * streamed to a file as the run goes, so memory stays two snapshots
 * whatever the run's length. Each window names the regions of interest it
 * overlaps; with roi_only the windows are cut at the regions' ends too and
 * only those inside a region are written. */
#ifndef REPLAY_WINDOWS_H
#define REPLAY_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_sim;
struct rp_windows;

/* Opens PATH for windows of CYCLES (> 0) CPU cycles of S from cycle 0 (call
 * before the run); ROI_ONLY: only the regions of interest's cycles. NULL
 * with ERR naming the file when it cannot be written. */
struct rp_windows *rp_windows_open(struct rp_sim *s, uint64_t cycles, const char *path, bool roi_only, char *err,
                                   size_t errlen);

/* Where the engine should stop before LIMIT: the next window's end, if it
 * comes first (LIMIT without windows). */
uint64_t rp_windows_stop_at(const struct rp_windows *w, uint64_t limit);

/* The engine stopped at CYCLE: writes the window ending there, if one
 * does. 0, or -1 when writing or allocating failed. */
int rp_windows_reached(struct rp_windows *w, struct rp_sim *s, uint64_t cycle);

/* Region of interest INDEX begins, the open one ends, at CYCLE (from
 * replay/stats_roi.c; W NULL does nothing). */
void rp_windows_region_begins(struct rp_windows *w, struct rp_sim *s, uint64_t cycle, size_t index);
void rp_windows_region_ends(struct rp_windows *w, struct rp_sim *s, uint64_t cycle);

/* After the run: writes the last window (to the end of the run, shorter
 * than the others) and closes the file. 0, or -1 when writing failed. */
int rp_windows_finish(struct rp_windows *w, struct rp_sim *s);

/* Frees W (closing its file without the last window); NULL does nothing. */
void rp_windows_free(struct rp_windows *w);

#endif
