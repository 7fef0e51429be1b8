/* The si protocol's controllers: its vector L1 (si_gpu_l1.c) and its L2
 * bank (si_gpu_l2.c, over the banks' lower side, gpu_l2_below.h), on MESI's
 * states and plumbing (mesi_internal.h). */
#ifndef CGM_SI_INTERNAL_H
#define CGM_SI_INTERNAL_H

#include "cgm/coh_si.h"
#include "mesi_internal.h"

static inline void si_row(struct cgm_coh_sys *s, enum cgm_si_row r) { coh_count_row(s, CGM_COH_PROTOCOL_si, r); }

int si_gpu_l1_access(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_req *r);
void si_gpu_l1_deliver(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_msg *m);
void si_gpu_l1_wake(struct cgm_coh_sys *s, void *l1, uint64_t block, int what);
unsigned si_gpu_l1_invalidate(struct cgm_coh_sys *s, void *l1);
void si_gpu_l2_deliver(struct cgm_coh_sys *s, void *bank, const struct cgm_coh_msg *m);
void si_gpu_l2_wake(struct cgm_coh_sys *s, void *bank, uint64_t block, int what);

#endif
