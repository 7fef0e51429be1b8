/* File system calls: descriptors, reading and writing, opening, status,
 * directories and links. Files are read through the host; writes go only
 * to stdout, stderr and files under --allow-write directories. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <termios.h>
#include <unistd.h>

#include "tracegen/x86/sandbox.h"
#include "tracegen/x86/sys.h"

void x86_fd_copy_mode(struct x86_process *p, uint32_t from, uint32_t to)
{
    p->fd_confined[to] = p->fd_confined[from];
    p->fd_mode[to] = p->fd_mode[from];
    p->fd_object[to] = p->fd_object[from];
}

long x86_new_guest_fd(struct x86_process *p, int hfd, uint32_t lowest)
{
    for (uint32_t i = lowest; i < X86_MAX_FDS; i++)
        if (p->fds[i] < 0) {
            p->fds[i] = hfd;
            p->fd_confined[i] = 0;
            p->fd_mode[i] = 0;
            return i;
        }
    close(hfd);
    return -EMFILE;
}

int x86_fd_object_slot(const struct x86_process *p, uint8_t kind, int n)
{
    uint8_t named[256] = { 0 };
    for (int g = 0; g < X86_MAX_FDS; g++)
        if (p->fds[g] >= 0 && (p->fd_mode[g] & kind))
            named[p->fd_object[g]] = 1;
    for (int i = 0; i < n; i++)
        if (!named[i])
            return i;
    return -1;
}

long x86_new_eventfd_fd(struct x86_process *p, unsigned initial, int efd_flags, uint8_t mode,
                        int nonblock, int *own)
{
    int efd = eventfd(initial, efd_flags | EFD_CLOEXEC | EFD_NONBLOCK);
    if (efd < 0)
        return -errno;
    /* above the standard descriptors, which the guest's 0, 1 and 2 name
     * even when tracegen was started without them */
    int h = fcntl(efd, F_DUPFD_CLOEXEC, 3);
    int err = errno;
    if (!own || h < 0)
        close(efd);
    if (h < 0)
        return -err;
    long g = x86_new_guest_fd(p, h, 0);
    if (g < 0) {
        if (own)
            close(efd);
        return g;
    }
    p->fd_mode[g] = (uint8_t)(mode | X86_FD_HOST_NB | X86_FD_INTERNAL |
                              (nonblock ? 0 : X86_FD_WAITS));
    if (own)
        *own = efd;
    return g;
}

static long do_read(struct x86_process *p, uint64_t fd, uint64_t buf, uint64_t n, int pread_,
                    uint64_t off)
{
    int h = x86_host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    if (n > X86_IO_CHUNK)
        n = X86_IO_CHUNK;
    char *tmp = malloc(n ? n : 1);
    if (!tmp)
        return -ENOMEM;
    ssize_t k = pread_ ? pread(h, tmp, n, (off_t)off) : read(h, tmp, n);
    long rc = k < 0 ? -errno : (long)k;
    if (k > 0 && gmem_copy_out(p->mem, buf, tmp, (size_t)k, 0, NULL) < 0)
        rc = -EFAULT;
    free(tmp);
    return rc;
}

static long do_write(struct x86_process *p, uint64_t fd, uint64_t buf, uint64_t n, int pwrite_,
                     uint64_t off)
{
    int h = x86_host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    if (n > X86_IO_CHUNK)
        n = X86_IO_CHUNK;
    char *tmp = malloc(n ? n : 1);
    if (!tmp)
        return -ENOMEM;
    long rc;
    if (gmem_copy_in(p->mem, tmp, buf, n, NULL) < 0) {
        rc = -EFAULT;
    } else {
        ssize_t k = pwrite_ ? pwrite(h, tmp, n, (off_t)off) : write(h, tmp, n);
        rc = k < 0 ? -errno : (long)k;
    }
    free(tmp);
    return rc;
}

