/* Pipes between threads and as standard streams. One thread writes what
 * another reads: a write larger than the pipe holds waits for the reader,
 * a read waits for the writer, end of file comes when every write end is
 * closed; pipe2's flags, O_NONBLOCK through fcntl, poll and epoll on a
 * pipe, EPIPE, and stdout redirected into a pipe. Prints facts that do not
 * depend on the machine, so a native run and one under tracegen print the
 * same. Modes:
 *   pipes            everything above
 *   pipes sigpipe    a write with no reader under SIGPIPE's default action
 *                    (the process dies of SIGPIPE)
 *   pipes filter     copies stdin to stdout upper-cased, with a line count
 *                    (one process of a shell pipeline)
 *   pipes selfread   reads a pipe only it could write (natively this waits
 *                    forever) */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define BIG 300000            /* more than a pipe holds (64 KiB by default) */

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + (i >> 9));
}

struct writer_args {
    int fd;
    long big_write;           /* what the one large write returned */
    long small_writes;        /* bytes of the small writes that succeeded */
};

/* One large write, then many small ones, then the write end is closed. */
static void *writer(void *arg)
{
    struct writer_args *w = arg;
    unsigned char *buf = malloc(BIG);
    for (size_t i = 0; i < BIG; i++)
        buf[i] = pattern(i);
    w->big_write = write(w->fd, buf, BIG);
    for (int i = 0; i < 1000; i++) {
        unsigned char b[37];
        for (size_t k = 0; k < sizeof b; k++)
            b[k] = pattern(BIG + (size_t)i * sizeof b + k);
        if (write(w->fd, b, sizeof b) == (ssize_t)sizeof b)
            w->small_writes += (long)sizeof b;
    }
    close(w->fd);
    free(buf);
    return NULL;
}

/* Reads to end of file; counts bytes that differ from the pattern. */
static void read_all(int fd, long *total, long *wrong)
{
    unsigned char buf[4000];
    ssize_t k;
    *total = *wrong = 0;
    while ((k = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < k; i++)
            *wrong += buf[i] != pattern((size_t)*total + (size_t)i);
        *total += k;
    }
    if (k < 0)
        printf("read failed: %s\n", strerror(errno));
}

static void between_threads(void)
{
    int fd[2];
    printf("pipe: %d\n", pipe(fd));
    struct writer_args w = { .fd = fd[1] };
    pthread_t t;
    pthread_create(&t, NULL, writer, &w);
    long total, wrong;
    read_all(fd[0], &total, &wrong);
    pthread_join(t, NULL);
    printf("between threads: big write %ld, small writes %ld, read %ld bytes to EOF, %ld wrong\n",
           w.big_write, w.small_writes, total, wrong);
    close(fd[0]);
}

static void flags(void)
{
    int fd[2];
    int r = pipe2(fd, 0x4);
    printf("pipe2 bad flags: %d %s\n", r, errno == EINVAL ? "EINVAL" : "?");
    printf("pipe2(O_NONBLOCK|O_CLOEXEC): %d\n", pipe2(fd, O_NONBLOCK | O_CLOEXEC));
    printf("O_NONBLOCK in F_GETFL: %d\n", !!(fcntl(fd[0], F_GETFL) & O_NONBLOCK));
    char c;
    ssize_t k = read(fd[0], &c, 1);
    printf("empty non-blocking read: %zd %s\n", k, errno == EAGAIN ? "EAGAIN" : "?");
    long filled = 0;
    char block[512] = { 0 };
    while (write(fd[1], block, sizeof block) == (ssize_t)sizeof block)
        filled += (long)sizeof block;
    printf("filled without blocking: %ld bytes, then %s\n", filled,
           errno == EAGAIN ? "EAGAIN" : "?");
    fcntl(fd[1], F_SETFL, fcntl(fd[1], F_GETFL) & ~O_NONBLOCK);
    printf("O_NONBLOCK after F_SETFL: read end %d, write end %d\n",
           !!(fcntl(fd[0], F_GETFL) & O_NONBLOCK), !!(fcntl(fd[1], F_GETFL) & O_NONBLOCK));
    close(fd[0]);
    close(fd[1]);
}

