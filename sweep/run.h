/* Runs a sweep's points on this machine: one replay process per point, up
 * to JOBS at once. Each writes its statistics to a temporary file renamed
 * to DIR/points/KEY.json when replay succeeds, so a result is either whole
 * or absent and an interrupted sweep resumes where it stopped. A failed
 * point keeps replay's messages in KEY.err and does not stop the others. */
#ifndef SWEEP_RUN_H
#define SWEEP_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep/plan.h"

struct sweep_run_opts {
    const char *dir;
    const char *replay;   /* the replay program (a path, or a name looked up in PATH) */
    int jobs;
    bool rerun;           /* run points that already have results */
    bool progress;        /* redraw a progress line on standard error */
    bool verbose;         /* a line per finished point */
    double timeout;       /* seconds a point may run before it is killed; 0: no limit */
};

/* Returns 0 when every point ran, 1 when some failed, 130 when a signal
 * stopped the sweep (running points are stopped, their partial files
 * removed), -1 with a message when nothing could be run. */
int sweep_run_local(const struct sweep_plan *p, const struct sweep_run_opts *o, char *err, size_t errlen);

#endif