/* readv and writev; with POSITIONED, preadv and pwritev from OFF. */
static long do_iov(struct x86_process *p, uint64_t fd, uint64_t iov, uint64_t cnt, int writing,
                   int positioned, uint64_t off)
{
    long total = 0;
    if (positioned && (int64_t)off < 0)
        return -EINVAL;
    if (cnt > 1024)
        return -EINVAL;
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t v[2];
        if (gmem_copy_in(p->mem, v, iov + 16 * i, 16, NULL) < 0)
            return total ? total : -EFAULT;
        if (!v[1])
            continue;
        uint64_t at = off + (uint64_t)total;
        long k = writing ? do_write(p, fd, v[0], v[1], positioned, at)
                         : do_read(p, fd, v[0], v[1], positioned, at);
        if (k < 0)
            return total ? total : k;
        total += k;
        if ((uint64_t)k < v[1])
            break;
    }
    return total;
}

/* A descriptor the guest expects to wait on is asked whether it is ready
 * before anything is copied: a waiting thread may try its call many times. */
long sys_read(struct x86_sys *s)
{
    uint8_t mode = x86_host_fd(s->p, s->a[0]) >= 0 ? s->p->fd_mode[(uint32_t)s->a[0]] : 0;
    if (mode & X86_FD_SIGNAL)
        return x86_signalfd_read(s);
    if ((mode & X86_FD_COUNTER) && s->a[2] < 8)
        return -EINVAL; /* before waiting, as natively */
    if (mode & X86_FD_WAITS) {
        long w = x86_wait_fd(s, s->a[0], POLLIN);
        if (w != 1)
            return w;
    }
    return do_read(s->p, s->a[0], s->a[1], s->a[2], 0, 0);
}
long sys_pread64(struct x86_sys *s) { return do_read(s->p, s->a[0], s->a[1], s->a[2], 1, s->a[3]); }

/* A write to a pipe nobody reads: SIGPIPE, then EPIPE if the guest lives. */
static long wrote(struct x86_sys *s, long rc)
{
    if (rc == -EPIPE)
        x86_broken_pipe(s);
    return rc;
}

/* A write the guest expects to wait writes everything before it returns,
 * as a blocking pipe write does: what fits now is written, and the thread
 * waits (yielding to the reader) for room for the rest; T->io_done keeps
 * the count across the retries of the call. The data is copied a pipe's
 * worth at a time, so a retry copies no more than can be written. */
#define PIPE_SLICE 65536u
static long write_all(struct x86_sys *s, uint64_t n)
{
    struct x86_thread *t = s->t;
    if (n > X86_IO_CHUNK)
        n = X86_IO_CHUNK;
    long rc;
    for (;;) {
        long w = x86_wait_fd(s, s->a[0], POLLOUT);
        if (s->outcome != SC_CONTINUE)
            return 0; /* the call runs again (or the run stops) */
        if (w != 1) {
            rc = t->io_done ? (long)t->io_done : w;
            break;
        }
        uint64_t part = n - t->io_done < PIPE_SLICE ? n - t->io_done : PIPE_SLICE;
        long k = do_write(s->p, s->a[0], s->a[1] + t->io_done, part, 0, 0);
        if (k > 0)
            t->io_done += (uint64_t)k;
        if (t->io_done == n) {
            rc = (long)n;
            break;
        }
        if (k < 0 && k != -EAGAIN) {
            rc = t->io_done ? (long)t->io_done : wrote(s, k);
            break;
        }
    }
    t->io_done = 0;
    return rc;
}

long sys_write(struct x86_sys *s)
{
    uint8_t mode = x86_host_fd(s->p, s->a[0]) >= 0 ? s->p->fd_mode[(uint32_t)s->a[0]] : 0;
    if ((mode & (X86_FD_TIMER | X86_FD_SIGNAL)) || ((mode & X86_FD_COUNTER) && s->a[2] < 8))
        return -EINVAL; /* timerfds and signalfds are not written; an eventfd takes 8 bytes */
    if (mode & X86_FD_WAITS)
        return write_all(s, s->a[2]);
    return wrote(s, do_write(s->p, s->a[0], s->a[1], s->a[2], 0, 0));
}

/* sendfile: the host copies between the host descriptors (the output one
 * is writable only if the sandbox handed it out); a pipe the guest expects
 * to wait on is waited for as write does. */
