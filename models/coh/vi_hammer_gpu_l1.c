/* vi-hammer's vector L1: si's (si_gpu_l1.c) with every store a GLC store.
 * That is VI_Hammer's store (seed 002, Sec. 4): written through to the
 * bank with its byte mask, no line allocated for it, and a V copy of the
 * block invalidated once the write is granted, a hit included; loads are
 * si's (a hit on V, a miss filling V). The MSHR waiters and stalled
 * requests keep the GLC flag, so si's replays of them stay stores of this
 * kind. si's banks ignore the flag. */
#include "vi_hammer_internal.h"

int vi_hammer_gpu_l1_access(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_req *req)
{
    struct gpu_l1 *l1 = ctrl;
    if (req->op != CGM_OP_STORE) {
        int r = si_gpu_l1_access(s, l1, req);
        if (r >= 0)
            vi_hammer_row(s, VIH_LOAD);
        return r;
    }
    const struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, req->block);
    bool v = l && l->state == MESI_S && !cgm_mshr_find(&l1->mshr, req->block, 0);
    struct cgm_coh_req st = *req;
    st.flags |= CGM_COH_GLC;
    int r = si_gpu_l1_access(s, l1, &st);
    if (r >= 0)
        vi_hammer_row(s, v ? VIH_V_STORE : VIH_I_STORE);
    return r;
}
