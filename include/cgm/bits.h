/* Powers of two and their logarithms: the one copy every layer uses
 * (cache geometry, DRAM address fields, banks and slices, interleaves). */
#ifndef CGM_BITS_H
#define CGM_BITS_H

#include <stdbool.h>
#include <stdint.h>

/* Whether V is a power of two (0 is not). */
static inline bool cgm_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* N where V = 2^N; -1 when V is not a power of two. */
static inline int cgm_log2_exact(uint64_t v)
{
    if (!cgm_pow2(v))
        return -1;
    int n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

/* The least N with 2^N >= V (0 for V at most 1). */
static inline unsigned cgm_log2_ceil(uint64_t v)
{
    unsigned n = 0;
    while (n < 64 && (1ull << n) < v)
        n++;
    return n;
}

#endif
