/* File system calls: descriptors, reading and writing, opening, status,
 * directories and links. Files are read through the host; writes go only
 * to stdout, stderr and files under --allow-write directories. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "tracegen/x86/sys.h"

/* Gives host descriptor HFD the lowest free guest descriptor from LOWEST
 * (0 <= LOWEST < X86_MAX_FDS: callers validate the guest's number). */
static long new_guest_fd(struct x86_process *p, int hfd, uint32_t lowest)
{
    for (uint32_t i = lowest; i < X86_MAX_FDS; i++)
        if (p->fds[i] < 0) {
            p->fds[i] = hfd;
            return i;
        }
    close(hfd);
    return -EMFILE;
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

static long do_write(struct x86_process *p, uint64_t fd, uint64_t buf, uint64_t n)
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
        ssize_t k = write(h, tmp, n);
        rc = k < 0 ? -errno : (long)k;
    }
    free(tmp);
    return rc;
}

static long do_iov(struct x86_process *p, uint64_t fd, uint64_t iov, uint64_t cnt, int writing)
{
    long total = 0;
    if (cnt > 1024)
        return -EINVAL;
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t v[2];
        if (gmem_copy_in(p->mem, v, iov + 16 * i, 16, NULL) < 0)
            return total ? total : -EFAULT;
        if (!v[1])
            continue;
        long k = writing ? do_write(p, fd, v[0], v[1]) : do_read(p, fd, v[0], v[1], 0, 0);
        if (k < 0)
            return total ? total : k;
        total += k;
        if ((uint64_t)k < v[1])
            break;
    }
    return total;
}

long sys_read(struct x86_sys *s) { return do_read(s->p, s->a[0], s->a[1], s->a[2], 0, 0); }
long sys_pread64(struct x86_sys *s) { return do_read(s->p, s->a[0], s->a[1], s->a[2], 1, s->a[3]); }
long sys_write(struct x86_sys *s) { return do_write(s->p, s->a[0], s->a[1], s->a[2]); }
long sys_readv(struct x86_sys *s) { return do_iov(s->p, s->a[0], s->a[1], s->a[2], 0); }
long sys_writev(struct x86_sys *s) { return do_iov(s->p, s->a[0], s->a[1], s->a[2], 1); }

/* 1 when PATH (resolved) lies under an --allow-write directory. */
static int write_allowed(const struct x86_process *p, int dirfd, const char *path)
{
    char full[2 * PATH_MAX + 2], dir[2 * PATH_MAX + 2], real[PATH_MAX];
    if (path[0] == '/') {
        snprintf(full, sizeof full, "%s", path);
    } else {
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base))
                return 0;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            ssize_t k = readlink(link, base, sizeof base - 1);
            if (k < 0)
                return 0;
            base[k] = 0;
        }
        snprintf(full, sizeof full, "%s/%s", base, path);
    }
    /* resolve the directory part; the file itself may not exist yet */
    snprintf(dir, sizeof dir, "%s", full);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = 0;
    else if (slash)
        *slash = 0;
    if (!realpath(dir, real))
        return 0;
    for (int i = 0; i < p->opt.nallow_write; i++) {
        char allowed[PATH_MAX];
        if (!realpath(p->opt.allow_write[i], allowed))
            continue;
        size_t n = strlen(allowed);
        if (!strncmp(real, allowed, n) && (real[n] == 0 || real[n] == '/'))
            return 1;
    }
    return 0;
}

static long do_openat(struct x86_process *p, int64_t gdirfd, uint64_t gpath, int flags, int mode)
{
    char path[PATH_MAX];
    if (gmem_read_str(p->mem, path, gpath, sizeof path) < 0)
        return -EFAULT;
    int dirfd = AT_FDCWD;
    if ((int)gdirfd != AT_FDCWD && path[0] != '/') {
        dirfd = x86_host_fd(p, (uint64_t)gdirfd);
        if (dirfd < 0)
            return -EBADF;
    }
    int acc = flags & O_ACCMODE;
    if ((acc != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND))) &&
        !write_allowed(p, dirfd, path))
        return -EACCES;
    int h = openat(dirfd, path, flags | O_CLOEXEC, mode);
    if (h < 0)
        return -errno;
    return new_guest_fd(p, h, 0);
}

long sys_open(struct x86_sys *s)
{
    return do_openat(s->p, AT_FDCWD, s->a[0], (int)s->a[1], (int)s->a[2]);
}

long sys_openat(struct x86_sys *s)
{
    return do_openat(s->p, (int64_t)s->a[0], s->a[1], (int)s->a[2], (int)s->a[3]);
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

static long do_readlinkat(struct x86_process *p, int64_t gdirfd, uint64_t gpath, uint64_t buf,
                          uint64_t n)
{
    char path[PATH_MAX], out[PATH_MAX];
    if (gmem_read_str(p->mem, path, gpath, sizeof path) < 0)
        return -EFAULT;
    ssize_t k;
    if (!strcmp(path, "/proc/self/exe")) {
        k = (ssize_t)strlen(p->exe_path);
        memcpy(out, p->exe_path, (size_t)k);
    } else {
        int dirfd = (int)gdirfd == AT_FDCWD ? AT_FDCWD : x86_host_fd(p, (uint64_t)gdirfd);
        k = readlinkat(dirfd, path, out, sizeof out);
        if (k < 0)
            return -errno;
    }
    if ((uint64_t)k > n)
        k = (ssize_t)n;
    return gmem_copy_out(p->mem, buf, out, (size_t)k, 0, NULL) < 0 ? -EFAULT : (long)k;
}

long sys_readlink(struct x86_sys *s)
{
    return do_readlinkat(s->p, AT_FDCWD, s->a[0], s->a[1], s->a[2]);
}

long sys_readlinkat(struct x86_sys *s)
{
    return do_readlinkat(s->p, (int64_t)s->a[0], s->a[1], s->a[2], s->a[3]);
}

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
        return new_guest_fd(p, n, (uint32_t)arg);
    }
    case F_GETFD: case F_SETFD:
        return 0;
    case F_GETFL: {
        int r = fcntl(h, F_GETFL);
        return r < 0 ? -errno : r;
    }
    case F_SETFL:
        return 0;
    default:
        return -EINVAL;
    }
}

long sys_dup(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    if (h < 0)
        return -EBADF;
    int n = dup(h);
    return n < 0 ? -errno : new_guest_fd(s->p, n, 0);
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

static long do_access(struct x86_process *p, uint64_t gpath, uint64_t mode)
{
    char path[PATH_MAX];
    if (gmem_read_str(p->mem, path, gpath, sizeof path) < 0)
        return -EFAULT;
    return access(path, (int)mode & R_OK) < 0 ? -errno : 0;
}

long sys_access(struct x86_sys *s) { return do_access(s->p, s->a[0], s->a[1]); }
long sys_faccessat(struct x86_sys *s) { return do_access(s->p, s->a[1], s->a[2]); }
