/* System calls that change the file system: directories, names, links,
 * modes, owners, times, sizes, and the data calls that work on an open
 * descriptor. Every path they change is confined by the sandbox
 * (sandbox.h) to the --allow-write directories, both paths of the calls
 * that take two; a call on a descriptor that changes its file's mode,
 * owner or times needs a descriptor opened through the sandbox. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tracegen/x86/sandbox.h"
#include "tracegen/x86/sys.h"

#define NAME_BYTES (NAME_MAX + 2) /* a name and a trailing slash */

/* A guest path resolved to its parent directory in the sandbox. */
struct place {
    int dirfd;
    char name[NAME_BYTES];
};

/* Resolves the guest's (DIRFD, PATH address) for a call that acts on the
 * name. Returns 0 with P filled (close p->dirfd), or -errno. */
static long place_of(struct x86_process *p, uint64_t gdirfd, uint64_t gpath, struct place *pl)
{
    char path[PATH_MAX], why[2 * PATH_MAX] = "";
    long rc = x86_guest_path(p, gpath, path);
    if (rc < 0)
        return rc;
    int base = x86_guest_dirfd(p, gdirfd, path);
    if (base == -EBADF)
        return -EBADF;
    rc = sandbox_parent(p->sandbox, base, path, &pl->dirfd, pl->name, sizeof pl->name, why,
                        sizeof why);
    if (rc == -EACCES && why[0])
        return x86_refuse_write(p, why);
    return rc;
}

/* Opens the guest's (DIRFD, PATH) in the sandbox with FLAGS, following a
 * final symbolic link unless NOFOLLOW. Returns a host descriptor or -errno. */
static long open_confined(struct x86_process *p, uint64_t gdirfd, uint64_t gpath, int flags)
{
    char path[PATH_MAX], why[2 * PATH_MAX] = "";
    long rc = x86_guest_path(p, gpath, path);
    if (rc < 0)
        return rc;
    int base = x86_guest_dirfd(p, gdirfd, path);
    if (base == -EBADF)
        return -EBADF;
    rc = sandbox_open(p->sandbox, base, path, flags, 0, why, sizeof why);
    if (rc == -EACCES && why[0])
        return x86_refuse_write(p, why);
    return rc;
}

static long result(int rc)
{
    return rc < 0 ? -errno : rc;
}

/* The host descriptor behind guest descriptor FD when it was opened
 * through the sandbox; -EBADF when closed, -EPERM when its file may lie
 * outside the allowed directories. */
static int confined_fd(struct x86_process *p, uint64_t fd)
{
    int h = x86_host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    if (!p->fd_confined[(uint32_t)fd]) {
        x86_refuse_write(p, "a descriptor not opened through --allow-write (its file may lie "
                            "outside the allowed directories) cannot change its file");
        return -EPERM;
    }
    return h;
}

/* ---- names ------------------------------------------------------------------ */

static long do_mkdirat(struct x86_process *p, uint64_t dirfd, uint64_t path, uint64_t mode)
{
    struct place pl;
    long rc = place_of(p, dirfd, path, &pl);
    if (rc < 0)
        return rc;
    rc = result(mkdirat(pl.dirfd, pl.name, (mode_t)mode));
    close(pl.dirfd);
    return rc;
}

long sys_mkdir(struct x86_sys *s) { return do_mkdirat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1]); }
long sys_mkdirat(struct x86_sys *s) { return do_mkdirat(s->p, s->a[0], s->a[1], s->a[2]); }

/* mknod: regular files and FIFOs only; devices need privileges the guest
 * does not get. */
static long do_mknodat(struct x86_process *p, uint64_t dirfd, uint64_t path, uint64_t mode,
                       uint64_t dev)
{
    mode_t type = (mode_t)mode & S_IFMT;
    if (type != 0 && type != S_IFREG && type != S_IFIFO)
        return -EPERM;
    struct place pl;
    long rc = place_of(p, dirfd, path, &pl);
    if (rc < 0)
        return rc;
    rc = result(mknodat(pl.dirfd, pl.name, (mode_t)mode, (dev_t)dev));
    close(pl.dirfd);
    return rc;
}

long sys_mknod(struct x86_sys *s) { return do_mknodat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1], s->a[2]); }
long sys_mknodat(struct x86_sys *s) { return do_mknodat(s->p, s->a[0], s->a[1], s->a[2], s->a[3]); }

