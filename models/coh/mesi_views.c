/* What checkers and error reports see of a block at each MESI controller:
 * the copies (a state of the protocol and the data) and the dumps. */
#include "mesi_internal.h"

unsigned mesi_gpu_l1_copy(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data)
{
    (void)s;
    struct gpu_l1 *l1 = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
    if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M)) {
        *data = l->data;
        return l->state;
    }
    struct core_wb *w = wbq_find(&l1->wb, block);
    if (w) {
        *data = w->data;
        return MESI_M;
    }
    return MESI_I;
}

unsigned mesi_gpu_l2_copy(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data)
{
    (void)s;
    struct gpu_l2 *b = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    struct cgm_cache_line *e = l ? NULL : frc_find(&b->frc, block);
    if (e && e->state == FRC_ARRIVED) {
        /* the FRC's, arrived (the bank's copy before its swap into the L2) */
        *data = e->data;
        return b->frc.fill[cgm_cache_line_index(&b->frc.a, e)];
    }
    if (!l || coh_meta(&b->a, l)->owner >= 0 || coh_meta(&b->a, l)->pending ||
        (l->state != MESI_S && l->state != MESI_E && l->state != MESI_M))
        return MESI_I;
    *data = l->data;
    return l->state;
}

unsigned mesi_core_copy(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data)
{
    struct core *c = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1d, block);
    if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M || l->state == MESI_SM)) {
        *data = l->data;
        return l->state == MESI_SM ? MESI_S : l->state;
    }
    for (unsigned i = 0; i < s->cfg.l1_wb_entries; i++)
        if (c->l1wb.e[i].used && c->l1wb.e[i].block == block) {
            *data = c->l1wb.e[i].data;
            return MESI_M;
        }
    l = cgm_cache_find(&c->l2.a, block);
    if (l && (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M || l->state == MESI_SM)) {
        *data = l->data;
        return l->state == MESI_SM ? MESI_S : l->state;
    }
    for (unsigned i = 0; i < s->cfg.wb_entries; i++)
        if (c->wb.e[i].used && !c->wb.e[i].sent && c->wb.e[i].block == block) {
            *data = c->wb.e[i].data;
            return c->wb.e[i].dirty ? MESI_M : MESI_E;
        }
    l = cgm_cache_find(&c->l1i, block);
    if (l && l->state == MESI_S) {
        *data = l->data;
        return MESI_S;
    }
    return MESI_I;
}

static const char *state_name(unsigned st) { return cgm_coh_state_name(&cgm_coh_mesi, st); }

static void dump_holders(const struct coh_array *a, const struct cgm_cache_line *l, FILE *out)
{
    fprintf(out, " holders {");
    for (int h = coh_holders_next(a, l, 0); h >= 0; h = coh_holders_next(a, l, (unsigned)h + 1))
        fprintf(out, " %d", h);
    fprintf(out, " }");
}

void mesi_gpu_l1_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out)
{
    (void)s;
    struct gpu_l1 *l1 = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&l1->a.a, block);
    struct cgm_mshr_entry *e = NULL;
    for (unsigned k = 0; k < l1->mshr.entries; k++)
        if (l1->mshr.e[k].used && l1->mshr.e[k].block == block)
            e = &l1->mshr.e[k];
    struct core_wb *w = wbq_find(&l1->wb, block);
    if (!l && !e && !w)
        return;
    fprintf(out, "  CU %d: L1 %s", l1->id, l ? state_name(l->state) : "-");
    if (l)
        fprintf(out, " data %llu%s join %u", (unsigned long long)l->data, l->dirty ? " dirty" : "",
                coh_meta(&l1->a, l)->pending);
    if (e)
        fprintf(out, ", MSHR with %u waiting", e->n);
    if (w)
        fprintf(out, ", write-back data %llu", (unsigned long long)w->data);
    fprintf(out, ", %u stalled requests\n", l1->stall.n);
}

