/* Taking signals by waiting for them: sigtimedwait, sigwaitinfo and
 * signalfd (read, poll, epoll, a changed mask, the errors of misuse), with
 * signals a thread sends itself, the process is sent, another thread sends
 * and a timer sends, and a wait a handler interrupts. Prints facts that do
 * not depend on the machine or on timing, so a native run and one under
 * tracegen (where timers run on virtual time) print the same. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static sigset_t set_of(int a, int b)
{
    sigset_t s;
    sigemptyset(&s);
    if (a)
        sigaddset(&s, a);
    if (b)
        sigaddset(&s, b);
    return s;
}

static const char *code_name(int code)
{
    switch (code) {
    case SI_USER: return "SI_USER";
    case SI_TKILL: return "SI_TKILL";
    case SI_KERNEL: return "SI_KERNEL";
    case SI_QUEUE: return "SI_QUEUE";
    default: return "other";
    }
}

static void show_info(const char *what, int sig, const siginfo_t *si)
{
    printf("%s: %s, si_signo %d, %s, sender is us %d\n", what, sig > 0 ? strsignal(sig) : "none",
           si->si_signo == sig, code_name(si->si_code),
           si->si_code == SI_KERNEL || (si->si_pid == getpid() && si->si_uid == getuid()));
}

static void show_fd_info(const char *what, const struct signalfd_siginfo *f)
{
    printf("%s: %s, %s, sender is us %d\n", what, strsignal((int)f->ssi_signo),
           code_name(f->ssi_code),
           f->ssi_code == SI_KERNEL || (f->ssi_pid == (uint32_t)getpid() && f->ssi_uid == getuid()));
}

/* Prints what a call returned and errno after it ("-" when it succeeded). */
static void result(const char *what, long r)
{
    int e = errno;
    printf("%s: %ld %s\n", what, r, r < 0 ? strerror(e) : "-");
}

