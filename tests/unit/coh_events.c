/* A binary heap of events by (time, seq). */
#include "tests/unit/coh_events.h"

#include <stdlib.h>

static int before(const struct coh_event *a, const struct coh_event *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

void coh_events_push(struct coh_events *q, struct coh_event e)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 1024;
        struct coh_event *h = realloc(q->heap, cap * sizeof *h);
        if (!h)
            abort();
        q->heap = h;
        q->cap = cap;
    }
    e.seq = q->seq++;
    size_t i = q->n++;
    while (i && before(&e, &q->heap[(i - 1) / 2])) {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = e;
}

struct coh_event coh_events_pop(struct coh_events *q)
{
    struct coh_event top = q->heap[0];
    struct coh_event last = q->heap[--q->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct coh_event *best = &last;
        if (l < q->n && before(&q->heap[l], best)) {
            m = l;
            best = &q->heap[l];
        }
        if (r < q->n && before(&q->heap[r], best))
            m = r;
        if (m == i)
            break;
        q->heap[i] = q->heap[m];
        i = m;
    }
    if (q->n)
        q->heap[i] = last;
    return top;
}

void coh_events_free(struct coh_events *q)
{
    free(q->heap);
    *q = (struct coh_events){ 0 };
}

uint64_t coh_rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

uint64_t coh_run_signature(const struct cgm_coh_sys *s, uint64_t *rows_total, uint64_t now)
{
    const struct cgm_coh_protocol *p = cgm_coh_protocol_of(s, CGM_NODE_CORE);
    const struct cgm_coh_protocol *gpu = cgm_coh_protocol_of(s, CGM_NODE_GPU_L1);
    const uint64_t *rows = cgm_coh_row_counts(s, p);
    uint64_t sig = 1469598103934665603ull;
    for (unsigned r = 0; r < p->nrows; r++) {
        rows_total[r] += rows[r];
        sig = (sig ^ rows[r]) * 1099511628211ull;
    }
    if (gpu != p) {
        const uint64_t *g = cgm_coh_row_counts(s, gpu);
        for (unsigned r = 0; r < gpu->nrows; r++)
            sig = (sig ^ g[r]) * 1099511628211ull;
    }
    const uint64_t *msgs = cgm_coh_msg_counts(s);
    for (int m = 0; m < COH_NTYPES; m++)
        sig = (sig ^ msgs[m]) * 1099511628211ull;
    return (sig ^ now) * 1099511628211ull;
}

double coh_scale_factor(void)
{
    /* make test runs the testers at 0.3 of their nominal lengths: the
     * shortest at which they still reach, and assert, every protocol row
     * (the runs are seeded, so this holds every time; at 0.15 one CPU row
     * is missed). make validate sets CGM_COH_SCALE to several times the
     * nominal length. */
    const char *e = getenv("CGM_COH_SCALE");
    double f = e ? atof(e) : 0.3;
#if defined(CGM_ASAN)
    f /= 20;
#endif
    return f;
}

uint64_t coh_scale(uint64_t n)
{
    uint64_t v = (uint64_t)((double)n * coh_scale_factor());
    return v ? v : 1;
}

uint64_t coh_msg_arrival(uint64_t *rng, uint64_t now, unsigned max_delay, uint64_t *last)
{
    uint64_t at = now + 1 + coh_rnd(rng) % max_delay;
    if (at < *last)
        at = *last;
    *last = at;
    return at;
}

uint64_t coh_wake_delay(uint64_t *rng, int what, unsigned mem_delay)
{
    if (what == COH_WAKE_MEM_READ || what == COH_WAKE_MEM_WRITE)
        return mem_delay / 2 + coh_rnd(rng) % mem_delay;
    if (what == COH_WAKE_WB_DRAIN)
        return 1 + coh_rnd(rng) % 30;
    return 1 + coh_rnd(rng) % 16;
}
