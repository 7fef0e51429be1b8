/* The halves every cache of the MESI protocol is built from: how a
 * first-level access and a directory request are classified into the
 * substates the tables name. */
#include "mesi_internal.h"

enum l1_sub l1_classify(const struct cgm_cache_line *l, const struct core_wb *wb, bool wb_writable)
{
    if (l) {
        switch (l->state) {
        case MESI_M: return L1_M;
        case MESI_E: return L1_E;
        case MESI_S: return L1_S;
        case MESI_SM: return L1_S_PENDING_UPGRADE;
        default: break;
        }
    }
    if (wb)
        return wb_writable ? L1_I_WB_WRITABLE : L1_I_WB_NON_WRITABLE;
    return L1_I;
}

enum dir_req dir_req_of(uint8_t msg_type)
{
    switch (msg_type) {
    case COH_GETS: return DREQ_FETCH;
    case COH_GET: return DREQ_LOAD;
    case COH_UPGRADE: return DREQ_UPGRADE;
    default: return DREQ_STORE;
    }
}

enum dir_sub dir_held_sub(bool m, bool owned, bool held)
{
    if (owned)
        return m ? DIR_M_OWNED : DIR_E_OWNED;
    if (held)
        return m ? DIR_M_HELD : DIR_E_HELD;
    return m ? DIR_M : DIR_E;
}

enum dir_sub dir_pending_sub(uint8_t st, bool owned)
{
    if (st == MESI_M)
        return owned ? DIR_M_PENDING_OWNED : DIR_M_PENDING;
    if (st == MESI_E)
        return owned ? DIR_E_PENDING_OWNED : DIR_E_PENDING;
    return owned ? DIR_S_PENDING_OWNED : DIR_S_PENDING;
}

/* A line that may leave without a flush: settled, nothing pending, no holder. */
static bool quiet(const struct cgm_cache_line *l, void *ctx)
{
    const struct coh_array *a = ctx;
    const struct coh_line *d = coh_meta(a, l);
    return (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M) && !d->pending && d->owner < 0 &&
           coh_holders_empty(a, l);
}

enum dir_sub dir_absent_sub(struct coh_array *a, const struct dir_wb *wb, uint64_t block,
                            struct cgm_cache_line **victim)
{
    if (!wb)
        return DIR_I;
    if (wb->state == DWB_FLUSHING)
        return DIR_I_WB_FLUSH_CONFLICT;
    if (wb->state == DWB_WRITING)
        return DIR_I_WB_NON_WRITABLE;
    struct cgm_cache_line *v = cgm_cache_victim(&a->a, block, quiet, a);
    if (!v || (v->state && !quiet(v, a)))
        return DIR_I_WB_DIR_CONFLICT;
    *victim = v;
    return DIR_I_WB_WRITABLE;
}
