/* AVX2 gathers for replay's tests (needs AVX2 natively; tracegen runs it
 * anywhere). Each vpgatherdd loads the dword lanes its mask selects, every
 * lane from a 64-byte line of its own.
 *   gather_lanes count BBBBBBBB N  N gathers under a lane mask of eight
 *                               binary digits, lane 0 first (every mask
 *                               parses alike); nothing else depends on it
 *   gather_lanes chain L N      N gathers in a chain (each one's indices
 *                               come from the result of the one before);
 *                               lane L (0..7) reads a line nothing touched
 *                               before each time, the other lanes the same
 *                               lines;
 *                               L = 8: every lane reads the same lines */
#pragma GCC target("avx2")
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LINE_INTS 16            /* dwords per 64-byte line */
#define CHAIN_MAX 100000

static int table[8 * LINE_INTS] __attribute__((aligned(64)));
static volatile int sink;

static int count(unsigned mask, long n)
{
    __m256i idx = _mm256_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112);
    __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i m = _mm256_cmpeq_epi32(_mm256_and_si256(sel, _mm256_set1_epi32((int)mask)), sel);
    __m256i acc = _mm256_setzero_si256();
    for (long i = 0; i < n; i++)
        acc = _mm256_add_epi32(acc, _mm256_mask_i32gather_epi32(acc, table, idx, m, 4));
    return _mm256_extract_epi32(acc, 0);
}

static int chain(int lane, long n)
{
    /* BUF: the eight lines the lanes read every time, then a fresh line
     * per gather for lane LANE. Every value read is 0, so adding the
     * result to the indices keeps them and makes each gather wait for the
     * one before. */
    size_t bytes = (size_t)(n + 9) * LINE_INTS * sizeof(int);
    int *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return -1;
    int32_t first[8], step[8] = { 0 };
    for (int j = 0; j < 8; j++)
        first[j] = j * LINE_INTS;
    if (lane >= 0 && lane < 8) {
        first[lane] = 8 * LINE_INTS;
        step[lane] = LINE_INTS;
    }
    __m256i idx = _mm256_loadu_si256((const __m256i *)first);
    __m256i inc = _mm256_loadu_si256((const __m256i *)step);
    __m256i all = _mm256_set1_epi32(-1), got = _mm256_setzero_si256();
    for (long i = 0; i < n; i++) {
        got = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), buf, idx, all, 4);
        idx = _mm256_add_epi32(_mm256_add_epi32(idx, got), inc);
    }
    int r = _mm256_extract_epi32(got, 0);
    munmap(buf, bytes);
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    long n = strtol(argv[3], NULL, 10);
    if (n < 0 || n > CHAIN_MAX)
        return 2;
    if (!strcmp(argv[1], "count") && strlen(argv[2]) == 8) {
        unsigned mask = 0;
        for (int j = 0; j < 8; j++)
            mask |= (unsigned)(argv[2][j] == '1') << j;
        sink = count(mask, n);
    }
    else if (!strcmp(argv[1], "chain"))
        sink = chain(atoi(argv[2]), n);
    else
        return 2;
    return 0;
}
