/* FMA3 on the host's own fused multiply-add unit, when it has one: the
 * result, the NaN chosen and quieted, and the exception flags (under the
 * guest's MXCSR, fpenv.h) are then the processor's by construction, and a
 * packed instruction is one host instruction instead of a libm call per
 * element. Every form is the 231 one (addend in the destination), with the
 * operands placed by their role: the processor picks a NaN by role
 * (multiplicand, multiplier, addend), not by the encoding's order. */
#include <immintrin.h>
#include <string.h>

#include "tracegen/x86/fma_host.h"

static int use_host = -1; /* -1: not asked yet */

int x86_fma_host(void)
{
    if (use_host < 0) {
        __builtin_cpu_init();
        use_host = __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
    }
    return use_host;
}

void x86_fma_host_use(int use)
{
    use_host = use ? -1 : 0;
}

/* C = the kind SIGNS (avx.c's shape bits 0-2) of A * B and C, by the
 * instruction of that kind with suffix SFX on the registers of C's type. */
#define FMA_SCALAR_KINDS(SFX, a, b, c) \
    switch (signs) { \
    case 0: __asm__("vfmadd231" SFX " %2, %1, %0" : "+x"(c) : "x"(a), "x"(b)); break; \
    case 3: __asm__("vfmsub231" SFX " %2, %1, %0" : "+x"(c) : "x"(a), "x"(b)); break; \
    case 4: __asm__("vfnmadd231" SFX " %2, %1, %0" : "+x"(c) : "x"(a), "x"(b)); break; \
    default: __asm__("vfnmsub231" SFX " %2, %1, %0" : "+x"(c) : "x"(a), "x"(b)); break; \
    }
#define FMA_PACKED_KINDS(SFX, a, b, c) \
    switch (signs) { \
    case 1: __asm__("vfmaddsub231" SFX " %2, %1, %0" : "+x"(c) : "x"(a), "x"(b)); break; \
    case 2: __asm__("vfmsubadd231" SFX " %2, %1, %0" : "+x"(c) : "x"(a), "x"(b)); break; \
    default: FMA_SCALAR_KINDS(SFX, a, b, c) \
    }

__attribute__((target("avx,fma"))) uint64_t x86_fma_host_sd(unsigned signs, uint64_t a,
                                                            uint64_t b, uint64_t c)
{
    __m128i x = _mm_cvtsi64_si128((long long)a), y = _mm_cvtsi64_si128((long long)b);
    __m128i z = _mm_cvtsi64_si128((long long)c);
    __m128d xd = _mm_castsi128_pd(x), yd = _mm_castsi128_pd(y), zd = _mm_castsi128_pd(z);
    FMA_SCALAR_KINDS("sd", xd, yd, zd)
    return (uint64_t)_mm_cvtsi128_si64(_mm_castpd_si128(zd));
}

__attribute__((target("avx,fma"))) uint32_t x86_fma_host_ss(unsigned signs, uint32_t a,
                                                            uint32_t b, uint32_t c)
{
    __m128i x = _mm_cvtsi32_si128((int)a), y = _mm_cvtsi32_si128((int)b);
    __m128i z = _mm_cvtsi32_si128((int)c);
    __m128 xs = _mm_castsi128_ps(x), ys = _mm_castsi128_ps(y), zs = _mm_castsi128_ps(z);
    FMA_SCALAR_KINDS("ss", xs, ys, zs)
    return (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(zs));
}

__attribute__((target("avx,fma"))) void x86_fma_host_packed(unsigned signs, int dbl, unsigned vl,
                                                            ymm_t *r, const ymm_t *a,
                                                            const ymm_t *b, const ymm_t *c)
{
    if (vl == 32 && dbl) {
        __m256d x = _mm256_loadu_pd(a->fd), y = _mm256_loadu_pd(b->fd), z = _mm256_loadu_pd(c->fd);
        FMA_PACKED_KINDS("pd", x, y, z)
        _mm256_storeu_pd(r->fd, z);
    } else if (vl == 32) {
        __m256 x = _mm256_loadu_ps(a->f), y = _mm256_loadu_ps(b->f), z = _mm256_loadu_ps(c->f);
        FMA_PACKED_KINDS("ps", x, y, z)
        _mm256_storeu_ps(r->f, z);
    } else if (dbl) {
        __m128d x = _mm_loadu_pd(a->fd), y = _mm_loadu_pd(b->fd), z = _mm_loadu_pd(c->fd);
        FMA_PACKED_KINDS("pd", x, y, z)
        _mm_storeu_pd(r->fd, z);
        memset(&r->x[1], 0, sizeof r->x[1]);
    } else {
        __m128 x = _mm_loadu_ps(a->f), y = _mm_loadu_ps(b->f), z = _mm_loadu_ps(c->f);
        FMA_PACKED_KINDS("ps", x, y, z)
        _mm_storeu_ps(r->f, z);
        memset(&r->x[1], 0, sizeof r->x[1]);
    }
}
