/* Signals delivered to the guest: what is pending for a thread or for the
 * process, the frame a handler runs on (Linux's x86-64 rt_sigframe: return
 * address, ucontext, siginfo, and the xsave image of the x87, SSE and AVX
 * state), and the interval timers, which run on virtual time. A handler runs
 * as natively: on the thread's stack or its alternate one, with the signal
 * and the handler's mask blocked, returning through rt_sigreturn. */
#include "tracegen/x86/signal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/flags.h"
#include "tracegen/x86/interp.h"
#include "tracegen/x86/recorder.h"
#include "tracegen/x86/sys.h"

/* The frame's layout (arch/x86/include/uapi/asm/sigcontext.h, ucontext.h). */
#define UC_STACK 16              /* stack_t: ss_sp, ss_flags, ss_size */
#define UC_MCONTEXT 40           /* struct sigcontext: 32 words */
#define UC_SIGMASK 296
#define UC_BYTES 304
#define INFO_BYTES 128
#define FRAME_BYTES (8 + UC_BYTES + INFO_BYTES)
#define FP_BYTES 832             /* xsave image: legacy area, header, AVX halves */
#define FP_COMPONENTS 7          /* x87, SSE, AVX */
#define RED_ZONE 128

/* sigcontext words: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip,
 * eflags, segments, err, trapno, oldmask, cr2, fpstate. */
enum { SC_R8, SC_RDI = 8, SC_RSI, SC_RBP, SC_RBX, SC_RDX, SC_RAX, SC_RCX, SC_RSP, SC_RIP,
       SC_EFLAGS, SC_SEGS, SC_ERR, SC_TRAPNO, SC_OLDMASK, SC_CR2, SC_FPSTATE, SC_WORDS = 32 };

static const int sc_reg[16] = {
    [SC_RDI] = R_RDI, [SC_RSI] = R_RSI, [SC_RBP] = R_RBP, [SC_RBX] = R_RBX,
    [SC_RDX] = R_RDX, [SC_RAX] = R_RAX, [SC_RCX] = R_RCX, [SC_RSP] = R_RSP,
};

/* The user-changeable flags rt_sigreturn restores (the kernel's FIX_EFLAGS). */
#define FIX_EFLAGS 0x40dd5ull

#define SS_ONSTACK_ 1
#define SS_DISABLE_ 2
#define SA_NODEFER_ 0x40000000ull
#define SA_RESETHAND_ 0x80000000ull
#define SA_ONSTACK_ 0x08000000ull
#define SI_KERNEL_ 0x80
#define UNBLOCKABLE (x86_sig_bit(SIGKILL) | x86_sig_bit(SIGSTOP))

uint64_t x86_sig_bit(unsigned sig)
{
    return 1ull << (sig - 1);
}

static int on_altstack(const struct x86_thread *t, uint64_t sp)
{
    return t->ss_size && sp > t->ss_sp && sp - t->ss_sp <= t->ss_size;
}

uint64_t x86_altstack_flags(const struct x86_thread *t)
{
    if (!t->ss_size)
        return SS_DISABLE_;
    return on_altstack(t, t->cpu.r[R_RSP]) ? SS_ONSTACK_ : 0;
}

/* The default action of SIG: 1 terminate (with or without a core), 0 ignore
 * (SIGCHLD, SIGCONT, SIGURG, SIGWINCH, and the stop signals, as a process
 * alone in its session that nobody resumes would be stopped for good). */
static int default_terminates(unsigned sig)
{
    switch (sig) {
    case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
        return 0;
    default:
        return 1;
    }
}

static void kill_process(struct x86_process *p, unsigned sig, const char *why)
{
    snprintf(p->message, sizeof p->message, "signal %u (%s) %s", sig, strsignal((int)sig), why);
    p->stop_kind = XF_KILLED;
    p->kill_signal = (int)sig;
}

/* A thread in a futex wait that SIG may interrupt: the wait ends with
 * EINTR (the C libraries wait again), so the handler can run. */
static void interrupt_wait(struct x86_thread *t)
{
    if (t->state == THREAD_FUTEX_WAIT) {
        t->state = THREAD_RUNNABLE;
        t->woken_by = 0;
        t->cpu.r[R_RAX] = (uint64_t)-EINTR;
    }
}

