/* Signal handlers that run: synchronous SIGSEGV, SIGFPE and SIGILL on the
 * faulting instruction with siginfo and ucontext (a handler that jumps out,
 * one that steps over the instruction by changing the saved RIP), raise,
 * kill and pthread_kill between threads, masks and sigpending, deferral and
 * SA_NODEFER, SA_RESETHAND, sigaltstack, sigsuspend, alarm and setitimer,
 * and the x87/SSE state a handler leaves alone. Prints facts that do not
 * depend on the machine or on timing, so a native run and one under
 * tracegen print the same. `signals latency` measures how soon a signal
 * sent to another thread is handled; `signals alarm` dies of SIGALRM. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static sigjmp_buf escape;
static volatile sig_atomic_t got_signo, got_code, count;
static void *volatile got_addr;
static volatile uintptr_t expect_addr;

static void on(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void jump_out(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_signo = si->si_signo == sig ? sig : -1;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(escape, 1);
}

/* Steps over the faulting instruction, whose length is in rbx. */
static void step_over(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    got_signo = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    uc->uc_mcontext.gregs[REG_RIP] += uc->uc_mcontext.gregs[REG_RBX];
    uc->uc_mcontext.gregs[REG_RCX] = 0x1234; /* the interrupted code sees this */
    count++;
}

static void faults(void)
{
    on(SIGSEGV, jump_out, 0);
    if (!sigsetjmp(escape, 1)) {
        volatile int *bad = (int *)(uintptr_t)0x10;
        *bad = 1;
    }
    printf("SIGSEGV write: signo ok %d, code %d (SEGV_MAPERR %d), addr %p\n",
           got_signo == SIGSEGV, (int)got_code, SEGV_MAPERR, got_addr);

    static const char ro[4096] __attribute__((aligned(4096))) = "read only";
    got_signo = 0;
    if (!sigsetjmp(escape, 1))
        *(volatile char *)ro = 'x';
    printf("SIGSEGV on a read-only page: code %d (SEGV_ACCERR %d), addr right %d\n",
           (int)got_code, SEGV_ACCERR, got_addr == (void *)ro);

    on(SIGFPE, jump_out, 0);
    if (!sigsetjmp(escape, 1)) {
        volatile int zero = 0;
        volatile int r = 7 / zero;
        (void)r;
    }
    printf("SIGFPE: signo ok %d, code %d (FPE_INTDIV %d)\n", got_signo == SIGFPE, (int)got_code,
           FPE_INTDIV);

    /* ud2 (2 bytes) and a load from address 8 (mov (%rax),%eax: 2 bytes)
     * stepped over by the handler, which also sets rcx */
    on(SIGILL, step_over, 0);
    on(SIGSEGV, step_over, 0);
    uint64_t rcx = 0;
    void *at;
    __asm__ volatile("lea 0f(%%rip), %1\n\t"
                     "mov $2, %%ebx\n\t"
                     "0: ud2\n\t"
                     : "+c"(rcx), "=r"(at) : : "rbx", "memory");
    printf("SIGILL stepped over: code %d (ILL_ILLOPN %d), addr is the ud2 %d, rcx %#llx\n",
           (int)got_code, ILL_ILLOPN, got_addr == at, (unsigned long long)rcx);
    rcx = 0;
    uint32_t v = 5;
    __asm__ volatile("mov $2, %%ebx\n\t"
                     "mov $8, %%eax\n\t"
                     "mov (%%rax), %%eax\n\t"
                     "mov %%eax, %0\n\t"
                     : "=r"(v), "+c"(rcx) : : "rax", "rbx", "memory");
    printf("SIGSEGV stepped over: addr %p, eax kept %u, rcx %#llx, handled %d times\n", got_addr,
           v, (unsigned long long)rcx, (int)count);
    signal(SIGSEGV, SIG_DFL);
    signal(SIGILL, SIG_DFL);
    signal(SIGFPE, SIG_DFL);
}

static volatile sig_atomic_t depth, max_depth, order[8], norder;

static void nested(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    depth++;
    if (depth > max_depth)
        max_depth = depth;
    if (norder < 8)
        order[norder++] = (sig_atomic_t)(depth * 10 + count);
    if (count++ < 2)
        raise(sig);
    depth--;
}

