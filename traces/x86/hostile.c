/* A careless or hostile guest, one mode per run (argv[1]). Each mode
 * prints what the system calls returned, so a native run and a run under
 * tracegen can be compared line by line:
 *   fds        descriptor numbers out of range: negative, huge, equal
 *   unmap      munmap and mprotect of huge, empty, wrapping and unmapped ranges
 *   map_zero   a fixed mapping at address 0
 *   sparse N   N single pages 16 MiB apart, each written (stops at the
 *              first failure and prints how many it mapped)
 *   rep_loop   rep stosb of 1 MiB, forever (only a limit ends it)
 *   threads N  N threads made and joined one at a time (prints how many ran)
 *   clock      prints the seconds time() gives
 *   fill       maps and writes 64 MiB pieces until mmap fails, then writes
 *              through a null pointer (dies of SIGSEGV)
 *   smc_block  code that stores into the next instruction of its own basic
 *              block (the processor runs the new one) */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *errno_name(int e)
{
    switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EBADF: return "EBADF";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EEXIST: return "EEXIST";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case ENOSYS: return "ENOSYS";
    default: return "another error";
    }
}

/* Prints the raw result of a system call: the value, or the errno name. */
static void show(const char *what, long rc)
{
    if (rc >= 0)
        printf("%s = %ld\n", what, rc);
    else
        printf("%s = -%s\n", what, errno_name(errno));
}

#define CALL(...) (errno = 0, syscall(__VA_ARGS__))

static int fds(void)
{
    show("fcntl(1, F_DUPFD, -100000)", CALL(SYS_fcntl, 1, F_DUPFD, -100000L));
    show("fcntl(1, F_DUPFD, -2)", CALL(SYS_fcntl, 1, F_DUPFD, -2L));
    show("fcntl(1, F_DUPFD_CLOEXEC, 1<<30)", CALL(SYS_fcntl, 1, F_DUPFD_CLOEXEC, 1L << 30));
    show("dup2(1, -7)", CALL(SYS_dup2, 1, -7L));
    show("dup2(1, 1<<30)", CALL(SYS_dup2, 1, 1L << 30));
    show("dup2(99, 99)", CALL(SYS_dup2, 99, 99));
    show("dup2(-3, 5)", CALL(SYS_dup2, -3L, 5));
    show("dup3(1, 1, 0)", CALL(SYS_dup3, 1, 1, 0));
    show("dup3(1, 9, 12345)", CALL(SYS_dup3, 1, 9, 12345));
    show("close(-1)", CALL(SYS_close, -1L));
    show("close(1<<30)", CALL(SYS_close, 1L << 30));
    show("read(-5)", CALL(SYS_read, -5L, NULL, 0));
    show("write(1<<32 | 1)", CALL(SYS_write, (1L << 32) | 1, "w\n", 2));
    /* the table still works after all that */
    long d = CALL(SYS_fcntl, 1, F_DUPFD, 0L);
    show("fcntl(1, F_DUPFD, 0) > 2", d > 2 ? 1 : -1);
    show("close(dup)", CALL(SYS_close, d));
    return 0;
}

