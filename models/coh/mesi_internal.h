/* Private state of the MESI system, shared by the core and directory halves. */
#ifndef CGM_MESI_INTERNAL_H
#define CGM_MESI_INTERNAL_H

#include "cgm/coh.h"

/* A write-back queue entry: an evicted block, readable until it is sent
 * (writable), then waiting for its acknowledgement. The data cache's queue
 * writes into the L2; the L2's queue writes to the L3. */
struct core_wb {
    uint64_t block, data;
    bool used, sent, dirty;
    bool flushing;   /* L2 victim: waits for the data cache's flush acknowledgement */
};

/* A request that found the core's resources full, replayed later. */
struct stalled {
    uint64_t block, tag, value;
    uint8_t op;
};

struct core {
    int id;
    struct cgm_cache_array l1d, l1i, l2;
    struct cgm_mshr mshr;     /* the L2's */
    struct core_wb *wb;       /* the L2's write-back queue */
    struct core_wb *l1wb;     /* the data cache's write-back queue */
    struct stalled *stall;
    unsigned nstall, capstall;
    bool stall_wake_pending;
    bool replaying;           /* statistics: a replayed request is not a new access */
    struct cgm_coh_core_stats st;
};

/* A directory write-back queue entry (an L3 victim). */
enum { DWB_FLUSHING = 1, DWB_WRITABLE, DWB_WRITING };
struct joined { int src; uint8_t type; bool instr; };
struct dir_wb {
    uint64_t block, data;
    bool dirty;
    uint8_t state;
    unsigned acks;
    struct joined *join;
    unsigned njoin;
};

/* Line fields used by the directory: state (MESI_S/E/M), sharers, owner,
 * dirty (with respect to memory), pending (a DP_* below), requester and req. */
enum { DP_NONE = 0, DP_MEM, DP_FWD, DP_INV };
/* line->req while a GetX forward is pending and the requester has already
 * written the block back (dirty or clean). */
enum { REQ_WB_DIRTY = COH_NTYPES + 1, REQ_WB_CLEAN };

struct slice {
    int id;
    struct cgm_cache_array l3;
    struct dir_wb *wb;
    struct cgm_coh_slice_stats st;
};

struct cgm_coh_sys {
    struct cgm_coh_config cfg;
    struct cgm_coh_env env;
    struct core *cores;
    struct slice *slices;
    uint64_t *mem;         /* memory contents per block */
    uint64_t rows[MESI_NROWS];
    uint64_t msgs[COH_NTYPES];
    struct cgm_coh_msg_stats *node_msgs; /* cores, then slices */
};

static inline void coh_row(struct cgm_coh_sys *s, enum cgm_mesi_row r) { s->rows[r]++; }
void coh_send(struct cgm_coh_sys *s, struct cgm_coh_msg m);
int coh_slice_node(const struct cgm_coh_sys *s, uint64_t block);

void core_deliver(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m);
void core_wake(struct cgm_coh_sys *s, struct core *c, uint64_t block, int what);
int core_access(struct cgm_coh_sys *s, struct core *c, uint8_t op, uint64_t block, uint64_t tag,
                uint64_t value);
void dir_deliver(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m);
void dir_wake(struct cgm_coh_sys *s, struct slice *sl, uint64_t block, int what);

#endif
