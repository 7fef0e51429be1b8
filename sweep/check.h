/* The metrics checked before any point runs: against the statistics a
 * point's replay will report (replay --list-stats on its trace and
 * configuration: the tree, every counter 0), so a typo stops the sweep at
 * once instead of after every point has run. */
#ifndef SWEEP_CHECK_H
#define SWEEP_CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "sweep/plan.h"

/* Checks METRICS and, when the spec has windows, WINDOW_METRICS (against
 * a window's tree: the run's, without "roi" and "trace", with "window" and
 * "begin_cycle") with the replay program REPLAY. The points are asked in
 * order, each distinct key once, until every metric has been found in
 * one: a metric no point has is an error naming it and what was there. A
 * point whose replay cannot list its statistics (an older replay, a trace
 * it refuses) is skipped with a note to REPORT; when none can, nothing is
 * checked (a note says so) and the run finds out. Returns 0, or -1 with
 * ERR. */
int sweep_check_metrics(const struct sweep_plan *p, const char *replay, char *const *metrics, size_t nmetrics,
                        char *const *window_metrics, size_t nwindow_metrics, FILE *report, char *err,
                        size_t errlen);

#endif