static long do_unlinkat(struct x86_process *p, uint64_t dirfd, uint64_t path, uint64_t flags)
{
    if (flags & ~(uint64_t)AT_REMOVEDIR)
        return -EINVAL;
    struct place pl;
    long rc = place_of(p, dirfd, path, &pl);
    if (rc < 0)
        return rc;
    rc = result(unlinkat(pl.dirfd, pl.name, (int)flags));
    close(pl.dirfd);
    return rc;
}

long sys_unlink(struct x86_sys *s) { return do_unlinkat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], 0); }
long sys_rmdir(struct x86_sys *s) { return do_unlinkat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], AT_REMOVEDIR); }
long sys_unlinkat(struct x86_sys *s) { return do_unlinkat(s->p, s->a[0], s->a[1], s->a[2]); }

/* rename: both names in the sandbox, so nothing moves in or out. */
static long do_renameat2(struct x86_process *p, uint64_t odir, uint64_t opath, uint64_t ndir,
                         uint64_t npath, uint64_t flags)
{
    struct place from, to;
    long rc = place_of(p, odir, opath, &from);
    if (rc < 0)
        return rc;
    rc = place_of(p, ndir, npath, &to);
    if (rc < 0) {
        close(from.dirfd);
        return rc;
    }
    rc = result((int)syscall(SYS_renameat2, from.dirfd, from.name, to.dirfd, to.name,
                             (unsigned)flags));
    close(from.dirfd);
    close(to.dirfd);
    return rc;
}

long sys_rename(struct x86_sys *s)
{
    return do_renameat2(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], (uint64_t)(int64_t)AT_FDCWD,
                        s->a[1], 0);
}

long sys_renameat(struct x86_sys *s) { return do_renameat2(s->p, s->a[0], s->a[1], s->a[2], s->a[3], 0); }
long sys_renameat2(struct x86_sys *s) { return do_renameat2(s->p, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4]); }

/* A hard link names a file twice: its source must lie in the sandbox too,
 * or the guest could link a file from outside in and write to it. */
static long do_linkat(struct x86_process *p, uint64_t odir, uint64_t opath, uint64_t ndir,
                      uint64_t npath, uint64_t flags)
{
    if (flags & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    struct place to;
    long rc = place_of(p, ndir, npath, &to);
    if (rc < 0)
        return rc;
    char src[PATH_MAX];
    if ((flags & AT_EMPTY_PATH) && x86_guest_path(p, opath, src) == 0 && !src[0]) {
        int h = confined_fd(p, odir);
        rc = h < 0 ? h : result(linkat(h, "", to.dirfd, to.name, AT_EMPTY_PATH));
    } else if (flags & AT_SYMLINK_FOLLOW) {
        /* the source resolved in the sandbox, then linked by descriptor */
        long fd = open_confined(p, odir, opath, O_PATH);
        if (fd >= 0) {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
            rc = result(linkat(AT_FDCWD, link, to.dirfd, to.name, AT_SYMLINK_FOLLOW));
            close((int)fd);
        } else {
            rc = fd;
        }
    } else {
        struct place from;
        rc = place_of(p, odir, opath, &from);
        if (rc == 0) {
            rc = result(linkat(from.dirfd, from.name, to.dirfd, to.name, 0));
            close(from.dirfd);
        }
    }
    close(to.dirfd);
    return rc;
}

long sys_link(struct x86_sys *s)
{
    return do_linkat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], (uint64_t)(int64_t)AT_FDCWD,
                     s->a[1], 0);
}

long sys_linkat(struct x86_sys *s) { return do_linkat(s->p, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4]); }

/* A symbolic link's target is text, resolved only when the link is used,
 * and every use that writes is confined again: only where the link is made
 * matters here. */
static long do_symlinkat(struct x86_process *p, uint64_t gtarget, uint64_t ndir, uint64_t npath)
{
    char target[PATH_MAX];
    long rc = x86_guest_path(p, gtarget, target);
    if (rc < 0)
        return rc;
    struct place pl;
    rc = place_of(p, ndir, npath, &pl);
    if (rc < 0)
        return rc;
    rc = result(symlinkat(target, pl.dirfd, pl.name));
    close(pl.dirfd);
    return rc;
}

long sys_symlink(struct x86_sys *s) { return do_symlinkat(s->p, s->a[0], (uint64_t)(int64_t)AT_FDCWD, s->a[1]); }
long sys_symlinkat(struct x86_sys *s) { return do_symlinkat(s->p, s->a[0], s->a[1], s->a[2]); }

/* ---- attributes ------------------------------------------------------------ */

