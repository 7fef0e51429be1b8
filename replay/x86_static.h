/* The trace's x86 static code table, loaded once: each instruction's
 * class and length from the table, and its register sources and
 * destinations derived from the instruction bytes with capstone (the trace
 * does not carry them). Sub-registers are folded into their full register
 * (al, ax, eax -> rax) so dependencies follow the architectural register. */
#ifndef REPLAY_X86_STATIC_H
#define REPLAY_X86_STATIC_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/trace.h"

#define RP_SRC_MAX 8
#define RP_DST_MAX 6
#define RP_REGS_MAX 256 /* canonical registers (capstone has fewer families) */

struct rp_sinsn {
    uint64_t addr;
    uint8_t len, cls, nmem;
    uint8_t nsrc, ndst;
    uint8_t src[RP_SRC_MAX], dst[RP_DST_MAX];
};

struct rp_static {
    struct rp_sinsn *insn;     /* in address order */
    size_t n;
    uint32_t *hash;            /* open addressing: index + 1, 0 empty */
    size_t hmask;
    unsigned undecodable;      /* bytes capstone refused: no register dependencies */
};

/* Loads the "x86.static" section of R. Returns 0, or -1 with ERR naming
 * the trace and the fault. */
int rp_static_load(struct rp_static *s, struct cgm_reader *r, const char *trace_name, char *err,
                   size_t errlen);
void rp_static_free(struct rp_static *s);
/* The instruction at ADDR, or NULL. */
const struct rp_sinsn *rp_static_find(const struct rp_static *s, uint64_t addr);

/* The canonical register of a capstone x86 register id (for tests). */
unsigned rp_canonical_reg(unsigned capstone_reg);

#endif
