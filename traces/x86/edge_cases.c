/* Edge cases for the emulator, one per mode (argv[1]):
 *   segv   write through a null pointer (dies of SIGSEGV)
 *   div0   integer division by zero (dies of SIGFPE)
 *   ud2    an undefined instruction (dies of SIGILL)
 *   avx512 an AVX-512 instruction (the emulator does not implement AVX-512)
 *   abort  abort() (dies of SIGABRT)
 *   smc    self-modifying code: writes a function into an executable
 *          buffer, runs it, rewrites it, runs it again
 *   write  creates argv[2] and writes to it, printing the result
 *   stdin  counts the bytes of standard input
 *   time   prints whether clock_gettime advances */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int run_code(unsigned char *buf, int imm)
{
    /* mov eax, imm32; ret */
    buf[0] = 0xb8;
    memcpy(buf + 1, &imm, 4);
    buf[5] = 0xc3;
    int (*fn)(void);
    void *p = buf;
    memcpy(&fn, &p, sizeof fn);
    return fn();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "segv")) {
        volatile int *p = NULL;
        *p = 1;
    } else if (!strcmp(mode, "div0")) {
        __asm__ volatile("xor %%ecx, %%ecx\n\tdiv %%ecx" ::: "eax", "ecx", "edx");
    } else if (!strcmp(mode, "ud2")) {
        __asm__ volatile("ud2");
    } else if (!strcmp(mode, "abort")) {
        abort();
    } else if (!strcmp(mode, "avx512")) {
        __asm__ volatile(".byte 0x62, 0xf1, 0x7d, 0x48, 0xef, 0xc0"); /* vpxord zmm0, zmm0, zmm0 */
        printf("avx512 ran\n");
        return 0;
    } else if (!strcmp(mode, "smc")) {
        unsigned char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED)
            return 2;
        int a = run_code(buf, 1234);
        int b = run_code(buf, 5678);
        printf("smc %d %d\n", a, b);
        return 0;
    } else if (!strcmp(mode, "write") && argc > 2) {
        FILE *f = fopen(argv[2], "w");
        if (!f) {
            printf("write %s: refused (%s)\n", argv[2], strerror(errno));
            return 1;
        }
        fputs("written by the guest\n", f);
        fclose(f);
        printf("write %s: ok\n", argv[2]);
        return 0;
    } else if (!strcmp(mode, "stdin")) {
        char buf[256];
        long total = 0;
        ssize_t n;
        while ((n = read(0, buf, sizeof buf)) > 0)
            total += n;
        printf("stdin %ld bytes\n", total);
        return 0;
    } else if (!strcmp(mode, "time")) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        volatile long x = 0;
        for (long i = 0; i < 100000; i++)
            x += i;
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("time advances: %s\n", (b.tv_sec > a.tv_sec || b.tv_nsec > a.tv_nsec) ? "yes" : "no");
        return 0;
    }
    printf("usage: edge_cases segv|div0|ud2|avx512|abort|smc|write FILE|stdin|time\n");
    return 2;
}