/* The file of guest (DIRFD, PATH), opened O_PATH in the sandbox (the final
 * link followed unless AT_SYMLINK_NOFOLLOW is in FLAGS; AT_EMPTY_PATH with
 * an empty path: the descriptor DIRFD itself, which must be confined).
 * Returns a host descriptor to close, or -errno. */
static long attr_target(struct x86_process *p, uint64_t gdirfd, uint64_t gpath, uint64_t flags,
                        int *owned)
{
    char path[PATH_MAX];
    *owned = 0;
    if (gpath == 0 && !(flags & AT_EMPTY_PATH))
        return -EFAULT;
    if ((flags & AT_EMPTY_PATH) && (gpath == 0 || (x86_guest_path(p, gpath, path) == 0 && !path[0])))
        return confined_fd(p, gdirfd);
    int nofollow = (flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0;
    long fd = open_confined(p, gdirfd, gpath, O_PATH | nofollow);
    if (fd >= 0)
        *owned = 1;
    return fd;
}

/* Applies FN to the file of descriptor FD through /proc/self/fd (an O_PATH
 * descriptor has no mode or time calls of its own before Linux 6.6). */
static long via_proc(long fd, int (*fn)(const char *path, const void *arg), const void *arg)
{
    char link[64];
    struct stat st;
    if (fstat((int)fd, &st) == 0 && S_ISLNK(st.st_mode))
        return -EOPNOTSUPP; /* no mode or owner of its own; times below */
    snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
    return result(fn(link, arg));
}

static int chmod_path(const char *path, const void *arg)
{
    return chmod(path, *(const mode_t *)arg);
}

static long do_fchmodat(struct x86_process *p, uint64_t dirfd, uint64_t path, uint64_t mode,
                        uint64_t flags)
{
    if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    int owned;
    long fd = attr_target(p, dirfd, path, flags, &owned);
    if (fd < 0)
        return fd;
    mode_t m = (mode_t)mode & 07777;
    long rc = via_proc(fd, chmod_path, &m);
    if (owned)
        close((int)fd);
    return rc;
}

long sys_chmod(struct x86_sys *s) { return do_fchmodat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1], 0); }
long sys_fchmodat(struct x86_sys *s) { return do_fchmodat(s->p, s->a[0], s->a[1], s->a[2], 0); }
long sys_fchmodat2(struct x86_sys *s) { return do_fchmodat(s->p, s->a[0], s->a[1], s->a[2], s->a[3]); }

long sys_fchmod(struct x86_sys *s)
{
    int h = confined_fd(s->p, s->a[0]);
    return h < 0 ? h : result(fchmod(h, (mode_t)s->a[1] & 07777));
}

struct owner {
    uid_t uid;
    gid_t gid;
};

static int chown_path(const char *path, const void *arg)
{
    const struct owner *o = arg;
    return chown(path, o->uid, o->gid);
}

static long do_fchownat(struct x86_process *p, uint64_t dirfd, uint64_t path, uint64_t uid,
                        uint64_t gid, uint64_t flags)
{
    if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    int owned;
    long fd = attr_target(p, dirfd, path, flags, &owned);
    if (fd < 0)
        return fd;
    struct owner o = { (uid_t)uid, (gid_t)gid };
    struct stat st;
    long rc;
    if (fstat((int)fd, &st) == 0 && S_ISLNK(st.st_mode))
        rc = result(fchownat((int)fd, "", o.uid, o.gid, AT_EMPTY_PATH));
    else
        rc = via_proc(fd, chown_path, &o);
    if (owned)
        close((int)fd);
    return rc;
}

long sys_chown(struct x86_sys *s) { return do_fchownat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1], s->a[2], 0); }
long sys_lchown(struct x86_sys *s) { return do_fchownat(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1], s->a[2], AT_SYMLINK_NOFOLLOW); }
long sys_fchownat(struct x86_sys *s) { return do_fchownat(s->p, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4]); }

long sys_fchown(struct x86_sys *s)
{
    int h = confined_fd(s->p, s->a[0]);
    return h < 0 ? h : result(fchown(h, (uid_t)s->a[1], (gid_t)s->a[2]));
}

/* Times: UTIME_NOW is the guest's virtual time, as its clock reads. */
static void resolve_now(const struct x86_process *p, struct timespec t[2])
{
    uint64_t now = x86_virtual_now_ns(p);
    for (int i = 0; i < 2; i++)
        if (t[i].tv_nsec == UTIME_NOW) {
            t[i].tv_sec = (time_t)(now / 1000000000ull);
            t[i].tv_nsec = (long)(now % 1000000000ull);
        }
}

