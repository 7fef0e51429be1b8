/* signalfd: a descriptor that reads pending signals of its mask. Each one
 * is a host eventfd that tracegen makes readable while a signal of the mask
 * is pending (x86_signalfds_sync, wherever pending signals change), so
 * poll, epoll and a read that waits see it as natively; reading takes the
 * signals as sigtimedwait does. The guest's descriptors are dups of that
 * eventfd; the signalfd keeps its own.
 *
 * Natively a signalfd is readable for the thread that reads or polls it:
 * the process's pending signals and that thread's own. Here it is readable
 * when the process or any of its threads has one pending; a read by a
 * thread for which none is pending returns EAGAIN, or waits. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "tracegen/x86/signal.h"
#include "tracegen/x86/sys.h"

#define SFD_CLOEXEC_ 02000000
#define SFD_NONBLOCK_ 04000
#define SFD_INFO_BYTES 128

static uint64_t pending_anywhere(const struct x86_process *p)
{
    uint64_t m = p->sigpending;
    for (size_t i = 0; i < p->nthreads; i++)
        m |= p->threads[i]->sigpending;
    return m;
}

void x86_signalfds_sync(struct x86_process *p)
{
    uint64_t pending = 0;
    int computed = 0;
    for (int i = 0; i < X86_MAX_SIGNALFDS; i++) {
        struct x86_signalfd *sf = &p->signalfds[i];
        if (!sf->used)
            continue;
        if (!computed) {
            pending = pending_anywhere(p);
            computed = 1;
        }
        int want = (pending & sf->mask) != 0;
        if (want == sf->readable)
            continue;
        uint64_t v = 1;
        ssize_t k = want ? write(sf->hfd, &v, sizeof v) : read(sf->hfd, &v, sizeof v);
        (void)k; /* a non-blocking eventfd holding 0 or 1: neither can fail */
        sf->readable = want;
    }
}

static long create(struct x86_process *p, uint64_t mask, uint64_t flags)
{
    int slot = x86_fd_object_slot(p, X86_FD_SIGNAL, X86_MAX_SIGNALFDS), own;
    if (slot < 0)
        return -EMFILE;
    long g = x86_new_eventfd_fd(p, 0, 0, X86_FD_SIGNAL, (flags & SFD_NONBLOCK_) != 0, &own);
    if (g < 0)
        return g;
    struct x86_signalfd *sf = &p->signalfds[slot];
    if (sf->used) /* its descriptors were all closed */
        close(sf->hfd);
    sf->used = 1;
    sf->hfd = own;
    sf->readable = 0;
    sf->mask = mask;
    p->fd_object[g] = (uint8_t)slot;
    x86_signalfds_sync(p);
    return g;
}

/* signalfd4(fd, mask, sizemask, flags): FD -1 makes a signalfd, a
 * signalfd's descriptor gets the new mask. */
long sys_signalfd4(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t fd = s->a[0], flags = s->a[3], mask;
    if (s->a[2] != 8 || (flags & ~(uint64_t)(SFD_CLOEXEC_ | SFD_NONBLOCK_)))
        return -EINVAL;
    if (gmem_copy_in(p->mem, &mask, s->a[1], 8, NULL) < 0)
        return -EFAULT;
    mask &= ~(x86_sig_bit(SIGKILL) | x86_sig_bit(SIGSTOP));
    if ((int32_t)fd == -1)
        return create(p, mask, flags);
    if (x86_host_fd(p, fd) < 0)
        return -EBADF;
    if (!(p->fd_mode[(uint32_t)fd] & X86_FD_SIGNAL))
        return -EINVAL;
    p->signalfds[p->fd_object[(uint32_t)fd]].mask = mask;
    x86_signalfds_sync(p);
    return (long)(uint32_t)fd;
}

long sys_signalfd(struct x86_sys *s)
{
    s->a[3] = 0;
    return sys_signalfd4(s);
}

/* struct signalfd_siginfo: signo, errno, code, pid, uid, ..., trapno at 36,
 * int at 44, ptr at 48, addr at 72. */
static void fd_info(uint8_t out[SFD_INFO_BYTES], unsigned sig, const struct x86_siginfo *si)
{
    memset(out, 0, SFD_INFO_BYTES);
    uint32_t w[12] = { sig, (uint32_t)si->errno_, (uint32_t)si->code };
    if (si->code <= 0) { /* sent by a process: pid and uid */
        w[3] = (uint32_t)si->value;
        w[4] = (uint32_t)(si->value >> 32);
    }
    w[9] = si->trapno;
    if (si->code < 0) /* queued (sigqueue and the like): si_int and si_ptr */
        w[11] = (uint32_t)si->rest[0];
    memcpy(out, w, sizeof w);
    if (si->code < 0)
        memcpy(out + 48, &si->rest[0], 8);
    if (si->code > 0 && si->code != 0x80 /* SI_KERNEL */)
        memcpy(out + 72, &si->value, 8);
}

long x86_signalfd_read(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint32_t g = (uint32_t)s->a[0];
    uint64_t buf = s->a[1], n = s->a[2] / SFD_INFO_BYTES;
    if (!n)
        return -EINVAL; /* before waiting, as natively */
    if (p->fd_mode[g] & X86_FD_WAITS) {
        long w = x86_wait_fd(s, g, POLLIN);
        if (w != 1)
            return w;
    }
    uint64_t mask = p->signalfds[p->fd_object[g]].mask;
    long got = 0;
    for (; (uint64_t)got < n; got++) {
        struct x86_siginfo si;
        unsigned sig = x86_signal_take(p, s->t, mask, &si);
        if (!sig)
            break;
        uint8_t rec[SFD_INFO_BYTES];
        fd_info(rec, sig, &si);
        if (gmem_copy_out(p->mem, buf + (uint64_t)got * SFD_INFO_BYTES, rec, sizeof rec, 0,
                          NULL) < 0)
            return got ? got * SFD_INFO_BYTES : -EFAULT;
    }
    return got ? got * SFD_INFO_BYTES : -EAGAIN;
}
