/* Running programs for the tests: see run_program.h. */
#include "tests/unit/run_program.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CAP (1u << 20)

static char *slurp(int fd)
{
    char *buf = malloc(CAP);
    size_t n = 0;
    ssize_t k;
    if (!buf)
        abort();
    lseek(fd, 0, SEEK_SET);
    while (n + 1 < CAP && (k = read(fd, buf + n, CAP - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = 0;
    close(fd);
    return buf;
}

static int temp_fd(void)
{
    char path[] = "/tmp/cgm_run_XXXXXX";
    int fd = mkostemp(path, O_CLOEXEC); /* the program sees only 0, 1 and 2 */
    if (fd < 0)
        abort();
    unlink(path);
    return fd;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct run_result *run_program(char *const argv[], const struct run_options *opt)
{
    struct run_options o = { 0 };
    if (opt)
        o = *opt;
    if (o.timeout <= 0)
        o.timeout = 120;
    struct run_result *r = calloc(1, sizeof *r);
    int fo = temp_fd(), fe = temp_fd();
    if (!r)
        abort();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int in = open(o.stdin_path ? o.stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC);
        dup2(in, 0);
        if (o.stdout_path) {
            int so = open(o.stdout_path, O_WRONLY | O_CLOEXEC);
            dup2(so, 1);
        } else {
            dup2(fo, 1);
        }
        dup2(fe, 2);
        if (o.address_space_limit) {
            struct rlimit rl = { (rlim_t)o.address_space_limit, (rlim_t)o.address_space_limit };
            setrlimit(RLIMIT_AS, &rl);
        }
        if (o.file_size_limit) {
            struct rlimit rl = { (rlim_t)o.file_size_limit, (rlim_t)o.file_size_limit };
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    double start = now();
    int st = 0, signalled = 0;
    struct rusage ru;
    for (;;) {
        pid_t w = wait4(pid, &st, WNOHANG, &ru);
        if (w == pid)
            break;
        double t = now() - start;
        if (o.signal_after > 0 && !signalled && t >= o.signal_after) {
            kill(pid, o.signal);
            signalled = 1;
        }
        if (t >= o.timeout && !r->timed_out) {
            kill(pid, SIGKILL);
            r->timed_out = 1;
        }
        struct timespec nap = { 0, 2000000 };
        nanosleep(&nap, NULL);
    }
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->maxrss_kb = ru.ru_maxrss;
    r->out = slurp(fo);
    r->err = slurp(fe);
    return r;
}

void run_result_free(struct run_result *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    free(r);
}
