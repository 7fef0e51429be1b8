/* Signals sent with a siginfo the sender gives: sigqueue (rt_sigqueueinfo)
 * to the process, rt_tgsigqueueinfo (pthread_sigqueue) to a thread, the
 * value delivered to a handler, to sigwaitinfo and to a signalfd, and the
 * kernel's rule that a sender may claim to be the kernel or kill/tgkill
 * (si_code >= 0, or SI_TKILL) only toward its own thread id. Prints facts
 * that do not depend on the machine, so a native run and one under
 * tracegen print the same. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t got_sig, got_code, got_int, got_errno, got_pid, uid_ok;
static void *volatile got_ptr;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = si->si_signo == sig ? sig : -1;
    got_code = si->si_code;
    got_errno = si->si_errno;
    got_int = si->si_value.sival_int;
    got_ptr = si->si_value.sival_ptr;
    got_pid = si->si_pid;
    uid_ok = si->si_uid == getuid();
}

static void handle(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static long queueinfo(pid_t pid, int sig, const siginfo_t *si)
{
    return syscall(SYS_rt_sigqueueinfo, pid, sig, si);
}

static long tgqueueinfo(pid_t tgid, pid_t tid, int sig, const siginfo_t *si)
{
    return syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, si);
}

/* A siginfo with CODE, a sender pid of 12345 and VALUE (as sigqueue's). */
static siginfo_t info(int code, int value)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = 99; /* the kernel puts the signal's number here */
    si.si_code = code;
    si.si_errno = 3;
    si.si_pid = 12345;
    si.si_uid = getuid();
    si.si_value.sival_int = value;
    return si;
}

static const char *result(long rc)
{
    if (rc == 0)
        return "ok";
    switch (errno) {
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    case EFAULT: return "EFAULT";
    default: return "other error";
    }
}

static void report(const char *what, long rc)
{
    char line[256];
    int n = snprintf(line, sizeof line, "%s: %s", what, result(rc));
    if (rc == 0 && got_sig)
        snprintf(line + n, sizeof line - (size_t)n,
                 ", signal %d code %d errno %d value %d pid %s uid %s", got_sig, got_code,
                 got_errno, got_int, got_pid == getpid() ? "self"
                                     : got_pid == 12345 ? "given" : "other",
                 uid_ok ? "own" : "other");
    printf("%s\n", line);
    got_sig = 0;
}

/* ---- from the main thread ---- */

static void to_the_process(void)
{
    handle(SIGUSR1);
    handle(SIGRTMIN + 1);
    union sigval v = { .sival_int = 42 };
    report("sigqueue SIGUSR1 42", sigqueue(getpid(), SIGUSR1, v));
    v.sival_int = -7;
    report("sigqueue SIGRTMIN+1 -7", sigqueue(getpid(), SIGRTMIN + 1, v));
    siginfo_t si = info(SI_USER, 5);
    report("rt_sigqueueinfo SI_USER to itself", queueinfo(getpid(), SIGUSR1, &si));
    si = info(SI_KERNEL, 6);
    report("rt_sigqueueinfo SI_KERNEL to itself", queueinfo(getpid(), SIGUSR1, &si));
    si = info(SI_TKILL, 8);
    report("rt_sigqueueinfo SI_TKILL to itself", queueinfo(getpid(), SIGUSR1, &si));
    si = info(SI_QUEUE, 9);
    report("rt_sigqueueinfo signal 0", queueinfo(getpid(), 0, &si));
    report("rt_sigqueueinfo signal 65", queueinfo(getpid(), 65, &si));
    report("rt_sigqueueinfo bad address", queueinfo(getpid(), SIGUSR1, (siginfo_t *)8));
    report("rt_sigqueueinfo pid 0, signal 0", queueinfo(0, 0, &si));
    si = info(SI_USER, 9);
    report("rt_sigqueueinfo SI_USER to pid 0", queueinfo(0, 0, &si));
}

/* ---- between threads ---- */

static pid_t worker_tid;
static pthread_barrier_t ready, sent, checked;

