/* The core side of MOESI: what a private L2 does that MESI's does not
 * (Table 3.3O). It keeps a block it forwards to a reader when it has
 * written it (O: the data goes to the reader, none to the slice), answers
 * later forwarded loads from it, and gives the data up with its
 * acknowledgement when the block is invalidated or flushed. Everything
 * else is MESI's core (mesi_core.c): an O line is an S line with written
 * data, so its loads hit, its stores upgrade, its eviction writes it back
 * and a queued O victim merges back shared. */
#include "moesi_internal.h"

static bool owned(const struct cgm_cache_line *l)
{
    return l->dirty && (l->state == MESI_S || l->state == MESI_SM);
}

/* GetFwd to a written block (M, or O, upgrading or not): the requester
 * gets it shared, the slice hears that this core keeps it as owner; an M
 * copy (in the L2 and the data cache) becomes O. An upgrade in flight is
 * NACKed by the slice meanwhile and sent again. */
static void keep_as_owner(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *l2,
                          const struct cgm_coh_msg *m)
{
    coh_send(s, (struct cgm_coh_msg){ .type = COH_PUTS, .src = c->id, .dst = m->requester, .block = m->block,
                                      .data = l2->data, .instr = m->instr });
    coh_send(s, (struct cgm_coh_msg){ .type = COH_FWD_ACK, .src = c->id, .dst = m->src, .block = m->block,
                                      .owner = true });
    if (l2->state == MESI_M)
        l2->state = MESI_S;
    struct cgm_cache_line *l1 = cgm_cache_find(&c->l1d, m->block);
    if (l1 && (l1->state == MESI_E || l1->state == MESI_M))
        l1->state = MESI_S;
}

/* Inval or Flush of an O block (in the array, or a victim not yet sent):
 * the acknowledgement carries the data, the newest there is. false if the
 * block is not O here (MESI's core answers). */
static bool give_up_owned(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m)
{
    struct cgm_coh_msg ack = { .type = COH_INV_ACK, .src = c->id, .dst = m->src, .block = m->block, .dirty = true };
    struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, m->block);
    if (l2 && owned(l2)) {
        ack.data = l2->data;
        moesi_row(s, l2->state == MESI_SM ? MO33_OPU_INVAL : m->type == COH_FLUSH ? MO33_O_FLUSH : MO33_O_INVAL);
        /* an upgrade in flight is NACKed or answered with the block */
        l2->state = l2->state == MESI_SM ? MESI_IM : MESI_I;
        l2->dirty = false;
        mesi_core_drop_l1(c, m->block);
        coh_send(s, ack);
        return true;
    }
    struct core_wb *wb = l2 ? NULL : wbq_find(&c->wb, m->block);
    if (wb && !wb->sent && wb->shared && m->type == COH_INVAL) {
        ack.data = wb->data;
        wbq_release(&c->wb, wb);
        moesi_row(s, MO33_WBO_INVAL);
        coh_send(s, ack);
        return true;
    }
    return false;
}

void moesi_core_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct core *c = ctrl;
    if (m->type == COH_GET_FWD) {
        struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, m->block);
        if (l2 && (l2->state == MESI_E || l2->state == MESI_M))
            mesi_core_pull_l1(s, c, l2);
        if (l2 && l2->dirty && (l2->state == MESI_M || owned(l2))) {
            moesi_row(s, l2->state == MESI_M ? MO33_M_GETFWD : l2->state == MESI_S ? MO33_O_GETFWD : MO33_OPU_GETFWD);
            keep_as_owner(s, c, l2, m);
            return;
        }
    } else if ((m->type == COH_INVAL || m->type == COH_FLUSH) && give_up_owned(s, c, m)) {
        return;
    }
    core_deliver(s, c, m);
}

unsigned moesi_core_copy(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data)
{
    struct core *c = ctrl;
    unsigned st = mesi_core_copy(s, c, block, data);
    if (st != MESI_S && st != MESI_M)
        return st;
    struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, block);
    if (l2)
        return owned(l2) ? MOESI_O : st;
    const struct core_wb *wb = wbq_find(&c->wb, block);
    return wb && !wb->sent && wb->shared && st == MESI_M ? MOESI_O : st;
}
