/* x86-64-v3 code: PolyBench-style kernels (gemm, atax, gesummv, jacobi-2d,
 * a 3x3 stencil on floats) compiled for AVX2 and FMA and vectorised by the
 * compiler, then the instructions compilers rarely choose on their own,
 * through intrinsics: gathers (a sparse matrix-vector product), masked
 * loads and stores, cross-lane permutes, byte shuffles, half-precision
 * conversions, BMI1/BMI2, LZCNT and MOVBE. Checksums are printed in
 * hexadecimal floating point, so any difference in the last bit shows.
 * Needs a processor with AVX2, FMA, F16C, BMI1/2, LZCNT and MOVBE; the
 * tests skip it elsewhere. `avx2_kernels [N]`, N the matrix size (64). */
#pragma GCC optimize("O3")
#pragma GCC target("avx2,fma,f16c,bmi,bmi2,lzcnt,movbe")
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/guest.h"

static double checksum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] * (double)(i % 7 + 1);
    return s;
}

static void gemm(int n, double alpha, double beta, double *c, const double *a, const double *b)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            c[i * n + j] *= beta;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                c[i * n + j] += alpha * a[i * n + k] * b[k * n + j];
    }
}

static void atax(int n, const double *a, const double *x, double *y, double *tmp)
{
    memset(y, 0, sizeof *y * (size_t)n);
    for (int i = 0; i < n; i++) {
        tmp[i] = 0;
        for (int j = 0; j < n; j++)
            tmp[i] += a[i * n + j] * x[j];
        for (int j = 0; j < n; j++)
            y[j] += a[i * n + j] * tmp[i];
    }
}

static void gesummv(int n, double alpha, double beta, const double *a, const double *b,
                    const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double t = 0, u = 0;
        for (int j = 0; j < n; j++) {
            t += a[i * n + j] * x[j];
            u += b[i * n + j] * x[j];
        }
        y[i] = alpha * t + beta * u;
    }
}

static void jacobi2d(int n, int steps, double *a, double *b)
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i * n + j] = 0.2 * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] +
                                      a[(i + 1) * n + j] + a[(i - 1) * n + j]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                a[i * n + j] = 0.2 * (b[i * n + j] + b[i * n + j - 1] + b[i * n + j + 1] +
                                      b[(i + 1) * n + j] + b[(i - 1) * n + j]);
    }
}

static float stencil(int n, const float *in, float *out)
{
    float s = 0;
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
            float v = 0.5f * in[i * n + j] + 0.125f * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                                                       in[i * n + j - 1] + in[i * n + j + 1]);
            out[i * n + j] = v;
            s += v;
        }
    return s;
}

/* y = A x for a sparse A (rows of nonzeros with column indices): the
 * column indices gather x. */
static double spmv_gather(int rows, int per_row, const int *col, const double *val,
                          const double *x, double *y)
{
    double s = 0;
    for (int r = 0; r < rows; r++) {
        __m256d acc = _mm256_setzero_pd();
        for (int k = 0; k < per_row; k += 4) {
            __m128i idx = _mm_loadu_si128((const __m128i *)(col + r * per_row + k));
            __m256d xv = _mm256_i32gather_pd(x, idx, 8);
            acc = _mm256_fmadd_pd(_mm256_loadu_pd(val + r * per_row + k), xv, acc);
        }
        __m128d h = _mm_add_pd(_mm256_castpd256_pd128(acc), _mm256_extractf128_pd(acc, 1));
        y[r] = _mm_cvtsd_f64(_mm_hadd_pd(h, h));
        s += y[r];
    }
    return s;
}

