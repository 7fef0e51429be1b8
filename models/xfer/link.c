/* The host-device link and its DMA engine (include/cgm/xfer.h). */
#include <stdio.h>

#include "cgm/xfer.h"

int cgm_link_init(struct cgm_link *l, const struct cgm_link_config *cfg, char *err, size_t errlen)
{
    if (!cfg->lanes || !cfg->lane_mbps || !cfg->max_payload) {
        snprintf(err, errlen, "link: lanes, lane_mbps and max_payload must be at least 1");
        return -1;
    }
    *l = (struct cgm_link){ .cfg = *cfg };
    return 0;
}

uint64_t cgm_link_wire_ps(const struct cgm_link_config *cfg, uint64_t bytes)
{
    if (!bytes)
        return 0;
    unsigned __int128 packets = (bytes + cfg->max_payload - 1) / cfg->max_payload;
    unsigned __int128 wire = bytes + packets * cfg->packet_overhead;
    /* 1 MB/s carries a byte in 10^6 ps */
    unsigned __int128 rate = (unsigned __int128)cfg->lanes * cfg->lane_mbps;
    unsigned __int128 ps = (wire * 1000000u + rate - 1) / rate;
    return ps > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)ps;
}

uint64_t cgm_link_send(struct cgm_link *l, uint64_t now, uint64_t bytes)
{
    if (!bytes)
        return now;
    uint64_t wire = cgm_link_wire_ps(&l->cfg, bytes);
    uint64_t start = now > l->free_at ? now : l->free_at;
    l->free_at = start + wire;
    l->transfers++;
    l->bytes += bytes;
    l->packets += (bytes + l->cfg.max_payload - 1) / l->cfg.max_payload;
    l->busy_ps += wire;
    return l->free_at + l->cfg.latency_ps;
}

void cgm_dma_init(struct cgm_dma *d, struct cgm_link *link, uint64_t burst, cgm_dma_source_fn source, void *ctx)
{
    *d = (struct cgm_dma){ .link = link, .burst = burst ? burst : 1, .source = source, .ctx = ctx };
}

uint64_t cgm_dma_copy(struct cgm_dma *d, uint64_t now, uint64_t addr, uint64_t bytes)
{
    if (!bytes)
        return now;
    uint64_t first = 0;
    for (uint64_t off = 0; off < bytes; off += d->burst) {
        bool in_cache = false;
        uint64_t lat = d->source ? d->source(d->ctx, addr + off, &in_cache) : 0;
        if (!off)
            first = lat;
        if (in_cache)
            d->bursts_cache++;
        else
            d->bursts_memory++;
    }
    d->transfers++;
    return cgm_link_send(d->link, now + first, bytes);
}