static int takes(const struct x86_thread *t, unsigned sig)
{
    return t->state != THREAD_EXITED && !(t->sigmask & x86_sig_bit(sig));
}

struct x86_thread *x86_signal_post(struct x86_process *p, struct x86_thread *to, unsigned sig,
                                   int code, uint64_t value)
{
    struct x86_siginfo si = { .code = code, .value = value };
    return x86_signal_post_info(p, to, sig, &si);
}

struct x86_thread *x86_signal_post_info(struct x86_process *p, struct x86_thread *to,
                                        unsigned sig, const struct x86_siginfo *si)
{
    if (to) {
        to->sigpending |= x86_sig_bit(sig);
        to->siginfo[sig] = *si;
        x86_signalfds_sync(p);
        if (!takes(to, sig))
            return NULL;
        interrupt_wait(to);
        return to;
    }
    p->sigpending |= x86_sig_bit(sig);
    p->siginfo[sig] = *si;
    x86_signalfds_sync(p);
    /* a runnable thread that does not block it takes it at its turn; if
     * none, a waiting one is interrupted for it */
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i]->state == THREAD_RUNNABLE && takes(p->threads[i], sig))
            return p->threads[i];
    for (size_t i = 0; i < p->nthreads; i++)
        if (takes(p->threads[i], sig)) {
            interrupt_wait(p->threads[i]);
            return p->threads[i];
        }
    return NULL;
}

void x86_siginfo_fill(int32_t info[32], unsigned sig, const struct x86_siginfo *si)
{
    memset(info, 0, INFO_BYTES);
    info[0] = (int32_t)sig;
    info[1] = si->errno_;
    info[2] = si->code;
    memcpy(&info[4], &si->value, 8);
    memcpy(&info[6], si->rest, sizeof si->rest);
}

unsigned x86_signal_take(struct x86_process *p, struct x86_thread *t, uint64_t set,
                         struct x86_siginfo *si)
{
    uint64_t ready = (t->sigpending | p->sigpending) & set;
    if (!ready)
        return 0;
    unsigned sig = (unsigned)__builtin_ctzll(ready) + 1;
    if (t->sigpending & x86_sig_bit(sig)) {
        t->sigpending &= ~x86_sig_bit(sig);
        *si = t->siginfo[sig];
    } else {
        p->sigpending &= ~x86_sig_bit(sig);
        *si = p->siginfo[sig];
    }
    x86_signalfds_sync(p);
    return sig;
}

/* Builds the frame for SIG on T and points T at the handler. Returns 0, or
 * -1 when the frame cannot be written (the process dies of SIGSEGV). */
