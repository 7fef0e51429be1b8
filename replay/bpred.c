/* Bimodal and gshare predictors, target buffer and return stack. */
#include "replay/bpred.h"

#include <stdlib.h>
#include <string.h>

int rp_bpred_init(struct rp_bpred *b, enum rp_predictor kind, uint64_t entries, unsigned history_bits,
                  uint8_t init)
{
    memset(b, 0, sizeof *b);
    b->ctr = malloc(entries);
    b->target = calloc(entries, sizeof *b->target);
    if (!b->ctr || !b->target)
        return -1;
    memset(b->ctr, init > 3 ? 3 : init, entries);
    b->mask = entries - 1;
    b->kind = kind;
    b->history_bits = history_bits;
    while ((1ull << b->entry_bits) < entries)
        b->entry_bits++;
    return 0;
}

void rp_bpred_free(struct rp_bpred *b)
{
    free(b->ctr);
    free(b->target);
    b->ctr = NULL;
    b->target = NULL;
}

/* x86 instructions start at any byte: fold the low bits in. */
static uint64_t pc_index(uint64_t pc) { return pc ^ (pc >> 13); }

bool rp_bpred_cond(struct rp_bpred *b, uint64_t pc, bool taken)
{
    uint64_t hist = b->history & ((1ull << b->history_bits) - 1), i;
    if (b->kind == RP_GSELECT) {
        unsigned abits = b->entry_bits - b->history_bits;
        i = (hist << abits) | (pc & ((1ull << abits) - 1));
    } else {
        i = pc_index(pc);
        if (b->kind == RP_GSHARE)
            i ^= hist;
    }
    uint8_t *c = &b->ctr[i & b->mask];
    bool predicted = *c >= 2;
    if (taken && *c < 3)
        (*c)++;
    else if (!taken && *c > 0)
        (*c)--;
    b->history = (b->history << 1) | taken;
    return predicted == taken;
}

bool rp_bpred_indirect(struct rp_bpred *b, uint64_t pc, uint64_t target)
{
    uint64_t *t = &b->target[pc_index(pc) & b->mask];
    bool hit = *t == target;
    *t = target;
    return hit;
}

void rp_bpred_call(struct rp_bpred *b, uint64_t return_addr)
{
    b->ras_top = (b->ras_top + 1) % RP_RAS_DEPTH;
    b->ras[b->ras_top] = return_addr;
    if (b->ras_n < RP_RAS_DEPTH)
        b->ras_n++;
}

bool rp_bpred_ret(struct rp_bpred *b, uint64_t target)
{
    if (!b->ras_n)
        return false;
    uint64_t predicted = b->ras[b->ras_top];
    b->ras_top = (b->ras_top + RP_RAS_DEPTH - 1) % RP_RAS_DEPTH;
    b->ras_n--;
    return predicted == target;
}