static void *worker(void *arg)
{
    (void)arg;
    worker_tid = (pid_t)syscall(SYS_gettid);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGUSR1); /* what it sends the process, the main thread takes */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    sigdelset(&set, SIGUSR1);
    pthread_barrier_wait(&ready);
    /* the main thread queues SIGUSR2 to this thread */
    siginfo_t si;
    int sig = sigwaitinfo(&set, &si);
    pthread_barrier_wait(&sent); /* the sender has printed its line */
    printf("worker sigwaitinfo: signal %d code %d errno %d value %d pid %s\n", sig, si.si_code,
           si.si_errno, si.si_value.sival_int,
           si.si_pid == getpid() ? "self" : si.si_pid == 12345 ? "given" : "other");
    /* a thread other than the main one may not claim SI_USER toward the
     * process, whose id is the main thread's */
    siginfo_t q = info(SI_USER, 1);
    printf("worker rt_sigqueueinfo SI_USER to the process: %s\n",
           result(queueinfo(getpid(), SIGUSR1, &q)));
    q = info(SI_QUEUE, 2);
    printf("worker rt_sigqueueinfo SI_QUEUE to the process: %s\n",
           result(queueinfo(getpid(), SIGUSR1, &q)));
    pthread_barrier_wait(&checked);
    return NULL;
}

static void between_threads(void)
{
    pthread_barrier_init(&ready, NULL, 2);
    pthread_barrier_init(&sent, NULL, 2);
    pthread_barrier_init(&checked, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_barrier_wait(&ready);
    siginfo_t si = info(SI_USER, 11);
    report("rt_tgsigqueueinfo SI_USER to another thread",
           tgqueueinfo(getpid(), worker_tid, SIGUSR2, &si));
    si = info(SI_KERNEL, 12);
    report("rt_tgsigqueueinfo SI_KERNEL to another thread",
           tgqueueinfo(getpid(), worker_tid, SIGUSR2, &si));
    report("rt_tgsigqueueinfo tid 0", tgqueueinfo(getpid(), 0, SIGUSR2, &si));
    report("rt_tgsigqueueinfo tgid -1", tgqueueinfo(-1, worker_tid, SIGUSR2, &si));
    si = info(SI_QUEUE, 13);
    report("rt_tgsigqueueinfo unknown thread", tgqueueinfo(getpid(), 999999, SIGUSR2, &si));
    report("rt_tgsigqueueinfo signal 65", tgqueueinfo(getpid(), worker_tid, 65, &si));
    report("rt_tgsigqueueinfo SI_QUEUE to another thread",
           tgqueueinfo(getpid(), worker_tid, SIGUSR2, &si));
    pthread_barrier_wait(&sent);
    pthread_barrier_wait(&checked);
    pthread_join(t, NULL);
    report("the main thread took the worker's SIGUSR1", 0);
    si = info(SI_USER, 14);
    report("rt_tgsigqueueinfo SI_USER to its own thread",
           tgqueueinfo(getpid(), (pid_t)syscall(SYS_gettid), SIGUSR1, &si));
}

/* ---- read from a signalfd ---- */

static void through_signalfd(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 2);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int fd = signalfd(-1, &set, 0);
    union sigval v = { .sival_int = 77 };
    sigqueue(getpid(), SIGRTMIN + 2, v);
    struct signalfd_siginfo r;
    if (read(fd, &r, sizeof r) != (ssize_t)sizeof r) {
        printf("signalfd: read failed\n");
        return;
    }
    printf("signalfd: signal %s code %d errno %d int %d ptr %s pid %s\n",
           (int)r.ssi_signo == SIGRTMIN + 2 ? "SIGRTMIN+2" : "other", r.ssi_code, r.ssi_errno,
           r.ssi_int, r.ssi_ptr == (uint64_t)(uint32_t)77 ? "77" : "other",
           (pid_t)r.ssi_pid == getpid() ? "self" : "other");
    close(fd);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    to_the_process();
    between_threads();
    through_signalfd();
    return 0;
}
