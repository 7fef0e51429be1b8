/* The Southern Islands write-through protocol for the GPU's vector L1s,
 * registered as si in cgm/coh_protocols.def (gpu.protocol = si). A vector
 * L1 keeps only valid copies (V), never written data: a store writes
 * through to its L2 bank with the bytes it wrote (a WriteBack whose byte
 * mask names them) and allocates no line; a GLC load bypasses the L1 (it
 * asks the bank and keeps nothing new), a GLC store leaves no copy behind
 * (its V copy goes once the write is done); SLC is treated as GLC (both
 * levels would be bypassed: the banks here are MESI's, which have no
 * bypass). Copies are made coherent by software: an invalidation of the
 * whole L1 (cgm_coh_gpu_invalidate: buffer_wbinvl1 and the start of a
 * kernel) drops every V copy, so a CU may read a stale copy
 * until it invalidates. The banks run MESI's handlers (Table 3.7):
 * write-back, and the GPU's holder at the L3 as under mesi. A store gets
 * the bank's grant (GetX, PutX) before its bytes travel, which is how the
 * bank orders writes of different CUs to one block. */
#ifndef CGM_COH_SI_H
#define CGM_COH_SI_H

#include "cgm/coh_mesi.h"

/* Its rows: MESI's, then those of cgm/si_rows.def. */
enum cgm_si_row {
    SI_ROWS_BEFORE = MESI_NROWS - 1,
#define ROW(id, kind, table, text) id,
#include "cgm/si_rows.def"
#undef ROW
    SI_NROWS
};

extern const struct cgm_coh_protocol cgm_coh_si;

#endif
