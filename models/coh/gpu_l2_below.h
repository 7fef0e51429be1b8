/* A GPU L2 bank's lower side, whichever protocol its upper side (towards
 * the CUs) runs: its requests to its parent (memory, the L3 serving it
 * untracked, or the L3 directory tracking the GPU as one holder), its
 * victims' way out through the write-back queue, the parent's messages
 * that wait for a line to settle, and the answers to the parent's
 * forwards, invalidations and flushes (gpu_l2_below.c), the serialized
 * victim policy and the FRC. MESI's bank (mesi_gpu_l2.c) and si's
 * (si_gpu_l2.c) are built on it. */
#ifndef CGM_GPU_L2_BELOW_H
#define CGM_GPU_L2_BELOW_H

#include "coh_internal.h"

/* The bank sends m to node (a core that asked for a flush, or the parent). */
void gpu_l2_to_node(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, struct cgm_coh_msg m);
/* The node of block's parent directory (the L3 slice; unused with memory). */
int gpu_l2_parent_node(const struct cgm_coh_sys *s, uint64_t block);
/* The bank's own request for a block it lacks (exclusive: to write it):
 * a memory read, or Get/GetX to the L3. */
void gpu_l2_parent_get(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool exclusive);
/* A miss of block, whose way's state (IS, or IM if exclusive) is set,
 * asks the parent: at once, or (gpu.l2.victim_policy = serialized, its
 * victim victim_block having gone to the write-back queue) once the victim
 * has left: the victim is sent as soon as its CUs' copies are back
 * (gpu_l2_victim_flushed) and its leaving (gpu_l2_victim_gone, which every
 * bank's wb_free calls first) sends the fetch. had_victim: the way held a
 * block before. */
void gpu_l2_fetch(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool exclusive, bool had_victim,
                  uint64_t victim_block);
/* The CUs gave victim wb back: true if a miss waits for it (it is then to
 * be sent at once; its invalidate part is counted). */
bool gpu_l2_victim_flushed(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb);
void gpu_l2_victim_gone(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb);
/* Victim wb goes to the parent: its data, or (the L3 tracks the GPU) a
 * notice that a clean exclusive block left; wb_send counts it and marks
 * it writing, wb_transmit (re)sends it. */
void gpu_l2_wb_transmit(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb);
void gpu_l2_wb_send(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb);
/* A parent's message waits until its block's line settles; undefer takes
 * the one waiting for block (at most one per block) into *m, false if none. */
void gpu_l2_defer(struct gpu_l2 *b, const struct cgm_coh_msg *m);
bool gpu_l2_undefer(struct gpu_l2 *b, uint64_t block, struct cgm_coh_msg *m);
/* The bank's answer to the parent's forward, invalidation or flush of
 * line l (its req, requester and instr fields name the message), once no
 * CU holds the block: the block to the requester and Fwd_Ack (S after
 * GetFwd, gone after GetXFwd), or Inval_Ack (gone). */
void gpu_l2_answer_parent(struct cgm_coh_sys *s, struct gpu_l2 *b, struct cgm_cache_line *l);
/* The state a parent's PutS, PutClnX or PutX m gives the bank's line (E
 * when the parent does not track the GPU), after the Unblock a forwarded
 * block owes the L3 directory. */
uint8_t gpu_l2_fill_state(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m);
/* What the bank's protocol does for the lower side's messages: a core's
 * flush of a block from the GPU's caches, the parent's forward,
 * invalidation or flush, the block arriving for the bank's own request
 * (the line's new state), and a victim that has left (the requests that
 * joined it run again). */
struct gpu_l2_upper {
    void (*core_flush)(struct cgm_coh_sys *s, struct gpu_l2 *b, int node, uint64_t block);
    void (*parent_msg)(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m);
    void (*fill)(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, uint8_t state, uint64_t data);
    void (*wb_free)(struct cgm_coh_sys *s, struct gpu_l2 *b, struct dir_wb *wb);
    /* The FRC's block swaps into the L2: the bank chooses a victim that may
     * go and evicts it (as at a conventional miss), gives its way to block
     * as a line waiting for its fill (which follows) and returns the way,
     * the victim's block in *victim if the way had one (*had); NULL (and
     * nothing done) if no way may go now. */
    struct cgm_cache_line *(*frc_place)(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool *had,
                                        uint64_t *victim);
};

/* ---- the FRC (frc.h), run here for every bank protocol --------------------
 * A miss with a free entry in its FRC set takes it (gpu_l2_frc_miss, once
 * its MSHR entry is taken) instead of a way: the request below follows
 * the FRC's tag look-up (COH_WAKE_FRC_FETCH); the block arrives into the
 * entry and swaps with the L2's victim (COH_WAKE_FRC_SWAP, u->frc_place,
 * then u->fill as for a conventional miss); the victim leaves through the
 * write-back queue and keeps the entry until it has left. For the parent
 * (in C-L3 the L3 directory, which tracks the GPU as one holder), a block
 * in the FRC is the bank's as a line's would be: a fetching one's messages
 * are a line in flight's, an arrived one's wait for the swap, a victim's
 * are answered from its write-back entry. */
bool gpu_l2_frc_miss(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, bool exclusive);
/* The FRC is fetching block or holds it arrived: its requests wait in the
 * MSHR entry as a line's in flight do. */
bool gpu_l2_frc_pending(struct gpu_l2 *b, uint64_t block);
/* The parent's message m for a block in the FRC (fetching or arrived):
 * true if handled. */
bool gpu_l2_frc_parent_msg(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m);
/* A CU's request finds block leaving through the write-back queue and is
 * served from it or joins it: an FRC hit if it is an FRC entry's victim. */
void gpu_l2_frc_victim_hit(struct gpu_l2 *b, const struct dir_wb *wb);
/* Victim wb's write-back entry is going (left, or merged back into the
 * L2): its FRC entry, if it had one, frees. */
void gpu_l2_frc_victim_left(struct gpu_l2 *b, struct dir_wb *wb);
/* The parent's forward, invalidation or flush m finds no line of its
 * block: a writable victim wb (NULL if none) is sent first for a forward
 * (so the directory has the data when the Fwd_Nack arrives) or answers a
 * flush with its data and is gone; else Fwd_Nack or Inval_Ack. */
void gpu_l2_parent_msg_absent(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m, struct dir_wb *wb,
                              const struct gpu_l2_upper *u);
/* A message to the bank from anything but a CU: a core's Flush, the
 * parent's forwards, invalidations, flushes, data, NACKs and write-back
 * acknowledgements, dispatched to u (an unexpected one is a protocol
 * error, reported with the block's dump). */
void gpu_l2_deliver_below(struct cgm_coh_sys *s, struct gpu_l2 *b, const struct cgm_coh_msg *m,
                          const struct gpu_l2_upper *u);
/* A wake-up of the lower side: COH_WAKE_RETRY resends what the parent
 * refused (the request of a line in IS or IM, or a write-back being
 * written), COH_WAKE_WB_DRAIN sends a writable victim, COH_WAKE_MEM_READ
 * and _WRITE are memory's answers. */
void gpu_l2_wake_below(struct cgm_coh_sys *s, struct gpu_l2 *b, uint64_t block, int what,
                       const struct gpu_l2_upper *u);

#endif