long sys_sendfile(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    int out = x86_host_fd(p, s->a[0]), in = x86_host_fd(p, s->a[1]);
    if (out < 0 || in < 0)
        return -EBADF;
    off_t off = 0;
    if (s->a[2]) {
        int64_t v;
        if (gmem_copy_in(p->mem, &v, s->a[2], sizeof v, NULL) < 0)
            return -EFAULT;
        if (v < 0)
            return -EINVAL;
        off = (off_t)v;
    }
    if (p->fd_mode[(uint32_t)s->a[0]] & X86_FD_WAITS) {
        long w = x86_wait_fd(s, s->a[0], POLLOUT);
        if (w != 1)
            return w;
    }
    ssize_t k = sendfile(out, in, s->a[2] ? &off : NULL, s->a[3] > X86_IO_CHUNK ? X86_IO_CHUNK
                                                                               : s->a[3]);
    if (k < 0)
        return wrote(s, -errno);
    int64_t v = (int64_t)off;
    if (s->a[2] && gmem_copy_out(p->mem, s->a[2], &v, sizeof v, 0, NULL) < 0)
        return -EFAULT;
    return (long)k;
}

long sys_pwrite64(struct x86_sys *s)
{
    return (int64_t)s->a[3] < 0 ? -EINVAL : do_write(s->p, s->a[0], s->a[1], s->a[2], 1, s->a[3]);
}

long sys_readv(struct x86_sys *s) { return do_iov(s->p, s->a[0], s->a[1], s->a[2], 0, 0, 0); }
long sys_writev(struct x86_sys *s) { return wrote(s, do_iov(s->p, s->a[0], s->a[1], s->a[2], 1, 0, 0)); }
long sys_preadv(struct x86_sys *s) { return do_iov(s->p, s->a[0], s->a[1], s->a[2], 0, 1, s->a[3]); }
long sys_pwritev(struct x86_sys *s) { return do_iov(s->p, s->a[0], s->a[1], s->a[2], 1, 1, s->a[3]); }

long x86_guest_path(const struct x86_process *p, uint64_t addr, char *path)
{
    if (gmem_read_str(p->mem, path, addr, PATH_MAX) >= 0)
        return 0;
    /* a fault, or no NUL within PATH_MAX bytes */
    return gmem_read_str(p->mem, path, addr, 1) < 0 ? -EFAULT : -ENAMETOOLONG;
}

int x86_guest_dirfd(const struct x86_process *p, uint64_t dirfd, const char *path)
{
    if (path[0] == '/' || (int)dirfd == AT_FDCWD)
        return AT_FDCWD;
    int h = x86_host_fd(p, dirfd);
    return h < 0 ? -EBADF : h;
}

#define REFUSALS_SHOWN 32

long x86_refuse_write(struct x86_process *p, const char *why)
{
    if (!p->opt.quiet && p->refusals++ < REFUSALS_SHOWN)
        fprintf(stderr, "tracegen: refused a write: %s (--allow-write DIR lets the guest write "
                "under DIR)%s\n", why,
                p->refusals == REFUSALS_SHOWN ? "; further refusals are not shown" : "");
    return -EACCES;
}

/* Opens for the guest: what can create or write a file goes through the
 * sandbox, confined to the allowed directories; reading is open
 * everywhere but in tracegen's own /proc entries. */
static long do_openat(struct x86_process *p, uint64_t gdirfd, uint64_t gpath, int flags, int mode)
{
    char path[PATH_MAX], why[2 * PATH_MAX];
    long rc = x86_guest_path(p, gpath, path);
    if (rc < 0)
        return rc;
    int dirfd = x86_guest_dirfd(p, gdirfd, path);
    if (dirfd == -EBADF)
        return -EBADF;
    int writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND));
    int h;
    if (writes) {
        h = sandbox_open(p->sandbox, dirfd, path, flags, mode, why, sizeof why);
        if (h == -EACCES && why[0])
            return x86_refuse_write(p, why);
        if (h < 0)
            return h;
    } else {
        h = openat(dirfd, path, flags | O_CLOEXEC, mode);
        if (h < 0)
            return -errno;
        if (sandbox_read_refused(h)) {
            close(h);
            if (!p->opt.quiet)
                fprintf(stderr, "tracegen: refused: %s is a /proc entry of a process (tracegen's "
                        "own, not the guest's)\n", path);
            return -EACCES;
        }
    }
    long g = x86_new_guest_fd(p, h, 0);
    if (g >= 0)
        p->fd_confined[g] = (uint8_t)writes;
    return g;
}