static long set_times(struct x86_process *p, uint64_t dirfd, uint64_t path, struct timespec t[2],
                      uint64_t flags)
{
    if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    for (int i = 0; i < 2; i++)
        if (t[i].tv_nsec != UTIME_NOW && t[i].tv_nsec != UTIME_OMIT &&
            (t[i].tv_nsec < 0 || t[i].tv_nsec >= 1000000000l))
            return -EINVAL;
    resolve_now(p, t);
    int owned;
    /* a NULL path (utimensat's "the descriptor itself") */
    long fd = attr_target(p, dirfd, path, path ? flags : flags | AT_EMPTY_PATH, &owned);
    if (fd < 0)
        return fd;
    long rc = result(utimensat((int)fd, "", t, AT_EMPTY_PATH));
    if (rc == -EINVAL || rc == -ENOENT) { /* AT_EMPTY_PATH unknown to this kernel's utimensat */
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
        rc = result(utimensat(AT_FDCWD, link, t, 0));
    }
    if (owned)
        close((int)fd);
    return rc;
}

long sys_utimensat(struct x86_sys *s)
{
    struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
    if (s->a[2] && gmem_copy_in(s->p->mem, t, s->a[2], sizeof t, NULL) < 0)
        return -EFAULT;
    return set_times(s->p, s->a[0], s->a[1], t, s->a[3]);
}

/* utimes and futimesat: microseconds. */
static long timevals(struct x86_process *p, uint64_t dirfd, uint64_t path, uint64_t tv)
{
    struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
    if (tv) {
        int64_t v[4];
        if (gmem_copy_in(p->mem, v, tv, sizeof v, NULL) < 0)
            return -EFAULT;
        for (int i = 0; i < 2; i++) {
            if (v[2 * i + 1] < 0 || v[2 * i + 1] >= 1000000)
                return -EINVAL;
            t[i].tv_sec = (time_t)v[2 * i];
            t[i].tv_nsec = (long)v[2 * i + 1] * 1000;
        }
    }
    if (!path)
        return -EFAULT;
    return set_times(p, dirfd, path, t, 0);
}

long sys_utimes(struct x86_sys *s) { return timevals(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], s->a[1]); }
long sys_futimesat(struct x86_sys *s) { return timevals(s->p, s->a[0], s->a[1], s->a[2]); }

long sys_utime(struct x86_sys *s)
{
    struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
    if (s->a[1]) {
        int64_t v[2];
        if (gmem_copy_in(s->p->mem, v, s->a[1], sizeof v, NULL) < 0)
            return -EFAULT;
        t[0] = (struct timespec){ (time_t)v[0], 0 };
        t[1] = (struct timespec){ (time_t)v[1], 0 };
    }
    if (!s->a[0])
        return -EFAULT;
    return set_times(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], t, 0);
}

/* ---- sizes and data -------------------------------------------------------- */

long sys_truncate(struct x86_sys *s)
{
    if ((int64_t)s->a[1] < 0)
        return -EINVAL;
    long fd = open_confined(s->p, (uint64_t)(int64_t)AT_FDCWD, s->a[0], O_WRONLY);
    if (fd < 0)
        return fd;
    long rc = result(ftruncate((int)fd, (off_t)s->a[1]));
    close((int)fd);
    return rc;
}

/* The calls below need a descriptor open for writing, which only the
 * sandbox hands out (or stdout and stderr): the kernel checks that. */
long sys_ftruncate(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    return h < 0 ? -EBADF : result(ftruncate(h, (off_t)s->a[1]));
}

long sys_fallocate(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    return h < 0 ? -EBADF : result(fallocate(h, (int)s->a[1], (off_t)s->a[2], (off_t)s->a[3]));
}

long sys_fsync(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    return h < 0 ? -EBADF : result(fsync(h));
}

long sys_fdatasync(struct x86_sys *s)
{
    int h = x86_host_fd(s->p, s->a[0]);
    return h < 0 ? -EBADF : result(fdatasync(h));
}

long sys_sync(struct x86_sys *s)
{
    (void)s;
    return 0; /* the guest's writes reach the host's page cache as they happen */
}

long sys_syncfs(struct x86_sys *s)
{
    return x86_host_fd(s->p, s->a[0]) < 0 ? -EBADF : 0;
}

long sys_umask(struct x86_sys *s)
{
    /* the host's umask applies to what the guest creates, as natively */
    mode_t old = umask((mode_t)s->a[0] & 0777);
    return (long)old;
}
