/* Signal system calls: handlers and masks, sending signals within the
 * guest, the alternate stack, the return from a handler, and waiting for a
 * signal. Delivery itself is signal.c's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/signal.h"
#include "tracegen/x86/sys.h"

/* Signals no mask blocks and no handler catches. */
#define UNBLOCKABLE (x86_sig_bit(SIGKILL) | x86_sig_bit(SIGSTOP))

#define SI_USER_ 0
#define SI_TKILL_ (-6)
#define MINSIGSTKSZ_ 2048
#define SS_AUTODISARM_ (1u << 31)
#define NS 1000000000ull

long sys_rt_sigaction(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t sig = s->a[0], act = s->a[1], old = s->a[2];
    if (sig == 0 || sig > 64 || s->a[3] != 8)
        return -EINVAL;
    if (act && (sig == SIGKILL || sig == SIGSTOP))
        return -EINVAL;
    uint64_t a[4];
    if (act && gmem_copy_in(p->mem, a, act, sizeof a, NULL) < 0)
        return -EFAULT;
    if (old && gmem_copy_out(p->mem, old, p->sigactions[sig], 32, 0, NULL) < 0)
        return -EFAULT;
    if (act) {
        a[3] &= ~UNBLOCKABLE;
        memcpy(p->sigactions[sig], a, sizeof a);
        if (a[0] == 1) { /* SIG_IGN discards what is pending */
            p->sigpending &= ~x86_sig_bit((unsigned)sig);
            for (size_t i = 0; i < p->nthreads; i++)
                p->threads[i]->sigpending &= ~x86_sig_bit((unsigned)sig);
            x86_signalfds_sync(p);
        }
    }
    return 0;
}

/* The mask is the thread's; what it unblocks is delivered when the call
 * returns. */
long sys_rt_sigprocmask(struct x86_sys *s)
{
    struct x86_thread *t = s->t;
    uint64_t how = s->a[0], set = s->a[1], old = s->a[2];
    if (s->a[3] != 8)
        return -EINVAL;
    uint64_t m = 0;
    if (set && gmem_copy_in(s->p->mem, &m, set, 8, NULL) < 0)
        return -EFAULT;
    if (set && how > 2)
        return -EINVAL;
    if (old && gmem_copy_out(s->p->mem, old, &t->sigmask, 8, 0, NULL) < 0)
        return -EFAULT;
    if (set) {
        if (how == 0)
            t->sigmask |= m;
        else if (how == 1)
            t->sigmask &= ~m;
        else
            t->sigmask = m;
        t->sigmask &= ~UNBLOCKABLE;
    }
    return 0;
}

long sys_rt_sigpending(struct x86_sys *s)
{
    if (s->a[1] > 8)
        return -EINVAL;
    uint64_t m = (s->t->sigpending | s->p->sigpending) & s->t->sigmask;
    return gmem_copy_out(s->p->mem, s->a[0], &m, s->a[1], 0, NULL) < 0 ? -EFAULT : 0;
}

/* stack_t: ss_sp, ss_flags (int), ss_size. */
long sys_sigaltstack(struct x86_sys *s)
{
    struct x86_thread *t = s->t;
    uint64_t ss = s->a[0], old = s->a[1];
    uint64_t cur[3] = { t->ss_sp, x86_altstack_flags(t), t->ss_size };
    uint64_t nw[3];
    if (ss && gmem_copy_in(s->p->mem, nw, ss, sizeof nw, NULL) < 0)
        return -EFAULT;
    if (old && gmem_copy_out(s->p->mem, old, cur, sizeof cur, 0, NULL) < 0)
        return -EFAULT;
    if (!ss)
        return 0;
    if (cur[1] == 1 /* SS_ONSTACK */)
        return -EPERM;
    uint32_t flags = (uint32_t)nw[1] & ~SS_AUTODISARM_;
    if (flags == 2 /* SS_DISABLE */) {
        t->ss_sp = t->ss_size = 0;
        return 0;
    }
    if (flags != 0 && flags != 1)
        return -EINVAL;
    if (nw[2] < MINSIGSTKSZ_)
        return -ENOMEM;
    t->ss_sp = nw[0];
    t->ss_size = nw[2];
    return 0;
}

static struct x86_thread *own_thread(const struct x86_process *p, uint64_t tid)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i]->tid == tid && p->threads[i]->state != THREAD_EXITED)
            return p->threads[i];
    return NULL;
}

/* The sender as siginfo names it: pid, and uid in the upper half. */
static uint64_t sender(void)
{
    return (uint64_t)X86_GUEST_PID | (uint64_t)getuid() << 32;
}

/* A signal that thread TAKER, not the sender, will take: the sender's
 * slice ends and TAKER runs next, so its handler starts at the virtual time
 * the signal was sent (natively it interrupts the receiver at once), not a
 * slice or more later when the receiver's turn would have come. */
static void run_next(struct x86_sys *s, const struct x86_thread *taker)
{
    if (!taker || taker == s->t || taker->state != THREAD_RUNNABLE)
        return;
    for (size_t i = 0; i < s->p->nthreads; i++)
        if (s->p->threads[i] == taker) {
            s->p->run_next = i + 1;
            s->outcome = SC_SWITCH;
        }
}

