/* Multi2Sim's NMOESI for the GPU's vector L1s, registered as nmoesi in
 * cgm/coh_protocols.def (gpu.protocol = nmoesi). The L1s are write-back
 * and write-allocate; a load is MESI's (Get; S, E or M as the bank
 * grants). A store never asks for ownership: to an E or M block it is a
 * hit (M), to an S block it makes the line N (non-coherent: written here,
 * the bank and other CUs' copies unchanged), and a miss fetches the block
 * with Get and then writes it (N, or M when the bank granted it
 * exclusive). An N line's bytes (its byte mask) go back to the bank when
 * it is evicted, when the bank takes it (Inval, Flush), and at a release
 * (cgm_coh_gpu_invalidate: buffer_wbinvl1, kernel boundaries), which also
 * drops the S copies, which may be stale. The banks are MESI's (Table
 * 3.7) and merge an N write-back from a CU that holds the block without
 * owning it (cgm/nmoesi_rows.def's N2 rows). O (an owner that shares its
 * written data) is not a vector-L1 state here: MESI's bank takes the
 * written data when it downgrades an owner. GLC and SLC change nothing
 * (Multi2Sim's NMOESI has no bypass). The banks must be writable at their
 * parent for the merge, so nmoesi runs on a GPU that is not coherent with
 * the CPU (gpu.coherence = noncoherent), as Multi2Sim's discrete GPU is. */
#ifndef CGM_COH_NMOESI_H
#define CGM_COH_NMOESI_H

#include "cgm/coh_mesi.h"

/* The vector L1's N state, after MESI's. */
enum { NMOESI_N = MESI_NSTATES, NMOESI_NSTATES };

/* Its rows: MESI's, then those of cgm/nmoesi_rows.def. */
enum cgm_nmoesi_row {
    NMOESI_ROWS_BEFORE = MESI_NROWS - 1,
#define ROW(id, kind, table, text) id,
#include "cgm/nmoesi_rows.def"
#undef ROW
    NMOESI_NROWS
};

extern const struct cgm_coh_protocol cgm_coh_nmoesi;

#endif
