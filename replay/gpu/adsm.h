/* The copy protocols of seed 004's ADSM (Sec. 6.3.3, Fig. 6.2) for
 * programs that share their GPU buffers by pointer: which bytes move
 * between the host's memory and the accelerator's, and when. Timing is the
 * caller's: every block moved is handed to its move function.
 *   batch    every buffer goes to the GPU at each launch and comes back at
 *            its end (marked dirty); the CPU's accesses are not watched;
 *   lazy     blocks of `block` bytes (a buffer's last one may be shorter)
 *            are read-only, dirty or invalid: allocated read-only; a CPU
 *            store to a read-only block faults and makes it dirty; a CPU
 *            access to an invalid one faults and brings it back (read-only
 *            after a load, dirty after a store); a launch sends the dirty
 *            blocks and invalidates every block; the end moves nothing;
 *   rolling  as lazy, and once more than the rolling size are dirty the
 *            oldest dirty block goes to the GPU at once (eagerly, while the
 *            CPU goes on) and is read-only again; the rolling size is
 *            rolling_size + rolling_growth x the buffers allocated so far. */
#ifndef REPLAY_GPU_ADSM_H
#define REPLAY_GPU_ADSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rp_copy_policy { RP_COPY_LAUNCH, RP_COPY_BATCH, RP_COPY_LAZY, RP_COPY_ROLLING };
enum rp_adsm_state { RP_ADSM_READ_ONLY, RP_ADSM_DIRTY, RP_ADSM_INVALID };

/* A block of BYTES at ADDR moves to the GPU (TO_GPU) or back; EAGER: a
 * rolling update's, which nobody waits for. */
typedef void (*rp_adsm_move_fn)(void *ctx, bool to_gpu, uint64_t addr, uint64_t bytes, bool eager);

struct rp_adsm_region {
    uint64_t addr, bytes;
    uint64_t nblocks;
    uint8_t *state;                /* per block, enum rp_adsm_state */
    uint64_t *stamp;               /* per block: when it last became dirty (rolling's age) */
};

struct rp_adsm_stats {
    uint64_t bytes_to_gpu, bytes_to_cpu, transfers_to_gpu, transfers_to_cpu;
    uint64_t faults, eager_transfers, eager_bytes;
};

struct rp_adsm {
    enum rp_copy_policy policy;
    uint64_t block, rolling_size, rolling_growth, allocations;
    rp_adsm_move_fn move;
    void *ctx;
    struct rp_adsm_region *regions; /* sorted by address, disjoint */
    size_t nregions, regions_cap;
    /* rolling: dirty blocks oldest first, as (address, stamp); an entry
     * whose block's stamp differs is stale and skipped */
    struct rp_adsm_dirty { uint64_t addr, stamp; } *fifo;
    size_t fifo_head, fifo_n, fifo_cap;
    uint64_t ndirty, next_stamp;
    struct rp_adsm_stats st;
};

void rp_adsm_init(struct rp_adsm *a, enum rp_copy_policy policy, uint64_t block, uint64_t rolling_size,
                  uint64_t rolling_growth, rp_adsm_move_fn move, void *ctx);
void rp_adsm_free(struct rp_adsm *a);
/* A buffer allocated (false: out of memory) and freed. */
bool rp_adsm_alloc(struct rp_adsm *a, uint64_t addr, uint64_t bytes);
void rp_adsm_release(struct rp_adsm *a, uint64_t addr);
/* A CPU access to VA: true when it faults (its blocks moved already);
 * false for addresses in no buffer, and always under batch. False is also
 * returned with OOM set when the rolling queue could not grow. */
bool rp_adsm_touch(struct rp_adsm *a, uint64_t va, bool write, bool *oom);
/* A kernel launch; the end of the kernels a thread waited for. */
void rp_adsm_launch(struct rp_adsm *a);
void rp_adsm_done(struct rp_adsm *a);
/* The rolling size now. */
uint64_t rp_adsm_rolling_limit(const struct rp_adsm *a);
/* The range the buffers span, [*lo, *hi) (empty: lo > hi). */
void rp_adsm_span(const struct rp_adsm *a, uint64_t *lo, uint64_t *hi);

#endif
