/* VIPS-G (seed 002, Koukos et al.), registered as vips-g: coherence
 * without a directory for data-race-free programs. Every cache of the
 * chain core -> L3 slice and CU vector L1 -> GPU L2 bank -> L3 slice is
 * V/I (D for a core's private written block); the environment classifies
 * pages (CGM_COH_SHARED on a request) and tells the first levels of
 * acquires and releases (CGM_OP_ACQUIRE, CGM_OP_RELEASE) and of page
 * downgrades (CGM_OP_DOWNGRADE). Written words of shared blocks are
 * written through a coalescing write buffer as diffs (WriteDiff with its
 * word mask); private blocks are written back. At an acquire the shared
 * blocks are self-invalidated; a release completes once the write
 * buffer's diffs are acknowledged by the shared level. The GPU's caches
 * are write-through to the L3 (the GPU must share it). */
#ifndef CGM_COH_VIPS_H
#define CGM_COH_VIPS_H

#include "cgm/coh.h"

enum { VIPS_I, VIPS_V, VIPS_D, VIPS_NSTATES };

enum cgm_vips_row {
#define ROW(id, kind, table, text) id,
#include "cgm/vips_rows.def"
#undef ROW
    VIPS_NROWS
};

extern const struct cgm_coh_protocol cgm_coh_vips_g;

#endif
