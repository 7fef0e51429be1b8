/* The ADSM copy protocols (replay/gpu/adsm.h says what each moves). */
#include "replay/gpu/adsm.h"
#include "replay/gpu/ranges.h"

#include <stdlib.h>
#include <string.h>

void rp_adsm_init(struct rp_adsm *a, enum rp_copy_policy policy, uint64_t block, uint64_t rolling_size,
                  uint64_t rolling_growth, rp_adsm_move_fn move, void *ctx)
{
    *a = (struct rp_adsm){ .policy = policy, .block = block ? block : 1, .rolling_size = rolling_size,
                           .rolling_growth = rolling_growth, .move = move, .ctx = ctx };
}

void rp_adsm_free(struct rp_adsm *a)
{
    for (size_t i = 0; i < a->nregions; i++) {
        free(a->regions[i].state);
        free(a->regions[i].stamp);
    }
    free(a->regions);
    free(a->fifo);
}

static size_t region_at(const struct rp_adsm *a, uint64_t va)
{
    return rp_range_after(a->regions, a->nregions, sizeof *a->regions, va);
}

static struct rp_adsm_region *find(struct rp_adsm *a, uint64_t va)
{
    size_t i = region_at(a, va);
    return i < a->nregions && a->regions[i].addr <= va ? &a->regions[i] : NULL;
}

bool rp_adsm_alloc(struct rp_adsm *a, uint64_t addr, uint64_t bytes)
{
    if (!bytes || addr + bytes < addr)
        return true;
    size_t i = region_at(a, addr);
    if (i < a->nregions && a->regions[i].addr < addr + bytes)
        return true; /* overlaps one we know: keep the first */
    if (a->nregions == a->regions_cap) {
        size_t cap = a->regions_cap ? 2 * a->regions_cap : 16;
        struct rp_adsm_region *r = realloc(a->regions, cap * sizeof *r);
        if (!r)
            return false;
        a->regions = r;
        a->regions_cap = cap;
    }
    uint64_t n = (bytes + a->block - 1) / a->block;
    struct rp_adsm_region r = { .addr = addr, .bytes = bytes, .nblocks = n,
                                .state = calloc(n, 1), .stamp = calloc(n, sizeof(uint64_t)) };
    if (!r.state || !r.stamp) {
        free(r.state);
        free(r.stamp);
        return false;
    }
    memmove(&a->regions[i + 1], &a->regions[i], (a->nregions - i) * sizeof *a->regions);
    a->regions[i] = r; /* read-only: calloc's zeros */
    a->nregions++;
    a->allocations++;
    return true;
}

void rp_adsm_release(struct rp_adsm *a, uint64_t addr)
{
    struct rp_adsm_region *r = find(a, addr);
    if (!r || r->addr != addr)
        return;
    for (uint64_t b = 0; b < r->nblocks; b++)
        a->ndirty -= r->state[b] == RP_ADSM_DIRTY; /* their queue entries go stale */
    free(r->state);
    free(r->stamp);
    size_t i = (size_t)(r - a->regions);
    memmove(&a->regions[i], &a->regions[i + 1], (a->nregions - i - 1) * sizeof *a->regions);
    a->nregions--;
}

static uint64_t block_bytes(const struct rp_adsm *a, const struct rp_adsm_region *r, uint64_t b)
{
    uint64_t off = b * a->block;
    return r->bytes - off < a->block ? r->bytes - off : a->block;
}

static void move(struct rp_adsm *a, bool to_gpu, uint64_t addr, uint64_t bytes, bool eager)
{
    if (to_gpu) {
        a->st.bytes_to_gpu += bytes;
        a->st.transfers_to_gpu++;
    } else {
        a->st.bytes_to_cpu += bytes;
        a->st.transfers_to_cpu++;
    }
    if (eager) {
        a->st.eager_transfers++;
        a->st.eager_bytes += bytes;
    }
    if (a->move)
        a->move(a->ctx, to_gpu, addr, bytes, eager);
}

uint64_t rp_adsm_rolling_limit(const struct rp_adsm *a)
{
    return a->rolling_size + a->rolling_growth * a->allocations;
}