static void sending(void)
{
    on(SIGUSR1, jump_out, 0);
    got_signo = 0;
    if (!sigsetjmp(escape, 1))
        raise(SIGUSR1);
    printf("raise: signo ok %d, code is SI_TKILL %d\n", got_signo == SIGUSR1, got_code == SI_TKILL);
    if (!sigsetjmp(escape, 1))
        kill(getpid(), SIGUSR1);
    printf("kill: code is SI_USER %d\n", got_code == SI_USER);

    /* blocked: pending until unblocked, then delivered before sigprocmask returns */
    sigset_t set, old, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, &old);
    got_signo = 0;
    raise(SIGUSR1);
    sigpending(&pend);
    printf("blocked: delivered %d, pending %d\n", got_signo != 0, sigismember(&pend, SIGUSR1));
    if (!sigsetjmp(escape, 1))
        sigprocmask(SIG_UNBLOCK, &set, NULL);
    printf("unblocked: delivered %d\n", got_signo == SIGUSR1);
    sigprocmask(SIG_SETMASK, &old, NULL); /* the jump out restored the blocked mask */

    /* a handler raising its own signal: deferred until it returns, unless SA_NODEFER */
    count = depth = max_depth = norder = 0;
    on(SIGUSR2, nested, 0);
    raise(SIGUSR2);
    printf("deferred: %d runs, deepest %d, order %d %d %d\n", (int)count, (int)max_depth,
           (int)order[0], (int)order[1], (int)order[2]);
    count = depth = max_depth = norder = 0;
    on(SIGUSR2, nested, SA_NODEFER);
    raise(SIGUSR2);
    printf("SA_NODEFER: %d runs, deepest %d\n", (int)count, (int)max_depth);

    /* SA_RESETHAND: the handler runs once, then the default is back */
    count = 0;
    on(SIGUSR2, nested, SA_RESETHAND);
    count = 5; /* no raise inside */
    raise(SIGUSR2);
    struct sigaction now;
    sigaction(SIGUSR2, NULL, &now);
    printf("SA_RESETHAND: ran %d, default again %d\n", count == 6, now.sa_handler == SIG_DFL);

    /* ignored signals do nothing */
    signal(SIGUSR2, SIG_IGN);
    raise(SIGUSR2);
    printf("ignored: still here\n");
    signal(SIGUSR2, SIG_DFL);
    printf("sigaction(SIGKILL): %d\n", sigaction(SIGKILL, &now, NULL) == -1 && errno == EINVAL);
}

static char altstack[65536];
static volatile int on_alt, alt_flags;

static void check_stack(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    volatile char here = 0;
    uintptr_t at = (uintptr_t)&here, lo = (uintptr_t)altstack;
    on_alt = at > lo && at < lo + sizeof altstack;
    stack_t cur;
    sigaltstack(NULL, &cur);
    alt_flags = cur.ss_flags;
    (void)uc;
}

static void alternate_stack(void)
{
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
    printf("sigaltstack: %d\n", sigaltstack(&ss, NULL));
    on(SIGUSR1, check_stack, SA_ONSTACK);
    raise(SIGUSR1);
    printf("SA_ONSTACK handler on the alternate stack %d, SS_ONSTACK %d\n", on_alt,
           alt_flags == SS_ONSTACK);
    on(SIGUSR1, check_stack, 0);
    raise(SIGUSR1);
    printf("without SA_ONSTACK: on the alternate stack %d\n", on_alt);
    stack_t old;
    sigaltstack(NULL, &old);
    printf("outside a handler: flags %d, size right %d\n", old.ss_flags, old.ss_size == sizeof altstack);
    ss.ss_size = 100;
    int r = sigaltstack(&ss, NULL);
    printf("too small: %d %s\n", r, errno == ENOMEM ? "ENOMEM" : "?");
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    signal(SIGUSR1, SIG_DFL);
}

static pthread_t main_thread;
static volatile pthread_t hit_thread;
static volatile sig_atomic_t hits;

static void note_thread(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    hit_thread = pthread_self();
    hits++;
}

static void *worker(void *arg)
{
    (void)arg;
    while (!hits)
        sched_yield();
    return NULL;
}

