/* Pipes between the guest's threads. The host pipe never blocks: the
 * guest's threads take turns on one host thread, so a reader waiting for a
 * writer (or a writer for room) yields to the others as poll does
 * (x86_wait_fd), and the guest's O_NONBLOCK only says whether it waits.
 * Each guest descriptor is a host one of its own, so the reader sees end of
 * file when the guest has closed every write end, and a writer EPIPE (and
 * SIGPIPE) when it has closed every read end. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "tracegen/x86/sys.h"

static long make_pipe(struct x86_sys *s, uint64_t addr, uint64_t flags)
{
    struct x86_process *p = s->p;
    if (flags & ~(uint64_t)(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
        return -EINVAL;
    int h[2];
    if (pipe2(h, O_CLOEXEC | O_NONBLOCK | (int)(flags & O_DIRECT)) < 0)
        return -errno;
    long r = x86_new_guest_fd(p, h[0], 0);
    if (r < 0) {
        close(h[1]);
        return r;
    }
    long w = x86_new_guest_fd(p, h[1], 0);
    if (w < 0) {
        close(h[0]);
        p->fds[r] = -1;
        return w;
    }
    uint8_t mode = X86_FD_HOST_NB | X86_FD_INTERNAL | (flags & O_NONBLOCK ? 0 : X86_FD_WAITS);
    p->fd_mode[r] = p->fd_mode[w] = mode;
    int32_t fds[2] = { (int32_t)r, (int32_t)w };
    if (gmem_copy_out(p->mem, addr, fds, sizeof fds, 0, NULL) < 0) {
        close(h[0]);
        close(h[1]);
        p->fds[r] = p->fds[w] = -1;
        return -EFAULT;
    }
    return 0;
}

long sys_pipe(struct x86_sys *s) { return make_pipe(s, s->a[0], 0); }
long sys_pipe2(struct x86_sys *s) { return make_pipe(s, s->a[0], s->a[1]); }