/* kill: the guest itself only (0 and its own pid name it; -1 would be
 * every other process, refused like any other). */
long sys_kill(struct x86_sys *s)
{
    int64_t pid = (int64_t)(int32_t)s->a[0];
    uint64_t sig = s->a[1];
    if (pid != X86_GUEST_PID && pid != 0)
        return -EPERM;
    if (sig > 64)
        return -EINVAL;
    if (!sig)
        return 0;
    struct x86_thread *taker = x86_signal_post(s->p, NULL, (unsigned)sig, SI_USER_, sender());
    if (s->t->sigmask & x86_sig_bit((unsigned)sig)) /* else the sender takes it as the call returns */
        run_next(s, taker);
    return 0;
}

static long thread_kill(struct x86_sys *s, uint64_t tid, uint64_t sig)
{
    if (sig > 64)
        return -EINVAL;
    struct x86_thread *to = own_thread(s->p, tid);
    if (!to)
        return -ESRCH;
    if (sig)
        run_next(s, x86_signal_post(s->p, to, (unsigned)sig, SI_TKILL_, sender()));
    return 0;
}

long sys_tkill(struct x86_sys *s) { return thread_kill(s, s->a[0], s->a[1]); }

long sys_tgkill(struct x86_sys *s)
{
    if (s->a[0] != X86_GUEST_PID)
        return -ESRCH;
    return thread_kill(s, s->a[1], s->a[2]);
}

/* ---- rt_sigqueueinfo, rt_tgsigqueueinfo: a siginfo the sender gives ---- */

/* The siginfo at ADDR as the kernel keeps it for SIG: si_signo is SIG, and
 * of the rest only bytes 4 to 47 count (si_errno, si_code, and the union's
 * first 32 bytes). Returns 0 or -EFAULT. */
static long queued_info(struct x86_process *p, uint64_t addr, struct x86_siginfo *si)
{
    int32_t w[12];
    if (gmem_copy_in(p->mem, w, addr, sizeof w, NULL) < 0)
        return -EFAULT;
    memset(si, 0, sizeof *si);
    si->errno_ = w[1];
    si->code = w[2];
    memcpy(&si->value, &w[4], 8);
    memcpy(si->rest, &w[6], sizeof si->rest);
    return 0;
}

/* Linux lets a sender name itself freely only to itself: a siginfo that
 * claims to come from the kernel or from kill/tgkill (si_code >= 0, or
 * SI_TKILL) is refused unless its target is the calling thread's own id. */
static int impersonates(const struct x86_sys *s, const struct x86_siginfo *si, int64_t target)
{
    return (si->code >= 0 || si->code == SI_TKILL_) && (uint64_t)target != s->t->tid;
}

long sys_rt_sigqueueinfo(struct x86_sys *s)
{
    int64_t pid = (int64_t)(int32_t)s->a[0];
    uint64_t sig = s->a[1];
    struct x86_siginfo si;
    long rc = queued_info(s->p, s->a[2], &si);
    if (rc < 0)
        return rc;
    if (impersonates(s, &si, pid))
        return -EPERM;
    if (pid != X86_GUEST_PID) /* no such process, or one outside the guest */
        return pid <= 0 ? -ESRCH : -EPERM;
    if (sig > 64)
        return -EINVAL;
    if (!sig)
        return 0;
    struct x86_thread *taker = x86_signal_post_info(s->p, NULL, (unsigned)sig, &si);
    if (s->t->sigmask & x86_sig_bit((unsigned)sig)) /* else the sender takes it as the call returns */
        run_next(s, taker);
    return 0;
}

long sys_rt_tgsigqueueinfo(struct x86_sys *s)
{
    int64_t tgid = (int64_t)(int32_t)s->a[0], tid = (int64_t)(int32_t)s->a[1];
    uint64_t sig = s->a[2];
    struct x86_siginfo si;
    long rc = queued_info(s->p, s->a[3], &si);
    if (rc < 0)
        return rc;
    if (tgid <= 0 || tid <= 0)
        return -EINVAL;
    if (impersonates(s, &si, tid))
        return -EPERM;
    struct x86_thread *to = tgid == X86_GUEST_PID ? own_thread(s->p, (uint64_t)tid) : NULL;
    if (!to)
        return -ESRCH;
    if (sig > 64)
        return -EINVAL;
    if (sig)
        run_next(s, x86_signal_post_info(s->p, to, (unsigned)sig, &si));
    return 0;
}

void x86_broken_pipe(struct x86_sys *s)
{
    x86_signal_post(s->p, s->t, SIGPIPE, SI_USER_, sender());
}

/* rt_sigreturn: the registers, flags, mask and x87/SSE/AVX state the
 * frame at the stack pointer holds (the handler may have changed them). */
