/* System calls that describe the machine, the process and the time.
 * Time is virtual (derived from the instruction count) and randomness is
 * seeded, so runs repeat; the machine is a fixed one, whatever the host. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tracegen/x86/sys.h"

/* Virtual time: 1 ns per instruction from --time-start (x86_options),
 * plus the time no thread ran while waiting for a timer. */
static uint64_t epoch_ns(const struct x86_process *p)
{
    return p->opt.time_start * 1000000000ull;
}

uint64_t x86_virtual_now_ns(const struct x86_process *p)
{
    return epoch_ns(p) + p->icount + p->idle_ns;
}

long sys_uname(struct x86_sys *s)
{
    char u[6][65];
    memset(u, 0, sizeof u);
    strcpy(u[0], "Linux");
    strcpy(u[1], "cgmtrace");
    strcpy(u[2], "6.1.0-cgmtrace");
    strcpy(u[3], "#1 SMP PREEMPT_DYNAMIC");
    strcpy(u[4], "x86_64");
    strcpy(u[5], "(none)");
    return gmem_copy_out(s->p->mem, s->a[0], u, sizeof u, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_clock_gettime(struct x86_sys *s)
{
    uint64_t clk = s->a[0], ns = x86_virtual_now_ns(s->p);
    if (clk != CLOCK_REALTIME && clk != CLOCK_REALTIME_COARSE)
        ns -= epoch_ns(s->p);
    int64_t ts[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull) };
    return gmem_copy_out(s->p->mem, s->a[1], ts, sizeof ts, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_clock_getres(struct x86_sys *s)
{
    int64_t ts[2] = { 0, 1 };
    return s->a[1] && gmem_copy_out(s->p->mem, s->a[1], ts, sizeof ts, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_gettimeofday(struct x86_sys *s)
{
    uint64_t ns = x86_virtual_now_ns(s->p);
    int64_t tv[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull / 1000) };
    return s->a[0] && gmem_copy_out(s->p->mem, s->a[0], tv, sizeof tv, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_time(struct x86_sys *s)
{
    int64_t sec = (int64_t)(x86_virtual_now_ns(s->p) / 1000000000ull);
    return s->a[0] && gmem_copy_out(s->p->mem, s->a[0], &sec, 8, 0, NULL) < 0 ? -EFAULT : sec;
}

/* nanosleep and clock_nanosleep: time is virtual, so sleeping is free. */
long sys_nanosleep(struct x86_sys *s)
{
    (void)s;
    return 0;
}

long sys_getrandom(struct x86_sys *s)
{
    uint64_t buf = s->a[0], n = s->a[1];
    if (n > X86_IO_CHUNK)
        n = X86_IO_CHUNK;
    for (uint64_t i = 0; i < n; i += 8) {
        uint64_t r = x86_random(s->p);
        size_t k = n - i < 8 ? (size_t)(n - i) : 8;
        if (gmem_copy_out(s->p->mem, buf + i, &r, k, 0, NULL) < 0)
            return -EFAULT;
    }
    return (long)n;
}

static long do_prlimit(struct x86_process *p, uint64_t res, uint64_t oldp)
{
    if (res >= 16)
        return -EINVAL;
    uint64_t lim[2] = { ~0ull, ~0ull };
    if (res == 3) /* RLIMIT_STACK */
        lim[0] = 8ull << 20;
    else if (res == 7) /* RLIMIT_NOFILE */
        lim[0] = lim[1] = X86_MAX_FDS;
    if (oldp && gmem_copy_out(p->mem, oldp, lim, sizeof lim, 0, NULL) < 0)
        return -EFAULT;
    return 0;
}

long sys_getrlimit(struct x86_sys *s) { return do_prlimit(s->p, s->a[0], s->a[1]); }
/* New limits are accepted and not applied. */
long sys_prlimit64(struct x86_sys *s) { return do_prlimit(s->p, s->a[1], s->a[3]); }

/* A fixed 8 GiB machine. */
long sys_sysinfo(struct x86_sys *s)
{
    /* struct sysinfo: uptime 0, totalram 32, freeram 40, procs 80, mem_unit 104 */
    uint8_t buf[112];
    memset(buf, 0, sizeof buf);
    uint64_t uptime = s->p->icount / 1000000000ull, total = 8ull << 30, avail = 6ull << 30;
    uint32_t unit = 1;
    uint16_t procs = 1;
    memcpy(buf + 0, &uptime, 8);
    memcpy(buf + 32, &total, 8);
    memcpy(buf + 40, &avail, 8);
    memcpy(buf + 80, &procs, 2);
    memcpy(buf + 104, &unit, 4);
    return gmem_copy_out(s->p->mem, s->a[0], buf, sizeof buf, 0, NULL) < 0 ? -EFAULT : 0;
}

/* Four CPUs, whatever the host has. */
long sys_sched_getaffinity(struct x86_sys *s)
{
    uint64_t mask = 0xf;
    return s->a[1] < 8 ? -EINVAL
           : gmem_copy_out(s->p->mem, s->a[2], &mask, 8, 0, NULL) < 0 ? -EFAULT : 8;
}

long sys_getpid(struct x86_sys *s) { (void)s; return X86_GUEST_PID; }
long sys_getppid(struct x86_sys *s) { (void)s; return 1; }
long sys_gettid(struct x86_sys *s) { return (long)s->t->tid; }
long sys_getuid(struct x86_sys *s) { (void)s; return (long)getuid(); }
long sys_getgid(struct x86_sys *s) { (void)s; return (long)getgid(); }
long sys_geteuid(struct x86_sys *s) { (void)s; return (long)geteuid(); }
long sys_getegid(struct x86_sys *s) { (void)s; return (long)getegid(); }

long sys_set_tid_address(struct x86_sys *s)
{
    s->t->clear_child_tid = s->a[0];
    return (long)s->t->tid;
}

/* The robust-futex list is for threads that die holding a lock: ours end
 * only by exit, so it is accepted and never walked. */
long sys_set_robust_list(struct x86_sys *s) { (void)s; return 0; }

long sys_arch_prctl(struct x86_sys *s)
{
    struct x86_cpu *c = &s->t->cpu;
    switch (s->a[0]) {
    case 0x1001: c->gs_base = s->a[1]; return 0;
    case 0x1002: c->fs_base = s->a[1]; return 0;
    case 0x1003: return gmem_copy_out(s->p->mem, s->a[1], &c->fs_base, 8, 0, NULL) < 0 ? -EFAULT : 0;
    case 0x1004: return gmem_copy_out(s->p->mem, s->a[1], &c->gs_base, 8, 0, NULL) < 0 ? -EFAULT : 0;
    default: return -EINVAL;
    }
}

/* getrusage: the guest's time is virtual, all of it user time; nothing
 * else is counted. */
long sys_getrusage(struct x86_sys *s)
{
    int who = (int)s->a[0];
    if (who != 0 && who != -1 && who != 1) /* SELF, CHILDREN, THREAD */
        return -EINVAL;
    uint64_t ns = who == -1 ? 0 : x86_virtual_now_ns(s->p) - epoch_ns(s->p);
    uint8_t ru[144];
    memset(ru, 0, sizeof ru);
    int64_t tv[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull / 1000) };
    memcpy(ru, tv, sizeof tv); /* ru_utime; ru_stime and the counts stay 0 */
    return gmem_copy_out(s->p->mem, s->a[1], ru, sizeof ru, 0, NULL) < 0 ? -EFAULT : 0;
}

/* times: clock ticks of 10 ms (sysconf(_SC_CLK_TCK) is 100, AT_CLKTCK). */
long sys_times(struct x86_sys *s)
{
    int64_t ticks = (int64_t)((x86_virtual_now_ns(s->p) - epoch_ns(s->p)) / 10000000ull);
    int64_t tms[4] = { ticks, 0, 0, 0 };
    if (s->a[0] && gmem_copy_out(s->p->mem, s->a[0], tms, sizeof tms, 0, NULL) < 0)
        return -EFAULT;
    return (long)ticks;
}

/* The four CPUs sched_getaffinity reports: any nonempty set of them is
 * accepted (threads run one at a time anyway). */
long sys_sched_setaffinity(struct x86_sys *s)
{
    uint64_t mask = 0;
    size_t n = s->a[1] < 8 ? (size_t)s->a[1] : 8;
    if (n && gmem_copy_in(s->p->mem, &mask, s->a[2], n, NULL) < 0)
        return -EFAULT;
    return (mask & 0xf) ? 0 : -EINVAL;
}

/* prctl: a thread's name (PR_SET_NAME 15, PR_GET_NAME 16); other options
 * are refused (EINVAL), as for an option the kernel does not know. */
long sys_prctl(struct x86_sys *s)
{
    struct x86_thread *t = s->t;
    switch (s->a[0]) {
    case 15: {
        char name[16];
        memset(name, 0, sizeof name);
        for (size_t i = 0; i + 1 < sizeof name; i++) {
            if (gmem_copy_in(s->p->mem, &name[i], s->a[1] + i, 1, NULL) < 0)
                return -EFAULT;
            if (!name[i])
                break;
        }
        memcpy(t->name, name, sizeof name);
        return 0;
    }
    case 16:
        return gmem_copy_out(s->p->mem, s->a[1], t->name, sizeof t->name, 0, NULL) < 0 ? -EFAULT : 0;
    default:
        return -EINVAL;
    }
}

/* membarrier: the guest's threads run one at a time, in program order,
 * so every barrier is already there. QUERY (0) names the commands served:
 * GLOBAL (1), PRIVATE_EXPEDITED (8) and its registration (16). */
long sys_membarrier(struct x86_sys *s)
{
    const uint64_t served = 1 | 8 | 16;
    if (s->a[0] == 0)
        return (long)served;
    return (s->a[0] & ~served) || !s->a[0] || (s->a[0] & (s->a[0] - 1)) ? -EINVAL : 0;
}