static void *slow_byte(void *arg)
{
    volatile unsigned long spin = 0;
    for (unsigned long i = 0; i < 300000; i++)
        spin += i;
    if (write(*(int *)arg, "x", 1) != 1)
        printf("slow_byte: write failed\n");
    return NULL;
}

static void waiting(void)
{
    int fd[2];
    if (pipe(fd) < 0)
        return;
    struct pollfd p = { .fd = fd[0], .events = POLLIN };
    printf("poll on an empty pipe: %d\n", poll(&p, 1, 0));
    pthread_t t;
    pthread_create(&t, NULL, slow_byte, &fd[1]);
    int r = poll(&p, 1, -1);
    printf("poll after another thread wrote: %d, POLLIN %d\n", r, !!(p.revents & POLLIN));
    pthread_join(t, NULL);
    char c;
    printf("read: %zd\n", read(fd[0], &c, 1));

    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 77 };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd[0], &ev);
    pthread_create(&t, NULL, slow_byte, &fd[1]);
    struct epoll_event got;
    r = epoll_wait(ep, &got, 1, -1);
    printf("epoll_wait: %d, data %u, EPOLLIN %d\n", r, got.data.u32, !!(got.events & EPOLLIN));
    pthread_join(t, NULL);
    printf("read: %zd\n", read(fd[0], &c, 1));
    close(ep);

    close(fd[1]);
    r = poll(&p, 1, -1);
    printf("poll with every write end closed: %d, POLLHUP %d\n", r, !!(p.revents & POLLHUP));
    printf("read at end of file: %zd\n", read(fd[0], &c, 1));
    close(fd[0]);
}

static void no_reader(void)
{
    int fd[2];
    if (pipe(fd) < 0)
        return;
    signal(SIGPIPE, SIG_IGN);
    close(fd[0]);
    ssize_t r = write(fd[1], "x", 1);
    printf("write with no reader, SIGPIPE ignored: %zd %s\n", r, errno == EPIPE ? "EPIPE" : "?");
    signal(SIGPIPE, SIG_DFL);
    close(fd[1]);
}

struct collector {
    int fd;
    char *text;
    size_t len;
};

static void *collect(void *arg)
{
    struct collector *c = arg;
    size_t cap = 1 << 20;
    c->text = malloc(cap);
    ssize_t k;
    while (c->len < cap && (k = read(c->fd, c->text + c->len, cap - c->len)) > 0)
        c->len += (size_t)k;
    return NULL;
}

/* stdout goes into a pipe that another thread drains, then comes back. */
static void stdout_into_pipe(void)
{
    int fd[2];
    if (pipe(fd) < 0)
        return;
    struct collector c = { .fd = fd[0] };
    pthread_t t;
    pthread_create(&t, NULL, collect, &c);
    int saved = dup(1);
    dup2(fd[1], 1);
    close(fd[1]);
    for (int i = 0; i < 3000; i++)
        printf("line %d of the redirected stdout\n", i);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    pthread_join(t, NULL);
    unsigned long sum = 0;
    for (size_t i = 0; i < c.len; i++)
        sum = sum * 31 + (unsigned char)c.text[i];
    const char *nl = memchr(c.text, '\n', c.len);
    printf("stdout into a pipe: %zu bytes, hash %lx, first line \"%.*s\"\n", c.len, sum,
           nl ? (int)(nl - c.text) : 0, c.text);
    free(c.text);
    close(fd[0]);
}

static int filter(void)
{
    int c, lines = 0;
    while ((c = getchar()) != EOF) {
        lines += c == '\n';
        putchar(toupper(c));
    }
    printf("%d lines\n", lines);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && !strcmp(argv[1], "filter")) {
        setvbuf(stdout, NULL, _IOFBF, 4096);
        return filter();
    }
    if (argc > 1 && !strcmp(argv[1], "sigpipe")) {
        int fd[2];
        if (pipe(fd) < 0)
            return 1;
        close(fd[0]);
        printf("writing with no reader\n");
        ssize_t r = write(fd[1], "x", 1);
        printf("still alive: %zd\n", r);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "selfread")) {
        int fd[2];
        char c;
        if (pipe(fd) < 0)
            return 1;
        return (int)read(fd[0], &c, 1);
    }
    between_threads();
    flags();
    waiting();
    no_reader();
    stdout_into_pipe();
    return 0;
}
