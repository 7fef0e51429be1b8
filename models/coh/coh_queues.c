/* The write-back queues: a first-level cache's or private L2's (struct
 * core_wbq) and a directory's (struct dir_wbq), each with a filter that
 * lets a look for a block the queue does not hold end without a scan. */
#include "coh_internal.h"

#include <stdlib.h>
#include <string.h>

bool wbq_init(struct core_wbq *q, unsigned n)
{
    *q = (struct core_wbq){ .e = calloc(n, sizeof *q->e), .n = n };
    return q->e != NULL;
}

static struct core_wb *wbq_scan(const struct core_wbq *q, uint64_t block)
{
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].used && q->e[i].block == block)
            return &q->e[i];
    return NULL;
}

struct core_wb *wbq_find(const struct core_wbq *q, uint64_t block)
{
    if (!(q->filter & wbq_bit(block))) {
        CGM_CHECK(!wbq_scan(q, block));
        return NULL;
    }
    return wbq_scan(q, block);
}

struct core_wb *wbq_free(const struct core_wbq *q)
{
    for (unsigned i = 0; i < q->n; i++)
        if (!q->e[i].used)
            return &q->e[i];
    return NULL;
}

void wbq_take(struct core_wbq *q, struct core_wb *slot, struct core_wb w)
{
    CGM_CHECK(!slot->used && w.used);
    *slot = w;
    q->filter |= wbq_bit(w.block);
}

void wbq_release(struct core_wbq *q, struct core_wb *w)
{
    w->used = false;
    q->filter = 0;
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].used)
            q->filter |= wbq_bit(q->e[i].block);
}

bool dwbq_init(struct dir_wbq *q, unsigned n)
{
    *q = (struct dir_wbq){ .e = calloc(n, sizeof *q->e), .n = n };
    return q->e != NULL;
}

static struct dir_wb *dwbq_scan(const struct dir_wbq *q, uint64_t block)
{
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].state && q->e[i].block == block)
            return &q->e[i];
    return NULL;
}

struct dir_wb *dwbq_find(const struct dir_wbq *q, uint64_t block)
{
    if (!(q->filter & wbq_bit(block))) {
        CGM_CHECK(!dwbq_scan(q, block));
        return NULL;
    }
    return dwbq_scan(q, block);
}

struct dir_wb *dwbq_free(const struct dir_wbq *q)
{
    for (unsigned i = 0; i < q->n; i++)
        if (!q->e[i].state)
            return &q->e[i];
    return NULL;
}

void dwbq_take(struct dir_wbq *q, struct dir_wb *slot, uint64_t block, uint8_t state)
{
    CGM_CHECK(!slot->state && state);
    slot->block = block;
    slot->state = state;
    slot->then_fetch = false;
    slot->frc_entry = -1;
    q->filter |= wbq_bit(block);
}

void dwbq_release(struct dir_wbq *q, struct dir_wb *wb)
{
    wb->state = 0;
    q->filter = 0;
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].state)
            q->filter |= wbq_bit(q->e[i].block);
}

void dwb_release(struct dir_wbq *q, struct dir_wb *wb,
                 void (*rerun)(struct cgm_coh_sys *s, void *dir, const struct joined *j, uint64_t block),
                 struct cgm_coh_sys *s, void *dir)
{
    uint64_t block = wb->block;
    unsigned n = wb->njoin;
    struct joined j[n ? n : 1];
    memcpy(j, wb->join, n * sizeof *j);
    dwbq_release(q, wb);
    wb->njoin = 0;
    for (unsigned i = 0; i < n; i++)
        rerun(s, dir, &j[i], block);
}
