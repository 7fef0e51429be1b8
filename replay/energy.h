/* Energy per element of the simulated system ([energy] enable = 1): each
 * element's active energy, its events' counts times the profile's
 * femtojoules per event, and its passive energy, the cycles it waits times
 * the profile's femtojoules per cycle (seed 000 Sec. 2.3.2). Elements:
 * cores (committed micro-ops by kind; the cycles that committed nothing),
 * caches by kind (accesses, fills, write-backs; the run's cycles), the
 * ring (packets through switches, flits over links; the run's cycles),
 * DRAM (ACT, read, write, PRE, REF; its cycles), compute units (wavefront
 * instructions by unit; their idle cycles). Parts: cpu (cores and CPU
 * caches), gpu (compute units and GPU caches), network, dram; and the
 * total; each with its power (W over the run's, the region's or the
 * window's seconds).
 *
 * Every energy is a computed counter of the registry, a sum of other
 * counters with fixed weights, so the region of interest and the windows
 * hold their own energy as they hold their own counts. */
#ifndef REPLAY_ENERGY_H
#define REPLAY_ENERGY_H

#include "cgm/stats.h"

struct rp_sim;

/* Registers the "energy" group under the root, after every element's
 * statistics; CYCLES is the root's cycles counter. 0, or -1 when out of
 * memory. */
int rp_energy_register(struct rp_sim *s, cgm_stat cycles);

#endif
