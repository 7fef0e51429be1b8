/* replay --list-stats: the statistics a replay of a trace under a
 * configuration reports, without running it. */
#ifndef REPLAY_LIST_STATS_H
#define REPLAY_LIST_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "replay/sim.h"

/* For the system S built (rp_sim_create, not run): PATHS (may be NULL)
 * gets every number's path, one per line, in sweep's metric syntax
 * (caches[core0.l1d].misses, cores[0].ipc); JSON (may be NULL) the tree a
 * run's -o writes, every counter 0. The region of interest is included as
 * if the guest marked one, as a run of a trace with markers reports it
 * (ROI_ONLY: the region alone, as --roi reports it). Returns 0, or -1 when
 * writing failed or memory ran out. */
int rp_list_stats(struct rp_sim *s, bool roi_only, FILE *paths, FILE *json);

#endif