long sys_open(struct x86_sys *s)
{
    return do_openat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], (int)s->a[1], (int)s->a[2]);
}

long sys_openat(struct x86_sys *s)
{
    return do_openat(s->p, s->a[0], s->a[1], (int)s->a[2], (int)s->a[3]);
}

long sys_creat(struct x86_sys *s)
{
    return do_openat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], O_CREAT | O_WRONLY | O_TRUNC,
                     (int)s->a[1]);
}

long sys_close(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t fd = s->a[0];
    int h = x86_host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    p->fds[(uint32_t)fd] = -1;
    if (h > 2)
        close(h);
    return 0;
}

static long copy_stat(struct x86_process *p, int rc, const struct stat *st, uint64_t out)
{
    if (rc < 0)
        return -errno;
    if (gmem_copy_out(p->mem, out, st, sizeof *st, 0, NULL) < 0)
        return -EFAULT;
    return 0;
}

static long do_fstatat(struct x86_process *p, int64_t gdirfd, uint64_t gpath, uint64_t out,
                       int flags)
{
    char path[PATH_MAX];
    struct stat st;
    if (gmem_read_str(p->mem, path, gpath, sizeof path) < 0)
        return -EFAULT;
    if (path[0] == 0 && (flags & AT_EMPTY_PATH)) {
        int h = x86_host_fd(p, (uint64_t)gdirfd);
        if (h < 0)
            return -EBADF;
        return copy_stat(p, fstat(h, &st), &st, out);
    }
    int dirfd = AT_FDCWD;
    if ((int)gdirfd != AT_FDCWD && path[0] != '/') {
        dirfd = x86_host_fd(p, (uint64_t)gdirfd);
        if (dirfd < 0)
            return -EBADF;
    }
    return copy_stat(p, fstatat(dirfd, path, &st, flags & AT_SYMLINK_NOFOLLOW), &st, out);
}

long sys_stat(struct x86_sys *s) { return do_fstatat(s->p, AT_FDCWD, s->a[0], s->a[1], 0); }

long sys_lstat(struct x86_sys *s)
{
    return do_fstatat(s->p, AT_FDCWD, s->a[0], s->a[1], AT_SYMLINK_NOFOLLOW);
}

long sys_newfstatat(struct x86_sys *s)
{
    return do_fstatat(s->p, (int64_t)s->a[0], s->a[1], s->a[2], (int)s->a[3]);
}

long sys_fstat(struct x86_sys *s)
{
    struct stat st;
    int h = x86_host_fd(s->p, s->a[0]);
    return h < 0 ? -EBADF : copy_stat(s->p, fstat(h, &st), &st, s->a[1]);
}

long sys_lseek(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    off_t r = h < 0 ? -1 : lseek(h, (off_t)s->a[1], (int)s->a[2]);
    return h < 0 ? -EBADF : r < 0 ? -errno : (long)r;
}

long sys_ioctl(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t req = s->a[1], arg = s->a[2];
    int h = x86_host_fd(p, s->a[0]);
    if (h < 0)
        return -EBADF;
    if (req == TCGETS) {
        struct termios t;
        if (ioctl(h, TCGETS, &t) < 0)
            return -errno;
        return gmem_copy_out(p->mem, arg, &t, sizeof t, 0, NULL) < 0 ? -EFAULT : 0;
    }
    if (req == TIOCGWINSZ) {
        struct winsize w;
        if (ioctl(h, TIOCGWINSZ, &w) < 0)
            return -errno;
        return gmem_copy_out(p->mem, arg, &w, sizeof w, 0, NULL) < 0 ? -EFAULT : 0;
    }
    return -ENOTTY;
}

