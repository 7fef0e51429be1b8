/* Turning one memory instruction's active lanes into block requests, as the
 * vector memory unit's coalescer does before anything reaches the L1:
 *   per instruction: one request per 64-byte block the lanes touch, covering
 *     the bytes they touch in it (what SI hardware does, seed 001 Sec. 3.4.3);
 *   per lane: one request per lane (two when its access straddles a block),
 *     left for the L1's MSHR to merge (what M2S-CGM's vector memory unit does; the
 *     seed's coalescer-size study needs it). */
#ifndef REPLAY_GPU_COALESCE_H
#define REPLAY_GPU_COALESCE_H

#include <stdint.h>

#include "cgm/sirec.h"

#define RP_BLOCK_BYTES 64u
/* A lane's access spans two blocks at most (at most 64 bytes). */
#define RP_MREQ_MAX (2u * CGM_SI_LANES)

struct rp_mreq {
    uint64_t vaddr;     /* [vaddr, vaddr + bytes) lies in one block */
    uint32_t bytes;
};

/* The requests of the active lanes of D, each accessing SIZE bytes (1..64),
 * into OUT (RP_MREQ_MAX entries) in the order of the first lane touching
 * each block; PER_LANE selects the second policy. Returns their number. */
unsigned rp_coalesce(const struct cgm_si_dyn *d, unsigned size, int per_lane, struct rp_mreq *out);

/* The requests of one address (scalar loads): one or two blocks. */
unsigned rp_split_blocks(uint64_t addr, unsigned size, struct rp_mreq *out);

#endif