static void threads(void)
{
    main_thread = pthread_self();
    on(SIGUSR1, note_thread, 0);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_kill(t, SIGUSR1);
    pthread_join(t, NULL);
    printf("pthread_kill: the handler ran once on the other thread %d\n",
           hits == 1 && pthread_equal((pthread_t)hit_thread, t));
    hits = 0;
    /* the main thread blocks it (after creating the worker, which would
     * inherit the mask), so a process-wide signal goes to the worker */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    pthread_create(&t, NULL, worker, NULL);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    kill(getpid(), SIGUSR1);
    pthread_join(t, NULL);
    printf("kill with the main thread blocking it: ran on the worker %d\n",
           hits == 1 && pthread_equal((pthread_t)hit_thread, t));
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    signal(SIGUSR1, SIG_DFL);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    alarms++;
    volatile double x = 1.0; /* the handler uses the SSE registers too */
    for (int i = 0; i < 50; i++)
        x = x * 1.5 + 0.25;
}

static void timers(void)
{
    printf("alarm(5): %u\n", alarm(5));
    printf("alarm(0) after alarm(5): %u\n", alarm(0));

    on(SIGALRM, on_alarm, 0);
    alarms = 0;
    struct itimerval it = { .it_interval = { 0, 2000 }, .it_value = { 0, 2000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    struct itimerval cur;
    getitimer(ITIMER_REAL, &cur);
    printf("getitimer interval: %ld.%06ld\n", (long)cur.it_interval.tv_sec,
           (long)cur.it_interval.tv_usec);
    /* floating-point work while the periodic timer interrupts it: the
     * handler's SSE use must not leak into it */
    double sum = 0;
    long i = 0;
    while (alarms < 5) {
        sum += (double)(i % 1000) * 0.5;
        i++;
    }
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    double expect = 0;
    for (long k = 0; k < i; k++)
        expect += (double)(k % 1000) * 0.5;
    printf("periodic SIGALRM: 5 fired %d, sum right %d\n", alarms >= 5, sum == expect);

    /* sigsuspend waits for the signal with it unblocked, then the mask is back */
    sigset_t block, wait_mask, now;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    alarms = 0;
    struct itimerval once = { { 0, 0 }, { 0, 20000 } };
    setitimer(ITIMER_REAL, &once, NULL);
    sigemptyset(&wait_mask);
    int r = sigsuspend(&wait_mask);
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("sigsuspend: %d %s, handler ran %d, SIGALRM blocked again %d\n", r,
           errno == EINTR ? "EINTR" : "?", (int)alarms, sigismember(&now, SIGALRM));
    sigprocmask(SIG_UNBLOCK, &block, NULL);

    alarms = 0;
    setitimer(ITIMER_REAL, &once, NULL);
    r = pause();
    printf("pause: %d %s, handler ran %d\n", r, errno == EINTR ? "EINTR" : "?", (int)alarms);
    signal(SIGALRM, SIG_DFL);
}

/* `signals latency`: how long after pthread_kill the receiving thread's
 * handler starts, in nanoseconds of CLOCK_MONOTONIC; the sender spins
 * meanwhile, as a thread with work to do would. Not compared natively. */
static struct timespec handler_at;
static volatile sig_atomic_t handled;

static void note_time(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    clock_gettime(CLOCK_MONOTONIC, &handler_at);
    handled = 1;
}

static void *spin_until_handled(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (!handled)
        x++;
    return NULL;
}

static void latency(void)
{
    on(SIGUSR2, note_time, 0);
    pthread_t t;
    pthread_create(&t, NULL, spin_until_handled, NULL);
    sched_yield(); /* the receiver runs; the sender starts its next turn here */
    struct timespec sent;
    clock_gettime(CLOCK_MONOTONIC, &sent);
    pthread_kill(t, SIGUSR2);
    volatile unsigned long x = 0;
    while (!handled)
        x++;
    pthread_join(t, NULL);
    printf("%lld\n", (long long)(handler_at.tv_sec - sent.tv_sec) * 1000000000ll +
                         (handler_at.tv_nsec - sent.tv_nsec));
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && !strcmp(argv[1], "alarm")) {
        /* SIGALRM's default action ends the process */
        alarm(1);
        for (;;)
            pause();
    }
    if (argc > 1 && !strcmp(argv[1], "latency")) {
        latency();
        return 0;
    }
    faults();
    sending();
    alternate_stack();
    threads();
    timers();
    return 0;
}