void mesi_gpu_l2_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out)
{
    struct gpu_l2 *b = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&b->a.a, block);
    if (l) {
        const struct coh_line *d = coh_meta(&b->a, l);
        fprintf(out, "  GPU L2 bank %d: %s owner %d", b->id, state_name(l->state), d->owner);
        dump_holders(&b->a, l, out);
        fprintf(out, " pending %u (requester %d, %s, %u acks) data %llu%s\n", d->pending, d->requester,
                cgm_coh_msg_names[d->req < COH_NTYPES ? d->req : 0], d->acks, (unsigned long long)l->data,
                l->dirty ? " dirty" : "");
    } else {
        fprintf(out, "  GPU L2 bank %d: not present\n", b->id);
    }
    for (unsigned k = 0; k < b->mshr.entries; k++)
        if (b->mshr.e[k].used && b->mshr.e[k].block == block)
            fprintf(out, "  GPU L2 MSHR: %u waiting\n", b->mshr.e[k].n);
    struct cgm_cache_line *e = frc_find(&b->frc, block);
    if (e)
        fprintf(out, "  GPU L2 FRC: state %u (1 fetching, 2 fetching exclusive, 3 arrived, 4 victim leaving), data %llu\n",
                e->state, (unsigned long long)e->data);
    for (unsigned w = 0; w < s->cfg.gpu.l2_wb_entries; w++)
        if (b->wb.e[w].state && b->wb.e[w].block == block)
            fprintf(out, "  GPU L2 write-back: state %u, %u acks, %u joined, data %llu%s\n", b->wb.e[w].state,
                    b->wb.e[w].acks, b->wb.e[w].njoin, (unsigned long long)b->wb.e[w].data,
                    b->wb.e[w].dirty ? " dirty" : "");
    for (unsigned k = 0; k < b->ndeferred; k++)
        if (b->deferred[k].block == block)
            fprintf(out, "  GPU L2 deferred: %s\n", cgm_coh_msg_names[b->deferred[k].type]);
}

void mesi_core_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out)
{
    struct core *c = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&c->l1d, block);
    struct cgm_cache_line *li = cgm_cache_find(&c->l1i, block);
    struct cgm_cache_line *l2 = cgm_cache_find(&c->l2.a, block);
    fprintf(out, "  core %d: L1D %s", c->id, l ? state_name(l->state) : "-");
    if (l)
        fprintf(out, " data %llu%s", (unsigned long long)l->data, l->dirty ? " dirty" : "");
    fprintf(out, ", L1I %s", li ? state_name(li->state) : "-");
    for (unsigned w = 0; w < s->cfg.l1_wb_entries; w++)
        if (c->l1wb.e[w].used && c->l1wb.e[w].block == block)
            fprintf(out, ", L1D write-back %s data %llu", c->l1wb.e[w].sent ? "sent" : "queued",
                    (unsigned long long)c->l1wb.e[w].data);
    fprintf(out, ", L2 %s", l2 ? state_name(l2->state) : "-");
    if (l2)
        fprintf(out, " data %llu%s (request %s)", (unsigned long long)l2->data, l2->dirty ? " dirty" : "",
                cgm_coh_msg_names[coh_meta(&c->l2, l2)->req < COH_NTYPES ? coh_meta(&c->l2, l2)->req : 0]);
    for (unsigned w = 0; w < s->cfg.wb_entries; w++)
        if (c->wb.e[w].used && c->wb.e[w].block == block)
            fprintf(out, ", L2 write-back %s data %llu",
                    c->wb.e[w].sent ? "sent" : c->wb.e[w].flushing ? "flushing the data cache" : "queued",
                    (unsigned long long)c->wb.e[w].data);
    for (unsigned e = 0; e < c->mshr.entries; e++)
        if (c->mshr.e[e].used && c->mshr.e[e].block == block)
            fprintf(out, ", MSHR kind %u with %u waiting", c->mshr.e[e].kind, c->mshr.e[e].n);
    fprintf(out, ", %u stalled requests\n", c->stall.n);
}

void mesi_slice_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out)
{
    struct slice *sl = ctrl;
    struct cgm_cache_line *l = cgm_cache_find(&sl->l3.a, block);
    if (l) {
        const struct coh_line *d = coh_meta(&sl->l3, l);
        fprintf(out, "  L3: %s owner %d sharers %#llx pending %u (requester %d, %s, %u acks) data %llu%s\n",
                state_name(l->state), d->owner, (unsigned long long)d->sharers, d->pending, d->requester,
                cgm_coh_msg_names[d->req < COH_NTYPES ? d->req : 0], d->acks, (unsigned long long)l->data,
                l->dirty ? " dirty" : "");
    } else {
        fprintf(out, "  L3: not present\n");
    }
    for (unsigned w = 0; w < s->cfg.l3_wb_entries; w++)
        if (sl->wb.e[w].state && sl->wb.e[w].block == block)
            fprintf(out, "  L3 write-back: state %u, %u acks, %u joined, data %llu%s\n", sl->wb.e[w].state,
                    sl->wb.e[w].acks, sl->wb.e[w].njoin, (unsigned long long)sl->wb.e[w].data,
                    sl->wb.e[w].dirty ? " dirty" : "");
}
