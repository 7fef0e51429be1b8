/* Branch prediction trained on the recorded outcomes: a table of 2-bit
 * saturating counters indexed by the branch address (bimodal) or by the
 * address xor the global history (gshare); a last-target buffer for
 * indirect jumps and calls; a return-address stack. */
#ifndef REPLAY_BPRED_H
#define REPLAY_BPRED_H

#include <stdbool.h>
#include <stdint.h>

#define RP_RAS_DEPTH 16

struct rp_bpred {
    uint8_t *ctr;
    uint64_t *target;
    uint64_t mask;
    unsigned history_bits;
    uint64_t history;
    bool gshare;
    uint64_t ras[RP_RAS_DEPTH];
    unsigned ras_top, ras_n;
};

int rp_bpred_init(struct rp_bpred *b, bool gshare, uint64_t entries, unsigned history_bits);
void rp_bpred_free(struct rp_bpred *b);
/* Predicts a conditional branch at PC, trains it with TAKEN; true if the
 * prediction was right. */
bool rp_bpred_cond(struct rp_bpred *b, uint64_t pc, bool taken);
/* Indirect jump or call: was the last target seen at PC this one? */
bool rp_bpred_indirect(struct rp_bpred *b, uint64_t pc, uint64_t target);
void rp_bpred_call(struct rp_bpred *b, uint64_t return_addr);
bool rp_bpred_ret(struct rp_bpred *b, uint64_t target);

#endif
