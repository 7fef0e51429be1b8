/* The MESI directory protocol of seed 000 Tables 3.1-3.7, registered as
 * mesi in cgm/coh_protocols.def: its states and its rows, for the tests
 * that look at them (everything else reaches it through struct
 * cgm_coh_protocol). */
#ifndef CGM_COH_MESI_H
#define CGM_COH_MESI_H

#include "cgm/coh.h"

/* CPU: per core an instruction cache (S/I, Table 3.1), a data cache with
 * its write-back queue (Table 3.2) and a private L2 smart cache with its own write-back
 * queue (Table 3.3), inclusive of both; L3 slices striped by block number
 * hold the directory (core holders, pending bit, forwards, invalidations
 * with acknowledgements, NACKs and retries, write-back conflicts; Tables
 * 3.4 and 3.5), inclusive of the cores' caches. GPU: per compute unit a
 * vector L1 (Table 3.6), and L2 banks striped by block, each a directory
 * over the CUs (Table 3.7) and a client of memory or of the L3, which
 * serves it untracked or tracks the whole GPU as one more holder.
 *
 * Every state-table row the handlers take is counted (cgm_coh_row_counts)
 * so tests can show each row is reached.
 *
 * Deviations from the seed, on purpose: a core's L1s and L2 act on each
 * other at once (the L1-L2 latency is charged as time, not modelled as
 * messages), so an L2 eviction or a directory action takes the L1 copies
 * back immediately. One exchange is kept as time: an exclusive or modified
 * L2 victim the data cache held waits in the write-back queue for the data
 * cache's flush acknowledgement (one wake-up, COH_WAKE_L1_FLUSHED) before
 * it may leave or merge back, and a data-cache request for it meanwhile is
 * a flush conflict (Table 3.3 I_WB_Flush_Conflict: NACKed to the data
 * cache, which retries it like a stalled request; l1_nacks). The
 * directory collects invalidation acknowledgements before it replies, so a
 * writer never coexists with readers; a requester that receives a block forwarded by another core
 * sends the directory an Unblock, and the directory keeps the block pending
 * until it has both that and the owner's acknowledgement (without it a
 * later forward could overtake the forwarded data). */
enum cgm_mesi_state { MESI_I = 0, MESI_S, MESI_E, MESI_M,
                      MESI_IS, MESI_IM, MESI_SM /* transient: waiting for data / upgrade */, MESI_NSTATES };

enum cgm_mesi_row {
#define ROW(id, kind, table, text) id,
#include "cgm/mesi_rows.def"
#undef ROW
    MESI_NROWS
};

extern const struct cgm_coh_protocol cgm_coh_mesi;

#endif