/* readlink of /proc/self/... answers for the guest: its executable, its
 * descriptors, the working directory they share. Other links there
 * describe tracegen: refused. Returns the length, -errno, or 1 when PATH
 * is not such an entry. */
static long self_link(struct x86_process *p, const char *path, char *out)
{
    const char *rest = NULL;
    if (!strncmp(path, "/proc/self/", 11))
        rest = path + 11;
    else if (!strncmp(path, "/proc/thread-self/", 18))
        rest = path + 18;
    if (!rest)
        return 1;
    if (!strcmp(rest, "exe")) {
        snprintf(out, PATH_MAX, "%s", p->exe_path);
        return (long)strlen(out);
    }
    if (!strcmp(rest, "cwd"))
        return getcwd(out, PATH_MAX) ? (long)strlen(out) : -errno;
    char *end;
    if (!strncmp(rest, "fd/", 3) && rest[3]) {
        unsigned long gfd = strtoul(rest + 3, &end, 10);
        int h = *end ? -1 : x86_host_fd(p, gfd);
        if (h < 0)
            return -ENOENT;
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", h);
        ssize_t k = readlink(link, out, PATH_MAX);
        return k < 0 ? -errno : (long)k;
    }
    return -EACCES;
}

static long do_readlinkat(struct x86_process *p, uint64_t gdirfd, uint64_t gpath, uint64_t buf,
                          uint64_t n)
{
    char path[PATH_MAX], out[PATH_MAX];
    long rc = x86_guest_path(p, gpath, path);
    if (rc < 0)
        return rc;
    if ((int64_t)n <= 0 || n > INT32_MAX)
        return -EINVAL;
    long k = self_link(p, path, out);
    if (k == 1) {
        int dirfd = x86_guest_dirfd(p, gdirfd, path);
        if (dirfd == -EBADF)
            return -EBADF;
        k = readlinkat(dirfd, path, out, sizeof out);
        if (k < 0)
            return -errno;
    }
    if (k < 0)
        return k;
    if ((uint64_t)k > n)
        k = (long)n;
    return gmem_copy_out(p->mem, buf, out, (size_t)k, 0, NULL) < 0 ? -EFAULT : k;
}

long sys_readlink(struct x86_sys *s)
{
    return do_readlinkat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1], s->a[2]);
}

long sys_readlinkat(struct x86_sys *s)
{
    return do_readlinkat(s->p, s->a[0], s->a[1], s->a[2], s->a[3]);
}

static long record_lock(struct x86_process *p, int h, int cmd, uint64_t arg);

long sys_fcntl(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t cmd = s->a[1], arg = s->a[2];
    int h = x86_host_fd(p, s->a[0]);
    if (h < 0)
        return -EBADF;
    switch (cmd) {
    case F_DUPFD: case F_DUPFD_CLOEXEC: {
        /* the kernel reads the lowest number as an unsigned int */
        if ((uint32_t)arg >= X86_MAX_FDS)
            return -EINVAL;
        int n = dup(h);
        if (n < 0)
            return -errno;
        long g = x86_new_guest_fd(p, n, (uint32_t)arg);
        if (g >= 0)
            x86_fd_copy_mode(p, (uint32_t)s->a[0], (uint32_t)g);
        return g;
    }
    case F_GETFD: case F_SETFD:
        return 0;
    case F_GETFL: {
        int r = fcntl(h, F_GETFL);
        if (r >= 0 && (p->fd_mode[(uint32_t)s->a[0]] & X86_FD_HOST_NB))
            r = (r & ~O_NONBLOCK) |
                (p->fd_mode[(uint32_t)s->a[0]] & X86_FD_WAITS ? 0 : O_NONBLOCK);
        return r < 0 ? -errno : r;
    }
    case F_SETFL:
        /* stdin, stdout and stderr are shared with tracegen's parent (a
         * terminal's O_NONBLOCK would reach the user's shell): left alone */
        if (h <= 2)
            return 0;
        if (p->fd_mode[(uint32_t)s->a[0]] & X86_FD_HOST_NB) {
            /* the guest's O_NONBLOCK says whether tracegen waits; it is
             * this descriptor's (natively it is the open file's, which
             * dup'ed descriptors share) */
            uint8_t *m = &p->fd_mode[(uint32_t)s->a[0]];
            *m = (uint8_t)((*m & ~X86_FD_WAITS) | (arg & O_NONBLOCK ? 0 : X86_FD_WAITS));
            arg |= O_NONBLOCK;
        }
        return fcntl(h, F_SETFL, (int)arg) < 0 ? -errno : 0;
    case F_GETLK: case F_SETLK: case F_SETLKW:
    case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
        return record_lock(p, h, (int)cmd, arg);
    default:
        return -EINVAL;
    }
}

