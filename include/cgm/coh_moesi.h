/* MOESI for the CPU's caches, registered as moesi in cgm/coh_protocols.def
 * (coherence.protocol = moesi): MESI (cgm/coh_mesi.h) with an O state, a
 * block a core holds shared with its data written. A load forwarded to a
 * core holding the block M and written leaves it O (the data goes to the
 * requester, none to the slice); the O core answers later forwarded loads;
 * a store to an O block upgrades it (the slice invalidates the sharers,
 * the owner's acknowledgement bringing the data when the writer is
 * another core); an O block that leaves the L2 is written back. The
 * slice's line of an O block is S with the owner recorded. The GPU's
 * caches run MESI beside it (moesi has no GPU controllers). */
#ifndef CGM_COH_MOESI_H
#define CGM_COH_MOESI_H

#include "cgm/coh_mesi.h"

/* The checker's views return MESI's states and O. */
enum { MOESI_O = MESI_NSTATES, MOESI_NSTATES };

/* Its rows: MESI's, then those of cgm/moesi_rows.def. */
enum cgm_moesi_row {
    MOESI_ROWS_BEFORE = MESI_NROWS - 1,
#define ROW(id, kind, table, text) id,
#include "cgm/moesi_rows.def"
#undef ROW
    MOESI_NROWS
};

extern const struct cgm_coh_protocol cgm_coh_moesi;

#endif
