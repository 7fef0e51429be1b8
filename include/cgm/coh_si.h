/* The Southern Islands write-through protocol for the GPU's vector L1s and
 * L2 banks, registered as si in cgm/coh_protocols.def (gpu.protocol = si).
 * A vector L1 keeps only valid copies (V), never written data: a store is
 * written through to its L2 bank at once as a WriteDiff carrying the bytes
 * it wrote (its byte mask names them), with no grant asked for first, and
 * allocates no line; a GLC load bypasses the L1 (it asks the bank and keeps
 * nothing new), a GLC store leaves no copy behind. Copies are made coherent
 * by software: an invalidation of the whole L1 (cgm_coh_gpu_invalidate:
 * buffer_wbinvl1 and the start of a kernel) drops every V copy, so a CU
 * may read a stale copy until it invalidates. The L2 bank is write-back and
 * non-inclusive: it does not track which CUs hold copies (it never
 * invalidates them), merges the WriteDiffs into its lines and acknowledges
 * each; an SLC request passes through it without allocating. Below the
 * banks coherence is as under mesi (in C-L3 a bank is the GPU's holder at
 * the L3). */
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
