/* Signal system calls. Handlers are stored and given back, never run;
 * a signal the guest sends itself ends it as its default action would. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/sys.h"

long sys_rt_sigaction(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t sig = s->a[0], act = s->a[1], old = s->a[2];
    if (sig == 0 || sig > 64 || s->a[3] != 8)
        return -EINVAL;
    if (old && gmem_copy_out(p->mem, old, p->sigactions[sig], 32, 0, NULL) < 0)
        return -EFAULT;
    if (act && gmem_copy_in(p->mem, p->sigactions[sig], act, 32, NULL) < 0)
        return -EFAULT;
    return 0;
}

long sys_rt_sigprocmask(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t how = s->a[0], set = s->a[1], old = s->a[2];
    if (s->a[3] != 8)
        return -EINVAL;
    if (old && gmem_copy_out(p->mem, old, &p->sigmask, 8, 0, NULL) < 0)
        return -EFAULT;
    if (set) {
        uint64_t m;
        if (gmem_copy_in(p->mem, &m, set, 8, NULL) < 0)
            return -EFAULT;
        if (how == 0)
            p->sigmask |= m;
        else if (how == 1)
            p->sigmask &= ~m;
        else if (how == 2)
            p->sigmask = m;
        else
            return -EINVAL;
    }
    return 0;
}

/* Signals are never delivered, so there is no alternate stack to use. */
long sys_sigaltstack(struct x86_sys *s) { (void)s; return 0; }

/* SIG sent by the guest to itself: a signal whose default action
 * terminates ends the process as it would natively (abort() relies on
 * this); ignored signals do nothing; handlers are not run (stop). */
static long self_signal(struct x86_sys *s, uint64_t sig, const char *why)
{
    struct x86_process *p = s->p;
    if (sig > 64)
        return -EINVAL;
    if (sig == 0 || sig == 17 || sig == 18 || sig == 23 || sig == 28 ||
        (sig >= 19 && sig <= 22) || p->sigactions[sig][0] == 1 /* SIG_IGN */)
        return 0;
    if (p->sigactions[sig][0] != 0) {
        snprintf(p->message, sizeof p->message,
                 "signal %llu sent to itself has a handler; running signal handlers is not "
                 "supported", (unsigned long long)sig);
        p->stop_kind = XF_SYSCALL;
    } else {
        snprintf(p->message, sizeof p->message, "signal %llu %s", (unsigned long long)sig, why);
        p->stop_kind = XF_KILLED;
        p->kill_signal = (int)sig;
    }
    s->outcome = SC_STOP;
    return 0;
}

static int is_own_tid(const struct x86_process *p, uint64_t tid)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i]->tid == tid && p->threads[i]->state != THREAD_EXITED)
            return 1;
    return 0;
}

/* kill: only the guest itself. */
long sys_kill(struct x86_sys *s)
{
    if ((int64_t)s->a[0] != X86_GUEST_PID && s->a[0] != 0)
        return -EPERM;
    return self_signal(s, s->a[1], "sent by the guest to itself");
}

long sys_tkill(struct x86_sys *s)
{
    if (!is_own_tid(s->p, s->a[0]))
        return -ESRCH;
    return self_signal(s, s->a[1], "sent by the guest to itself");
}

long sys_tgkill(struct x86_sys *s)
{
    if (s->a[0] != X86_GUEST_PID || !is_own_tid(s->p, s->a[1]))
        return -ESRCH;
    return self_signal(s, s->a[2], "sent by the guest to itself");
}

void x86_broken_pipe(struct x86_sys *s)
{
    if (!(s->p->sigmask & (1ull << (SIGPIPE - 1))))
        self_signal(s, SIGPIPE, "(SIGPIPE): a write to a pipe that no one reads");
}
