/* SIMD operations on one 128-bit lane, written once for the two paths
 * that run them: the general path (simd_ops.c) calls them for every lane
 * of a vector, legacy SSE's 16-byte run form (sse_forms.c) for its one.
 *
 * x86_lane_NAME(r, a, b, imm) computes lane R from lanes A (first source)
 * and B (second source; unary operations read only B) and the imm8. R may
 * be A or B: every function reads its sources before it writes R.
 * Floating-point operations are the host instruction (simd.h), so results
 * and exception flags are the processor's. */
#ifndef TRACEGEN_X86_SIMD_LANE_H
#define TRACEGEN_X86_SIMD_LANE_H

#include "tracegen/x86/simd.h"

/* Operations that do the same in every 128-bit lane with the same imm8;
 * NAME is also the instruction's capstone id X86_INS_NAME. */
#define X86_LANE_OPS(X) \
    X(ADDPS) X(SUBPS) X(MULPS) X(DIVPS) X(MINPS) X(MAXPS) X(SQRTPS) X(RCPPS) X(RSQRTPS) \
    X(ADDPD) X(SUBPD) X(MULPD) X(DIVPD) X(MINPD) X(MAXPD) X(SQRTPD) \
    X(DIVSS) X(MINSS) X(MAXSS) X(SQRTSS) X(RCPSS) X(RSQRTSS) \
    X(DIVSD) X(MINSD) X(MAXSD) X(SQRTSD) \
    X(CVTSS2SD) X(CVTSD2SS) X(CVTDQ2PS) X(CVTPS2DQ) X(CVTTPS2DQ) \
    X(ANDPS) X(ANDPD) X(PAND) X(ANDNPS) X(ANDNPD) X(PANDN) \
    X(ORPS) X(ORPD) X(POR) X(XORPS) X(XORPD) X(PXOR) \
    X(PADDB) X(PADDW) X(PADDD) X(PADDQ) X(PSUBB) X(PSUBW) X(PSUBD) X(PSUBQ) \
    X(PCMPEQB) X(PCMPEQW) X(PCMPEQD) X(PCMPGTB) X(PCMPGTW) X(PCMPGTD) \
    X(PMINUB) X(PMAXUB) X(PMINSW) X(PMAXSW) X(PMULUDQ) \
    X(UNPCKLPS) X(UNPCKHPS) X(UNPCKLPD) X(UNPCKHPD) \
    X(PUNPCKLBW) X(PUNPCKHBW) X(PUNPCKLWD) X(PUNPCKHWD) \
    X(PUNPCKLDQ) X(PUNPCKHDQ) X(PUNPCKLQDQ) X(PUNPCKHQDQ) \
    X(SHUFPS) X(PSHUFD)

/* SSE4.1's element by element operations, alike in every lane too: loops
 * (the host may lack SSE4.1). VEX's run forms call them out of line;
 * legacy SSE leaves them to the general path (sse_forms.c lane_run). */
#define X86_LANE_ELEM_OPS(X) \
    X(PMINSB) X(PMAXSB) X(PMINUW) X(PMAXUW) X(PMINSD) X(PMAXSD) X(PMINUD) X(PMAXUD) \
    X(PCMPEQQ) X(PCMPGTQ) X(PMULLD)

/* Operations whose legacy form is one lane but whose 256-bit VEX form is
 * not two alike (widening, narrowing, a scalar from a general register of
 * either size, moves that clear the rest): the general path takes them
 * apart itself (simd_ops.c), with these functions. */
#define X86_LANE_LEGACY_OPS(X) \
    X(CVTPS2PD) X(CVTDQ2PD) X(CVTPD2PS) X(CVTPD2DQ) X(CVTTPD2DQ) \
    X(CVTSI2SD32) X(CVTSI2SD64) X(CVTSI2SS32) X(CVTSI2SS64) \
    X(MOVD) X(MOVQ) X(MOVLPS) X(MOVHPS) X(MOVHLPS)

/* Scalar arithmetic, the low element computed and the rest of A kept:
 * the general path's and VEX's (legacy SSE has run forms of its own). */
#define X86_LANE_SCALAR_OPS(X) X(ADDSS) X(SUBSS) X(MULSS) X(ADDSD) X(SUBSD) X(MULSD)

/* Moves into a register: COPY is B whole (a load of any size, zero-extended,
 * or a register), MOVSS A with B's low dword (movsd's register form is
 * MOVLPS). */
#define X86_LANE_MOVE_OPS(X) X(COPY) X(MOVSS)