static bool fifo_push(struct rp_adsm *a, uint64_t addr, uint64_t stamp)
{
    if (a->fifo_head && a->fifo_head + a->fifo_n == a->fifo_cap) {
        memmove(a->fifo, a->fifo + a->fifo_head, a->fifo_n * sizeof *a->fifo);
        a->fifo_head = 0;
    }
    if (a->fifo_n == a->fifo_cap) {
        size_t cap = a->fifo_cap ? 2 * a->fifo_cap : 64;
        struct rp_adsm_dirty *f = realloc(a->fifo, cap * sizeof *f);
        if (!f)
            return false;
        a->fifo = f;
        a->fifo_cap = cap;
    }
    a->fifo[a->fifo_head + a->fifo_n++] = (struct rp_adsm_dirty){ addr, stamp };
    return true;
}

/* Rolling: the oldest dirty blocks go while more than the limit are dirty. */
static void roll(struct rp_adsm *a)
{
    while (a->ndirty > rp_adsm_rolling_limit(a) && a->fifo_n) {
        struct rp_adsm_dirty e = a->fifo[a->fifo_head++];
        a->fifo_n--;
        struct rp_adsm_region *r = find(a, e.addr);
        if (!r)
            continue;
        uint64_t b = (e.addr - r->addr) / a->block;
        if (r->state[b] != RP_ADSM_DIRTY || r->stamp[b] != e.stamp)
            continue; /* stale */
        r->state[b] = RP_ADSM_READ_ONLY;
        a->ndirty--;
        move(a, true, e.addr, block_bytes(a, r, b), true);
    }
    if (!a->fifo_n)
        a->fifo_head = 0;
}

bool rp_adsm_touch(struct rp_adsm *a, uint64_t va, bool write, bool *oom)
{
    if (a->policy != RP_COPY_LAZY && a->policy != RP_COPY_ROLLING)
        return false;
    struct rp_adsm_region *r = find(a, va);
    if (!r)
        return false;
    uint64_t b = (va - r->addr) / a->block;
    uint64_t addr = r->addr + b * a->block;
    uint8_t *s = &r->state[b];
    if (*s == RP_ADSM_DIRTY || (*s == RP_ADSM_READ_ONLY && !write))
        return false;
    a->st.faults++;
    if (*s == RP_ADSM_INVALID)
        move(a, false, addr, block_bytes(a, r, b), false);
    if (!write) {
        *s = RP_ADSM_READ_ONLY;
        return true;
    }
    *s = RP_ADSM_DIRTY;
    a->ndirty++;
    r->stamp[b] = ++a->next_stamp;
    if (a->policy == RP_COPY_ROLLING) {
        if (!fifo_push(a, addr, r->stamp[b]))
            *oom = true;
        roll(a);
    }
    return true;
}

void rp_adsm_launch(struct rp_adsm *a)
{
    for (size_t i = 0; i < a->nregions; i++) {
        struct rp_adsm_region *r = &a->regions[i];
        if (a->policy == RP_COPY_BATCH) {
            move(a, true, r->addr, r->bytes, false);
            continue;
        }
        for (uint64_t b = 0; b < r->nblocks; b++) {
            if (r->state[b] == RP_ADSM_DIRTY)
                move(a, true, r->addr + b * a->block, block_bytes(a, r, b), false);
            r->state[b] = RP_ADSM_INVALID;
        }
    }
    a->ndirty = 0;
    a->fifo_head = a->fifo_n = 0;
}

void rp_adsm_done(struct rp_adsm *a)
{
    if (a->policy != RP_COPY_BATCH)
        return;
    for (size_t i = 0; i < a->nregions; i++)
        move(a, false, a->regions[i].addr, a->regions[i].bytes, false);
}

void rp_adsm_span(const struct rp_adsm *a, uint64_t *lo, uint64_t *hi)
{
    *lo = 1;
    *hi = 0;
    if (a->nregions) {
        *lo = a->regions[0].addr;
        *hi = a->regions[a->nregions - 1].addr + a->regions[a->nregions - 1].bytes;
    }
}
