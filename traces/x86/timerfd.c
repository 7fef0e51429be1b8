/* timerfd: one-shot, periodic and absolute timers read, polled and waited
 * for by epoll, between threads; the errors of misuse. Prints facts that do
 * not depend on the machine or on timing, so a native run and one under
 * tracegen (where the timers run on virtual time) print the same. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static struct itimerspec spec(long value_ns, long interval_ns)
{
    struct itimerspec s = { .it_interval = { interval_ns / 1000000000, interval_ns % 1000000000 },
                            .it_value = { value_ns / 1000000000, value_ns % 1000000000 } };
    return s;
}

static volatile int stop_spin;

static void *spin(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (!stop_spin)
        x++;
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int fd = timerfd_create(CLOCK_MONOTONIC, 0);
    printf("timerfd_create: %d\n", fd >= 0);

    /* one shot: gettime while armed, a read that waits for it (100 ms, so a
     * native run descheduled on a loaded machine still finds it armed) */
    struct itimerspec s = spec(100000000, 0), cur;
    printf("settime: %d\n", timerfd_settime(fd, 0, &s, NULL));
    timerfd_gettime(fd, &cur);
    printf("gettime while armed: interval %ld.%09ld, value set %d, at most 100 ms %d\n",
           (long)cur.it_interval.tv_sec, cur.it_interval.tv_nsec,
           cur.it_value.tv_sec || cur.it_value.tv_nsec,
           cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec <= 100000000);
    uint64_t n = 0;
    ssize_t r = read(fd, &n, sizeof n);
    printf("read: %zd bytes, %llu expiration\n", r, (unsigned long long)n);
    timerfd_gettime(fd, &cur);
    printf("gettime after it fired: %ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);

    /* periodic, while another thread runs; the old setting comes back */
    pthread_t t;
    pthread_create(&t, NULL, spin, NULL);
    s = spec(1000000, 1000000);
    struct itimerspec old;
    timerfd_settime(fd, 0, &s, &old);
    printf("old setting: %ld.%09ld\n", (long)old.it_value.tv_sec, old.it_value.tv_nsec);
    uint64_t total = 0;
    while (total < 5) {
        if (read(fd, &n, sizeof n) != (ssize_t)sizeof n)
            break;
        total += n;
    }
    stop_spin = 1;
    pthread_join(t, NULL);
    printf("periodic: at least 5 expirations %d\n", total >= 5);
    s = spec(0, 0);
    timerfd_settime(fd, 0, &s, &old);
    printf("disarmed: old interval %ld.%09ld\n", (long)old.it_interval.tv_sec,
           old.it_interval.tv_nsec);
    timerfd_gettime(fd, &cur);
    printf("gettime disarmed: %ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);

    /* absolute, on the monotonic clock, 100 ms ahead; poll sees it */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long at = now.tv_nsec + 100000000;
    s.it_interval.tv_sec = s.it_interval.tv_nsec = 0;
    s.it_value.tv_sec = now.tv_sec + at / 1000000000;
    s.it_value.tv_nsec = at % 1000000000;
    printf("absolute settime: %d\n", timerfd_settime(fd, TFD_TIMER_ABSTIME, &s, NULL));
    struct pollfd p = { .fd = fd, .events = POLLIN };
    printf("poll before: %d\n", poll(&p, 1, 0));
    int pr = poll(&p, 1, -1);
    printf("poll: %d, POLLIN %d\n", pr, !!(p.revents & POLLIN));
    r = read(fd, &n, sizeof n);
    printf("read: %zd bytes, %llu expiration\n", r, (unsigned long long)n);

    /* non-blocking, and epoll */
    int nb = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    r = read(nb, &n, sizeof n);
    printf("non-blocking read of an unarmed timer: %zd %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 42 }, got;
    epoll_ctl(ep, EPOLL_CTL_ADD, nb, &ev);
    s = spec(2000000, 0);
    timerfd_settime(nb, 0, &s, NULL);
    int er = epoll_wait(ep, &got, 1, -1);
    printf("epoll_wait: %d, data %u\n", er, got.data.u32);
    r = read(nb, &n, sizeof n);
    printf("read: %zd bytes, %llu expiration\n", r, (unsigned long long)n);
    close(ep);

    /* misuse */
    r = read(fd, &n, 4);
    printf("short read: %zd %s\n", r, errno == EINVAL ? "EINVAL" : "?");
    r = write(fd, &n, sizeof n);
    printf("write: %zd %s\n", r, errno == EINVAL ? "EINVAL" : "?");
    int bad = timerfd_create(12345, 0);
    printf("bad clock: %d %s\n", bad, errno == EINVAL ? "EINVAL" : "?");
    bad = timerfd_create(CLOCK_MONOTONIC, 0x4);
    printf("bad flags: %d %s\n", bad, errno == EINVAL ? "EINVAL" : "?");
    s = spec(1000, 0);
    s.it_value.tv_nsec = 1000000000;
    int sr = timerfd_settime(fd, 0, &s, NULL);
    printf("bad time: %d %s\n", sr, errno == EINVAL ? "EINVAL" : "?");
    int pipefd[2];
    if (pipe(pipefd) == 0) {
        s = spec(1000, 0);
        sr = timerfd_settime(pipefd[0], 0, &s, NULL);
        printf("settime on a pipe: %d %s\n", sr, errno == EINVAL ? "EINVAL" : "?");
    }
    /* a dup'ed descriptor is the same timer */
    int d = dup(fd);
    s = spec(1000000, 0);
    timerfd_settime(d, 0, &s, NULL);
    r = read(fd, &n, sizeof n);
    printf("armed through a dup, read through the original: %zd bytes, %llu\n", r,
           (unsigned long long)n);
    close(d);
    close(fd);
    close(nb);
    return 0;
}