static long elapsed_ms(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

static void one_shot_timer(long ms)
{
    struct itimerval it = { .it_value = { ms / 1000, (ms % 1000) * 1000 } };
    setitimer(ITIMER_REAL, &it, NULL);
}

static void *send_to_main(void *arg)
{
    volatile unsigned long x = 0;
    for (int i = 0; i < 200000; i++)
        x += (unsigned long)i;
    pthread_kill(*(pthread_t *)arg, SIGUSR1);
    return NULL;
}

static void *send_to_process(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    for (int i = 0; i < 200000; i++)
        x += (unsigned long)i;
    kill(getpid(), SIGUSR2);
    return NULL;
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

static void sigtimedwait_cases(void)
{
    siginfo_t si;
    sigset_t both = set_of(SIGUSR1, SIGUSR2), usr1 = set_of(SIGUSR1, 0);
    sigprocmask(SIG_BLOCK, &both, NULL);

    /* pending ones are taken at once, the lowest number first */
    raise(SIGUSR2);
    raise(SIGUSR1);
    struct timespec zero = { 0, 0 };
    int sig = sigtimedwait(&both, &si, &zero);
    show_info("pending, lowest first", sig, &si);
    sig = sigtimedwait(&both, &si, &zero);
    show_info("then the other", sig, &si);
    result("nothing pending, no wait", sigtimedwait(&both, &si, &zero));

    /* a signal outside the set stays pending */
    kill(getpid(), SIGUSR2);
    result("outside the set", sigtimedwait(&usr1, &si, &zero));
    sigset_t pend;
    sigpending(&pend);
    printf("still pending: SIGUSR2 %d\n", sigismember(&pend, SIGUSR2));
    sig = sigwaitinfo(&both, &si);
    show_info("sigwaitinfo, from kill", sig, &si);

    /* a timeout waits that long */
    struct timespec t0, wait50 = { 0, 50000000 };
    clock_gettime(CLOCK_MONOTONIC, &t0);
    result("timeout", sigtimedwait(&both, &si, &wait50));
    printf("waited at least 50 ms %d\n", elapsed_ms(&t0) >= 50);

    /* the errors of misuse */
    struct timespec bad = { 0, 1000000000 };
    result("bad timeout", syscall(SYS_rt_sigtimedwait, &both, NULL, &bad, 8));
    result("bad set size", syscall(SYS_rt_sigtimedwait, &both, NULL, &zero, 4));
    result("bad set address", syscall(SYS_rt_sigtimedwait, (void *)8, NULL, &zero, 8));

    /* another thread sends it to this one while it waits */
    pthread_t self = pthread_self(), th;
    pthread_create(&th, NULL, send_to_main, &self);
    sig = sigwaitinfo(&usr1, &si);
    show_info("from another thread", sig, &si);
    pthread_join(th, NULL);

    /* a timer's signal */
    sigset_t alrm = set_of(SIGALRM, 0);
    sigprocmask(SIG_BLOCK, &alrm, NULL);
    one_shot_timer(10);
    sig = sigwaitinfo(&alrm, &si);
    show_info("from a timer", sig, &si);
    sigprocmask(SIG_UNBLOCK, &alrm, NULL);

    /* a handled signal outside the set ends the wait (the system call
     * itself: musl's sigtimedwait would wait again) */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    one_shot_timer(20);
    struct timespec second = { 1, 0 };
    result("interrupted by a handler", syscall(SYS_rt_sigtimedwait, &usr1, NULL, &second, 8));
    printf("handler ran %d\n", (int)alarms);
    sigprocmask(SIG_UNBLOCK, &both, NULL);
}

static void signalfd_cases(void)
{
    sigset_t both = set_of(SIGUSR1, SIGUSR2);
    sigprocmask(SIG_BLOCK, &both, NULL);
    int fd = signalfd(-1, &both, SFD_NONBLOCK | SFD_CLOEXEC);
    printf("signalfd: %d\n", fd >= 0);
    struct signalfd_siginfo f[2];
    result("empty read", read(fd, f, sizeof f));
    struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
    printf("poll, nothing pending: %d\n", poll(&pfd, 1, 0));

    raise(SIGUSR1);
    printf("poll, one pending: %d revents POLLIN %d POLLOUT %d\n", poll(&pfd, 1, 0),
           !!(pfd.revents & POLLIN), !!(pfd.revents & POLLOUT));
    ssize_t n = read(fd, f, sizeof f);
    printf("read: %zd bytes\n", n);
    show_fd_info("signalfd, raise", &f[0]);

    kill(getpid(), SIGUSR2);
    raise(SIGUSR1);
    n = read(fd, f, sizeof f);
    printf("read two: %zd bytes\n", n);
    show_fd_info("first", &f[0]);
    show_fd_info("second", &f[1]);
    sigset_t pend;
    sigpending(&pend);
    printf("taken: SIGUSR1 pending %d, SIGUSR2 pending %d\n", sigismember(&pend, SIGUSR1),
           sigismember(&pend, SIGUSR2));

    char small[100];
    result("short read", read(fd, small, sizeof small));
    result("write", write(fd, f, sizeof f[0]));

    /* a new mask for the same descriptor */
    sigset_t usr2 = set_of(SIGUSR2, 0);
    printf("new mask, same fd: %d\n", signalfd(fd, &usr2, 0) == fd);
    raise(SIGUSR1);
    result("read, signal outside the mask", read(fd, f, sizeof f));
    siginfo_t si;
    show_info("still there for sigwaitinfo", sigwaitinfo(&both, &si), &si);
    result("signalfd on a non-signalfd", signalfd(1, &usr2, 0));
    result("bad flags", signalfd(-1, &usr2, 1));
    close(fd);

    /* a blocking read waits for a signal another thread sends the process */
    int bfd = signalfd(-1, &usr2, 0);
    pthread_t th;
    pthread_create(&th, NULL, send_to_process, NULL);
    n = read(bfd, f, sizeof f[0]);
    printf("blocking read: %zd bytes\n", n);
    show_fd_info("from another thread, to the process", &f[0]);
    pthread_join(th, NULL);
    close(bfd);

    /* epoll waits for a timer's signal */
    sigset_t alrm = set_of(SIGALRM, 0);
    sigprocmask(SIG_BLOCK, &alrm, NULL);
    int afd = signalfd(-1, &alrm, SFD_NONBLOCK);
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 7 }, got;
    epoll_ctl(ep, EPOLL_CTL_ADD, afd, &ev);
    printf("epoll, nothing yet: %d\n", epoll_wait(ep, &got, 1, 0));
    one_shot_timer(10);
    int k = epoll_wait(ep, &got, 1, 5000);
    printf("epoll after the timer: %d, data %u\n", k, got.data.u32);
    n = read(afd, f, sizeof f);
    printf("read: %zd bytes\n", n);
    show_fd_info("timer", &f[0]);
    close(ep);
    close(afd);
    sigprocmask(SIG_UNBLOCK, &alrm, NULL);
    sigprocmask(SIG_UNBLOCK, &both, NULL);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    sigtimedwait_cases();
    signalfd_cases();
    printf("done\n");
    return 0;
}