#define X86_LANE_FN(NAME) \
    __attribute__((always_inline)) static inline void x86_lane_##NAME( \
        xmm_t *r, const xmm_t *a, const xmm_t *b, unsigned imm)

/* R = EXPR of the host vectors x (A) and y (B) of type T (ps, pd, pi). */
#define X86_LANE_EXPR(NAME, T, EXPR) \
    X86_LANE_FN(NAME) \
    { \
        __typeof__(x86_##T(a)) x = x86_##T(a), y = x86_##T(b); \
        (void)x; \
        (void)y; \
        (void)imm; \
        x86_set_##T(r, EXPR); \
    }

/* R (type TO) = FN of A (type TO) and B (type FROM), or of B alone. */
#define X86_LANE_MIXED(NAME, TO, FROM, FN) \
    X86_LANE_FN(NAME) \
    { \
        (void)imm; \
        x86_set_##TO(r, FN(x86_##TO(a), x86_##FROM(b))); \
    }
#define X86_LANE_CONVERT(NAME, TO, FROM, FN) \
    X86_LANE_FN(NAME) \
    { \
        (void)a; \
        (void)imm; \
        x86_set_##TO(r, FN(x86_##FROM(b))); \
    }

X86_LANE_EXPR(ADDPS, ps, x86_addps(x, y))
X86_LANE_EXPR(SUBPS, ps, _mm_sub_ps(x, y))
X86_LANE_EXPR(MULPS, ps, x86_mulps(x, y))
X86_LANE_EXPR(DIVPS, ps, _mm_div_ps(x, y))
X86_LANE_EXPR(MINPS, ps, _mm_min_ps(x, y))
X86_LANE_EXPR(MAXPS, ps, _mm_max_ps(x, y))
X86_LANE_EXPR(SQRTPS, ps, _mm_sqrt_ps(y))
X86_LANE_EXPR(RCPPS, ps, _mm_rcp_ps(y))
X86_LANE_EXPR(RSQRTPS, ps, _mm_rsqrt_ps(y))
X86_LANE_EXPR(ADDPD, pd, x86_addpd(x, y))
X86_LANE_EXPR(SUBPD, pd, _mm_sub_pd(x, y))
X86_LANE_EXPR(MULPD, pd, x86_mulpd(x, y))
X86_LANE_EXPR(DIVPD, pd, _mm_div_pd(x, y))
X86_LANE_EXPR(MINPD, pd, _mm_min_pd(x, y))
X86_LANE_EXPR(MAXPD, pd, _mm_max_pd(x, y))
X86_LANE_EXPR(SQRTPD, pd, _mm_sqrt_pd(y))
/* scalars: the low element computed, the rest of A kept */
X86_LANE_EXPR(DIVSS, ps, _mm_div_ss(x, y))
X86_LANE_EXPR(MINSS, ps, _mm_min_ss(x, y))
X86_LANE_EXPR(MAXSS, ps, _mm_max_ss(x, y))
X86_LANE_EXPR(SQRTSS, ps, _mm_move_ss(x, _mm_sqrt_ss(y)))
X86_LANE_EXPR(RCPSS, ps, _mm_move_ss(x, _mm_rcp_ss(y)))
X86_LANE_EXPR(RSQRTSS, ps, _mm_move_ss(x, _mm_rsqrt_ss(y)))
X86_LANE_EXPR(DIVSD, pd, _mm_div_sd(x, y))
X86_LANE_EXPR(MINSD, pd, _mm_min_sd(x, y))
X86_LANE_EXPR(MAXSD, pd, _mm_max_sd(x, y))
X86_LANE_EXPR(SQRTSD, pd, _mm_sqrt_sd(x, y))
X86_LANE_MIXED(CVTSS2SD, pd, ps, _mm_cvtss_sd)
X86_LANE_MIXED(CVTSD2SS, ps, pd, _mm_cvtsd_ss)
X86_LANE_CONVERT(CVTDQ2PS, ps, pi, _mm_cvtepi32_ps)
X86_LANE_CONVERT(CVTPS2DQ, pi, ps, _mm_cvtps_epi32)
X86_LANE_CONVERT(CVTTPS2DQ, pi, ps, _mm_cvttps_epi32)
X86_LANE_EXPR(ADDSS, ps, x86_addss(x, y))
X86_LANE_EXPR(SUBSS, ps, _mm_sub_ss(x, y))
X86_LANE_EXPR(MULSS, ps, x86_mulss(x, y))
X86_LANE_EXPR(ADDSD, pd, x86_addsd(x, y))
X86_LANE_EXPR(SUBSD, pd, _mm_sub_sd(x, y))
X86_LANE_EXPR(MULSD, pd, x86_mulsd(x, y))
/* bitwise and integer operations: no flags, any host form will do */
X86_LANE_EXPR(ANDPS, pi, _mm_and_si128(x, y))
X86_LANE_EXPR(ANDPD, pi, _mm_and_si128(x, y))
X86_LANE_EXPR(PAND, pi, _mm_and_si128(x, y))
X86_LANE_EXPR(ANDNPS, pi, _mm_andnot_si128(x, y))
X86_LANE_EXPR(ANDNPD, pi, _mm_andnot_si128(x, y))
X86_LANE_EXPR(PANDN, pi, _mm_andnot_si128(x, y))
X86_LANE_EXPR(ORPS, pi, _mm_or_si128(x, y))
X86_LANE_EXPR(ORPD, pi, _mm_or_si128(x, y))
X86_LANE_EXPR(POR, pi, _mm_or_si128(x, y))
X86_LANE_EXPR(XORPS, pi, _mm_xor_si128(x, y))
X86_LANE_EXPR(XORPD, pi, _mm_xor_si128(x, y))
X86_LANE_EXPR(PXOR, pi, _mm_xor_si128(x, y))
X86_LANE_EXPR(PADDB, pi, _mm_add_epi8(x, y))
X86_LANE_EXPR(PADDW, pi, _mm_add_epi16(x, y))
X86_LANE_EXPR(PADDD, pi, _mm_add_epi32(x, y))
X86_LANE_EXPR(PADDQ, pi, _mm_add_epi64(x, y))
X86_LANE_EXPR(PSUBB, pi, _mm_sub_epi8(x, y))
X86_LANE_EXPR(PSUBW, pi, _mm_sub_epi16(x, y))
X86_LANE_EXPR(PSUBD, pi, _mm_sub_epi32(x, y))
X86_LANE_EXPR(PSUBQ, pi, _mm_sub_epi64(x, y))
X86_LANE_EXPR(PCMPEQB, pi, _mm_cmpeq_epi8(x, y))
X86_LANE_EXPR(PCMPEQW, pi, _mm_cmpeq_epi16(x, y))
X86_LANE_EXPR(PCMPEQD, pi, _mm_cmpeq_epi32(x, y))
X86_LANE_EXPR(PCMPGTB, pi, _mm_cmpgt_epi8(x, y))
X86_LANE_EXPR(PCMPGTW, pi, _mm_cmpgt_epi16(x, y))
X86_LANE_EXPR(PCMPGTD, pi, _mm_cmpgt_epi32(x, y))
X86_LANE_EXPR(PMINUB, pi, _mm_min_epu8(x, y))
X86_LANE_EXPR(PMAXUB, pi, _mm_max_epu8(x, y))
X86_LANE_EXPR(PMINSW, pi, _mm_min_epi16(x, y))
X86_LANE_EXPR(PMAXSW, pi, _mm_max_epi16(x, y))
X86_LANE_EXPR(PMULUDQ, pi, _mm_mul_epu32(x, y))
/* X86_LANE_ELEM_OPS: R.F[i] = EXPR of x = A.F[i] and y = B.F[i] */
#define X86_LANE_ELEM(NAME, T, F, EXPR) \
    X86_LANE_FN(NAME) \
    { \
        (void)imm; \
        for (unsigned i = 0; i < 16 / sizeof(T); i++) { \
            T x = a->F[i], y = b->F[i]; \
            r->F[i] = (T)(EXPR); \
        } \
    }
X86_LANE_ELEM(PMINSB, int8_t, sb, x < y ? x : y)
X86_LANE_ELEM(PMAXSB, int8_t, sb, x > y ? x : y)
X86_LANE_ELEM(PMINUW, uint16_t, w, x < y ? x : y)
X86_LANE_ELEM(PMAXUW, uint16_t, w, x > y ? x : y)
X86_LANE_ELEM(PMINSD, int32_t, sd, x < y ? x : y)
X86_LANE_ELEM(PMAXSD, int32_t, sd, x > y ? x : y)
X86_LANE_ELEM(PMINUD, uint32_t, d, x < y ? x : y)
X86_LANE_ELEM(PMAXUD, uint32_t, d, x > y ? x : y)
X86_LANE_ELEM(PCMPEQQ, uint64_t, q, x == y ? ~0ull : 0)
X86_LANE_ELEM(PCMPGTQ, int64_t, sq, x > y ? -1 : 0)
X86_LANE_ELEM(PMULLD, uint32_t, d, (uint64_t)x * y)
X86_LANE_EXPR(UNPCKLPS, pi, _mm_unpacklo_epi32(x, y))
X86_LANE_EXPR(UNPCKHPS, pi, _mm_unpackhi_epi32(x, y))
X86_LANE_EXPR(UNPCKLPD, pi, _mm_unpacklo_epi64(x, y))
X86_LANE_EXPR(UNPCKHPD, pi, _mm_unpackhi_epi64(x, y))
X86_LANE_EXPR(PUNPCKLBW, pi, _mm_unpacklo_epi8(x, y))
X86_LANE_EXPR(PUNPCKHBW, pi, _mm_unpackhi_epi8(x, y))
X86_LANE_EXPR(PUNPCKLWD, pi, _mm_unpacklo_epi16(x, y))
X86_LANE_EXPR(PUNPCKHWD, pi, _mm_unpackhi_epi16(x, y))
X86_LANE_EXPR(PUNPCKLDQ, pi, _mm_unpacklo_epi32(x, y))
X86_LANE_EXPR(PUNPCKHDQ, pi, _mm_unpackhi_epi32(x, y))
X86_LANE_EXPR(PUNPCKLQDQ, pi, _mm_unpacklo_epi64(x, y))
X86_LANE_EXPR(PUNPCKHQDQ, pi, _mm_unpackhi_epi64(x, y))
/* shuffles by a run-time imm8 (the intrinsics want a constant) */
X86_LANE_FN(SHUFPS)
{
    uint32_t v[4] = { a->d[imm & 3], a->d[(imm >> 2) & 3], b->d[(imm >> 4) & 3],
                      b->d[(imm >> 6) & 3] };
    memcpy(r->d, v, sizeof v);
}
X86_LANE_FN(PSHUFD)
{
    (void)a;
    uint32_t v[4] = { b->d[imm & 3], b->d[(imm >> 2) & 3], b->d[(imm >> 4) & 3],
                      b->d[(imm >> 6) & 3] };
    memcpy(r->d, v, sizeof v);
}

/* Widening conversions read B's low 8 bytes; narrowing ones clear R's
 * high 8 bytes. */
X86_LANE_CONVERT(CVTPS2PD, pd, ps, _mm_cvtps_pd)
X86_LANE_CONVERT(CVTDQ2PD, pd, pi, _mm_cvtepi32_pd)
X86_LANE_CONVERT(CVTPD2PS, ps, pd, _mm_cvtpd_ps)
X86_LANE_CONVERT(CVTPD2DQ, pi, pd, _mm_cvtpd_epi32)
X86_LANE_CONVERT(CVTTPD2DQ, pi, pd, _mm_cvttpd_epi32)
/* cvtsi2sd/ss: B's low 4 or 8 bytes are the signed integer */
#define X86_LANE_FROM_INT(NAME, T, FN, FIELD) \
    X86_LANE_FN(NAME) \
    { \
        (void)imm; \
        x86_set_##T(r, FN(x86_##T(a), b->FIELD[0])); \
    }
X86_LANE_FROM_INT(CVTSI2SD32, pd, x86_cvtsi2sd32, sd)
X86_LANE_FROM_INT(CVTSI2SD64, pd, x86_cvtsi2sd64, sq)
X86_LANE_FROM_INT(CVTSI2SS32, ps, x86_cvtsi2ss32, sd)
X86_LANE_FROM_INT(CVTSI2SS64, ps, x86_cvtsi2ss64, sq)
/* moves into a register: R's quadwords LO and HI (expressions of A, B) */
#define X86_LANE_QUADS(NAME, LO, HI) \
    X86_LANE_FN(NAME) \
    { \
        (void)a; \
        (void)b; \
        (void)imm; \
        uint64_t lo = (LO), hi = (HI); \
        r->q[0] = lo; \
        r->q[1] = hi; \
    }
/* movd/movq clear the rest */
X86_LANE_QUADS(MOVD, b->d[0], 0)
X86_LANE_QUADS(MOVQ, b->q[0], 0)
X86_LANE_QUADS(MOVLPS, b->q[0], a->q[1])
/* movhps, movhpd (from memory) and movlhps */
X86_LANE_QUADS(MOVHPS, a->q[0], b->q[0])
X86_LANE_QUADS(MOVHLPS, b->q[1], a->q[1])
X86_LANE_QUADS(COPY, b->q[0], b->q[1])
X86_LANE_QUADS(MOVSS, (a->q[0] & ~0xffffffffull) | b->d[0], a->q[1])

#undef X86_LANE_QUADS
#undef X86_LANE_ELEM
#undef X86_LANE_FROM_INT
#undef X86_LANE_CONVERT
#undef X86_LANE_MIXED
#undef X86_LANE_EXPR
#undef X86_LANE_FN

#endif
