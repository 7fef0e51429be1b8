/* Private state of the MESI system: the node table, the first-level-cache
 * and directory halves shared by the caches built on them, and the CPU
 * core and L3 slice controllers. */
#ifndef CGM_MESI_INTERNAL_H
#define CGM_MESI_INTERNAL_H

#include "cgm/coh.h"

/* A row the tables do not have (a case that is no table's). */
#define ROW_NONE MESI_NROWS

/* ---- the first-level-cache half ---------------------------------------------
 * A data cache with a write-back queue (Table 3.2; the GPU vector L1's
 * Table 3.6 has the same substates). An access is classified into its
 * substate once; each cache maps (substate, load/store) to its own table's
 * row and dispatches on the substate. */
enum l1_sub {
    L1_M, L1_E, L1_S,
    L1_S_PENDING_UPGRADE,  /* shared, an upgrade of it in flight */
    L1_I,
    L1_I_WB_WRITABLE,      /* in the write-back queue and may come back into the array */
    L1_I_WB_NON_WRITABLE,  /* in the write-back queue, on its way out */
    L1_NSUBS
};

/* A write-back queue entry: an evicted block, readable until it is sent
 * (writable), then waiting for its acknowledgement. The data cache's queue
 * writes into the L2; the L2's queue writes to the L3. */
struct core_wb {
    uint64_t block, data;
    bool used, sent, dirty;
    bool flushing;   /* L2 victim: waits for the data cache's flush acknowledgement */
};

/* The substate of a first-level access to block: l is its line (NULL if
 * absent), wb its write-back queue entry (NULL if none), wb_writable
 * whether that entry may come back into the array. */
enum l1_sub l1_classify(const struct cgm_cache_line *l, const struct core_wb *wb, bool wb_writable);
struct core_wb *wbq_find(struct core_wb *q, unsigned n, uint64_t block);
struct core_wb *wbq_free(struct core_wb *q, unsigned n);

/* ---- the directory half -------------------------------------------------------
 * A directory line's substate as Tables 3.4, 3.5 and 3.7 name them. A
 * request is classified into its substate once (each directory decides what
 * Owned, Held and Pending mean for it); each directory maps (substate,
 * request) to its own table's row and dispatches on the substate. */
enum dir_sub {
    DIR_M, DIR_M_OWNED, DIR_M_PENDING_OWNED, DIR_M_PENDING, DIR_M_HELD,
    DIR_E, DIR_E_OWNED, DIR_E_PENDING_OWNED, DIR_E_PENDING, DIR_E_HELD,
    DIR_S,                  /* shared (the GPU L2's S_Clean) */
    DIR_S_DIRTY_IN_NODE,    /* the GPU L2: shared among its holders, exclusive at its parent */
    DIR_S_PENDING_OWNED, DIR_S_PENDING,
    DIR_I,
    DIR_I_WB_FLUSH_CONFLICT, DIR_I_WB_NON_WRITABLE, DIR_I_WB_WRITABLE, DIR_I_WB_DIR_CONFLICT,
    DIR_NSUBS
};
/* The request column of the tables. */
enum dir_req { DREQ_FETCH, DREQ_LOAD, DREQ_STORE, DREQ_UPGRADE, DREQ_N };
enum dir_req dir_req_of(uint8_t msg_type);
/* The stable substate of a line that is not pending: excl (E or M) with
 * m telling which, the owner relation to the requester. */
enum dir_sub dir_held_sub(bool m, bool owned, bool held);
/* The pending substate of a line of state st (MESI_S/E/M); owned: the
 * operation pending waits for the requester itself. */
enum dir_sub dir_pending_sub(uint8_t st, bool owned);

/* A directory write-back queue entry (a victim): it first takes the block
 * back from its holders (flushing), then may merge back (writable) until
 * it is written to the parent (writing); requests meanwhile join it. */
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
struct dir_wb *dwbq_find(struct dir_wb *q, unsigned n, uint64_t block);
struct dir_wb *dwbq_free(struct dir_wb *q, unsigned n);

/* ---- nodes -------------------------------------------------------------------- */
struct coh_node {
    uint8_t kind;      /* enum cgm_coh_node_kind */
    int index;         /* among the nodes of its kind */
    int holder;        /* its holder index at its directory; -1 if none */
};

/* ---- the CPU core: L1I, L1D with its write-back queue, L2 ------------------- */

/* A request that found the core's resources full, replayed later. */
struct stalled {
    uint64_t block, tag, value;
    uint8_t op;
};

/* What an L2 line waits to do once its own request is answered: a forward
 * the directory sent it meanwhile (the directory served the request as a
 * *_Pending_Owned row; the forward joins afterwards). In line->pending;
 * line->requester and line->instr are the forward's. */
enum core_join { JOIN_NONE = 0, JOIN_GET_FWD, JOIN_GETX_FWD };

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

/* ---- the L3 slice: the directory over the cores ------------------------------- */

/* Line fields used by the directory: state (MESI_S/E/M), holders (sharers,
 * owner), dirty (with respect to memory), pending (a DP_* below),
 * requester (the holder being served) and req (its request type). */
enum { DP_NONE = 0, DP_MEM, DP_FWD, DP_INV };
/* line->early_wb while a GetX forward is pending: the requester has already
 * written the block back (dirty or clean). */
enum { EWB_NONE = 0, EWB_DIRTY, EWB_CLEAN };

struct slice {
    int id;
    int node;
    struct cgm_cache_array l3;
    struct dir_wb *wb;
    struct cgm_coh_slice_stats st;
};

struct cgm_coh_sys {
    struct cgm_coh_config cfg;
    struct cgm_coh_env env;
    struct coh_node *nodes;
    unsigned nnodes;
    struct core *cores;
    struct slice *slices;
    unsigned l3_holders;   /* holders the L3 directory tracks */
    uint64_t *mem;         /* memory contents per block */
    uint64_t rows[MESI_NROWS];
    uint64_t msgs[COH_NTYPES];
    struct cgm_coh_msg_stats *node_msgs; /* per node */
};

static inline void coh_row(struct cgm_coh_sys *s, enum cgm_mesi_row r)
{
    if (r != ROW_NONE)
        s->rows[r]++;
}
void coh_send(struct cgm_coh_sys *s, struct cgm_coh_msg m);
int coh_slice_node(const struct cgm_coh_sys *s, uint64_t block);
/* The node of holder h at the L3 directory, for block. */
int coh_l3_holder_node(const struct cgm_coh_sys *s, int h, uint64_t block);

void core_deliver(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m);
void core_wake(struct cgm_coh_sys *s, struct core *c, uint64_t block, int what);
int core_access(struct cgm_coh_sys *s, struct core *c, uint8_t op, uint64_t block, uint64_t tag,
                uint64_t value);
void dir_deliver(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m);
void dir_wake(struct cgm_coh_sys *s, struct slice *sl, uint64_t block, int what);

#endif