static int enter_handler(struct x86_process *p, struct x86_thread *t, unsigned sig,
                         const struct x86_siginfo *si, uint64_t saved_mask)
{
    struct x86_cpu *c = &t->cpu;
    const uint64_t *act = p->sigactions[sig];
    uint64_t sp = c->r[R_RSP];
    if ((act[1] & SA_ONSTACK_) && t->ss_size && !on_altstack(t, sp))
        sp = t->ss_sp + t->ss_size;
    else
        sp -= RED_ZONE;
    uint64_t fp = (sp - FP_BYTES) & ~63ull;
    uint64_t frame = ((fp - FRAME_BYTES) & ~15ull) - 8;

    uint8_t buf[FRAME_BYTES + 64];
    memset(buf, 0, sizeof buf);
    if (gmem_copy_out(p->mem, frame, buf, FRAME_BYTES, 0, NULL) < 0)
        return -1;
    for (uint64_t a = fp; a < fp + FP_BYTES; a += 64)
        if (gmem_copy_out(p->mem, a, buf, 64, 0, NULL) < 0)
            return -1;

    uint64_t w[SC_WORDS] = { 0 };
    for (int i = 0; i < 8; i++)
        w[SC_R8 + i] = c->r[R_R8 + i];
    for (int i = SC_RDI; i <= SC_RSP; i++)
        w[i] = c->r[sc_reg[i]];
    w[SC_RIP] = c->rip;
    w[SC_EFLAGS] = x86_rflags(c);
    w[SC_SEGS] = 0x33ull | 0x2bull << 48; /* cs, gs, fs, ss */
    w[SC_TRAPNO] = si->trapno;
    w[SC_ERR] = si->err;
    w[SC_OLDMASK] = saved_mask;
    w[SC_CR2] = si->trapno == 14 ? si->value : 0;
    w[SC_FPSTATE] = fp;

    uint64_t uc[UC_BYTES / 8] = { 0 };
    uc[UC_STACK / 8] = t->ss_sp;
    uc[UC_STACK / 8 + 1] = x86_altstack_flags(t);
    uc[UC_STACK / 8 + 2] = t->ss_size;
    memcpy(&uc[UC_MCONTEXT / 8], w, sizeof w);
    uc[UC_SIGMASK / 8] = saved_mask;

    int32_t info[INFO_BYTES / 4];
    x86_siginfo_fill(info, sig, si);

    uint64_t restorer = act[2];
    gmem_copy_out(p->mem, frame, &restorer, 8, 0, NULL);
    gmem_copy_out(p->mem, frame + 8, uc, sizeof uc, 0, NULL);
    gmem_copy_out(p->mem, frame + 8 + UC_BYTES, info, sizeof info, 0, NULL);
    /* the state image goes through the CPU's own xsave; it must not show
     * in the recorder's access log, as the kernel's writes do not */
    struct cgm_x86_access *log = c->log;
    c->log = NULL;
    x86_xsave(c, fp, FP_COMPONENTS);
    c->log = log;

    uint64_t handler = act[0];
    x86_rec_event_fields(t->rec, CGM_EV_SIGNAL, sig, handler, c->rip, (uint64_t)(int64_t)si->code);
    c->r[R_RSP] = frame;
    c->r[R_RDI] = sig;
    c->r[R_RSI] = frame + 8 + UC_BYTES;
    c->r[R_RDX] = frame + 8;
    c->r[R_RAX] = 0;
    c->rip = handler;
    x86_set_rflags(c, x86_rflags(c) & ~0x400ull); /* DF clear, as the ABI wants */
    t->sigmask |= act[3];
    if (!(act[1] & SA_NODEFER_))
        t->sigmask |= x86_sig_bit(sig);
    t->sigmask &= ~UNBLOCKABLE;
    if (act[1] & SA_RESETHAND_)
        memset(p->sigactions[sig], 0, sizeof p->sigactions[sig]);
    t->wait_deadline = 0;
    return 0;
}

int x86_signal_deliver(struct x86_process *p, struct x86_thread *t, unsigned sig,
                       const struct x86_siginfo *si)
{
    uint64_t handler = p->sigactions[sig][0];
    if (handler == 1) /* SIG_IGN */
        return 0;
    if (handler == 0) {
        if (!default_terminates(sig))
            return 0;
        kill_process(p, sig, sig == SIGPIPE ? "after a write to a pipe that no one reads"
                             : si->code == SI_KERNEL_ ? "from a timer, with no handler"
                             : "sent by the guest, with no handler");
        return -1;
    }
    uint64_t saved = t->sigmask;
    if (t->suspended) { /* sigsuspend's mask ends with the handler */
        saved = t->suspend_saved;
        t->suspended = 0;
    }
    if (t->io_done) { /* a blocking pipe write was cut short: it returns what it wrote */
        t->cpu.r[R_RAX] = t->io_done;
        t->cpu.rip += 2;
        t->io_done = 0;
    }
    if (enter_handler(p, t, sig, si, saved) < 0) {
        kill_process(p, SIGSEGV, "(its handler's frame could not be written to the stack)");
        return -1;
    }
    return 0;
}

int x86_signals_pending(const struct x86_process *p, const struct x86_thread *t)
{
    return ((t->sigpending | p->sigpending) & ~t->sigmask) != 0;
}

int x86_signals_check(struct x86_process *p, struct x86_thread *t)
{
    while (x86_signals_pending(p, t)) {
        struct x86_siginfo si;
        unsigned sig = x86_signal_take(p, t, ~t->sigmask, &si);
        if (x86_signal_deliver(p, t, sig, &si) < 0)
            return -1;
        if (p->sigactions[sig][0] > 1)
            break; /* one frame at a time: the handler runs first */
    }
    return 0;
}

