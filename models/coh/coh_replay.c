/* Requests run again: those an MSHR entry held once its block is back,
 * and those that found a cache's resources full (the stall list). */
#include "coh_internal.h"

#include <stdlib.h>
#include <string.h>

void coh_stall(struct cgm_coh_sys *s, struct stall_list *l, int node, const struct cgm_coh_req *r)
{
    if (l->n == l->cap) {
        unsigned cap = l->cap ? 2 * l->cap : 16;
        struct cgm_coh_req *q = realloc(l->q, cap * sizeof *q);
        if (!q) /* bounded by the MSHR and coalescer sizes; tiny */
            cgm_oom("coherence: a list of stalled requests");
        l->q = q;
        l->cap = cap;
    }
    l->q[l->n++] = *r;
    if (!l->wake_pending) {
        l->wake_pending = true;
        s->env.later(s->env.ctx, node, 0, COH_WAKE_STALLED);
    }
}

void coh_replay_entry(struct cgm_coh_sys *s, struct cgm_mshr *m, struct cgm_mshr_entry *e, coh_access_fn fn,
                      void *cache, struct stall_list *l, int node, bool *replaying)
{
    unsigned n = e->n;
    uint64_t block = e->block;
    struct cgm_mshr_waiter w[n ? n : 1];
    memcpy(w, e->w, n * sizeof *w);
    cgm_mshr_release(m, e);
    bool was = *replaying;
    *replaying = true;
    for (unsigned i = 0; i < n; i++) {
        struct cgm_coh_req r = coh_req_of(block, &w[i]);
        if (fn(s, cache, &r) < 0)
            coh_stall(s, l, node, &r);
    }
    *replaying = was;
}

void coh_replay_stalled(struct cgm_coh_sys *s, coh_access_fn fn, void *cache, struct stall_list *l, int node,
                        bool *replaying)
{
    struct stall_list taken = *l;
    *l = (struct stall_list){ .q = taken.spare, .cap = taken.spare_cap };
    bool was = *replaying;
    *replaying = true;
    for (unsigned i = 0; i < taken.n; i++)
        if (fn(s, cache, &taken.q[i]) < 0)
            coh_stall(s, l, node, &taken.q[i]);
    *replaying = was;
    if (l->spare)
        free(taken.q);
    else {
        l->spare = taken.q;
        l->spare_cap = taken.cap;
    }
}
