/* What nmoesi's L2 banks add to MESI's (Table 3.7): an N write-back. A CU
 * that wrote a block it holds shared sends its bytes as a WriteBack (with
 * the byte mask of what it wrote) without owning the block, and stays a
 * holder (its copy is gone, as a clean copy that left silently). The bank
 * merges them into its copy, which becomes written; the other holders'
 * copies are left as they are (they see the bytes once they drop their
 * copy and fetch it again). Every other message is MESI's. The bank's copy
 * is writable at its parent (memory, or the L3 not tracking the GPU: the
 * system refuses nmoesi on a GPU coherent with the CPU), so the merge
 * needs no permission from above. */
#include "nmoesi_internal.h"

void nmoesi_gpu_l2_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct gpu_l2 *b = ctrl;
    const struct coh_node *from = &s->nodes[m->src];
    if (from->kind == CGM_NODE_GPU_L1 && m->type == COH_WB) {
        unsigned cu = (unsigned)from->index;
        struct cgm_cache_line *l = cgm_cache_find(&b->a.a, m->block);
        if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M) &&
            coh_meta(&b->a, l)->owner != (int)cu && coh_holders_has(&b->a, l, cu)) {
            l->data = m->data;
            l->dirty = true;
            if (l->state == MESI_E)
                l->state = MESI_M;
            nmoesi_row(s, NM_L2_N_WB);
            return;
        }
    }
    gpu_l2_deliver(s, b, m);
}
