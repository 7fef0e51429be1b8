/* A host-device link (PCIe-like) and the DMA engine that drives it (seed
 * 004 Sec. 3.4.1 and Table 3.1: a DMA controller that reads the host's
 * last-level cache when the block is there and memory otherwise, in
 * bursts; a link of several lanes with a latency).
 *
 * Time is in picoseconds, so the caller's clocks (CPU cycles, GPU cycles)
 * convert without rounding drift of their own. The link carries packets of
 * at most max_payload bytes, each with packet_overhead bytes of header and
 * framing, back to back at lanes x lane_mbps; a transfer's last byte
 * arrives latency after it leaves. Transfers are served in the order they
 * start, so transfers that overlap in time share the link's bandwidth:
 * two of N bytes started together end when one of 2N would.
 *
 * The DMA engine splits a transfer into bursts of burst bytes and asks the
 * caller where each burst is (the host's last-level cache or memory) and
 * what reading it costs; the link starts when the first burst has been
 * read, and the reads of the others overlap the link (the host's memory
 * is taken to be faster than the link, as it is by far for PCIe). */
#ifndef CGM_XFER_H
#define CGM_XFER_H

#include <stdbool.h>
#include <stdint.h>

struct cgm_link_config {
    uint64_t lanes;
    uint64_t lane_mbps;        /* MB/s (10^6 bytes) per lane and direction */
    uint64_t latency_ps;       /* from a byte's departure to its arrival */
    uint64_t max_payload;      /* bytes of data per packet */
    uint64_t packet_overhead;  /* bytes of header and framing per packet */
};

struct cgm_link {
    struct cgm_link_config cfg;
    uint64_t free_at;          /* ps: when the wire takes the next packet */
    /* statistics */
    uint64_t transfers, bytes, packets, busy_ps;
};

/* 0, or -1 with ERR set when a setting is zero. */
int cgm_link_init(struct cgm_link *l, const struct cgm_link_config *cfg, char *err, size_t errlen);
/* Picoseconds the wire is busy with BYTES of data (packets and their
 * overhead), without the latency. */
uint64_t cgm_link_wire_ps(const struct cgm_link_config *cfg, uint64_t bytes);
/* A transfer of BYTES whose data are ready at NOW (ps): the time its last
 * byte arrives. A zero-byte transfer arrives at NOW. */
uint64_t cgm_link_send(struct cgm_link *l, uint64_t now, uint64_t bytes);

/* Where a burst the DMA engine reads lives, and its read latency (ps). */
typedef uint64_t (*cgm_dma_source_fn)(void *ctx, uint64_t addr, bool *in_cache);

struct cgm_dma {
    struct cgm_link *link;
    uint64_t burst;            /* bytes per burst */
    cgm_dma_source_fn source;  /* NULL: every burst is in memory at no cost */
    void *ctx;
    /* statistics */
    uint64_t transfers, bursts_cache, bursts_memory;
};

void cgm_dma_init(struct cgm_dma *d, struct cgm_link *link, uint64_t burst, cgm_dma_source_fn source, void *ctx);
/* Copies BYTES from ADDR (the reading side's address) over the link,
 * started at NOW (ps): the time the last byte arrives. */
uint64_t cgm_dma_copy(struct cgm_dma *d, uint64_t now, uint64_t addr, uint64_t bytes);

#endif
