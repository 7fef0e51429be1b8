/* The trace's x86 static code table, loaded once: each instruction's
 * class, length and the registers it reads and writes, as the trace
 * records them (architectural registers: al, ax, eax are rax). The x87
 * stack and its status word count as one register here, RIP as none (see
 * rp_canonical_reg). */
#ifndef REPLAY_X86_STATIC_H
#define REPLAY_X86_STATIC_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/trace.h"
#include "cgm/x86rec.h"

#define RP_SRC_MAX 8
#define RP_DST_MAX 6
#define RP_REGS_MAX CGM_X86_REG_COUNT /* canonical registers are a subset of the trace's */

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
};

/* Loads the "x86.static" section of R. Returns 0, or -1 with ERR naming
 * the trace and the fault. */
int rp_static_load(struct rp_static *s, struct cgm_reader *r, const char *trace_name, char *err,
                   size_t errlen);
void rp_static_free(struct rp_static *s);
/* The instruction at ADDR, or NULL. */
const struct rp_sinsn *rp_static_find(const struct rp_static *s, uint64_t addr);

/* The register a dependency is tracked on for a trace register (enum
 * cgm_x86_reg), or RP_NO_REG for none. The x87 stack renames by position,
 * so its slots and status word are one register, which serialises x87 code
 * as its top-of-stack dependencies mostly do; the PC is known at fetch and
 * is no data dependency. */
#define RP_NO_REG 0xff
unsigned rp_canonical_reg(unsigned trace_reg);

#endif
