/*
 * KnightSim context switch for x86-64 System V (internal header).
 *
 * ks_jump(self, next) saves the running context's stack pointer, frame
 * pointer and resume address in its struct, loads next's and jumps there.
 * It is inline assembly that declares every other register clobbered, so the
 * compiler keeps across it only the values the code around it still needs,
 * in the frame it has anyway: when a model's loop calls ks_pause and the
 * call is inlined (link-time optimisation), a switch saves nothing but
 * those three words. The running stack is not written (the red zone below
 * it may hold the compiler's data). A fresh context's resume address is
 * ks_context_trampoline (ks_switch.S), which takes the context from rsi.
 *
 * Floating-point control state. The x87 control word and MXCSR's control
 * bits are callee-saved in the ABI, so a context that changes its rounding
 * mode must not change it for the others. Reading MXCSR (stmxcsr) costs more
 * than the rest of a switch on some processors, so a switch reads only the
 * x87 control word, which the C library's fenv functions (fesetround,
 * fesetenv, ...) always set together with MXCSR: while the outgoing and the
 * incoming context both have the ABI's default control word, nothing is
 * saved or loaded; otherwise the outgoing context's MXCSR is saved with its
 * control word (if not the default) and the incoming context's are loaded
 * (the ABI's defaults if it has none of its own). A change of MXCSR alone
 * (_mm_setcsr) is therefore not kept per context. A run starts its contexts
 * from the ABI's defaults and gives the calling thread its own state back
 * when it returns.
 */
#ifndef CGM_KS_SWITCH_H
#define CGM_KS_SWITCH_H

#include "ks_internal.h"

#include <stddef.h>

#define KS_FPCW_DEFAULT 0x037fu   /* x87: extended precision, nearest, all masked */
#define KS_MXCSR_DEFAULT 0x1f80u  /* SSE: nearest, all exceptions masked */

void ks_fp_switch_slow(ks_context *self, ks_context *next);

/* A context's fp_saved is false while it runs (its state is live) and while
 * it is switched out with the default state; otherwise fpcw and mxcsr hold
 * its saved state. */
static inline __attribute__((always_inline)) void ks_fp_switch(ks_context *self,
                                                               ks_context *next)
{
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    if (__builtin_expect(cw != KS_FPCW_DEFAULT || next->fp_saved, 0))
        ks_fp_switch_slow(self, next);
}

/* The same, when the caller knows next has no state of its own. */
static inline __attribute__((always_inline)) void ks_fp_switch_out(ks_context *self,
                                                                   ks_context *next)
{
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    if (__builtin_expect(cw != KS_FPCW_DEFAULT, 0))
        ks_fp_switch_slow(self, next);
}

#ifdef __AVX512F__
#define KS_CLOBBER_AVX512                                                                    \
    , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",       \
        "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k1", "k2", "k3",     \
        "k4", "k5", "k6", "k7"
#else
#define KS_CLOBBER_AVX512
#endif

static inline __attribute__((always_inline)) void ks_jump(ks_context *self, ks_context *next)
{
    /* rdi and rsi hold whatever the context that resumes us left there, so
     * they are outputs of copies nobody reads afterwards; rbp is restored. */
    ks_context *from = self, *to = next;
    __asm__ volatile("leaq 1f(%%rip), %%rax\n\t"
                     "movq %%rax, %c[pc](%[self])\n\t"
                     "movq %%rsp, %c[sp](%[self])\n\t"
                     "movq %%rbp, %c[bp](%[self])\n\t"
                     "movq %c[sp](%[next]), %%rsp\n\t"
                     "movq %c[bp](%[next]), %%rbp\n\t"
                     "jmpq *%c[pc](%[next])\n"
                     "1:"
                     : [self] "+D"(from), [next] "+S"(to)
                     : [sp] "i"(offsetof(ks_context, sp)), [bp] "i"(offsetof(ks_context, bp)),
                       [pc] "i"(offsetof(ks_context, pc))
                     : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
                       "r15", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                       "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",
                       "st(7)" KS_CLOBBER_AVX512);
}

#endif
