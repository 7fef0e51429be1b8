/* VI_Hammer, seed 002's baseline, registered as vi-hammer in
 * cgm/coh_protocols.def (coherence.protocol = gpu.protocol = vi-hammer):
 * the CPU's caches and the L3 directory under MOESI (cgm/coh_moesi.h), the
 * GPU's vector L1s VI (valid/invalid) write-through with no-write-allocate
 * and an invalidation after every store, hits included; the GPU's L2 banks
 * si's (they merge the L1's WriteDiffs), the GPU one holder at the L3
 * directory. The vector
 * L1 is si's (cgm/coh_si.h) with every store made a GLC store, which is
 * what a VI L1 does with it: the bytes written through to the bank, no
 * copy kept. Kernel starts and buffer_wbinvl1 invalidate the whole L1
 * (cgm_coh_gpu_invalidate). */
#ifndef CGM_COH_VI_HAMMER_H
#define CGM_COH_VI_HAMMER_H

#include "cgm/coh_moesi.h"

/* Its rows: MOESI's (MESI's, then cgm/moesi_rows.def), then si's own
 * (cgm/si_rows.def, as VIH_SI_*: its L1's handlers count them here), then
 * those of cgm/vi_hammer_rows.def. */
enum cgm_vi_hammer_row {
    VIH_ROWS_BEFORE = MOESI_NROWS - 1,
#define ROW(id, kind, table, text) VIH_##id,
#include "cgm/si_rows.def"
#undef ROW
#define ROW(id, kind, table, text) id,
#include "cgm/vi_hammer_rows.def"
#undef ROW
    VIH_NROWS
};

extern const struct cgm_coh_protocol cgm_coh_vi_hammer;

#endif
