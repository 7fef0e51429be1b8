/* The guest's floating-point environment on the host's own units.
 *
 * SSE arithmetic runs as host SSE arithmetic, so the guest's rounding
 * mode, flush-to-zero, denormals-are-zero and sticky exception flags are
 * honoured exactly by loading the guest's MXCSR into the host's while one
 * of its threads runs instructions. Loading MXCSR costs as much as a few
 * emulated instructions, so it happens when another CPU (thread) starts a
 * block, not per instruction: the CPU "owns" the host MXCSR until another
 * takes it or it leaves the interpreter (system call, fault). While it
 * owns it, its exception flags live in the host register: read the
 * guest's MXCSR with x86_fpenv_mxcsr, never from c->mxcsr directly.
 * Exceptions stay masked on the host whatever the guest asks.
 *
 * x87 instructions are rarer: each one runs under the guest's control
 * word (rounding and precision) and collects the exception flags it
 * raised into the guest's status word (x86_x87_enter / x86_x87_leave). */
#ifndef TRACEGEN_X86_FPENV_H
#define TRACEGEN_X86_FPENV_H

#include <stdint.h>

#include "tracegen/x86/cpu.h"

#define MXCSR_FLAGS    0x003fu  /* IE DE ZE OE UE PE */
#define MXCSR_MASKS    0x1f80u  /* all exceptions masked */
#define MXCSR_DEFAULT  0x1f80u
#define MXCSR_WRITABLE 0xffffu  /* bits ldmxcsr accepts (DAZ included) */

extern _Thread_local struct x86_cpu *x86_fpenv_owner;

void x86_fpenv_take(struct x86_cpu *c);

/* Makes C's MXCSR the host's (called before C runs a block). */
static inline void x86_fpenv_enter(struct x86_cpu *c)
{
    if (__builtin_expect(c != x86_fpenv_owner, 0))
        x86_fpenv_take(c);
}

/* Gives the owner's flags back to it and restores the host's default
 * MXCSR (the emulator's own code leaves the guest's environment). */
void x86_fpenv_leave(void);
/* x86_fpenv_leave, and the host's x87 control word back to its default
 * (a fault can leave an x87 instruction half done). */
void x86_fpenv_abort(void);
/* Forgets the owner without touching it (it may be gone): a new process's
 * first CPU starts from the host's default. */
void x86_fpenv_forget(void);

/* C's MXCSR as the guest sees it now, and setting it (ldmxcsr, fxrstor). */
uint32_t x86_fpenv_mxcsr(struct x86_cpu *c);
void x86_fpenv_set_mxcsr(struct x86_cpu *c, uint32_t v);

/* Around one x87 instruction: the host's x87 control word becomes the
 * guest's (exceptions masked) with no exception pending; afterwards the
 * exceptions the host raised are added to the guest's status word and the
 * host's control word is restored (ENTERED: what x86_x87_enter returned). */
unsigned x86_x87_enter(const struct x86_cpu *c);
void x86_x87_leave(struct x86_cpu *c, unsigned entered);

#endif