static int unmap(void)
{
    /* above a static program and its heap, below the mmap area and stack */
    long at = 1L << 40, huge = 1L << 45;
    show("munmap(1<<40, 1<<45)", CALL(SYS_munmap, at, huge));
    show("mprotect(1<<40, 1<<45, PROT_READ)", CALL(SYS_mprotect, at, huge, PROT_READ));
    show("munmap(1<<40, 0)", CALL(SYS_munmap, at, 0));
    show("munmap(1<<40, -4096)", CALL(SYS_munmap, at, -4096L));
    show("munmap(1<<40 + 1, 4096)", CALL(SYS_munmap, at + 1, 4096));
    show("mprotect(1<<40, -4096, PROT_READ)", CALL(SYS_mprotect, at, -4096L, PROT_READ));
    show("mprotect(1<<40, 0, PROT_READ)", CALL(SYS_mprotect, at, 0, PROT_READ));
    show("madvise(1<<40, 1<<45, MADV_DONTNEED)", CALL(SYS_madvise, at, huge, MADV_DONTNEED));
    char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    p[0] = p[4096] = p[8192] = 7;
    show("munmap(middle page)", CALL(SYS_munmap, p + 4096, 4096));
    show("mprotect(over the hole)", CALL(SYS_mprotect, p, 3 * 4096, PROT_READ));
    show("madvise(over the hole, MADV_DONTNEED)", CALL(SYS_madvise, p, 3 * 4096, MADV_DONTNEED));
    printf("first and last page after DONTNEED: %d %d\n", p[0], p[8192]);
    show("mprotect(first page, PROT_READ)", CALL(SYS_mprotect, p, 4096, PROT_READ));
    show("munmap(all three)", CALL(SYS_munmap, p, 3 * 4096));
    return 0;
}

static int map_zero(void)
{
    show("mmap(0, 4096, MAP_FIXED)",
         CALL(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
              -1, 0));
    return 0;
}

static int sparse(long n)
{
    long i;
    for (i = 0; i < n; i++) {
        char *want = (char *)((1L << 44) + (i << 24));
        char *p = mmap(want, 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            break;
        *p = 1;
    }
    printf("sparse pages mapped: %ld of %ld%s\n", i, n, i < n ? " (then ENOMEM)" : "");
    return 0;
}

static void *count_one(void *arg)
{
    ++*(long *)arg;
    return NULL;
}

static int threads(long n)
{
    long ran = 0, made = 0;
    for (; made < n; made++) {
        pthread_t t;
        if (pthread_create(&t, NULL, count_one, &ran) != 0)
            break;
        pthread_join(t, NULL);
    }
    printf("threads made and joined: %ld of %ld, ran %ld\n", made, n, ran);
    return made == n ? 0 : 1;
}

static int rep_loop(void)
{
    char *buf = malloc(1 << 20);
    if (!buf)
        return 1;
    for (;;) {
        void *d = buf;
        long n = 1 << 20;
        __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!strcmp(mode, "fds"))
        return fds();
    if (!strcmp(mode, "unmap"))
        return unmap();
    if (!strcmp(mode, "map_zero"))
        return map_zero();
    if (!strcmp(mode, "sparse") && argc > 2)
        return sparse(atol(argv[2]));
    if (!strcmp(mode, "rep_loop"))
        return rep_loop();
    if (!strcmp(mode, "threads") && argc > 2)
        return threads(atol(argv[2]));
    if (!strcmp(mode, "fill")) {
        long pieces = 0;
        for (;;) {
            char *p = mmap(NULL, 64l << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
            if (p == MAP_FAILED)
                break;
            memset(p, 1, 64l << 20);
            pieces++;
        }
        printf("filled %ld MiB\n", 64 * pieces);
        *(volatile int *)NULL = 1;
    }
    if (!strcmp(mode, "smc_block")) {
        /* mov byte [rip+1], 7 (the immediate of the next instruction);
         * mov eax, 1; ret */
        static const unsigned char code[] = { 0xc6, 0x05, 0x01, 0x00, 0x00, 0x00, 0x07,
                                               0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3 };
        unsigned char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED)
            return 1;
        for (int round = 0; round < 2; round++) {
            memcpy(buf, code, sizeof code);
            int (*fn)(void);
            void *p = buf;
            memcpy(&fn, &p, sizeof fn);
            printf("smc in block, round %d: %d\n", round, fn());
        }
        return 0;
    }
    if (!strcmp(mode, "clock")) {
        printf("clock %lld\n", (long long)time(NULL));
        return 0;
    }
    fprintf(stderr, "usage: hostile fds|unmap|map_zero|sparse N|rep_loop|threads N|clock|fill|smc_block\n");
    return 2;
}