/* ---- synchronous faults and the return from a handler ------------------------ */

int x86_signal_fault(struct x86_process *p, struct x86_thread *t, int kind, uint64_t addr,
                     uint64_t pc)
{
    int sig = x86_fault_signal(kind);
    /* ignored, blocked or without a handler: the kernel forces the default */
    if (!sig || p->sigactions[sig][0] <= 1 || (t->sigmask & x86_sig_bit((unsigned)sig)))
        return 1;
    struct x86_siginfo si = { .value = pc };
    if (kind == XF_PROTECTION) {
        si.code = SI_KERNEL_;     /* the kernel's #GP: no address, error code 0 */
        si.value = 0;
        si.trapno = 13;
    } else if (sig == SIGSEGV) {
        int prot;
        int mapped = gmem_page(p->mem, addr, &prot) != NULL;
        si.code = mapped ? 2 : 1; /* SEGV_ACCERR, SEGV_MAPERR */
        si.value = addr;
        si.trapno = 14;           /* page fault; error code: user, write, fetch, present */
        si.err = 4 | (uint64_t)mapped | (kind == XF_WRITE ? 2 : 0) | (kind == XF_EXEC ? 16 : 0);
    } else if (sig == SIGFPE) {
        si.code = 1;              /* FPE_INTDIV, the kernel's code for #DE */
    } else {
        si.code = 2;              /* ILL_ILLOPN */
        si.trapno = 6;
    }
    t->cpu.rip = pc;
    return x86_signal_deliver(p, t, (unsigned)sig, &si) < 0 ? -1 : 0;
}

/* The byte at ADDR of guest memory, or -1 when it is not mapped. */
static int guest_byte(const struct x86_process *p, uint64_t addr)
{
    int prot;
    const uint8_t *pg = gmem_page(p->mem, addr, &prot);
    return pg ? pg[addr & GPAGE_MASK] : -1;
}

unsigned x86_int_vector(const struct x86_process *p, uint64_t pc, unsigned len, int *retires)
{
    int last = guest_byte(p, pc + len - 1), before = len >= 2 ? guest_byte(p, pc + len - 2) : -1;
    unsigned vector;
    if (before == 0xcd) /* int N: the gates Linux opens to user mode are #BP, #OF and
                           the 32-bit system call; any other is a protection fault */
        vector = last == 3 || last == 4 || last == 0x80 ? (unsigned)last : 13;
    else /* int3 (0xcc), or int1 (icebp, 0xf1): the processor's own #DB */
        vector = last == 0xf1 ? 1 : 3;
    *retires = vector != 13;
    return vector;
}

int x86_signal_int(struct x86_process *p, struct x86_thread *t, uint64_t pc, unsigned len,
                   int *kind)
{
    int retires;
    unsigned vector = x86_int_vector(p, pc, len, &retires);
    struct x86_siginfo si = { .code = SI_KERNEL_, .trapno = vector };
    uint64_t rip = pc + len;
    unsigned sig = SIGSEGV;
    *kind = XF_PROTECTION;
    switch (vector) {
    case 3:                       /* #BP: SIGTRAP from the kernel, no address */
        sig = SIGTRAP;
        *kind = XF_TRAP;
        break;
    case 1:                       /* #DB from icebp: a breakpoint at the next instruction */
        sig = SIGTRAP;
        *kind = XF_TRAP;
        si.code = 1;              /* TRAP_BRKPT */
        si.value = rip;
        break;
    case 4:                       /* #OF: SIGSEGV, after the instruction */
        break;
    case 0x80:                    /* a 32-bit system call: not emulated */
        *kind = XF_UNIMPL;
        return 1;
    default: {                    /* #GP, the error code naming the IDT entry */
        int n = guest_byte(p, pc + len - 1);
        si.err = (uint64_t)(n < 0 ? 0 : n) * 8 + 2;
        rip = pc;
        break;
    }
    }
    /* ignored, blocked or without a handler: the kernel forces the default */
    if (p->sigactions[sig][0] <= 1 || (t->sigmask & x86_sig_bit(sig)))
        return 1;
    t->cpu.rip = rip;
    return x86_signal_deliver(p, t, sig, &si) < 0 ? -1 : 0;
}

