/* A hostile guest trying to leave tracegen's write sandbox, one attempt
 * per run: `sandbox_escape MODE ROOT`, where ROOT holds the allowed
 * directory ROOT/allowed (links in it pointing out, as a shared directory
 * may hold or the guest may make), ROOT/elsewhere (a file w, a directory
 * sub) and ROOT/canary. Each mode prints one line per call: what it tried
 * and whether the call succeeded ("done") or what it returned. Whether
 * anything outside ROOT/allowed changed is for the caller to check;
 * tests/unit/tracegen/test_x86_sandbox.c makes the tree and does. `list`
 * prints the modes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "cgm/guest.h"

static const char *root;
static char d[4096], out[4096];   /* ROOT/allowed, ROOT/elsewhere */

static const char *at(char *buf, const char *dir, const char *rest)
{
    snprintf(buf, 4096, "%s/%s", dir, rest);
    return buf;
}

static void say(const char *what, long rc)
{
    if (rc >= 0)
        printf("%s: done\n", what);
    else
        printf("%s: refused (%s)\n", what, strerror(errno));
}

/* Opens PATH with FLAGS and writes a line to it. */
static void write_to(const char *what, int dirfd, const char *path, int flags)
{
    int fd = openat(dirfd, path, flags, 0644);
    if (fd >= 0) {
        ssize_t k = write(fd, "escaped\n", 8);
        close(fd);
        say(what, k == 8 ? 0 : -1);
    } else {
        say(what, -1);
    }
}

/* The project's own calls return -errno themselves. */
static void say_raw(const char *what, long rc)
{
    if (rc < 0 && rc > -4096)
        errno = (int)-rc;
    say(what, rc < 0 && rc > -4096 ? -1 : 0);
}

#define PATH(name, dir, rest) char name##_buf[4096]; const char *name = at(name##_buf, dir, rest)

static void append_link(void) { PATH(p, d, "link_out"); write_to("append through an absolute link", AT_FDCWD, p, O_WRONLY | O_APPEND); }
static void create_dangling(void) { PATH(p, d, "dangling"); write_to("create through a dangling link", AT_FDCWD, p, O_WRONLY | O_CREAT); }
static void dirlink_write(void) { PATH(p, d, "dirlink/w"); write_to("write through a directory link", AT_FDCWD, p, O_WRONLY); }
static void rel_link_trunc(void) { PATH(p, d, "rel_out"); write_to("truncate through a relative link", AT_FDCWD, p, O_WRONLY | O_TRUNC); }
static void rel_dirlink_create(void) { PATH(p, d, "rel_dirlink/new"); write_to("create through a relative directory link", AT_FDCWD, p, O_WRONLY | O_CREAT); }
static void dotdot(void) { PATH(p, d, "../elsewhere/w"); write_to("write through ..", AT_FDCWD, p, O_WRONLY); }
static void dotdot_create(void) { PATH(p, d, "../elsewhere/new"); write_to("create through ..", AT_FDCWD, p, O_WRONLY | O_CREAT); }
static void trunc_readonly(void) { PATH(p, out, "w"); write_to("O_TRUNC outside (read-only open)", AT_FDCWD, p, O_RDONLY | O_TRUNC); }
static void tmpfile_out(void) { write_to("O_TMPFILE outside", AT_FDCWD, out, O_TMPFILE | O_WRONLY); }

static void dirfd_outside(void)
{
    int dfd = open(out, O_RDONLY | O_DIRECTORY);
    say("open the outside directory to read", dfd);
    write_to("openat with a descriptor outside", dfd, "w", O_WRONLY);
    write_to("openat creating with a descriptor outside", dfd, "new", O_WRONLY | O_CREAT);
}

static void dirfd_dotdot(void)
{
    int dfd = open(d, O_RDONLY | O_DIRECTORY);
    write_to("openat with .. from the allowed directory", dfd, "../elsewhere/w", O_WRONLY);
}

