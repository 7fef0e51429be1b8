/* Waiting on descriptors: poll, ppoll, select, pselect6, epoll and
 * eventfd. The guest's threads take turns on one host thread, so a wait
 * that another guest thread could end must not block the host: while
 * another thread is runnable the waiter yields and tries again at its next
 * turn (SC_RETRY), and its timeout runs in virtual time; when no other
 * thread can run, only the outside world can end the wait and the host
 * waits for it, in real time. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/signal.h"
#include "tracegen/x86/sys.h"

#define POLL_FDS_MAX 4096
#define EPOLL_EVENTS_MAX 1024

int x86_other_threads_runnable(const struct x86_process *p, const struct x86_thread *t)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i] != t && p->threads[i]->state == THREAD_RUNNABLE)
            return 1;
    return 0;
}

/* Nothing is ready, no other thread can run, and every descriptor waited
 * on is one only the guest can make ready: natively the wait would last
 * forever. A thread in a timed futex wait times out first (what would
 * happen next in virtual time); without one the run stops as a deadlock. */
static int wait_internal(struct x86_sys *s)
{
    if (x86_time_out_oldest(s->p)) {
        s->outcome = SC_RETRY;
        return -1;
    }
    snprintf(s->p->message, sizeof s->p->message,
             "deadlock: thread %llu waits on a pipe or eventfd that only the guest can make "
             "ready, and no other thread can run", (unsigned long long)s->t->tid);
    s->p->stop_kind = XF_SYSCALL;
    s->outcome = SC_STOP;
    return -1;
}

/* Nothing is ready and the guest asked to wait up to TIMEOUT_NS (< 0: no
 * limit) on descriptors of which INTERNAL says whether only the guest can
 * make them ready. Returns 1 when the caller should wait on the host
 * (TIMEOUT_MS set), 0 when the wait timed out in virtual time, or -1 with
 * SC_RETRY or SC_STOP set. */
static int wait_policy(struct x86_sys *s, int64_t timeout_ns, int internal, int *timeout_ms)
{
    struct x86_thread *t = s->t;
    if (x86_other_threads_runnable(s->p, t)) {
        uint64_t now = x86_virtual_now_ns(s->p);
        if (!t->wait_deadline && timeout_ns >= 0)
            t->wait_deadline = now + (uint64_t)timeout_ns;
        if (t->wait_deadline && now >= t->wait_deadline) {
            t->wait_deadline = 0;
            return 0;
        }
        s->outcome = SC_RETRY;
        return -1;
    }
    t->wait_deadline = 0;
    /* a timer on virtual time comes before anything the host could see */
    uint64_t next = s->p->timer_next, now = x86_virtual_now_ns(s->p);
    if (next && (timeout_ns < 0 || next <= now + (uint64_t)timeout_ns)) {
        x86_timers_skip(s->p);
        s->outcome = SC_RETRY;
        return -1;
    }
    if (internal)
        return timeout_ns < 0 ? wait_internal(s) : 0;
    *timeout_ms = timeout_ns < 0 ? -1 : (int)(timeout_ns / 1000000 > 1000000000 ? 1000000000
                                                                               : timeout_ns / 1000000);
    return 1;
}

/* Polls the guest's pollfd array PFD (N entries) on the host: each guest
 * descriptor its host one, a closed one POLLNVAL. Waits as wait_policy says. */
static long poll_guest(struct x86_sys *s, struct pollfd *pfd, size_t n, int64_t timeout_ns)
{
    struct x86_process *p = s->p;
    struct pollfd *host = malloc((n ? n : 1) * sizeof *host);
    if (!host)
        return -ENOMEM;
    int internal = 1;
    for (size_t i = 0; i < n; i++) {
        host[i] = pfd[i];
        host[i].fd = pfd[i].fd < 0 ? -1 : x86_host_fd(p, (uint64_t)(uint32_t)pfd[i].fd);
        if (host[i].fd >= 0 && !(p->fd_mode[(uint32_t)pfd[i].fd] & X86_FD_INTERNAL))
            internal = 0;
        if (host[i].fd >= 0 && (p->fd_mode[(uint32_t)pfd[i].fd] & (X86_FD_TIMER | X86_FD_SIGNAL)))
            host[i].events &= (short)~POLLOUT; /* its eventfd is writable; timerfds and
                                                  signalfds are not */
    }
    int ready = poll(host, n, 0);
    if (ready == 0 && timeout_ns != 0) {
        int ms, w = wait_policy(s, timeout_ns, internal, &ms);
        if (w < 0) {
            free(host);
            return 0;
        }
        if (w > 0)
            ready = poll(host, n, ms);
    } else {
        s->t->wait_deadline = 0;
    }
    long rc = ready < 0 ? -errno : 0;
    for (size_t i = 0; i < n && ready >= 0; i++) {
        pfd[i].revents = host[i].revents;
        if (pfd[i].fd >= 0 && host[i].fd < 0)
            pfd[i].revents = POLLNVAL;
        rc += pfd[i].revents != 0;
    }
    free(host);
    return rc;
}

