/* Branch prediction trained on the recorded outcomes: a table of 2-bit
 * saturating counters indexed by the branch address (bimodal), by the
 * address xor the global history (gshare), or by history bits placed above
 * the low address bits (gselect, as valgrind's cachegrind simulates with 7
 * and 7 bits); a last-target buffer for indirect jumps and calls; a
 * return-address stack. */
#ifndef REPLAY_BPRED_H
#define REPLAY_BPRED_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/config.h"

#define RP_RAS_DEPTH 16

struct rp_bpred {
    uint8_t *ctr;
    uint64_t *target;
    uint64_t mask;
    unsigned history_bits;
    uint64_t history;
    enum rp_predictor kind;
    unsigned entry_bits;
    uint64_t ras[RP_RAS_DEPTH];
    unsigned ras_top, ras_n;
};

/* ENTRIES a power of two; INIT the counters' starting value (0..3). */
int rp_bpred_init(struct rp_bpred *b, enum rp_predictor kind, uint64_t entries, unsigned history_bits,
                  uint8_t init);
void rp_bpred_free(struct rp_bpred *b);
/* Predicts a conditional branch at PC, trains it with TAKEN; true if the
 * prediction was right. */
bool rp_bpred_cond(struct rp_bpred *b, uint64_t pc, bool taken);
/* Indirect jump or call: was the last target seen at PC this one? */
bool rp_bpred_indirect(struct rp_bpred *b, uint64_t pc, uint64_t target);
void rp_bpred_call(struct rp_bpred *b, uint64_t return_addr);
bool rp_bpred_ret(struct rp_bpred *b, uint64_t target);

#endif
