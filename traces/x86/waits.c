/* Waiting on descriptors between threads, and the small calls ordinary
 * programs make about themselves: poll, ppoll, select, pselect6, epoll,
 * eventfd (a waiting read), statfs, fstatfs, statx, getrusage, times,
 * sched_setaffinity, prctl names, membarrier; sendfile, mincore, msync,
 * wait4 and waitid. One thread waits for what
 * another provides (under tracegen they take turns on one host thread, so
 * the waiter must not block it). Prints facts that do not depend on the
 * machine, so a native run and one under tracegen print the same. */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int efd;

/* Writes N to the eventfd after a little work of its own. */
static void *writer(void *arg)
{
    volatile unsigned long spin = 0;
    for (unsigned long i = 0; i < 200000; i++)
        spin += i;
    uint64_t n = (uintptr_t)arg;
    if (write(efd, &n, 8) != 8)
        printf("writer: write failed\n");
    return NULL;
}

static pthread_t start_writer(uint64_t n)
{
    pthread_t t;
    pthread_create(&t, NULL, writer, (void *)(uintptr_t)n);
    return t;
}

/* sendfile from a file into a pipe, mincore and msync of mappings, and
 * wait4/waitid of a process with no children. */
static void memory_and_children(const char *self)
{
    int in = open(self, O_RDONLY), fd[2];
    if (in < 0 || pipe(fd) < 0)
        return;
    off_t off = 100;
    ssize_t k = sendfile(fd[1], in, &off, 1000);
    char a[1000], b[1000];
    ssize_t got = read(fd[0], a, sizeof a), want = pread(in, b, sizeof b, 100);
    printf("sendfile: %zd, offset now %ld, same bytes %d, file position kept %ld\n", k, (long)off,
           got == want && !memcmp(a, b, sizeof a), (long)lseek(in, 0, SEEK_CUR));
    close(in);
    close(fd[0]);
    close(fd[1]);

    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(m, 1, 4 * page);
    unsigned char vec[4] = { 9, 9, 9, 9 };
    int r = mincore(m, 4 * page, vec);
    printf("mincore of 4 touched pages: %d, resident %d%d%d%d\n", r, vec[0] & 1, vec[1] & 1,
           vec[2] & 1, vec[3] & 1);
    munmap(m + 2 * page, page);
    r = mincore(m, 4 * page, vec);
    printf("mincore over a hole: %d %s\n", r, errno == ENOMEM ? "ENOMEM" : "?");
    r = mincore(m + 1, page, vec);
    printf("mincore unaligned: %d %s\n", r, errno == EINVAL ? "EINVAL" : "?");
    printf("msync: %d\n", msync(m, 2 * page, MS_SYNC));
    r = msync(m, page, MS_SYNC | MS_ASYNC);
    printf("msync with both: %d %s\n", r, errno == EINVAL ? "EINVAL" : "?");
    r = msync(m, 4 * page, MS_ASYNC);
    printf("msync over a hole: %d %s\n", r, errno == ENOMEM ? "ENOMEM" : "?");
    munmap(m, 4 * page);

    int st;
    pid_t w = wait4(-1, &st, WNOHANG, NULL);
    printf("wait4 with no children: %d %s\n", (int)w, errno == ECHILD ? "ECHILD" : "?");
    siginfo_t si;
    r = waitid(P_ALL, 0, &si, WEXITED);
    printf("waitid with no children: %d %s\n", r, errno == ECHILD ? "ECHILD" : "?");
}

