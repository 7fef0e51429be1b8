/* vi-hammer's controllers: its vector L1 (vi_hammer_gpu_l1.c) over si's
 * (si_internal.h), MOESI's for the CPU side, si's banks. */
#ifndef CGM_VI_HAMMER_INTERNAL_H
#define CGM_VI_HAMMER_INTERNAL_H

#include "cgm/coh_vi_hammer.h"
#include "si_internal.h"

static inline void vi_hammer_row(struct cgm_coh_sys *s, enum cgm_vi_hammer_row r)
{
    coh_count_row(s, CGM_COH_PROTOCOL_vi_hammer, r);
}

int vi_hammer_gpu_l1_access(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_req *r);

#endif
