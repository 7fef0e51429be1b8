/* The write sandbox: see sandbox.h. */
#include "tracegen/x86/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DIRS_MAX 16
#define LINKS_MAX 40             /* symbolic links followed in one walk, as Linux's */
#define DEPTH_MAX 512            /* directories a walk may hold open */

struct allowed {
    int fd;                      /* O_PATH | O_DIRECTORY */
    char *real;                  /* its canonical path */
    size_t len;
};

struct sandbox {
    struct allowed d[DIRS_MAX];
    int n;
    int openat2;
};

static long openat2_(int dirfd, const char *path, int flags, int mode, unsigned long long resolve)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)(unsigned)(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? (unsigned long long)(mode & 07777) : 0;
    how.resolve = resolve;
    return syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

struct sandbox *sandbox_create(const char *const *dirs, int n, int walk, char *err,
                               size_t errlen)
{
    struct sandbox *sb = calloc(1, sizeof *sb);
    if (!sb || n > DIRS_MAX) {
        free(sb);
        snprintf(err, errlen, n > DIRS_MAX ? "too many --allow-write directories" : "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        struct allowed *a = &sb->d[sb->n];
        struct statfs fs;
        a->fd = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        a->real = a->fd >= 0 ? realpath(dirs[i], NULL) : NULL;
        if (a->fd < 0 || !a->real) {
            snprintf(err, errlen, "--allow-write %s: %s", dirs[i], strerror(errno));
        } else if (fstatfs(a->fd, &fs) == 0 &&
                   (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)) {
            snprintf(err, errlen, "--allow-write %s: /proc and /sys act on the host, not on files",
                     dirs[i]);
        } else {
            a->len = strlen(a->real);
            if (a->len == 1) /* "/" */
                a->len = 0;
            sb->n++;
            continue;
        }
        if (a->fd >= 0)
            close(a->fd);
        free(a->real);
        sandbox_destroy(sb);
        return NULL;
    }
    if (!walk && n) {
        long fd = openat2_(sb->d[0].fd, ".", O_PATH, 0, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
        if (fd >= 0) {
            close((int)fd);
            sb->openat2 = 1;
        }
    }
    return sb;
}

void sandbox_destroy(struct sandbox *sb)
{
    if (!sb)
        return;
    for (int i = 0; i < sb->n; i++) {
        close(sb->d[i].fd);
        free(sb->d[i].real);
    }
    free(sb);
}

int sandbox_openat2(const struct sandbox *sb)
{
    return sb->openat2;
}

/* ---- where a path lies ---------------------------------------------------- */

/* OUT = A B C when it fits in CAP bytes; -1 otherwise. */
static int join3(char *out, size_t cap, const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    if (la + lb + lc + 1 > cap)
        return -1;
    memmove(out + la + lb, c, lc + 1);
    memmove(out + la, b, lb);
    memmove(out, a, la);
    return 0;
}

/* When absolute path ABS lies under A, the rest of it (no leading slash). */
static const char *under(const struct allowed *a, const char *abs)
{
    if (strncmp(abs, a->real, a->len) || (abs[a->len] != '/' && abs[a->len] != 0))
        return NULL;
    const char *rel = abs + a->len;
    while (*rel == '/')
        rel++;
    return rel;
}

/* Finds the allowed directory that holds PATH (relative to BASE) and the
 * path relative to it, in REL. The path's text decides when it names an
 * allowed directory; otherwise its parent directory's canonical path does
 * (a path may reach an allowed directory through a link outside it). What
 * the rest of the path leads to is left to the kernel, beneath the
 * directory. Returns the directory's index, or -errno. */
static int locate(const struct sandbox *sb, int base, const char *path, char *rel, size_t relcap,
                  char *why, size_t whylen)
{
    char abs[2 * PATH_MAX + 2];
    if (!path[0])
        return -ENOENT;
    if (path[0] == '/') {
        snprintf(abs, sizeof abs, "%s", path);
    } else {
        char dir[PATH_MAX];
        if (base == AT_FDCWD) {
            if (!getcwd(dir, sizeof dir))
                return -errno;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", base);
            ssize_t k = readlink(link, dir, sizeof dir - 1);
            if (k < 0)
                return -EBADF;
            dir[k] = 0;
        }
        snprintf(abs, sizeof abs, "%s/%s", dir, path);
    }
    for (int i = 0; i < sb->n; i++) {
        const char *r = under(&sb->d[i], abs);
        if (r && strlen(r) < relcap) {
            snprintf(rel, relcap, "%s", r);
            return i;
        }
    }
    /* the parent's canonical path: dirname of ABS without trailing slashes */
    size_t end = strlen(abs);
    while (end > 1 && abs[end - 1] == '/')
        end--;
    size_t cut = end;
    while (cut > 0 && abs[cut - 1] != '/')
        cut--;
    char parent[2 * PATH_MAX + 2], real[PATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", (int)(cut > 1 ? cut - 1 : 1), abs);
    if (realpath(parent, real)) {
        for (int i = 0; i < sb->n; i++) {
            const char *r = under(&sb->d[i], real);
            if (r && join3(rel, relcap, r, *r ? "/" : "", abs + cut) == 0)
                return i;
        }
    }
    snprintf(why, whylen, "%s is outside the --allow-write directories", path);
    return -EACCES;
}

/* ---- the walk, where openat2 is missing ---------------------------------- */

/* Components of a path still to resolve: text in BUF from POS. A symbolic
 * link's target is put in front of what remains. */
struct rest {
    char buf[2 * PATH_MAX + 2];
    size_t pos;
};

/* The next component in C (NUL-terminated); 0 when none is left. *LAST:
 * it is the final one (nothing but slashes after it); *SLASH: a slash
 * follows it. */
static int next_component(struct rest *r, char *c, size_t cap, int *last, int *slash)
{
    while (r->buf[r->pos] == '/')
        r->pos++;
    if (!r->buf[r->pos])
        return 0;
    size_t start = r->pos;
    while (r->buf[r->pos] && r->buf[r->pos] != '/')
        r->pos++;
    size_t n = r->pos - start;
    if (n >= cap)
        n = cap - 1;
    memcpy(c, r->buf + start, n);
    c[n] = 0;
    *slash = r->buf[r->pos] == '/';
    size_t k = r->pos;
    while (r->buf[k] == '/')
        k++;
    *last = r->buf[k] == 0;
    return 1;
}

/* Puts symbolic link NAME (in directory DIR) in front of what remains.
 * Returns 0, -EXDEV for an absolute target (it leaves the directory), or
 * -errno. */
static int splice_link(struct rest *r, int dir, const char *name, int *links)
{
    char target[PATH_MAX];
    ssize_t k = readlinkat(dir, name, target, sizeof target - 1);
    if (k < 0)
        return -errno;
    target[k] = 0;
    if (target[0] == '/')
        return -EXDEV;
    if (++*links > LINKS_MAX)
        return -ELOOP;
    char tail[sizeof r->buf];
    snprintf(tail, sizeof tail, "%s", r->buf + r->pos);
    if (join3(r->buf, sizeof r->buf, target, tail[0] ? "/" : "", tail) != 0)
        return -ENAMETOOLONG;
    r->pos = 0;
    return 0;
}

static int is_link(int dir, const char *name)
{
    struct stat st;
    return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/* Resolves REL beneath ROOT one component at a time, every directory
 * opened with O_NOFOLLOW relative to the one before; ".." pops what the
 * walk opened itself, so it cannot climb above ROOT. With PARENT, stops
 * before the last component (copied to NAME) and returns its directory;
 * otherwise opens the target with FLAGS and MODE. Returns a descriptor or
 * -errno (-EXDEV: the path leads out). */
static int walk(int root, const char *rel, int flags, int mode, int parent, char *name,
                size_t namelen)
{
    struct rest *r = malloc(sizeof *r);
    int *stack = malloc(DEPTH_MAX * sizeof *stack);
    int cur = fcntl(root, F_DUPFD_CLOEXEC, 0), depth = 0, links = 0, rc = 0;
    if (!r || !stack || cur < 0) {
        rc = -ENOMEM;
        goto out;
    }
    snprintf(r->buf, sizeof r->buf, "%s", rel);
    r->pos = 0;
    char c[NAME_MAX + 1];
    int last, slash;
    for (;;) {
        if (!next_component(r, c, sizeof c, &last, &slash)) {
            /* the path ends on the directory reached */
            if (parent) {
                rc = -EACCES; /* the allowed directory itself, or ".." of it */
                break;
            }
            rc = openat(cur, ".", flags | O_NOFOLLOW | O_CLOEXEC, mode);
            rc = rc < 0 ? -errno : rc;
            break;
        }
        if (last && parent) {
            snprintf(name, namelen, "%s%s", c, slash ? "/" : "");
            rc = cur;
            cur = -1;
            break;
        }
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            if (!depth) {
                rc = -EXDEV;
                break;
            }
            close(cur);
            cur = stack[--depth];
            continue;
        }
        if (last && !slash) {
            int follow = !(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL));
            if (follow && is_link(cur, c)) {
                if ((rc = splice_link(r, cur, c, &links)) < 0)
                    break;
                continue;
            }
            rc = openat(cur, c, flags | O_NOFOLLOW | O_CLOEXEC, mode);
            if (rc < 0 && errno == ELOOP && follow) {
                /* it became a link since: follow it now */
                if ((rc = splice_link(r, cur, c, &links)) < 0)
                    break;
                continue;
            }
            rc = rc < 0 ? -errno : rc;
            break;
        }
        int next = openat(cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            int e = errno;
            if ((e == ENOTDIR || e == ELOOP) && is_link(cur, c)) {
                if ((rc = splice_link(r, cur, c, &links)) < 0)
                    break;
                continue;
            }
            rc = -e;
            break;
        }
        if (depth == DEPTH_MAX) {
            close(next);
            rc = -ENAMETOOLONG;
            break;
        }
        stack[depth++] = cur;
        cur = next;
    }
out:
    if (cur >= 0)
        close(cur);
    while (stack && depth > 0)
        close(stack[--depth]);
    free(stack);
    free(r);
    return rc;
}

/* ---- the calls ------------------------------------------------------------ */

static int escaped(const struct sandbox *sb, int di, const char *path, char *why, size_t whylen)
{
    snprintf(why, whylen, "%s leads out of %s (through a symbolic link or \"..\")", path,
             sb->d[di].real);
    return -EACCES;
}

int sandbox_open(struct sandbox *sb, int base, const char *path, int flags, int mode, char *why,
                 size_t whylen)
{
    char rel[2 * PATH_MAX + 2];
    int di = locate(sb, base, path, rel, sizeof rel, why, whylen);
    if (di < 0)
        return di;
    long fd;
    if (sb->openat2) {
        fd = openat2_(sb->d[di].fd, rel[0] ? rel : ".", flags, mode,
                      RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
        fd = fd < 0 ? -errno : fd;
    } else {
        fd = walk(sb->d[di].fd, rel, flags, mode, 0, NULL, 0);
    }
    if (fd == -EXDEV)
        return escaped(sb, di, path, why, whylen);
    return (int)fd;
}

int sandbox_parent(struct sandbox *sb, int base, const char *path, int *dirfd, char *name,
                   size_t namelen, char *why, size_t whylen)
{
    char rel[2 * PATH_MAX + 2];
    int di = locate(sb, base, path, rel, sizeof rel, why, whylen);
    if (di < 0)
        return di;
    long fd;
    if (sb->openat2) {
        /* split REL into its directory and its last component */
        size_t end = strlen(rel), slash_end = end;
        while (end > 0 && rel[end - 1] == '/')
            end--;
        size_t cut = end;
        while (cut > 0 && rel[cut - 1] != '/')
            cut--;
        if (end == 0) {
            snprintf(why, whylen, "%s is the allowed directory %s itself", path, sb->d[di].real);
            return -EACCES;
        }
        if (end - cut + (slash_end > end) >= namelen)
            return -ENAMETOOLONG;
        snprintf(name, namelen, "%.*s%s", (int)(end - cut), rel + cut, slash_end > end ? "/" : "");
        rel[cut] = 0;
        fd = openat2_(sb->d[di].fd, rel[0] ? rel : ".", O_PATH | O_DIRECTORY, 0,
                      RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
        fd = fd < 0 ? -errno : fd;
    } else {
        fd = walk(sb->d[di].fd, rel, 0, 0, 1, name, namelen);
        if (fd == -EACCES) {
            snprintf(why, whylen, "%s is the allowed directory %s itself", path, sb->d[di].real);
            return -EACCES;
        }
    }
    if (fd == -EXDEV)
        return escaped(sb, di, path, why, whylen);
    if (fd < 0)
        return (int)fd;
    *dirfd = (int)fd;
    return 0;
}

int sandbox_read_refused(int fd)
{
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC)
        return 0;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, path, sizeof path - 1);
    if (k < 0)
        return 1;
    path[k] = 0;
    /* /proc/PID and everything under it: a process's memory, descriptors,
     * environment and root; tracegen's own in /proc/self */
    const char *p = path;
    if (strncmp(p, "/proc/", 6))
        return 0;
    p += 6;
    if (!strncmp(p, "self", 4) || !strncmp(p, "thread-self", 11))
        return 1;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == 0 || *p == '/';
}