/* The guest's threads are threads of tracegen, one at a time: a lock that
 * one of them must wait for while another holds it would stop them all. */
static int other_threads(const struct x86_process *p)
{
    size_t alive = 0;
    for (size_t i = 0; i < p->nthreads; i++)
        alive += p->threads[i]->state != THREAD_EXITED;
    return alive > 1;
}

/* fcntl record locks on the host file. Process-associated (POSIX) locks
 * never conflict among the guest's threads, natively or here; open-file
 * locks can, so a blocking one is tried without blocking while other
 * threads live, and a conflict is EDEADLK rather than a hang. */
static long record_lock(struct x86_process *p, int h, int cmd, uint64_t arg)
{
    struct flock fl;
    if (gmem_copy_in(p->mem, &fl, arg, sizeof fl, NULL) < 0)
        return -EFAULT;
    int host_cmd = cmd;
    if (cmd == F_OFD_SETLKW && other_threads(p))
        host_cmd = F_OFD_SETLK;
    if (fcntl(h, host_cmd, &fl) < 0) {
        int e = errno;
        return host_cmd != cmd && (e == EAGAIN || e == EACCES) ? -EDEADLK : -e;
    }
    if ((cmd == F_GETLK || cmd == F_OFD_GETLK) &&
        gmem_copy_out(p->mem, arg, &fl, sizeof fl, 0, NULL) < 0)
        return -EFAULT;
    return 0;
}

/* flock locks belong to open files, so two guest threads with their own
 * opens can conflict: as for open-file record locks, a blocking request is
 * tried without blocking while other threads live (ENOLCK on conflict). */
long sys_flock(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    if (h < 0)
        return -EBADF;
    int op = (int)s->a[1];
    int try_only = !(op & LOCK_NB) && (op & (LOCK_SH | LOCK_EX)) && other_threads(s->p);
    if (flock(h, try_only ? op | LOCK_NB : op) < 0)
        return try_only && errno == EWOULDBLOCK ? -ENOLCK : -errno;
    return 0;
}

long sys_dup(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    if (h < 0)
        return -EBADF;
    int n = dup(h);
    long g = n < 0 ? -errno : x86_new_guest_fd(s->p, n, 0);
    if (g >= 0)
        x86_fd_copy_mode(s->p, (uint32_t)s->a[0], (uint32_t)g);
    return g;
}

/* dup2 and dup3 onto guest descriptor TO; both numbers are unsigned ints
 * to the kernel, so a negative one is a large one. */
static long dup_to(struct x86_process *p, uint64_t fd, uint64_t to)
{
    int h = x86_host_fd(p, fd);
    if (h < 0 || (uint32_t)to >= X86_MAX_FDS)
        return -EBADF;
    uint32_t slot = (uint32_t)to;
    if ((uint32_t)fd == slot)
        return slot;
    int n = dup(h);
    if (n < 0)
        return -errno;
    if (p->fds[slot] > 2)
        close(p->fds[slot]);
    p->fds[slot] = n;
    x86_fd_copy_mode(p, (uint32_t)fd, slot);
    return slot;
}

long sys_dup2(struct x86_sys *s) { return dup_to(s->p, s->a[0], s->a[1]); }