int x86_signal_return(struct x86_process *p, struct x86_thread *t)
{
    struct x86_cpu *c = &t->cpu;
    uint64_t at = c->r[R_RSP]; /* the handler's return popped the return address */
    uint64_t uc[UC_BYTES / 8];
    uint8_t fpimage[FP_BYTES];
    if (gmem_copy_in(p->mem, uc, at, sizeof uc, NULL) < 0)
        return -1;
    const uint64_t *w = &uc[UC_MCONTEXT / 8];
    uint64_t fp = w[SC_FPSTATE];
    if (fp && gmem_copy_in(p->mem, fpimage, fp, FP_BYTES, NULL) < 0)
        return -1;
    for (int i = 0; i < 8; i++)
        c->r[R_R8 + i] = w[SC_R8 + i];
    for (int i = SC_RDI; i <= SC_RSP; i++)
        c->r[sc_reg[i]] = w[i];
    c->rip = w[SC_RIP];
    x86_set_rflags(c, (x86_rflags(c) & ~FIX_EFLAGS) | (w[SC_EFLAGS] & FIX_EFLAGS));
    if (fp) {
        struct cgm_x86_access *log = c->log;
        c->log = NULL;
        x86_xrstor(c, fp, FP_COMPONENTS);
        c->log = log;
    } else {
        x86_fpu_reset(c);
    }
    t->sigmask = uc[UC_SIGMASK / 8] & ~UNBLOCKABLE;
    /* the alternate stack the frame names comes back, as sigaltstack would
     * set it (not while running on it) */
    uint64_t ss_sp = uc[UC_STACK / 8], ss_flags = uc[UC_STACK / 8 + 1] & 0xffffffffu;
    uint64_t ss_size = uc[UC_STACK / 8 + 2];
    if (!on_altstack(t, c->r[R_RSP])) {
        if (ss_flags & SS_DISABLE_) {
            t->ss_sp = t->ss_size = 0;
        } else if (ss_size >= 2048) {
            t->ss_sp = ss_sp;
            t->ss_size = ss_size;
        }
    }
    return 0;
}

/* ---- interval timers and timerfds on virtual time ----------------------------- */

static const unsigned timer_signal[3] = { SIGALRM, SIGVTALRM, SIGPROF };

static void earliest(uint64_t *next, uint64_t deadline)
{
    if (deadline && (!*next || deadline < *next))
        *next = deadline;
}

void x86_timers_changed(struct x86_process *p)
{
    p->timer_next = 0;
    for (int i = 0; i < 3; i++)
        earliest(&p->timer_next, p->itimer[i].deadline);
    for (int i = 0; i < X86_MAX_TIMERFDS; i++)
        if (p->timerfds[i].used)
            earliest(&p->timer_next, p->timerfds[i].deadline);
}

struct x86_thread *x86_timers_fire(struct x86_process *p)
{
    uint64_t now = x86_virtual_now_ns(p);
    struct x86_thread *taker = NULL;
    for (int i = 0; i < 3; i++) {
        struct x86_itimer *it = &p->itimer[i];
        if (!it->deadline || it->deadline > now)
            continue;
        /* a periodic timer keeps its phase, as the kernel forwards it:
         * the next expiry is the first one after now */
        if (it->interval)
            it->deadline += ((now - it->deadline) / it->interval + 1) * it->interval;
        else
            it->deadline = 0;
        struct x86_thread *to = x86_signal_post(p, NULL, timer_signal[i], SI_KERNEL_, 0);
        if (!taker)
            taker = to;
    }
    x86_timerfds_fire(p, now);
    x86_timers_changed(p);
    return taker;
}

int x86_timers_skip(struct x86_process *p)
{
    uint64_t now = x86_virtual_now_ns(p);
    if (!p->timer_next)
        return 0;
    if (p->timer_next > now)
        p->idle_ns += p->timer_next - now;
    x86_timers_fire(p);
    return 1;
}
