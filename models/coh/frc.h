/* Seed 001's Fetch-and-Replacement Cache (Ch. 5-6), beside each GPU L2
 * bank: a few entries that hold a missing block while it is fetched (its
 * L2 way is not taken: the way's block stays a hit through the fetch),
 * swap it with the L2's victim when it arrives, and then hold the victim
 * while it is evicted (its CUs' copies flushed, its data written back)
 * instead of holding an L2 way transient through eviction and fetch
 * (Fig. 6.2). The L2's tags are looked up before the FRC's (Sec. 6.4); a
 * miss that finds no free entry in its FRC set is a conventional one.
 *
 * An entry's tag is the block it fetches or holds arrived, in that block's
 * set, so a block is in one entry at most and frc_find finds it. A victim
 * stays in the entry it swapped into, whose set is the fetched block's, not
 * its own: its write-back entry names the entry (dir_wb.frc_entry), and
 * frc_find does not look for victims. The bank's lower side
 * (gpu_l2_below.c) runs the entries; this is their storage. */
#ifndef CGM_FRC_H
#define CGM_FRC_H

#include <stdbool.h>
#include <stdint.h>

#include "cgm/cache.h"

enum frc_state {
    FRC_FREE,
    FRC_FETCHING,   /* the bank's request below is out (shared) */
    FRC_FETCHING_X, /* ... for an exclusive copy */
    FRC_ARRIVED,    /* the block is here (data, fill state), waiting to swap into the L2 */
    FRC_EVICTING,   /* the L2's victim, leaving through the bank's write-back queue */
};

struct frc {
    struct cgm_cache_array a; /* the entries (a line's state an enum frc_state, data the block's) */
    uint8_t *fill;            /* [entry] an arrived block's state at the bank (FRC_ARRIVED) */
};

/* entries 0: off (every call below then finds nothing and takes nothing).
 * ways 0: fully associative. The sets are indexed as the bank's L2
 * (set_shift, low_bits: cgm_cache_array_keep_low_bits). false if out of
 * memory or the geometry is bad. */
bool frc_init(struct frc *f, unsigned entries, unsigned ways, unsigned set_shift, unsigned low_bits);
void frc_free(struct frc *f);
static inline bool frc_on(const struct frc *f) { return f->a.lines != 0; }
/* The entry fetching block or holding it arrived, or NULL. */
struct cgm_cache_line *frc_find(struct frc *f, uint64_t block);
/* A free entry of block's set given to it in state st, or NULL if none. */
struct cgm_cache_line *frc_take(struct frc *f, uint64_t block, enum frc_state st);
/* The entry now holds block (the victim it swapped with) in state st;
 * frc_find no longer finds it. */
void frc_retag(struct frc *f, struct cgm_cache_line *e, uint64_t block, enum frc_state st);
void frc_release(struct frc *f, struct cgm_cache_line *e);
/* For checkers: how many entries hold block in any state (every entry
 * looked at; at most one if right). */
unsigned frc_count(const struct frc *f, uint64_t block);

#endif