/* The rest: one use each of what the kernels above may not contain. */
static void intrinsics(void)
{
    float f[8] = { 1.5f, -2.25f, 65504.0f, 1e-6f, 3.14159f, -0.0f, 70000.0f, 0.1f };
    __m256 v = _mm256_loadu_ps(f);
    __m128i half = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
    __m256 back = _mm256_cvtph_ps(half);
    float g[8];
    _mm256_storeu_ps(g, back);
    printf("f16c %a %a %a %a %a\n", g[0], g[2], g[3], g[4], g[6]);

    int32_t m[8] = { -1, 0, -1, 0, 0, -1, 0, -1 };
    __m256i mask = _mm256_loadu_si256((const __m256i *)m);
    __m256 loaded = _mm256_maskload_ps(f, mask);
    float out[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
    _mm256_maskstore_ps(out, mask, _mm256_mul_ps(loaded, loaded));
    printf("mask %a %a %a %a\n", out[0], out[1], out[5], out[7]);

    __m256i p = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    __m256i w = _mm256_permutevar8x32_epi32(_mm256_setr_epi32(10, 11, 12, 13, 14, 15, 16, 17), p);
    __m256i bytes = _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                     18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
    __m256i sh = _mm256_shuffle_epi8(bytes, _mm256_set1_epi8(3));
    __m256i q = _mm256_permute4x64_epi64(_mm256_sllv_epi32(w, _mm256_set1_epi32(2)), 0x1b);
    printf("perm %d %d %d %lld\n", _mm256_extract_epi32(w, 0), _mm256_extract_epi8(sh, 20),
           _mm256_movemask_epi8(_mm256_cmpgt_epi8(bytes, _mm256_set1_epi8(20))),
           (long long)_mm256_extract_epi64(q, 0));

    volatile uint64_t x = 0x00f0f0f012345678ull, sel = 0xff00ff00ff00ff00ull;
    uint32_t be;
    uint32_t word = 0x11223344;
    memcpy(&be, &word, 4);
    be = __builtin_bswap32(be); /* movbe with -mmovbe */
    printf("bmi %llx %llx %llu %llu %llu %llx %x\n", (unsigned long long)_pdep_u64(x, sel),
           (unsigned long long)_pext_u64(x, sel), (unsigned long long)_lzcnt_u64(x),
           (unsigned long long)_tzcnt_u64(x), (unsigned long long)_bzhi_u64(x, 20),
           (unsigned long long)_blsr_u64(x), be);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    if (n < 8 || n > 1024)
        n = 64;
    size_t nn = (size_t)n * (size_t)n;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *tmp = malloc((size_t)n * sizeof *tmp);
    float *fi = malloc(nn * sizeof *fi), *fo = calloc(nn, sizeof *fo);
    int per_row = 8;
    int *col = malloc((size_t)n * (size_t)per_row * sizeof *col);
    double *val = malloc((size_t)n * (size_t)per_row * sizeof *val);
    if (!a || !b || !c || !x || !y || !tmp || !fi || !fo || !col || !val)
        return 1;
    for (size_t i = 0; i < nn; i++) {
        a[i] = (double)(i % 13) / 13.0 - 0.4;
        b[i] = (double)(i % 7) / 7.0 + 0.1;
        c[i] = (double)(i % 5) / 5.0;
        fi[i] = (float)(i % 11) * 0.3f;
    }
    for (int i = 0; i < n; i++)
        x[i] = 1.0 / (double)(i + 1);
    for (int i = 0; i < n * per_row; i++) {
        col[i] = (i * 37 + i / per_row * 11) % n;
        val[i] = (double)(i % 9) - 4.0;
    }
    cgm_roi_begin();
    gemm(n, 1.5, 0.75, c, a, b);
    printf("gemm %a\n", checksum(c, (int)nn));
    atax(n, a, x, y, tmp);
    printf("atax %a\n", checksum(y, n));
    gesummv(n, 0.5, 1.25, a, b, x, y);
    printf("gesummv %a\n", checksum(y, n));
    jacobi2d(n, 4, a, b);
    printf("jacobi2d %a\n", checksum(a, (int)nn));
    printf("stencil %a\n", stencil(n, fi, fo));
    printf("spmv %a\n", spmv_gather(n, per_row, col, val, x, y));
    intrinsics();
    cgm_roi_end();
    free(a); free(b); free(c); free(x); free(y); free(tmp); free(fi); free(fo); free(col);
    free(val);
    return 0;
}