long sys_rt_sigreturn(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    struct x86_thread *t = s->t;
    long rc = x86_signal_return(p, t);
    if (rc < 0) {
        snprintf(p->message, sizeof p->message, "thread %llu: rt_sigreturn found no signal "
                 "frame it can read at 0x%llx (the process dies of SIGSEGV)",
                 (unsigned long long)t->tid, (unsigned long long)t->cpu.r[R_RSP]);
        p->stop_kind = XF_KILLED;
        p->kill_signal = SIGSEGV;
        s->outcome = SC_STOP;
        return 0;
    }
    return (long)t->cpu.r[R_RAX];
}

/* T waits for a signal that has not come (in sigsuspend, pause or
 * sigtimedwait, which set t->suspended): other threads run meanwhile; with
 * none, virtual time jumps to the next timer, or to DEADLINE (virtual ns,
 * 0: none) when that comes first, or a timed futex wait ends; else the run
 * stops as a deadlock. Returns 1 when DEADLINE has passed, else 0 with
 * SC_RETRY or SC_STOP set. */
static int wait_for_signal(struct x86_sys *s, uint64_t deadline)
{
    struct x86_process *p = s->p;
    struct x86_thread *t = s->t;
    uint64_t now = x86_virtual_now_ns(p);
    if (deadline && now >= deadline)
        return 1;
    if (x86_other_threads_runnable(p, t) ||
        (p->timer_next && (!deadline || p->timer_next <= deadline) && x86_timers_skip(p))) {
        s->outcome = SC_RETRY;
        return 0;
    }
    if (deadline) {
        p->idle_ns += deadline - now;
        return 1;
    }
    if (x86_time_out_oldest(p)) {
        s->outcome = SC_RETRY;
        return 0;
    }
    t->sigmask = t->suspend_saved;
    t->suspended = 0;
    snprintf(p->message, sizeof p->message, "deadlock: thread %llu waits for a signal that "
             "nothing will send (no other thread can run and no timer is set)",
             (unsigned long long)t->tid);
    p->stop_kind = XF_SYSCALL;
    s->outcome = SC_STOP;
    return 0;
}

/* The thread's mask while it waits is MASK; the one it had comes back
 * when the call returns or with the handler that ends the wait. */
static void begin_suspend(struct x86_thread *t, uint64_t mask)
{
    if (!t->suspended) {
        t->suspend_saved = t->sigmask;
        t->suspended = 1;
    }
    t->sigmask = mask & ~UNBLOCKABLE;
}

/* pause and rt_sigsuspend: wait, under MASK, until a handler runs (the
 * call then fails with EINTR and the thread's mask comes back). */
static long suspend(struct x86_sys *s, uint64_t mask)
{
    begin_suspend(s->t, mask);
    if (x86_signals_pending(s->p, s->t))
        return -EINTR;
    wait_for_signal(s, 0);
    return 0;
}

long sys_pause(struct x86_sys *s) { return suspend(s, s->t->sigmask); }

long sys_rt_sigsuspend(struct x86_sys *s)
{
    uint64_t m;
    if (s->a[1] != 8)
        return -EINVAL;
    if (gmem_copy_in(s->p->mem, &m, s->a[0], 8, NULL) < 0)
        return -EFAULT;
    return suspend(s, m);
}

/* rt_sigtimedwait(set, info, timeout, sigsetsize): takes a pending signal
 * of SET (blocked or not) and returns its number, filling siginfo; else
 * waits for one, up to TIMEOUT in virtual time (EAGAIN after it, at once
 * for a zero one). A signal outside SET that the thread does not block
 * ends the wait with EINTR, its handler running as the call returns. */
long sys_rt_sigtimedwait(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    struct x86_thread *t = s->t;
    uint64_t set;
    int64_t ts[2] = { 0, 0 };
    if (s->a[3] != 8)
        return -EINVAL;
    if (gmem_copy_in(p->mem, &set, s->a[0], 8, NULL) < 0)
        return -EFAULT;
    if (s->a[2] && gmem_copy_in(p->mem, ts, s->a[2], sizeof ts, NULL) < 0)
        return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= (int64_t)NS)
        return -EINVAL;
    struct x86_siginfo si;
    unsigned sig = x86_signal_take(p, t, set & ~UNBLOCKABLE, &si);
    if (sig) {
        t->wait_deadline = 0;
        int32_t info[32];
        x86_siginfo_fill(info, sig, &si);
        if (s->a[1] && gmem_copy_out(p->mem, s->a[1], info, sizeof info, 0, NULL) < 0)
            return -EFAULT;
        return sig;
    }
    if (x86_signals_pending(p, t)) { /* one outside SET, delivered as the call returns */
        t->wait_deadline = 0;
        return -EINTR;
    }
    if (s->a[2] && !t->wait_deadline) {
        uint64_t len = (uint64_t)ts[0] > UINT64_MAX / NS / 4 ? UINT64_MAX / 4
                                                             : (uint64_t)ts[0] * NS + (uint64_t)ts[1];
        if (!len)
            return -EAGAIN;
        t->wait_deadline = x86_virtual_now_ns(p) + len;
    }
    begin_suspend(t, t->sigmask);
    if (wait_for_signal(s, t->wait_deadline)) {
        t->wait_deadline = 0;
        return -EAGAIN;
    }
    return 0;
}