static void rename_out(void)
{
    PATH(a, d, "inner");
    PATH(b, out, "moved");
    say("rename out of the directory", rename(a, b));
    PATH(c, d, "dirlink/moved");
    say("rename through a directory link", rename(a, c));
}

static void rename_in(void)
{
    PATH(a, out, "w");
    PATH(b, d, "stolen");
    say("rename into the directory", rename(a, b));
    PATH(c, d, "dirlink/w");
    say("rename in through a directory link", rename(c, b));
}

static void exchange(void)
{
    PATH(a, d, "inner");
    PATH(b, d, "dirlink/w");
    say("exchange with a file outside", syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */));
}

static void hardlink_in(void)
{
    PATH(a, out, "w");
    PATH(b, d, "hard");
    say("hard link of an outside file into the directory", link(a, b));
    write_to("write through that link", AT_FDCWD, b, O_WRONLY);
    PATH(c, d, "link_out");
    PATH(e, d, "hard2");
    say("hard link following a link out", linkat(AT_FDCWD, c, AT_FDCWD, e, AT_SYMLINK_FOLLOW));
    write_to("write through that link", AT_FDCWD, e, O_WRONLY);
}

static void hardlink_out(void)
{
    PATH(a, d, "inner");
    PATH(b, out, "hard3");
    say("hard link from the directory to outside", link(a, b));
}

static void symlink_then_write(void)
{
    PATH(a, d, "mylink");
    PATH(t, out, "w");
    say("make a link out (allowed: it is only a name)", symlink(t, a));
    write_to("write through it", AT_FDCWD, a, O_WRONLY | O_TRUNC);
    PATH(b, out, "lnk");
    say("make a link outside", symlink("x", b));
}

static void unlink_out(void)
{
    PATH(a, d, "../elsewhere/w");
    say("unlink through ..", unlink(a));
    PATH(b, d, "dirlink/w");
    say("unlink through a directory link", unlink(b));
    PATH(c, out, "sub");
    say("rmdir outside", rmdir(c));
    PATH(e, d, "dirlink/sub");
    say("rmdir through a directory link", rmdir(e));
    say("rmdir the allowed directory itself", rmdir(d));
}

static void mkdir_out(void)
{
    PATH(a, d, "dirlink/newdir");
    say("mkdir through a directory link", mkdir(a, 0755));
    PATH(b, d, "../newdir");
    say("mkdir through ..", mkdir(b, 0755));
    PATH(c, d, "dirlink/fifo");
    say("mkfifo through a directory link", mkfifo(c, 0644));
}

static void attributes(void)
{
    PATH(a, d, "link_out");
    say("chmod through a link", chmod(a, 0777));
    PATH(b, out, "w");
    say("chmod outside", chmod(b, 0777));
    int fd = open(b, O_RDONLY);
    say("fchmod a descriptor opened to read outside", fchmod(fd, 0777));
    say("fchown it", fchown(fd, 1, 1));
    struct timespec t[2] = { { 0, 0 }, { 0, 0 } };
    say("futimens it", futimens(fd, t));
    close(fd);
    say("chown through a link", chown(a, 1, 1));
    say("truncate through a link", truncate(a, 0));
    say("utimensat through a link", utimensat(AT_FDCWD, a, t, 0));
    struct timeval tv[2] = { { 0, 0 }, { 0, 0 } };
    say("utimes through a link", utimes(a, tv));
}

static void proc(void)
{
    int fd = open("/proc/self/mem", O_RDWR);
    say("open /proc/self/mem to write", fd);
    fd = open("/proc/self/mem", O_RDONLY);
    say("open /proc/self/mem to read", fd);
    say("open /proc/self/environ", open("/proc/self/environ", O_RDONLY));
    say("open /proc/self/fd/3 to write", open("/proc/self/fd/3", O_WRONLY));
    char p[4096];
    snprintf(p, sizeof p, "/proc/self/root%s/w", out);
    write_to("write through /proc/self/root", AT_FDCWD, p, O_WRONLY);
    PATH(q, d, "proc_link");
    snprintf(p, sizeof p, "%s%s/w", q, out);
    write_to("write through a link to /proc/self/root", AT_FDCWD, p, O_WRONLY);
    char link[4096];
    ssize_t k = readlink("/proc/self/fd/3", link, sizeof link);
    say("readlink /proc/self/fd/3 (not the guest's)", k);
}

