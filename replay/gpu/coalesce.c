/* The vector memory unit's coalescer (replay/gpu/coalesce.h). */
#include "replay/gpu/coalesce.h"

unsigned rp_split_blocks(uint64_t addr, unsigned size, struct rp_mreq *out)
{
    if (size == 0)
        size = 1;
    if (size > RP_BLOCK_BYTES)
        size = RP_BLOCK_BYTES;    /* the static table's sizes are at most 64; a file could say more */
    uint64_t end = addr + size, split = (addr | (RP_BLOCK_BYTES - 1)) + 1;
    if (end <= split) {
        out[0] = (struct rp_mreq){ addr, size };
        return 1;
    }
    out[0] = (struct rp_mreq){ addr, (uint32_t)(split - addr) };
    out[1] = (struct rp_mreq){ split, (uint32_t)(end - split) };
    return 2;
}

/* Widens the request of block BLOCK in OUT[0..N) to cover P (the lanes'
 * blocks come in runs: the search starts from the newest). */
static unsigned merge(struct rp_mreq *out, unsigned n, const struct rp_mreq *p)
{
    uint64_t block = p->vaddr / RP_BLOCK_BYTES;
    for (unsigned i = n; i-- > 0;) {
        struct rp_mreq *q = &out[i];
        if (q->vaddr / RP_BLOCK_BYTES != block)
            continue;
        uint64_t lo = q->vaddr < p->vaddr ? q->vaddr : p->vaddr;
        uint64_t hi = q->vaddr + q->bytes > p->vaddr + p->bytes ? q->vaddr + q->bytes : p->vaddr + p->bytes;
        q->vaddr = lo;
        q->bytes = (uint32_t)(hi - lo);
        return n;
    }
    out[n] = *p;
    return n + 1;
}

/* The lanes of EXEC into OUT from OUT[N] on; returns the new count. */
static unsigned coalesce_lanes(const struct cgm_si_dyn *d, uint64_t exec, unsigned size, int per_lane,
                               struct rp_mreq *out, unsigned n)
{
    for (uint64_t m = exec; m; m &= m - 1) {
        uint64_t a = d->addr[__builtin_ctzll(m)];
        struct rp_mreq *q = n ? &out[n - 1] : NULL;
        if (!per_lane && q && size && a / RP_BLOCK_BYTES == q->vaddr / RP_BLOCK_BYTES &&
            a % RP_BLOCK_BYTES + size <= RP_BLOCK_BYTES) {
            /* most lanes fall in the newest request's block: widen it */
            uint64_t lo = q->vaddr < a ? q->vaddr : a, hi = q->vaddr + q->bytes;
            hi = hi > a + size ? hi : a + size;
            q->vaddr = lo;
            q->bytes = (uint32_t)(hi - lo);
            continue;
        }
        struct rp_mreq parts[2];
        unsigned k = rp_split_blocks(a, size, parts);
        for (unsigned i = 0; i < k; i++) {
            if (per_lane)
                out[n++] = parts[i];
            else
                n = merge(out, n, &parts[i]);
        }
    }
    return n;
}

unsigned rp_coalesce(const struct cgm_si_dyn *d, unsigned size, enum rp_coalesce_mode mode, struct rp_mreq *out)
{
    if (mode != RP_PER_SUBWAVE)
        return coalesce_lanes(d, d->exec, size, mode == RP_PER_LANE, out, 0);
    /* Each quarter's requests start after the previous quarter's: merge()
     * must not reach back into them, so each is coalesced into its own
     * range. */
    unsigned n = 0;
    for (unsigned q = 0; q < CGM_SI_LANES / RP_SUBWAVE_LANES; q++) {
        uint64_t lanes = d->exec >> (q * RP_SUBWAVE_LANES) & ((1ull << RP_SUBWAVE_LANES) - 1);
        n += coalesce_lanes(d, lanes << (q * RP_SUBWAVE_LANES), size, 0, out + n, 0);
    }
    return n;
}