int main(int argc, char **argv)
{
    (void)argc;
    setvbuf(stdout, NULL, _IONBF, 0);
    efd = eventfd(0, 0);
    printf("eventfd: %s\n", efd >= 0 ? "made" : "failed");

    /* poll with no timeout, the value provided by another thread */
    pthread_t t = start_writer(5);
    struct pollfd p = { .fd = efd, .events = POLLIN };
    int r = poll(&p, 1, -1);
    uint64_t v = 0;
    if (read(efd, &v, 8) != 8)
        v = 0;
    printf("poll: %d ready, revents POLLIN %d, read %llu\n", r, !!(p.revents & POLLIN),
           (unsigned long long)v);
    pthread_join(t, NULL);

    /* a read that waits for the writer */
    t = start_writer(7);
    if (read(efd, &v, 8) != 8)
        v = 0;
    printf("waiting read: %llu\n", (unsigned long long)v);
    pthread_join(t, NULL);

    /* epoll */
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1234567890abcdefull };
    printf("epoll_ctl: %d\n", epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev));
    t = start_writer(9);
    struct epoll_event got[4];
    r = epoll_wait(ep, got, 4, -1);
    printf("epoll_wait: %d, data %llx, EPOLLIN %d\n", r, (unsigned long long)got[0].data.u64,
           !!(got[0].events & EPOLLIN));
    pthread_join(t, NULL);
    if (read(efd, &v, 8) != 8)
        v = 0;

    /* select: nothing ready at once, then ready */
    fd_set rs;
    FD_ZERO(&rs);
    FD_SET(efd, &rs);
    struct timeval zero = { 0, 0 };
    printf("select, nothing ready: %d\n", select(efd + 1, &rs, NULL, NULL, &zero));
    t = start_writer(1);
    FD_ZERO(&rs);
    FD_SET(efd, &rs);
    r = select(efd + 1, &rs, NULL, NULL, NULL);
    printf("select: %d, set %d\n", r, FD_ISSET(efd, &rs));
    pthread_join(t, NULL);
    if (read(efd, &v, 8) != 8)
        v = 0;

    /* timeouts: ppoll and pselect on a counter that stays empty */
    struct timespec ts = { 0, 5000000 };
    printf("ppoll timeout: %d\n", ppoll(&p, 1, &ts, NULL));
    FD_ZERO(&rs);
    FD_SET(efd, &rs);
    printf("pselect timeout: %d\n", pselect(efd + 1, &rs, NULL, NULL, &ts, NULL));
    t = start_writer(3);
    printf("poll with a timeout the writer beats: %d\n", poll(&p, 1, 60000));
    pthread_join(t, NULL);

    struct statfs sf;
    printf("statfs /: %d, a type %s\n", statfs("/", &sf), sf.f_type ? "given" : "missing");
    printf("fstatfs: %d\n", fstatfs(efd, &sf) == 0 || fstatfs(1, &sf) == 0 ? 0 : -1);
    /* struct statx by hand (not every C library declares it): the mode is
     * the 16 bits at byte 28; 0x7ff is STATX_BASIC_STATS */
    unsigned char sx[256] = { 0 };
    int sr = (int)syscall(SYS_statx, AT_FDCWD, "/", 0, 0x7ff, sx);
    unsigned short mode = (unsigned short)(sx[28] | sx[29] << 8);
    printf("statx /: %d, directory %d\n", sr, S_ISDIR(mode));
    struct rusage ru;
    printf("getrusage: %d\n", getrusage(RUSAGE_SELF, &ru));
    struct tms tm;
    printf("times: %s\n", times(&tm) != (clock_t)-1 ? "counted" : "failed");
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    printf("sched_setaffinity cpu 0: %d\n", sched_setaffinity(0, sizeof set, &set));
    char name[16] = "";
    printf("prctl set name: %d\n", prctl(PR_SET_NAME, "waits-main"));
    printf("prctl get name: %d %s\n", prctl(PR_GET_NAME, name), name);
    long mb = syscall(SYS_membarrier, 0 /* QUERY */, 0, 0);
    printf("membarrier query: %s\n", mb >= 0 && (mb & 1) ? "global served" : "failed");
    printf("membarrier global: %ld\n", syscall(SYS_membarrier, 1, 0, 0));
    memory_and_children(argv[0]);
    return 0;
}
