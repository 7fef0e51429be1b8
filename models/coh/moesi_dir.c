/* The slice side of MOESI: what the directory does that MESI's does not
 * (Table 3.4O). A line of an O block is S with the owner among its
 * holders; its copy is older than the owner's. A load or fetch of it is
 * forwarded to the owner (the slice's copy is not served), the owner's
 * Fwd_Ack keeping its ownership adds the requester; the owner's
 * write-back makes the line plain S with the slice's copy current. While
 * the slice invalidates an O block's holders for a writer, the former
 * owner's write-back or acknowledgement brings the data the writer may
 * need. Everything else is MESI's directory (mesi_dir.c): a store to an O
 * block is Table 3.5's S rows, its eviction flushes the holders. */
#include "moesi_internal.h"

static bool o_line(const struct slice *sl, const struct cgm_cache_line *l)
{
    return l->state == MESI_S && coh_meta(&sl->l3, l)->owner >= 0;
}

static void to_holder(struct cgm_coh_sys *s, struct slice *sl, int h, struct cgm_coh_msg m)
{
    m.src = sl->node;
    m.dst = coh_l3_holder_node(s, h, m.block);
    coh_send(s, m);
}

/* Takes a written copy the message carries into line l. */
static void take_data(struct cgm_cache_line *l, const struct cgm_coh_msg *m)
{
    if (m->dirty) {
        l->data = m->data;
        l->dirty = true;
    }
}

/* A load or fetch of an O block from holder h: Set_Pending, GetFwd to the
 * owner; settled by its Fwd_Ack and the requester's Unblock. */
static void forward_to_owner(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h,
                             const struct cgm_coh_msg *m)
{
    struct coh_line *d = coh_meta(&sl->l3, l);
    sl->st.requests++;
    sl->st.hits++;
    cgm_cache_touch(&sl->l3.a, l);
    d->pending = DP_FWD;
    d->requester = h;
    d->req = m->type;
    d->acks = 2;
    to_holder(s, sl, d->owner, (struct cgm_coh_msg){ .type = COH_GET_FWD, .block = l->block, .instr = m->instr,
                                                     .requester = coh_l3_holder_node(s, h, l->block) });
    sl->st.forwards++;
    moesi_row(s, MO34_O_LOAD);
}

/* Fwd_Ack from h keeping the block: O at h, the requester one more holder. */
static void owner_kept(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l, int h)
{
    struct coh_line *d = coh_meta(&sl->l3, l);
    l->state = MESI_S;
    coh_holders_add(&sl->l3, l, (unsigned)h);
    coh_holders_add(&sl->l3, l, (unsigned)d->requester);
    d->owner = h;
    if (--d->acks == 0)
        d->pending = DP_NONE;
    moesi_row(s, MO34_FWD_ACK_OWNER);
}

/* Fwd_Nack from an owner that wrote the block back meanwhile (its
 * write-back came first): the slice's copy is current; the requester gets
 * it shared beside the other holders. */
static void owner_gone(struct cgm_coh_sys *s, struct slice *sl, struct cgm_cache_line *l)
{
    struct coh_line *d = coh_meta(&sl->l3, l);
    d->pending = DP_NONE;
    d->owner = -1;
    coh_holders_add(&sl->l3, l, (unsigned)d->requester);
    to_holder(s, sl, d->requester, (struct cgm_coh_msg){ .type = COH_PUTS, .block = l->block, .data = l->data,
                                                         .instr = d->req == COH_GETS });
    moesi_row(s, MO34_O_FWD_NACK);
}

static void wb_ack(struct cgm_coh_sys *s, struct slice *sl, int h, const struct cgm_coh_msg *m)
{
    to_holder(s, sl, h, (struct cgm_coh_msg){ .type = COH_WB_ACK, .block = m->block, .req = m->type });
}

void moesi_dir_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m)
{
    struct slice *sl = ctrl;
    struct cgm_cache_line *l = m->noncoherent ? NULL : cgm_cache_find(&sl->l3.a, m->block);
    if (l) {
        struct coh_line *d = coh_meta(&sl->l3, l);
        int h = s->nodes[m->src].holder;
        switch (m->type) {
        case COH_GETS:
        case COH_GET:
            if (o_line(sl, l) && !d->pending && d->owner != h) {
                forward_to_owner(s, sl, l, h, m);
                return;
            }
            break;
        case COH_FWD_ACK:
            if (m->owner && d->pending == DP_FWD) {
                owner_kept(s, sl, l, h);
                return;
            }
            break;
        case COH_FWD_NACK:
            if (d->pending == DP_FWD && l->state == MESI_S) {
                owner_gone(s, sl, l);
                return;
            }
            break;
        case COH_WB:
            if (o_line(sl, l) && d->owner == h) {
                /* The line is plain S now, even while a forward to the
                 * owner is pending: the owner answers it (Fwd_Nack, its
                 * block gone, or it did already) before it may ask again
                 * (it waits for this write-back's acknowledgement). */
                take_data(l, m);
                coh_holders_del(&sl->l3, l, (unsigned)h);
                d->owner = -1;
                wb_ack(s, sl, h, m);
                moesi_row(s, MO34_O_WB);
                return;
            }
            if (d->pending == DP_INV && d->owner != h) {
                take_data(l, m);
                wb_ack(s, sl, h, m);
                moesi_row(s, MO34_INV_WB);
                return;
            }
            break;
        case COH_INV_ACK:
            if (d->pending == DP_INV && m->dirty) {
                take_data(l, m);
                moesi_row(s, MO34_INV_ACK_DATA);
            }
            break;
        default:
            break;
        }
    }
    dir_deliver(s, sl, m);
}