static int64_t timespec_ns(struct x86_process *p, uint64_t addr, long *err)
{
    int64_t ts[2];
    *err = 0;
    if (!addr)
        return -1;
    if (gmem_copy_in(p->mem, ts, addr, sizeof ts, NULL) < 0) {
        *err = -EFAULT;
        return 0;
    }
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000) {
        *err = -EINVAL;
        return 0;
    }
    return ts[0] > INT64_MAX / 1000000000 - 1 ? INT64_MAX : ts[0] * 1000000000 + ts[1];
}

static long do_poll(struct x86_sys *s, uint64_t addr, uint64_t n, int64_t timeout_ns)
{
    if (n > POLL_FDS_MAX)
        return -EINVAL;
    struct pollfd *pfd = malloc((n ? n : 1) * sizeof *pfd);
    if (!pfd)
        return -ENOMEM;
    long rc = n && gmem_copy_in(s->p->mem, pfd, addr, n * sizeof *pfd, NULL) < 0 ? -EFAULT : 0;
    if (!rc)
        rc = poll_guest(s, pfd, n, timeout_ns);
    if (rc >= 0 && s->outcome != SC_RETRY && n &&
        gmem_copy_out(s->p->mem, addr, pfd, n * sizeof *pfd, 0, NULL) < 0)
        rc = -EFAULT;
    free(pfd);
    return rc;
}

long sys_poll(struct x86_sys *s)
{
    int ms = (int)s->a[2];
    return do_poll(s, s->a[0], s->a[1], ms < 0 ? -1 : (int64_t)ms * 1000000);
}

/* ppoll: the signal mask is kept, as signals are never delivered. */
long sys_ppoll(struct x86_sys *s)
{
    long err;
    int64_t ns = timespec_ns(s->p, s->a[2], &err);
    return err ? err : do_poll(s, s->a[0], s->a[1], ns);
}

/* select and pselect6 on the guest's fd_sets, through poll. */
static long do_select(struct x86_sys *s, uint64_t nfds, const uint64_t set_addr[3],
                      int64_t timeout_ns)
{
    if ((int64_t)nfds < 0 || nfds > 1024)
        return -EINVAL;
    uint64_t sets[3][16];
    size_t words = (nfds + 63) / 64;
    for (int k = 0; k < 3; k++) {
        memset(sets[k], 0, sizeof sets[k]);
        if (set_addr[k] && words &&
            gmem_copy_in(s->p->mem, sets[k], set_addr[k], words * 8, NULL) < 0)
            return -EFAULT;
    }
    static const short EV[3] = { POLLIN, POLLOUT, POLLPRI };
    struct pollfd pfd[1024];
    size_t n = 0;
    for (uint64_t fd = 0; fd < nfds; fd++) {
        short events = 0;
        for (int k = 0; k < 3; k++)
            if (sets[k][fd / 64] >> (fd % 64) & 1)
                events |= EV[k];
        if (events)
            pfd[n++] = (struct pollfd){ .fd = (int)fd, .events = events };
    }
    long rc = poll_guest(s, pfd, n, timeout_ns);
    if (rc < 0 || s->outcome == SC_RETRY)
        return rc;
    long count = 0;
    for (int k = 0; k < 3; k++)
        memset(sets[k], 0, sizeof sets[k]);
    for (size_t i = 0; i < n; i++) {
        if (pfd[i].revents & POLLNVAL)
            return -EBADF;
        short ev[3] = { POLLIN | POLLHUP | POLLERR, POLLOUT | POLLERR, POLLPRI };
        for (int k = 0; k < 3; k++)
            if ((pfd[i].events & EV[k]) && (pfd[i].revents & ev[k])) {
                sets[k][pfd[i].fd / 64] |= 1ull << (pfd[i].fd % 64);
                count++;
            }
    }
    for (int k = 0; k < 3; k++)
        if (set_addr[k] && words &&
            gmem_copy_out(s->p->mem, set_addr[k], sets[k], words * 8, 0, NULL) < 0)
            return -EFAULT;
    return count;
}

