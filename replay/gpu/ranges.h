/* Sorted, disjoint address ranges in an array of structures that each
 * begin with `uint64_t addr, bytes` (the GPU's buffers, as the copy engine
 * and the copy protocol each keep them). */
#ifndef REPLAY_GPU_RANGES_H
#define REPLAY_GPU_RANGES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The index of the first of the N ranges at V (SIZE bytes apart) that
 * ends after VA (N if none). */
static inline size_t rp_range_after(const void *v, size_t n, size_t size, uint64_t va)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t r[2];
        memcpy(r, (const char *)v + mid * size, sizeof r);
        if (r[0] + r[1] <= va)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
