/* Signals delivered to the guest's threads and the interval timers that
 * send them (signal.c); the system calls are in sys_signal.c. Signal
 * numbers are Linux's (1..64); a mask has bit SIG-1 for SIG. */
#ifndef TRACEGEN_X86_SIGNAL_H
#define TRACEGEN_X86_SIGNAL_H

#include <stdint.h>

#include "tracegen/x86/process.h"

uint64_t x86_sig_bit(unsigned sig);

/* Makes SIG pending for thread TO, or for the process when TO is NULL,
 * with siginfo's CODE and VALUE (the sender, or an address). A thread in a
 * futex wait that can take it is interrupted (EINTR). Returns the thread
 * that will take it (one that does not block it), or NULL when none can
 * now. */
struct x86_thread *x86_signal_post(struct x86_process *p, struct x86_thread *to, unsigned sig,
                                   int code, uint64_t value);

/* The same with the whole siginfo SI (a queued one, rt_sigqueueinfo). */
struct x86_thread *x86_signal_post_info(struct x86_process *p, struct x86_thread *to,
                                        unsigned sig, const struct x86_siginfo *si);

/* Takes the lowest-numbered signal of SET pending for T (its own before
 * the process's) with its siginfo. Returns it, or 0 when none is. */
unsigned x86_signal_take(struct x86_process *p, struct x86_thread *t, uint64_t set,
                         struct x86_siginfo *si);

/* The 128 bytes of siginfo_t for SIG as the guest reads them. */
void x86_siginfo_fill(int32_t info[32], unsigned sig, const struct x86_siginfo *si);

/* Makes each signalfd's host eventfd readable exactly while a signal of
 * its mask is pending (sys_signalfd.c); called wherever pending signals
 * change. */
void x86_signalfds_sync(struct x86_process *p);

/* 1 when T has a pending signal it does not block. */
int x86_signals_pending(const struct x86_process *p, const struct x86_thread *t);

/* Delivers T's pending signals it does not block, up to the first with a
 * handler, which T then runs (its frame holds T's registers as they are).
 * Returns 0, or -1 when a default action ended the process. */
int x86_signals_check(struct x86_process *p, struct x86_thread *t);

/* T's instruction at PC faulted (enum x86_fault KIND, at ADDR): when the
 * guest handles that signal (SIGSEGV, SIGFPE, SIGILL) and T does not block
 * it, the handler runs with siginfo and ucontext naming the instruction
 * (returns 0). Returns 1 when the default action applies (the run stops as
 * before), -1 when the process was ended. */
int x86_signal_fault(struct x86_process *p, struct x86_thread *t, int kind, uint64_t addr,
                     uint64_t pc);

/* The vector an interrupt instruction of LEN bytes at PC raises: 3 for
 * int3 (#BP), 1 for int1 (icebp, #DB), N for `int N` when Linux opens
 * that gate to user mode (3, 4 and 0x80), else 13 (#GP). *RETIRES is 1
 * when the instruction completes (a trap: the saved RIP is the next one),
 * 0 when it faults. */
unsigned x86_int_vector(const struct x86_process *p, uint64_t pc, unsigned len, int *retires);

/* T ran the interrupt instruction of LEN bytes at PC (XF_TRAP). When the
 * guest handles what it raises (SIGTRAP for #BP and #DB, SIGSEGV for #OF
 * and #GP) and T does not block it, the handler runs with siginfo and
 * ucontext as Linux fills them (returns 0). Returns 1 when the run stops,
 * *KIND saying why (XF_TRAP, XF_PROTECTION, or XF_UNIMPL for the 32-bit
 * system call `int 0x80`), -1 when the process was ended. */
int x86_signal_int(struct x86_process *p, struct x86_thread *t, uint64_t pc, unsigned len,
                   int *kind);

/* rt_sigreturn: restores T from the frame at its stack pointer. Returns 0,
 * or -1 when the frame cannot be read. */
int x86_signal_return(struct x86_process *p, struct x86_thread *t);

/* sigaltstack's flags for T now: SS_DISABLE, SS_ONSTACK or 0. */
uint64_t x86_altstack_flags(const struct x86_thread *t);

/* Interval timers (ITIMER_REAL, _VIRTUAL, _PROF: all on virtual time). */
/* Sends the signals of the timers that are due; rearms periodic ones.
 * Returns the thread that will take the first signal sent, or NULL. */
struct x86_thread *x86_timers_fire(struct x86_process *p);
/* 1 when a timer is due now. */
static inline int x86_timers_due(const struct x86_process *p, uint64_t now)
{
    return p->timer_next && now >= p->timer_next;
}
/* No thread can run: virtual time jumps to the next timer, which fires.
 * Returns 0 when no timer is set. */
int x86_timers_skip(struct x86_process *p);
/* Recomputes p->timer_next after a timer changed. */
void x86_timers_changed(struct x86_process *p);
/* Adds the expirations of the timerfds due at NOW to their counts
 * (sys_timerfd.c); x86_timers_fire calls it. */
void x86_timerfds_fire(struct x86_process *p, uint64_t now);

#endif
