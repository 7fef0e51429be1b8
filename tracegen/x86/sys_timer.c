/* Timers on virtual time: alarm, setitimer and getitimer. ITIMER_REAL,
 * ITIMER_VIRTUAL and ITIMER_PROF all count the guest's virtual time (one
 * nanosecond per instruction, see sys_info.c), which is both its wall
 * clock and its CPU time; their signals are sent by signal.c. */
#include <errno.h>

#include "tracegen/x86/signal.h"
#include "tracegen/x86/sys.h"

#define NS 1000000000ull

/* Remaining time and interval of timer WHICH, then armed with VALUE and
 * INTERVAL (ns; VALUE 0 disarms). A timer that is due but has not yet
 * fired has a microsecond left, so it still reads as armed. */
static void set_timer(struct x86_process *p, int which, uint64_t value, uint64_t interval,
                      uint64_t old[2])
{
    struct x86_itimer *it = &p->itimer[which];
    uint64_t now = x86_virtual_now_ns(p);
    old[0] = !it->deadline ? 0 : it->deadline > now + 1000 ? it->deadline - now : 1000;
    old[1] = it->interval;
    it->deadline = value ? now + value : 0;
    it->interval = interval;
    x86_timers_changed(p);
}

/* struct timeval in ns; -1 when it is not one (negative, or 10^6 us). */
static int64_t timeval_ns(const int64_t tv[2])
{
    if (tv[0] < 0 || tv[1] < 0 || tv[1] >= 1000000 || (uint64_t)tv[0] > UINT64_MAX / NS / 2)
        return -1;
    return (int64_t)((uint64_t)tv[0] * NS + (uint64_t)tv[1] * 1000);
}

static void ns_timeval(uint64_t ns, int64_t tv[2])
{
    tv[0] = (int64_t)(ns / NS);
    tv[1] = (int64_t)(ns % NS / 1000);
}

/* struct itimerval: interval, then value. */
static long put_itimerval(struct x86_process *p, uint64_t addr, const uint64_t v[2])
{
    int64_t out[4];
    ns_timeval(v[1], out);
    ns_timeval(v[0], out + 2);
    return gmem_copy_out(p->mem, addr, out, sizeof out, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_setitimer(struct x86_sys *s)
{
    uint64_t which = s->a[0];
    if (which > 2)
        return -EINVAL;
    int64_t in[4] = { 0, 0, 0, 0 };
    if (s->a[1] && gmem_copy_in(s->p->mem, in, s->a[1], sizeof in, NULL) < 0)
        return -EFAULT;
    int64_t interval = timeval_ns(in), value = timeval_ns(in + 2);
    if (interval < 0 || value < 0)
        return -EINVAL;
    uint64_t old[2];
    set_timer(s->p, (int)which, (uint64_t)value, (uint64_t)interval, old);
    return s->a[2] ? put_itimerval(s->p, s->a[2], old) : 0;
}

long sys_getitimer(struct x86_sys *s)
{
    if (s->a[0] > 2)
        return -EINVAL;
    const struct x86_itimer *it = &s->p->itimer[s->a[0]];
    uint64_t now = x86_virtual_now_ns(s->p);
    uint64_t cur[2] = { !it->deadline ? 0 : it->deadline > now + 1000 ? it->deadline - now : 1000,
                        it->interval };
    return put_itimerval(s->p, s->a[1], cur);
}

/* alarm: the seconds left of the previous alarm, rounded as Linux does
 * (to the nearest second, and at least 1 while one was set). */
long sys_alarm(struct x86_sys *s)
{
    uint64_t old[2];
    uint64_t secs = (uint32_t)s->a[0];
    set_timer(s->p, 0, secs * NS, 0, old);
    uint64_t left = old[0] / NS, us = old[0] % NS / 1000;
    if ((!left && us) || us >= 500000)
        left++;
    return (long)left;
}
