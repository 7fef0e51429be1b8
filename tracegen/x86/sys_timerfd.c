/* timerfd on virtual time. A timer is a host eventfd that tracegen adds
 * the expirations to when the timer fires (x86_timers_fire, at every
 * scheduling slice and system call, and when no thread can run virtual
 * time jumps to it), so reading, polling and epoll see it as natively:
 * a read returns the expirations since the last one and resets them. The
 * guest's descriptors are dups of that eventfd; the timer keeps its own. */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "tracegen/x86/signal.h"
#include "tracegen/x86/sys.h"

#define NS 1000000000ull
#define TFD_CLOEXEC_ 02000000
#define TFD_NONBLOCK_ 04000
#define TFD_TIMER_ABSTIME_ 1
#define TFD_TIMER_CANCEL_ON_SET_ 2

/* Empties eventfd FD (a timer being set starts counting from 0). */
static void drain(int fd)
{
    uint64_t v;
    ssize_t k = read(fd, &v, sizeof v);
    (void)k;
}

long sys_timerfd_create(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t clock = s->a[0], flags = s->a[1];
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME &&
        clock != CLOCK_REALTIME_ALARM && clock != CLOCK_BOOTTIME_ALARM)
        return -EINVAL;
    if (flags & ~(uint64_t)(TFD_CLOEXEC_ | TFD_NONBLOCK_))
        return -EINVAL;
    int slot = x86_fd_object_slot(p, X86_FD_TIMER, X86_MAX_TIMERFDS), own;
    if (slot < 0)
        return -EMFILE;
    long g = x86_new_eventfd_fd(p, 0, 0, X86_FD_COUNTER | X86_FD_TIMER,
                                (flags & TFD_NONBLOCK_) != 0, &own);
    if (g < 0)
        return g;
    struct x86_timerfd *tf = &p->timerfds[slot];
    if (tf->used) /* its descriptors were all closed */
        close(tf->hfd);
    tf->used = 1;
    tf->hfd = own;
    tf->realtime = clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_ALARM;
    tf->deadline = tf->interval = 0;
    x86_timers_changed(p);
    p->fd_object[g] = (uint8_t)slot;
    return g;
}

/* The timer guest descriptor FD names, or NULL (*ERR: EBADF or EINVAL). */
static struct x86_timerfd *timer_of(struct x86_process *p, uint64_t fd, long *err)
{
    if (x86_host_fd(p, fd) < 0) {
        *err = -EBADF;
        return NULL;
    }
    if (!(p->fd_mode[(uint32_t)fd] & X86_FD_TIMER)) {
        *err = -EINVAL;
        return NULL;
    }
    return &p->timerfds[p->fd_object[(uint32_t)fd]];
}

/* struct itimerspec: interval, then value (each seconds, nanoseconds). */
static long put_spec(struct x86_process *p, uint64_t addr, const struct x86_timerfd *tf)
{
    uint64_t now = x86_virtual_now_ns(p);
    uint64_t left = !tf->deadline ? 0 : tf->deadline > now ? tf->deadline - now : 1;
    int64_t out[4] = { (int64_t)(tf->interval / NS), (int64_t)(tf->interval % NS),
                       (int64_t)(left / NS), (int64_t)(left % NS) };
    return gmem_copy_out(p->mem, addr, out, sizeof out, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_timerfd_settime(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    long err;
    struct x86_timerfd *tf = timer_of(p, s->a[0], &err);
    if (!tf)
        return err;
    uint64_t flags = s->a[1];
    if (flags & ~(uint64_t)(TFD_TIMER_ABSTIME_ | TFD_TIMER_CANCEL_ON_SET_))
        return -EINVAL;
    int64_t in[4];
    if (gmem_copy_in(p->mem, in, s->a[2], sizeof in, NULL) < 0)
        return -EFAULT;
    for (int i = 0; i < 4; i += 2)
        if (in[i] < 0 || in[i + 1] < 0 || in[i + 1] >= (int64_t)NS ||
            (uint64_t)in[i] > UINT64_MAX / NS / 4)
            return -EINVAL;
    if (s->a[3] && put_spec(p, s->a[3], tf) < 0)
        return -EFAULT;
    drain(tf->hfd);
    uint64_t interval = (uint64_t)in[0] * NS + (uint64_t)in[1];
    uint64_t value = (uint64_t)in[2] * NS + (uint64_t)in[3];
    uint64_t now = x86_virtual_now_ns(p);
    if (!value) {
        tf->deadline = 0;
    } else if (flags & TFD_TIMER_ABSTIME_) {
        /* virtual time is the realtime clock; the monotonic one starts at 0 */
        uint64_t at = tf->realtime ? value : value + p->opt.time_start * NS;
        tf->deadline = at ? at : 1;
    } else {
        tf->deadline = now + value;
    }
    tf->interval = interval;
    x86_timers_changed(p);
    return 0;
}

long sys_timerfd_gettime(struct x86_sys *s)
{
    long err;
    struct x86_timerfd *tf = timer_of(s->p, s->a[0], &err);
    return tf ? put_spec(s->p, s->a[1], tf) : err;
}

void x86_timerfds_fire(struct x86_process *p, uint64_t now)
{
    for (int i = 0; i < X86_MAX_TIMERFDS; i++) {
        struct x86_timerfd *tf = &p->timerfds[i];
        if (!tf->used || !tf->deadline || tf->deadline > now)
            continue;
        uint64_t n = 1;
        if (tf->interval) {
            n += (now - tf->deadline) / tf->interval;
            tf->deadline += n * tf->interval;
        } else {
            tf->deadline = 0;
        }
        ssize_t k = write(tf->hfd, &n, sizeof n); /* fails only at the count's maximum */
        (void)k;
    }
}
