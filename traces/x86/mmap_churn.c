/* Maps, touches and unmaps a 1 MiB region ROUNDS times (default 64), then
 * grows and shrinks the heap with the brk system call: the guest touches far more memory
 * over its life than it holds at any moment. Prints a checksum of what it
 * wrote so a native run and a traced one can be compared. Usage:
 * mmap_churn [ROUNDS]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REGION (1u << 20)
#define PAGE 4096u

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 64;
    uint64_t sum = 0;
    for (int r = 0; r < rounds; r++) {
        uint8_t *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        for (unsigned off = 0; off < REGION; off += PAGE)
            p[off] = (uint8_t)(r + off / PAGE);
        if (mprotect(p, REGION, PROT_READ) != 0) {
            perror("mprotect");
            return 1;
        }
        for (unsigned off = 0; off < REGION; off += PAGE)
            sum += p[off];
        munmap(p, REGION);
    }
    /* The heap through the brk system call itself (musl's sbrk only
     * reports the break). */
    uintptr_t base = (uintptr_t)syscall(SYS_brk, 0);
    for (int r = 0; r < rounds / 8; r++) {
        if ((uintptr_t)syscall(SYS_brk, base + REGION) != base + REGION) {
            fputs("brk: cannot grow the heap\n", stderr);
            return 1;
        }
        uint8_t *top = (uint8_t *)base;
        for (unsigned off = 0; off < REGION; off += PAGE)
            top[off] = (uint8_t)(off / PAGE + r);
        sum += top[REGION - PAGE];
        syscall(SYS_brk, base);
    }
    printf("mmap_churn %d rounds checksum %llu\n", rounds, (unsigned long long)sum);
    return 0;
}
