/* The energy statistics' one building block: a computed counter of the
 * registry that is a fixed-weight sum of other counters (femtojoules per
 * event or per cycle), so a region of interest and each window hold their
 * own energy exactly as they hold their own counts. */
#ifndef REPLAY_ENERGY_SUM_H
#define REPLAY_ENERGY_SUM_H

#include <stdint.h>

#include "cgm/stats.h"

struct rp_esum;

/* A sum of at most CAP terms over REG's counters. Exits when out of memory. */
struct rp_esum *rp_esum_new(const struct cgm_stats *reg, unsigned cap);
/* Adds NODE times WEIGHT (a negative weight takes the count away; a node
 * below 0 or a weight of 0 adds nothing). */
void rp_esum_add(struct rp_esum *s, cgm_stat node, int64_t weight);
/* Adds the counter at PATH under GROUP times WEIGHT. */
void rp_esum_add_path(struct rp_esum *s, cgm_stat group, const char *path, int64_t weight);
/* Registers S as the computed counter NAME of GROUP and frees S; the node,
 * or -1 when out of memory. */
cgm_stat rp_esum_put(struct cgm_stats *reg, cgm_stat group, const char *name, struct rp_esum *s);

#endif