static void processes(void)
{
    char *argv[] = { "/bin/sh", "-c", "echo escaped", NULL };
    say("execve /bin/sh", execve(argv[0], argv, NULL));
    say("fork", (long)syscall(SYS_fork));
    say("socket", socket(AF_INET, SOCK_STREAM, 0));
    say("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, (int[2]){ 0 }));
    say("ptrace attach to the parent", syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, getppid(), 0, 0));
    say("kill the parent", kill(getppid(), SIGTERM));
    say("kill every process", kill(-1, SIGKILL));
    say("kill process 1", kill(1, SIGKILL));
    say("open_by_handle_at", syscall(SYS_open_by_handle_at, AT_FDCWD, NULL, O_RDONLY));
    say("mount", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL));
    say("chroot", syscall(SYS_chroot, "/"));
}

static void gpu_wild(void)
{
    say_raw("gpu copy of 2^64-1 bytes", cgm_gpu_copy((void *)0x10000, (void *)0x20000, (size_t)-1));
    char *buf = cgm_gpu_alloc(1 << 20);
    printf("gpu alloc of a MiB: %s\n", buf ? "done" : "failed");
    if (buf)
        say_raw("gpu copy from it past its end", cgm_gpu_copy(buf, buf + (1 << 19), (size_t)-4096));
    printf("gpu alloc of 2^62 bytes: %s\n", cgm_gpu_alloc(1ull << 62) ? "done" : "failed");
    say_raw("gpu load from a wild pointer",
            cgm_guest_syscall6(CGM_SYSCALL_GPU_LOAD, 0xdead0000, 0, 0, 0, 0, 0));
    say_raw("gpu load of a directory outside", cgm_gpu_load(out));
    say_raw("gpu launch with wild arguments",
            cgm_guest_syscall6(CGM_SYSCALL_GPU_LAUNCH, -1, -1, -1, -1, -1, -1));
    say_raw("gpu free of a wild pointer", cgm_gpu_free((void *)0x123456789000ull));
}

static const struct { const char *name; void (*fn)(void); } MODES[] = {
    { "append_link", append_link }, { "create_dangling", create_dangling },
    { "dirlink_write", dirlink_write }, { "rel_link_trunc", rel_link_trunc },
    { "rel_dirlink_create", rel_dirlink_create }, { "dotdot", dotdot },
    { "dotdot_create", dotdot_create }, { "trunc_readonly", trunc_readonly },
    { "tmpfile_out", tmpfile_out }, { "dirfd_outside", dirfd_outside },
    { "dirfd_dotdot", dirfd_dotdot }, { "rename_out", rename_out }, { "rename_in", rename_in },
    { "exchange", exchange }, { "hardlink_in", hardlink_in }, { "hardlink_out", hardlink_out },
    { "symlink_then_write", symlink_then_write }, { "unlink_out", unlink_out },
    { "mkdir_out", mkdir_out }, { "attributes", attributes }, { "proc", proc },
    { "processes", processes }, { "gpu_wild", gpu_wild },
};

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++)
            printf("%s\n", MODES[i].name);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: sandbox_escape MODE ROOT | sandbox_escape list\n");
        return 2;
    }
    root = argv[2];
    snprintf(d, sizeof d, "%s/allowed", root);
    snprintf(out, sizeof out, "%s/elsewhere", root);
    for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++)
        if (!strcmp(argv[1], MODES[i].name)) {
            MODES[i].fn();
            return 0;
        }
    fprintf(stderr, "sandbox_escape: no mode %s\n", argv[1]);
    return 2;
}
