/* Turning one memory instruction's active lanes into block requests, as the
 * vector memory unit's coalescer does before anything reaches the L1:
 *   per instruction: one request per 64-byte block the lanes touch, covering
 *     the bytes they touch in it (what SI hardware does, seed 001 Sec. 3.4.3);
 *   per lane: one request per lane (two when its access straddles a block),
 *     left for the L1's MSHR to merge (what M2S-CGM's vector memory unit does; the
 *     seed's coalescer-size study needs it);
 *   per subwavefront: as per instruction, but over each 16-lane quarter of
 *     the wavefront apart (SI's stores: the four subwavefronts reach the L1
 *     in different cycles and are merged there, seed 001 Sec. 3.5.2, 4.5.3). */
#ifndef REPLAY_GPU_COALESCE_H
#define REPLAY_GPU_COALESCE_H

#include <stdint.h>

#include "cgm/sirec.h"

#define RP_BLOCK_BYTES 64u
/* A lane's access spans two blocks at most (at most 64 bytes). */
#define RP_MREQ_MAX (2u * CGM_SI_LANES)
/* The lanes a subwavefront issues together (a SIMD's 16 lanes). */
#define RP_SUBWAVE_LANES 16u

enum rp_coalesce_mode { RP_PER_INSTRUCTION, RP_PER_LANE, RP_PER_SUBWAVE };

struct rp_mreq {
    uint64_t vaddr;     /* [vaddr, vaddr + bytes) lies in one block */
    uint32_t bytes;
};

/* The requests of the active lanes of D, each accessing SIZE bytes (1..64),
 * into OUT (RP_MREQ_MAX entries) in the order of the first lane touching
 * each block (per subwavefront: the first subwavefront's, then the
 * second's, ...). Returns their number. */
unsigned rp_coalesce(const struct cgm_si_dyn *d, unsigned size, enum rp_coalesce_mode mode, struct rp_mreq *out);

/* The requests of one address (scalar loads): one or two blocks. */
unsigned rp_split_blocks(uint64_t addr, unsigned size, struct rp_mreq *out);

#endif
