/* The nmoesi protocol's controllers: its vector L1 (nmoesi_gpu_l1.c) and
 * what its banks add to MESI's (nmoesi_gpu_l2.c). */
#ifndef CGM_NMOESI_INTERNAL_H
#define CGM_NMOESI_INTERNAL_H

#include "cgm/coh_nmoesi.h"
#include "mesi_internal.h"

static inline void nmoesi_row(struct cgm_coh_sys *s, enum cgm_nmoesi_row r)
{
    coh_count_row(s, CGM_COH_PROTOCOL_nmoesi, r);
}

int nmoesi_gpu_l1_access(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_req *r);
void nmoesi_gpu_l1_deliver(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_msg *m);
void nmoesi_gpu_l1_wake(struct cgm_coh_sys *s, void *l1, uint64_t block, int what);
unsigned nmoesi_gpu_l1_invalidate(struct cgm_coh_sys *s, void *l1);
unsigned nmoesi_gpu_l1_copy(const struct cgm_coh_sys *s, void *l1, uint64_t block, uint64_t *data);
void nmoesi_gpu_l1_dump(const struct cgm_coh_sys *s, void *l1, uint64_t block, FILE *out);
void nmoesi_gpu_l2_deliver(struct cgm_coh_sys *s, void *bank, const struct cgm_coh_msg *m);

#endif
