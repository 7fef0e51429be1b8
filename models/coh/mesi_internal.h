/* The MESI protocol's own parts: the first-level-cache and directory
 * halves its caches are built on (the substates its tables name), what its
 * lines wait for, and its controllers per kind (mesi_core.c, mesi_dir.c,
 * mesi_gpu_l1.c, mesi_gpu_l2.c) with their checker views and dumps
 * (mesi_views.c). */
#ifndef CGM_MESI_INTERNAL_H
#define CGM_MESI_INTERNAL_H

#include "cgm/coh_mesi.h"
#include "coh_internal.h"

/* A row the tables do not have (a case that is no table's). */
#define ROW_NONE MESI_NROWS

static inline void coh_row(struct cgm_coh_sys *s, enum cgm_mesi_row r)
{
    if (r != ROW_NONE)
        coh_count_row(s, CGM_COH_PROTOCOL_mesi, r);
}

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

/* The substate of a first-level access to block: l is its line (NULL if
 * absent), wb its write-back queue entry (NULL if none), wb_writable
 * whether that entry may come back into the array. */
enum l1_sub l1_classify(const struct cgm_cache_line *l, const struct core_wb *wb, bool wb_writable);

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

/* The substate of a request for a block absent from directory array a:
 * I, or one of the I_WB_* if its victim entry wb (NULL if none) holds it.
 * For I_WB_Writable, *victim is the way it may merge back into (one whose
 * block leaves without a flush). */
enum dir_sub dir_absent_sub(struct coh_array *a, const struct dir_wb *wb, uint64_t block,
                            struct cgm_cache_line **victim);

/* What an L2 line waits to do once its own request is answered: a forward
 * the directory sent it meanwhile (the directory served the request as a
 * *_Pending_Owned row; the forward joins afterwards). In line->pending;
 * line->requester and line->instr are the forward's. */
enum core_join { JOIN_NONE = 0, JOIN_GET_FWD, JOIN_GETX_FWD };

/* Line fields used by the directory: state (MESI_S/E/M), holders (sharers,
 * owner), dirty (with respect to memory), pending (a DP_* below),
 * requester (the holder being served) and req (its request type). */
enum { DP_NONE = 0, DP_MEM, DP_FWD, DP_INV,
       DP_MEM_UNTRACKED /* memory read for a GPU bank served untracked; requester: its node */ };
/* line->early_wb while a GetX forward is pending: the requester has already
 * written the block back (dirty or clean). */
enum { EWB_NONE = 0, EWB_DIRTY, EWB_CLEAN };

/* What a bank's line waits for (line->pending): the holder's answer to a
 * recall serving a CU (requester, req: the CU and its request), the other
 * holders' invalidation acks (then PutX to the requester, or the bank's
 * own GetX), or the CUs' answers to a parent's message (req: its type,
 * requester: the node a forward's block goes to, instr). */
enum l2_pending { L2P_NONE = 0, L2P_RECALL, L2P_INVAL, L2P_INVAL_THEN_MISS, L2P_PARENT_RECALL, L2P_PARENT_FLUSH };

/* A core's L1s give their copies of l2's block back to the L2: the data
 * cache's newer data (its line, written, or its write-back queue entry)
 * comes into l2 (then M and written); then drop_l1 takes the L1 copies. */
void mesi_core_pull_l1(struct cgm_coh_sys *s, struct core *c, struct cgm_cache_line *l2);
void mesi_core_drop_l1(struct core *c, uint64_t block);

/* The controllers, as enum cgm_coh_node_kind's operations (ctrl: struct
 * core, slice, gpu_l1, gpu_l2). */
extern const struct coh_kind_ops mesi_core_ops, mesi_slice_ops, mesi_gpu_l1_ops, mesi_gpu_l2_ops;
void core_deliver(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_msg *m);
void core_wake(struct cgm_coh_sys *s, struct core *c, uint64_t block, int what);
int core_access(struct cgm_coh_sys *s, struct core *c, const struct cgm_coh_req *r);
void dir_deliver(struct cgm_coh_sys *s, struct slice *sl, const struct cgm_coh_msg *m);
void dir_wake(struct cgm_coh_sys *s, struct slice *sl, uint64_t block, int what);
int gpu_l1_access(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_req *r);
void gpu_l1_deliver(struct cgm_coh_sys *s, struct gpu_l1 *l1, const struct cgm_coh_msg *m);
void gpu_l1_wake(struct cgm_coh_sys *s, struct gpu_l1 *l1, uint64_t block, int what);
void gpu_l2_deliver(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m);
void gpu_l2_wake(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, int what);

/* The checker views and the dumps of block at each kind (mesi_views.c). */
unsigned mesi_core_copy(const struct cgm_coh_sys *s, void *core, uint64_t block, uint64_t *data);
unsigned mesi_gpu_l1_copy(const struct cgm_coh_sys *s, void *l1, uint64_t block, uint64_t *data);
unsigned mesi_gpu_l2_copy(const struct cgm_coh_sys *s, void *bank, uint64_t block, uint64_t *data);
void mesi_core_dump(const struct cgm_coh_sys *s, void *core, uint64_t block, FILE *out);
void mesi_slice_dump(const struct cgm_coh_sys *s, void *slice, uint64_t block, FILE *out);
void mesi_gpu_l1_dump(const struct cgm_coh_sys *s, void *l1, uint64_t block, FILE *out);
void mesi_gpu_l2_dump(const struct cgm_coh_sys *s, void *bank, uint64_t block, FILE *out);
/* GPU L2 banks: whether one takes a CU's request now (mesi_gpu_l2.c). */
bool gpu_l2_admits(struct cgm_coh_sys *s, struct gpu_l2 *b);
bool gpu_l2_refusal_counted(const struct gpu_l2 *b);

#endif
