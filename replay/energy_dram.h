/* DRAM energy by DRAMPower's arithmetic from the devices' IDD currents
 * (K. Chandrasekar et al., DRAMPower; Micron TN-41-01, "Calculating
 * Memory System Power for DDR3"). Per device, with VDD and tCK:
 *   ACT        (IDD0 - IDD3N) * tRAS   * VDD
 *   PRE        (IDD0 - IDD2N) * tRP    * VDD
 *   RD, WR     (IDD4R or IDD4W - IDD3N) * BL/2 * VDD
 *   REF        (IDD5 - IDD2N) * tRFC   * VDD
 *   background IDD3N * VDD per cycle of a rank with a bank open (active
 *              standby), IDD2N * VDD per other cycle (precharged standby)
 * times tCK and the devices of a rank (bus_bits / device_bits). An ACT and
 * its PRE together are the datasheet's (IDD0 * tRC - (IDD3N * tRAS +
 * IDD2N * (tRC - tRAS))) * VDD when tRC = tRAS + tRP. DRAMPower counts a
 * refresh's tRFC as active standby and charges IDD5 - IDD3N; this
 * controller closes the rank's banks first, so its tRFC is precharged
 * standby here and the refresh charges IDD5 - IDD2N: the same IDD5 * tRFC.
 * The controller never powers a rank down (no IDD2P, IDD3P). */
#ifndef REPLAY_ENERGY_DRAM_H
#define REPLAY_ENERGY_DRAM_H

#include "cgm/dram.h"
#include "cgm/stats.h"

struct rp_esum;

/* What the DRAM statistics do not show, summed over the DRAMs: bursts
 * read and written (column commands), rank-cycles of active and
 * precharged standby. */
struct rp_dram_counts {
    cgm_stat read_bursts, write_bursts, active_standby_cycles, precharged_standby_cycles;
};

/* Registers those counts of the N DRAMs D in GROUP under their names; 0, or
 * -1 when out of memory. */
int rp_energy_dram_counts(struct cgm_stats *reg, cgm_stat group, const struct cgm_dram *const *d, unsigned n,
                          struct rp_dram_counts *out);

/* Registers in GROUP the energy of DRAMs of configuration C with counts K,
 * whose "dram" statistics are the N groups STATS: per command kind
 * (activate_fj, precharge_fj, read_fj, write_fj, refresh_fj) and of the
 * background (active_standby_fj, precharged_standby_fj). Adds the
 * commands' energy to ACTIVE (at least 5 terms free) and the background's
 * to PASSIVE (2). */
void rp_energy_dram_idd(struct cgm_stats *reg, cgm_stat group, const struct cgm_dram_config *c,
                        const struct rp_dram_counts *k, const cgm_stat *stats, unsigned n, struct rp_esum *active,
                        struct rp_esum *passive);

#endif