long sys_dup3(struct x86_sys *s)
{
    if ((uint32_t)s->a[0] == (uint32_t)s->a[1] || ((uint32_t)s->a[2] & ~(uint32_t)O_CLOEXEC))
        return -EINVAL;
    return dup_to(s->p, s->a[0], s->a[1]);
}

long sys_getdents64(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    if (h < 0)
        return -EBADF;
    uint64_t n = s->a[2] > X86_IO_CHUNK ? X86_IO_CHUNK : s->a[2];
    char *tmp = malloc(n ? n : 1);
    long k = tmp ? (long)syscall(217, h, tmp, n) : -1;
    long rc = k < 0 ? -errno : gmem_copy_out(s->p->mem, s->a[1], tmp, (size_t)k, 0, NULL) < 0
                                   ? -EFAULT : k;
    free(tmp);
    return rc;
}

long sys_getcwd(struct x86_sys *s)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return -errno;
    if (strlen(cwd) + 1 > s->a[1])
        return -ERANGE;
    return gmem_copy_out(s->p->mem, s->a[0], cwd, strlen(cwd) + 1, 0, NULL) < 0
               ? -EFAULT : (long)strlen(cwd) + 1;
}

/* access and faccessat: W_OK also asks whether the sandbox lets the guest
 * write there (no refusal is reported: it is a question). */
static long do_access(struct x86_process *p, uint64_t gdirfd, uint64_t gpath, uint64_t mode,
                      uint64_t flags)
{
    char path[PATH_MAX], why[2 * PATH_MAX];
    long rc = x86_guest_path(p, gpath, path);
    if (rc < 0)
        return rc;
    if (mode & ~(uint64_t)(R_OK | W_OK | X_OK) ||
        flags & ~(uint64_t)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    int dirfd = x86_guest_dirfd(p, gdirfd, path);
    if (dirfd == -EBADF)
        return -EBADF;
    if (mode & W_OK) {
        int nofollow = (flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0;
        int h = sandbox_open(p->sandbox, dirfd, path, O_PATH | nofollow, 0, why, sizeof why);
        if (h < 0)
            return h;
        close(h);
    }
    return faccessat(dirfd, path, (int)mode, (int)flags) < 0 ? -errno : 0;
}

long sys_access(struct x86_sys *s)
{
    return do_access(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1], 0);
}

long sys_faccessat(struct x86_sys *s) { return do_access(s->p, s->a[0], s->a[1], s->a[2], 0); }
long sys_faccessat2(struct x86_sys *s) { return do_access(s->p, s->a[0], s->a[1], s->a[2], s->a[3]); }

/* statfs and fstatfs: the host's file system, as for reading. */
long sys_statfs(struct x86_sys *s)
{
    char path[PATH_MAX];
    long rc = x86_guest_path(s->p, s->a[0], path);
    if (rc < 0)
        return rc;
    struct statfs st;
    if (statfs(path, &st) < 0)
        return -errno;
    return gmem_copy_out(s->p->mem, s->a[1], &st, sizeof st, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_fstatfs(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    struct statfs st;
    if (h < 0)
        return -EBADF;
    if (fstatfs(h, &st) < 0)
        return -errno;
    return gmem_copy_out(s->p->mem, s->a[1], &st, sizeof st, 0, NULL) < 0 ? -EFAULT : 0;
}

long sys_statx(struct x86_sys *s)
{
    char path[PATH_MAX];
    long rc = x86_guest_path(s->p, s->a[1], path);
    if (rc < 0)
        return rc;
    int flags = (int)s->a[2], dirfd;
    if (path[0] == 0 && (flags & AT_EMPTY_PATH))
        dirfd = x86_host_fd(s->p, s->a[0]);
    else
        dirfd = x86_guest_dirfd(s->p, s->a[0], path);
    if (dirfd == -EBADF || (dirfd < 0 && dirfd != AT_FDCWD))
        return -EBADF;
    struct statx st;
    if (statx(dirfd, path, flags, (unsigned)s->a[3], &st) < 0)
        return -errno;
    return gmem_copy_out(s->p->mem, s->a[4], &st, sizeof st, 0, NULL) < 0 ? -EFAULT : 0;
}
