/* A loop whose conditional branch back is followed by a test and a second
 * branch to the same place, which never run (the first branch is always
 * taken): the shape of zstd's repcode checks. Natively and under tracegen
 * the loop is 4 instructions an iteration; valgrind's lackey counts 6
 * (x86_lackey.sh shows the difference). Prints the iterations. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000, left = n, fell = 0;
    __asm__ volatile("xor %%edx, %%edx\n\t"
                     "1: dec %0\n\t"
                     "jz 2f\n\t"
                     "cmp $-1, %0\n\t"
                     "jne 1b\n\t"       /* always taken */
                     "test %%dl, %%dl\n\t"
                     "je 1b\n\t"
                     "inc %1\n\t"
                     "2:\n\t"
                     : "+r"(left), "+r"(fell) : : "rdx", "cc");
    printf("%lu iterations, %lu fell through\n", n, fell);
    return 0;
}
