/* How late a timer's expiry is noticed: `timer_latency real|virtual|prof`
 * arms the interval timer of that kind 50 us ahead and spins (no system
 * call) until its handler has run; `timer_latency timerfd` arms a timerfd
 * 50 us ahead while another thread waits in read() on it, and spins until
 * that read returned. Prints the nanoseconds from the expiry to the
 * handler's (or the reader's) clock read. The expiry is measured from a
 * clock read before arming, so the figure is never negative, natively or
 * emulated. ITIMER_REAL counts CLOCK_MONOTONIC; the two CPU-time timers
 * count the process's CPU time. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define AHEAD_NS 50000ll

static clockid_t clock_used = CLOCK_MONOTONIC;
static struct timespec noticed;
static volatile sig_atomic_t done;

static long long ns(const struct timespec *t)
{
    return (long long)t->tv_sec * 1000000000ll + t->tv_nsec;
}

static void on_timer(int sig)
{
    (void)sig;
    clock_gettime(clock_used, &noticed);
    done = 1;
}

static int tfd;

static void *read_timerfd(void *arg)
{
    (void)arg;
    uint64_t n;
    if (read(tfd, &n, sizeof n) != (ssize_t)sizeof n)
        return NULL;
    clock_gettime(clock_used, &noticed);
    done = 1;
    return NULL;
}

static void spin(void)
{
    volatile unsigned long x = 0;
    while (!done)
        x++;
}

static int interval_timer(int which, int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_timer;
    sigaction(sig, &sa, NULL);
    if (which != ITIMER_REAL)
        clock_used = CLOCK_PROCESS_CPUTIME_ID;
    struct itimerval v = { { 0, 0 }, { 0, AHEAD_NS / 1000 } };
    struct timespec armed;
    clock_gettime(clock_used, &armed);
    if (setitimer(which, &v, NULL) != 0)
        return 1;
    spin();
    printf("%lld\n", ns(&noticed) - (ns(&armed) + AHEAD_NS));
    return 0;
}

static int timerfd(void)
{
    tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    if (tfd < 0)
        return 1;
    pthread_t reader;
    pthread_create(&reader, NULL, read_timerfd, NULL);
    struct itimerspec v = { { 0, 0 }, { 0, AHEAD_NS } };
    struct timespec armed;
    clock_gettime(clock_used, &armed);
    if (timerfd_settime(tfd, 0, &v, NULL) != 0)
        return 1;
    spin();
    pthread_join(reader, NULL);
    printf("%lld\n", ns(&noticed) - (ns(&armed) + AHEAD_NS));
    return 0;
}

int main(int argc, char **argv)
{
    const char *kind = argc > 1 ? argv[1] : "";
    if (!strcmp(kind, "real"))
        return interval_timer(ITIMER_REAL, SIGALRM);
    if (!strcmp(kind, "virtual"))
        return interval_timer(ITIMER_VIRTUAL, SIGVTALRM);
    if (!strcmp(kind, "prof"))
        return interval_timer(ITIMER_PROF, SIGPROF);
    if (!strcmp(kind, "timerfd"))
        return timerfd();
    fprintf(stderr, "usage: timer_latency real|virtual|prof|timerfd\n");
    return 2;
}