long sys_select(struct x86_sys *s)
{
    int64_t ns = -1;
    if (s->a[4]) {
        int64_t tv[2];
        if (gmem_copy_in(s->p->mem, tv, s->a[4], sizeof tv, NULL) < 0)
            return -EFAULT;
        if (tv[0] < 0 || tv[1] < 0 || tv[1] >= 1000000)
            return -EINVAL;
        ns = tv[0] * 1000000000 + tv[1] * 1000;
    }
    const uint64_t sets[3] = { s->a[1], s->a[2], s->a[3] };
    return do_select(s, s->a[0], sets, ns);
}

long sys_pselect6(struct x86_sys *s)
{
    long err;
    int64_t ns = timespec_ns(s->p, s->a[4], &err);
    if (err)
        return err;
    const uint64_t sets[3] = { s->a[1], s->a[2], s->a[3] };
    return do_select(s, s->a[0], sets, ns);
}

/* ---- epoll ------------------------------------------------------------------ */

static long new_fd(struct x86_process *p, int h)
{
    return h < 0 ? -errno : x86_new_guest_fd(p, h, 0);
}

long sys_epoll_create(struct x86_sys *s)
{
    if ((int)s->a[0] <= 0)
        return -EINVAL;
    return new_fd(s->p, epoll_create1(EPOLL_CLOEXEC));
}

long sys_epoll_create1(struct x86_sys *s)
{
    if (s->a[0] & ~(uint64_t)EPOLL_CLOEXEC)
        return -EINVAL;
    return new_fd(s->p, epoll_create1(EPOLL_CLOEXEC));
}

/* struct epoll_event is packed on x86-64: events (4 bytes), data (8). */
long sys_epoll_ctl(struct x86_sys *s)
{
    int ep = x86_host_fd(s->p, s->a[0]), h = x86_host_fd(s->p, s->a[2]);
    if (ep < 0 || h < 0)
        return -EBADF;
    struct epoll_event ev = { 0 };
    if (s->a[1] != EPOLL_CTL_DEL && gmem_copy_in(s->p->mem, &ev, s->a[3], sizeof ev, NULL) < 0)
        return -EFAULT;
    return epoll_ctl(ep, (int)s->a[1], h, &ev) < 0 ? -errno : 0;
}

static long do_epoll_wait(struct x86_sys *s, int64_t timeout_ms)
{
    int ep = x86_host_fd(s->p, s->a[0]);
    int max = (int)s->a[2];
    if (ep < 0)
        return -EBADF;
    if (max <= 0 || max > EPOLL_EVENTS_MAX)
        return -EINVAL;
    struct epoll_event ev[EPOLL_EVENTS_MAX];
    int n = epoll_wait(ep, ev, max, 0);
    if (n == 0 && timeout_ms != 0) {
        /* the epoll set's descriptors are the host's business: an epoll
         * descriptor counts as one the outside world can make ready */
        int ms, w = wait_policy(s, timeout_ms < 0 ? -1 : timeout_ms * 1000000, 0, &ms);
        if (w < 0)
            return 0;
        if (w > 0)
            n = epoll_wait(ep, ev, max, ms);
    } else {
        s->t->wait_deadline = 0;
    }
    if (n < 0)
        return -errno;
    if (n && gmem_copy_out(s->p->mem, s->a[1], ev, (size_t)n * sizeof *ev, 0, NULL) < 0)
        return -EFAULT;
    return n;
}

long sys_epoll_wait(struct x86_sys *s) { return do_epoll_wait(s, (int)s->a[3]); }
long sys_epoll_pwait(struct x86_sys *s) { return do_epoll_wait(s, (int)s->a[3]); }

/* ---- eventfd ---------------------------------------------------------------- */

/* The host counter never blocks; a guest that did not ask for
 * EFD_NONBLOCK waits as above (see x86_wait_fd). */
long sys_eventfd2(struct x86_sys *s)
{
    uint64_t flags = s->a[1];
    if (flags & ~(uint64_t)(EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE))
        return -EINVAL;
    return x86_new_eventfd_fd(s->p, (unsigned)s->a[0], (int)(flags & EFD_SEMAPHORE),
                              X86_FD_COUNTER, (flags & EFD_NONBLOCK) != 0, NULL);
}

long sys_eventfd(struct x86_sys *s)
{
    s->a[1] = 0;
    return sys_eventfd2(s);
}

long x86_wait_fd(struct x86_sys *s, uint64_t fd, short events)
{
    struct pollfd pfd = { .fd = (int)(uint32_t)fd, .events = events };
    long rc = poll_guest(s, &pfd, 1, -1);
    if (rc < 0 || s->outcome == SC_RETRY)
        return rc;
    return 1;
}
