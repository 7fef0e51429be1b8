/* File-system calls inside one directory (argv[1]), each printed with its
 * result, then the directory's contents: mkdir, open/creat, pwrite,
 * ftruncate, fsync, fdatasync, fallocate, rename (and renameat2 with
 * RENAME_NOREPLACE and RENAME_EXCHANGE), link, symlink, readlink, chmod,
 * fchmod, truncate, utimensat, utimes, access, faccessat, unlink, rmdir,
 * mkfifo, flock, fcntl record locks, umask. The output holds no absolute
 * path or time of day, so a native run and one under tracegen
 * (--allow-write on that directory) print the same. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

static int dir;

static void say(const char *what, long rc)
{
    if (rc >= 0)
        printf("%s = %ld\n", what, rc);
    else
        printf("%s = %s\n", what, strerror(errno));
}

static void show_stat(const char *name)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        printf("stat %s: %s\n", name, strerror(errno));
        return;
    }
    printf("stat %s: mode %o links %lu size %lld", name, (unsigned)st.st_mode,
           (unsigned long)st.st_nlink, (long long)st.st_size);
    if (st.st_mtim.tv_sec < 1400000000l) /* times the program set itself */
        printf(" atime %lld.%09ld mtime %lld.%09ld", (long long)st.st_atim.tv_sec,
               st.st_atim.tv_nsec, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    printf("\n");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tree under NAME (relative to dir), sorted, with types and sizes. */
static void list(const char *name, int depth)
{
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d)
        return;
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", name, names[i]);
        struct stat st;
        fstatat(dir, path, &st, AT_SYMLINK_NOFOLLOW);
        printf("%*s%s %s %lld\n", 2 * depth, "", names[i],
               S_ISDIR(st.st_mode) ? "dir" : S_ISLNK(st.st_mode) ? "link" : S_ISFIFO(st.st_mode) ? "fifo" : "file",
               S_ISDIR(st.st_mode) ? 0ll : (long long)st.st_size);
        if (S_ISDIR(st.st_mode))
            list(path, depth + 1);
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: file_ops DIR\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    dir = open(argv[1], O_RDONLY | O_DIRECTORY);
    if (dir < 0)
        return 1;
    char b1[256], b2[256];
    /* ARGV[1]/REL; Q for a call's second path */
#define P(rel) (snprintf(b1, sizeof b1, "%s/%s", argv[1], rel), b1)
#define Q(rel) (snprintf(b2, sizeof b2, "%s/%s", argv[1], rel), b2)
    say("umask", umask(022));
    say("mkdir d", mkdir(P("d"), 0755));
    say("mkdir d again", mkdir(P("d"), 0755));
    say("mkdirat d/e", mkdirat(dir, "d/e", 0700));
    int fd = open(P("d/f"), O_WRONLY | O_CREAT | O_EXCL, 0640);
    say("open d/f exclusive", fd);
    say("write", write(fd, "hello\n", 6));
    say("pwrite at 10", pwrite(fd, "world\n", 6, 10));
    say("fsync", fsync(fd));
    say("fdatasync", fdatasync(fd));
    say("ftruncate to 20", ftruncate(fd, 20));
    say("fallocate to 64", fallocate(fd, 0, 0, 64));
    say("fchmod 0600", fchmod(fd, 0600));
    say("flock exclusive", flock(fd, LOCK_EX | LOCK_NB));
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
    say("fcntl F_SETLK", fcntl(fd, F_SETLK, &fl));
    fl.l_type = F_RDLCK;
    say("fcntl F_GETLK (own lock: unlocked)", fcntl(fd, F_GETLK, &fl) < 0 ? -1 : fl.l_type == F_UNLCK);
    say("flock unlock", flock(fd, LOCK_UN));
    close(fd);
    show_stat("d/f");
    say("creat d/c", creat(P("d/c"), 0644) >= 0 ? 0 : -1);
    say("rename d/f to d/e/g", rename(P("d/f"), Q("d/e/g")));
    say("renameat2 noreplace onto an existing name",
        syscall(SYS_renameat2, dir, "d/c", dir, "d/e/g", 1 /* RENAME_NOREPLACE */));
    say("renameat2 exchange", syscall(SYS_renameat2, dir, "d/c", dir, "d/e/g", 2));
    show_stat("d/c");
    show_stat("d/e/g");
    say("link d/c to h", link(P("d/c"), Q("h")));
    show_stat("h");
    say("symlink s -> d/c", symlink("d/c", P("s")));
    char target[64];
    ssize_t k = readlink(P("s"), target, sizeof target);
    printf("readlink s = %.*s\n", (int)(k > 0 ? k : 0), target);
    say("linkat following s", linkat(dir, "s", dir, "hs", AT_SYMLINK_FOLLOW));
    show_stat("hs");
    say("chmod s (its target) 0640", chmod(P("s"), 0640));
    show_stat("d/c");
    say("truncate h to 5", truncate(P("h"), 5));
    show_stat("d/c");
    struct timespec ts[2] = { { 1000000000, 123 }, { 1100000000, 456 } };
    say("utimensat d/c", utimensat(dir, "d/c", ts, 0));
    show_stat("d/c");
    struct timeval tv[2] = { { 1200000000, 7 }, { 1300000000, 8 } };
    say("utimes h", utimes(P("h"), tv));
    show_stat("h");
    say("access d/c W_OK", access(P("d/c"), W_OK));
    say("faccessat d/c R_OK from the directory", faccessat(dir, "d/c", R_OK, 0));
    say("faccessat nothing F_OK", faccessat(dir, "nothing", F_OK, 0));
    say("mkfifo p", mkfifo(P("p"), 0644));
    say("rmdir d/e (not empty)", rmdir(P("d/e")));
    say("unlink d/e/g", unlink(P("d/e/g")));
    say("unlinkat d/e as a file", unlinkat(dir, "d/e", 0));
    say("unlinkat d/e as a directory", unlinkat(dir, "d/e", AT_REMOVEDIR));
    say("unlink hs", unlink(P("hs")));
    say("unlink nothing", unlink(P("nothing")));
    list(".", 0);
    return 0;
}
