/* The interpreter: runs decoded blocks on a CPU. */
#ifndef TRACEGEN_X86_INTERP_H
#define TRACEGEN_X86_INTERP_H

#include "tracegen/x86/cpu.h"
#include "tracegen/x86/decode_cache.h"

enum x86_exec_result {
    EXEC_CONTINUE,   /* block done; c->rip is the next block */
    EXEC_SYSCALL,    /* a syscall instruction retired; c->rip is after it */
};

/* Runs every instruction of B (faults longjmp through c->fault_jmp with
 * c->cur naming the faulting instruction). */
int x86_exec_block(struct x86_cpu *c, const struct x86_block *b);

/* Register access used by the SSE and x87 units and the syscall layer. */
uint64_t x86_operand_address(const struct x86_cpu *c, const struct x86_opnd *o);

void x86_exec_sse(struct x86_cpu *c, const struct x86_dinsn *in);
/* 1 when legacy SSE instruction IN only computes an XMM register from its
 * sources (no flags, general register or memory result): its run form
 * RUN_SSE_VEC then runs x86_exec_sse_vec, x86_exec_sse without the
 * per-execution search for the VEX-only and non-vector instructions. */
int x86_sse_computes_vector(const struct x86_dinsn *in);
void x86_exec_sse_vec(struct x86_cpu *c, const struct x86_dinsn *in);
/* CRC32, LZCNT, TZCNT, MOVBE, BMI1, BMI2, XGETBV (bitops.c). */
void x86_exec_bitop(struct x86_cpu *c, const struct x86_dinsn *in);
/* The run form (ops.h) of an SSE instruction: a form below, or XOP_SSE
 * (x86_exec_sse). RUN_SSE_LANE's and RUN_VEX_LANE's operation goes into
 * IN's cond. */
unsigned x86_sse_run_form(struct x86_dinsn *in);
void x86_sse_lane_rr(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_lane(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_vex_lane_rr(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_vex_lane(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_vex_store(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_vex_fma_scalar(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_vex_fma(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_comis(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_cvt2si(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movsd_rr(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movss_rr(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movsd_load(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movss_load(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movsd_store(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movss_store(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movx_rr(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movx_load(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_movx_store(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_addsd(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_subsd(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_mulsd(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_addss(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_subss(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_sse_mulss(struct x86_cpu *c, const struct x86_dinsn *in);
void x86_exec_x87(struct x86_cpu *c, const struct x86_dinsn *in);
/* The x87 environment (x87_env.c): the status word with the stack top
 * in bits 11-13; fnstenv/fldenv, fnsave/frstor at ADDR. */
uint16_t x86_x87_status_word(const struct x86_cpu *c);
void x86_fnstenv(struct x86_cpu *c, uint64_t addr);
void x86_fldenv(struct x86_cpu *c, uint64_t addr);
void x86_fnsave(struct x86_cpu *c, uint64_t addr);
void x86_frstor(struct x86_cpu *c, uint64_t addr);
/* fxsave/fxrstor (x87_env.c): the x87, MXCSR and XMM state at ADDR
 * (WIDE: the REX.W form, with 64-bit instruction and data pointers). */
void x86_fxsave(struct x86_cpu *c, uint64_t addr, int wide);
void x86_fxrstor(struct x86_cpu *c, uint64_t addr, int wide);
/* xsave/xrstor (x87_env.c) of the components RFBM (EDX:EAX) names. */
void x86_xsave(struct x86_cpu *c, uint64_t addr, uint64_t rfbm);
void x86_xrstor(struct x86_cpu *c, uint64_t addr, uint64_t rfbm);
void x86_cpuid(struct x86_cpu *c);

/* Resets the x87 and SSE state as at process start. */
void x86_fpu_reset(struct x86_cpu *c);

#endif
