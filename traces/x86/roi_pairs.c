/* Two regions of interest with work between them and after, for replay's
 * numbered regions: `roi_pairs [A GAP B]` (default 20000 100000 60000)
 * runs the same loop A times inside the first region, GAP times outside
 * any region, B times inside the second, GAP times after it, and prints
 * the four results. Each iteration is the same few instructions (a
 * xorshift step, which no compiler folds), so the regions' instruction
 * counts are in the ratio A : B up to the markers' own few. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgm/guest.h"

static __attribute__((noinline)) uint64_t spin(uint64_t x, long n)
{
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

int main(int argc, char **argv)
{
    long a = argc > 1 ? atol(argv[1]) : 20000, gap = argc > 2 ? atol(argv[2]) : 100000,
         b = argc > 3 ? atol(argv[3]) : 60000;
    if (a < 0 || gap < 0 || b < 0)
        return 2;
    cgm_roi_begin();
    uint64_t r0 = spin(1, a);
    cgm_roi_end();
    uint64_t r1 = spin(r0, gap);
    cgm_roi_begin();
    uint64_t r2 = spin(r1, b);
    cgm_roi_end();
    uint64_t r3 = spin(r2, gap);
    printf("%llu %llu %llu %llu\n", (unsigned long long)r0, (unsigned long long)r1, (unsigned long long)r2,
           (unsigned long long)r3);
    return 0;
}
