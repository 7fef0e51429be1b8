/* Physical placement of guest virtual pages: the trace has virtual
 * addresses only, so replay gives each page a frame on first touch, in
 * touch order (deterministic). The page table is a hash of the pages
 * touched, so it grows with the footprint, not the address space. When the
 * modelled memory is full, frames are reused round-robin (pages then
 * alias); the count is reported. */
#ifndef REPLAY_VMEM_H
#define REPLAY_VMEM_H

#include <stdint.h>

struct rp_vmem {
    uint64_t *vpn, *pfn;        /* open addressing; vpn stored + 1, 0 empty */
    uint64_t cap, used;
    uint64_t frames, next_frame;
    unsigned page_shift;
    uint64_t aliased;           /* pages placed on a reused frame */
    uint64_t last_vpn, last_pfn; /* one-entry cache */
};

int rp_vmem_init(struct rp_vmem *v, uint64_t page_size, uint64_t mem_bytes);
void rp_vmem_free(struct rp_vmem *v);
uint64_t rp_vmem_translate(struct rp_vmem *v, uint64_t vaddr);

#endif
