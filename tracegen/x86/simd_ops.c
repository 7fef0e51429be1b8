/* The vector operations of SSE through SSE4.1 and their VEX forms (AVX,
 * AVX2): each computes a vector result from its sources (simd.h), over
 * 16 bytes for legacy SSE and the vector length for VEX. Operations that
 * work within 128-bit lanes loop over the lanes; floating-point arithmetic
 * is the host's own instruction, so rounding, denormal handling, NaN
 * propagation and exception flags are the processor's (fpenv.h). */
#include <capstone/capstone.h>
#include <math.h>

#include "tracegen/x86/decode.h"
#include "tracegen/x86/fpenv.h"
#include "tracegen/x86/simd_lane.h"

#define FL_IE 0x01u
#define FL_PE 0x20u

static uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }
static int8_t sat_s8(int v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }
static uint16_t sat_u16(int v) { return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v); }
static int16_t sat_s16(int v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

/* Scalar arithmetic as the host instruction (flags and NaN rules). */
static double add_f64(double x, double y) { return _mm_cvtsd_f64(x86_addsd(_mm_set_sd(x), _mm_set_sd(y))); }
static double sub_f64(double x, double y) { return _mm_cvtsd_f64(_mm_sub_sd(_mm_set_sd(x), _mm_set_sd(y))); }
static double mul_f64(double x, double y) { return _mm_cvtsd_f64(x86_mulsd(_mm_set_sd(x), _mm_set_sd(y))); }
static float add_f32(float x, float y) { return _mm_cvtss_f32(x86_addss(_mm_set_ss(x), _mm_set_ss(y))); }
static float sub_f32(float x, float y) { return _mm_cvtss_f32(_mm_sub_ss(_mm_set_ss(x), _mm_set_ss(y))); }
static float mul_f32(float x, float y) { return _mm_cvtss_f32(x86_mulss(_mm_set_ss(x), _mm_set_ss(y))); }

/* Compare predicate P (0..31, the AVX encoding; SSE has 0..7) of X and Y.
 * The relations are evaluated quietly (an SNaN still raises invalid, as
 * in hardware); *SIGNAL is set when a signaling predicate met a NaN. */
static int compare(double x, double y, unsigned p, int *signal)
{
    static const uint16_t signaling = 0x6666; /* LT LE NLT NLE NGE NGT GE GT */
    int un = isunordered(x, y);
    if (un && (((signaling >> (p & 15)) & 1) ^ (p >> 4)))
        *signal = 1;
    switch (p & 15) {
    case 0: return !un && x == y;
    case 1: return !un && isless(x, y);
    case 2: return !un && islessequal(x, y);
    case 3: return un;
    case 4: return un || x != y;
    case 5: return un || !isless(x, y);
    case 6: return un || !islessequal(x, y);
    case 7: return !un;
    case 8: return un || x == y;
    case 9: return un || isless(x, y);
    case 10: return un || islessequal(x, y);
    case 11: return 0;
    case 12: return !un && x != y;
    case 13: return !un && isgreaterequal(x, y);
    case 14: return !un && isgreater(x, y);
    default: return 1;
    }
}

/* cmpPREDss/sd/ps/pd (decode.h: aux is the type, imm the predicate). */
static void exec_cmp(struct x86_cpu *c, const struct x86_dinsn *in, unsigned vl, ymm_t *r,
                     const ymm_t *a, const ymm_t *b)
{
    unsigned p = in->imm & (in->vl ? 31 : 7);
    int signal = 0;
    *r = *a;
    switch (in->aux) {
    case 1: r->d[0] = compare(a->f[0], b->f[0], p, &signal) ? ~0u : 0; break;
    case 2: r->q[0] = compare(a->fd[0], b->fd[0], p, &signal) ? ~0ull : 0; break;
    case 3:
        for (unsigned i = 0; i < vl / 4; i++)
            r->d[i] = compare(a->f[i], b->f[i], p, &signal) ? ~0u : 0;
        break;
    default:
        for (unsigned i = 0; i < vl / 8; i++)
            r->q[i] = compare(a->fd[i], b->fd[i], p, &signal) ? ~0ull : 0;
        break;
    }
    if (signal)
        x86_simd_raise(c, FL_IE);
}

/* Rounds the IEEE value with bit pattern U (MANT significand bits, BIAS)
 * to an integer in MODE (0 nearest even, 1 down, 2 up, 3 toward zero) by
 * integer arithmetic: the C library's rint family may raise inexact or,
 * in directed modes, turn +0 into -0. *INEXACT is set when bits were lost.
 * NaNs and DAZ are the caller's. */
static uint64_t round_bits(uint64_t u, unsigned mant, unsigned bias, unsigned mode, int *inexact)
{
    unsigned width = mant + (bias == 127 ? 9 : 12);
    uint64_t sign = u & (1ull << (width - 1)), mag = u & ~sign;
    int e = (int)(mag >> mant) - (int)bias;
    if (e >= (int)mant) /* already an integer (or an infinity) */
        return u;
    uint64_t m = mag == 0 ? 0 : (mag & ((1ull << mant) - 1)) | ((mag >> mant) ? 1ull << mant : 0);
    unsigned fb = e < 0 ? mant + 1 : mant - (unsigned)e; /* fraction bits of m */
    uint64_t ip = e < 0 ? 0 : m >> fb, frac = e < 0 ? m : m & ((1ull << fb) - 1);
    if (e < -1) { /* below one half: only the direction matters */
        frac = m ? 1 : 0;
        fb = 64;
    }
    uint64_t half = fb == 64 ? 2 : 1ull << (fb - 1);
    int up;
    switch (mode) {
    case 0: up = frac > half || (frac == half && (ip & 1)); break;
    case 1: up = frac && sign; break;
    case 2: up = frac && !sign; break;
    default: up = 0; break;
    }
    *inexact = frac != 0;
    ip += (uint64_t)up;
    if (ip == 0)
        return sign;
    /* |result| = ip, an integer below 2^(mant+1) (or exactly it): normalise */
    unsigned top = 63u - (unsigned)__builtin_clzll(ip);
    uint64_t sig = (ip << (mant - top)) & ((1ull << mant) - 1);
    return sign | ((uint64_t)(top + bias) << mant) | sig;
}

/* roundss/sd/ps/pd of one value: IMM bits 0-1 the mode unless bit 2 says
 * MXCSR's, bit 3 suppresses the precision exception. */
static double round_f64(uint32_t mxcsr, double x, unsigned imm, uint32_t *flags)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    if ((u & ~(1ull << 63)) > 0x7ff0000000000000ull) /* tested on the bits: no flags */
        return add_f64(x, x); /* quieted; invalid for an SNaN */
    if ((mxcsr & 0x40) && (u & 0x7ff0000000000000ull) == 0)
        u &= 1ull << 63; /* denormals are zero */
    int inexact = 0;
    u = round_bits(u, 52, 1023, (imm & 4) ? (mxcsr >> 13) & 3 : imm & 3, &inexact);
    if (inexact && !(imm & 8))
        *flags |= FL_PE;
    memcpy(&x, &u, 8);
    return x;
}

static float round_f32(uint32_t mxcsr, float x, unsigned imm, uint32_t *flags)
{
    uint32_t v;
    memcpy(&v, &x, 4);
    if ((v & ~(1u << 31)) > 0x7f800000u)
        return add_f32(x, x);
    if ((mxcsr & 0x40) && (v & 0x7f800000u) == 0)
        v &= 1u << 31;
    int inexact = 0;
    v = (uint32_t)round_bits(v, 23, 127, (imm & 4) ? (mxcsr >> 13) & 3 : imm & 3, &inexact);
    if (inexact && !(imm & 8))
        *flags |= FL_PE;
    memcpy(&x, &v, 4);
    return x;
}

static void exec_round(struct x86_cpu *c, const struct x86_dinsn *in, unsigned vl, ymm_t *r,
                       const ymm_t *a, const ymm_t *b)
{
    uint32_t mxcsr = x86_fpenv_mxcsr(c), flags = 0;
    switch (in->csid) {
    case X86_INS_ROUNDSS:
        *r = *a;
        r->f[0] = round_f32(mxcsr, b->f[0], in->imm, &flags);
        break;
    case X86_INS_ROUNDSD:
        *r = *a;
        r->fd[0] = round_f64(mxcsr, b->fd[0], in->imm, &flags);
        break;
    case X86_INS_ROUNDPS:
        for (unsigned i = 0; i < vl / 4; i++)
            r->f[i] = round_f32(mxcsr, b->f[i], in->imm, &flags);
        break;
    default:
        for (unsigned i = 0; i < vl / 8; i++)
            r->fd[i] = round_f64(mxcsr, b->fd[i], in->imm, &flags);
        break;
    }
    if (flags)
        x86_simd_raise(c, flags);
}

/* dpps and dppd of one 128-bit lane, in the manual's order of operations:
 * the selected products, then pairwise sums. */
static void dpps_lane(xmm_t *r, const xmm_t *a, const xmm_t *b, unsigned imm)
{
    float t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (imm >> (4 + i)) & 1 ? mul_f32(a->f[i], b->f[i]) : 0.0f;
    float sum = add_f32(add_f32(t[0], t[1]), add_f32(t[2], t[3]));
    for (int i = 0; i < 4; i++)
        r->f[i] = (imm >> i) & 1 ? sum : 0.0f;
}

static void dppd_lane(xmm_t *r, const xmm_t *a, const xmm_t *b, unsigned imm)
{
    double t0 = (imm & 0x10) ? mul_f64(a->fd[0], b->fd[0]) : 0.0;
    double t1 = (imm & 0x20) ? mul_f64(a->fd[1], b->fd[1]) : 0.0;
    double sum = add_f64(t0, t1);
    r->fd[0] = (imm & 1) ? sum : 0.0;
    r->fd[1] = (imm & 2) ? sum : 0.0;
}

/* Horizontal add/subtract of floats: pairs of A, then pairs of B. */
static void hops_lane(xmm_t *r, const xmm_t *a, const xmm_t *b, unsigned id)
{
    switch (id) {
    case X86_INS_HADDPS: case X86_INS_HSUBPS: {
        float (*f)(float, float) = id == X86_INS_HADDPS ? add_f32 : sub_f32;
        float v[4] = { f(a->f[0], a->f[1]), f(a->f[2], a->f[3]), f(b->f[0], b->f[1]),
                       f(b->f[2], b->f[3]) };
        memcpy(r->f, v, sizeof v);
        return;
    }
    case X86_INS_HADDPD: case X86_INS_HSUBPD: {
        double (*f)(double, double) = id == X86_INS_HADDPD ? add_f64 : sub_f64;
        double v[2] = { f(a->fd[0], a->fd[1]), f(b->fd[0], b->fd[1]) };
        memcpy(r->fd, v, sizeof v);
        return;
    }
    case X86_INS_ADDSUBPS:
        for (int i = 0; i < 4; i++)
            r->f[i] = (i & 1) ? add_f32(a->f[i], b->f[i]) : sub_f32(a->f[i], b->f[i]);
        return;
    default: /* ADDSUBPD */
        r->fd[0] = sub_f64(a->fd[0], b->fd[0]);
        r->fd[1] = add_f64(a->fd[1], b->fd[1]);
        return;
    }
}

/* Horizontal integer add/subtract (SSSE3) of one lane. */
static void phops_lane(xmm_t *r, const xmm_t *a, const xmm_t *b, unsigned id)
{
    xmm_t t;
    switch (id) {
    case X86_INS_PHADDD: case X86_INS_PHSUBD:
        for (int i = 0; i < 4; i++) {
            const xmm_t *s = i < 2 ? a : b;
            uint32_t x = s->d[2 * (i & 1)], y = s->d[2 * (i & 1) + 1];
            t.d[i] = id == X86_INS_PHADDD ? x + y : x - y;
        }
        break;
    default:
        for (int i = 0; i < 8; i++) {
            const xmm_t *s = i < 4 ? a : b;
            int x = s->sw[2 * (i & 3)], y = s->sw[2 * (i & 3) + 1];
            switch (id) {
            case X86_INS_PHADDW: t.w[i] = (uint16_t)(x + y); break;
            case X86_INS_PHSUBW: t.w[i] = (uint16_t)(x - y); break;
            case X86_INS_PHADDSW: t.sw[i] = sat_s16(x + y); break;
            default: t.sw[i] = sat_s16(x - y); break; /* PHSUBSW */
            }
        }
        break;
    }
    *r = t;
}

/* mpsadbw of one lane: IMM's bit 2 picks A's block, bits 0-1 B's. */
static void mpsadbw_lane(xmm_t *r, const xmm_t *a, const xmm_t *b, unsigned imm)
{
    unsigned ao = ((imm >> 2) & 1) * 4, bo = (imm & 3) * 4;
    for (int i = 0; i < 8; i++) {
        unsigned sum = 0;
        for (int j = 0; j < 4; j++) {
            int d = (int)a->b[ao + i + j] - (int)b->b[bo + j];
            sum += (unsigned)(d < 0 ? -d : d);
        }
        r->w[i] = (uint16_t)sum;
    }
}

/* pmovsx/pmovzx: the low elements of B widened to fill VL bytes. */
static int exec_extend(unsigned id, unsigned vl, ymm_t *r, const ymm_t *b)
{
    unsigned from, to, sign;
    switch (id) {
    case X86_INS_PMOVSXBW: from = 1; to = 2; sign = 1; break;
    case X86_INS_PMOVSXBD: from = 1; to = 4; sign = 1; break;
    case X86_INS_PMOVSXBQ: from = 1; to = 8; sign = 1; break;
    case X86_INS_PMOVSXWD: from = 2; to = 4; sign = 1; break;
    case X86_INS_PMOVSXWQ: from = 2; to = 8; sign = 1; break;
    case X86_INS_PMOVSXDQ: from = 4; to = 8; sign = 1; break;
    case X86_INS_PMOVZXBW: from = 1; to = 2; sign = 0; break;
    case X86_INS_PMOVZXBD: from = 1; to = 4; sign = 0; break;
    case X86_INS_PMOVZXBQ: from = 1; to = 8; sign = 0; break;
    case X86_INS_PMOVZXWD: from = 2; to = 4; sign = 0; break;
    case X86_INS_PMOVZXWQ: from = 2; to = 8; sign = 0; break;
    case X86_INS_PMOVZXDQ: from = 4; to = 8; sign = 0; break;
    default: return 0;
    }
    for (unsigned i = 0; i < vl / to; i++) {
        uint64_t v = x86_elem_get(b->b + i * from, from);
        if (sign)
            v = (uint64_t)((int64_t)(v << (64 - 8 * from)) >> (64 - 8 * from));
        x86_elem_set(r->b + i * to, to, v);
    }
    return 1;
}

/* The conversions whose VEX form is not lane by lane (simd_lane.h):
 * N elements on the wider side (so cvtpd2ps of a YMM register gives an
 * XMM one); cvtsi2sd/ss by the integer's size. */
static int exec_convert(const struct x86_dinsn *in, unsigned vl, ymm_t *r, const ymm_t *a,
                        const ymm_t *b)
{
    int wide = in->o[in->nds + 1].size == 8;
    switch (in->csid) {
    case X86_INS_CVTSI2SD:
        if (wide)
            x86_lane_CVTSI2SD64(&r->x[0], &a->x[0], &b->x[0], 0);
        else
            x86_lane_CVTSI2SD32(&r->x[0], &a->x[0], &b->x[0], 0);
        return 1;
    case X86_INS_CVTSI2SS:
        if (wide)
            x86_lane_CVTSI2SS64(&r->x[0], &a->x[0], &b->x[0], 0);
        else
            x86_lane_CVTSI2SS32(&r->x[0], &a->x[0], &b->x[0], 0);
        return 1;
    default:
        break;
    }
    /* two elements per step: one 16-byte half of the wider side */
    for (unsigned h = 0; h < vl / 16; h++) {
        xmm_t s = { .q = { b->q[h], 0 } }, t;
        switch (in->csid) {
        case X86_INS_CVTDQ2PD: x86_lane_CVTDQ2PD(&r->x[h], &s, &s, 0); break;
        case X86_INS_CVTPS2PD: x86_lane_CVTPS2PD(&r->x[h], &s, &s, 0); break;
        case X86_INS_CVTPD2PS: x86_lane_CVTPD2PS(&t, &b->x[h], &b->x[h], 0); break;
        case X86_INS_CVTPD2DQ: x86_lane_CVTPD2DQ(&t, &b->x[h], &b->x[h], 0); break;
        case X86_INS_CVTTPD2DQ: x86_lane_CVTTPD2DQ(&t, &b->x[h], &b->x[h], 0); break;
        default: return 0;
        }
        if (in->csid == X86_INS_CVTPD2PS || in->csid == X86_INS_CVTPD2DQ ||
            in->csid == X86_INS_CVTTPD2DQ)
            r->q[h] = t.q[0];
    }
    return 1;
}

/* Shifts of every element by one count (an immediate or B's low quadword). */
static void shift_elements(ymm_t *r, const ymm_t *a, unsigned vl, unsigned esize, uint64_t cnt,
                           int right, int arith)
{
    unsigned bits = esize * 8;
    for (unsigned i = 0; i < vl / esize; i++) {
        uint64_t v = x86_elem_get(a->b + i * esize, esize);
        if (arith) {
            int64_t sv = (int64_t)(v << (64 - bits)) >> (64 - bits);
            v = (uint64_t)(sv >> (cnt >= bits ? bits - 1 : cnt));
        } else if (cnt >= bits) {
            v = 0;
        } else {
            v = right ? v >> cnt : v << cnt;
        }
        x86_elem_set(r->b + i * esize, esize, v);
    }
}

/* Blends: element I of B where the selector says so, else of A. */
static void blend(ymm_t *r, const ymm_t *a, const ymm_t *b, unsigned vl, unsigned esize,
                  uint32_t sel_bits, const ymm_t *m)
{
    for (unsigned i = 0; i < vl / esize; i++) {
        int pick = m ? (m->b[i * esize + esize - 1] >> 7) : (int)((sel_bits >> i) & 1);
        x86_elem_set(r->b + i * esize, esize, x86_elem_get((pick ? b : a)->b + i * esize, esize));
    }
}

#define LANES for (unsigned l = 0; l < vl / 16; l++)

/* Element-wise integer operation: R.F[i] = EXPR of x = A.F[i], y = B.F[i]. */
#define ELEM(ID, T, F, EXPR) \
    case ID: \
        for (unsigned i = 0; i < vl / sizeof(T); i++) { \
            T x = a->F[i], y = b->F[i]; \
            (void)x; \
            (void)y; \
            r->F[i] = (T)(EXPR); \
        } \
        return 1;

/* The operations of simd_lane.h, lane by lane. */
#define LANE_CASE(NAME) \
    case X86_INS_##NAME: LANES x86_lane_##NAME(&r->x[l], &a->x[l], &b->x[l], imm); return 1;

/* The count of psll/psrl/psra: the imm8, or the second source's low
 * quadword (read only by the shifts: every other operation would pay for it). */
static inline uint64_t shift_count(const struct x86_dinsn *in, const ymm_t *b)
{
    return in->o[in->nds + 1].kind == OPK_IMM ? in->imm : b->q[0];
}

int x86_simd_compute(struct x86_cpu *c, const struct x86_dinsn *in, ymm_t *r, const ymm_t *a,
                     const ymm_t *b, const ymm_t *m)
{
    unsigned vl = x86_vec_len(in), imm = in->imm;
    const struct x86_opnd *src = &in->o[in->nds + 1];
    if (in->csid == X86_SSE_CMP_ID) {
        exec_cmp(c, in, vl, r, a, b);
        return 1;
    }
    switch (in->csid) {
    /* ---- moves into a register ---- */
    case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
    case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_LDDQU: case X86_INS_MOVNTDQA:
        *r = *b;
        return 1;
    case X86_INS_MOVD:
        x86_lane_MOVD(&r->x[0], &a->x[0], &b->x[0], imm);
        return 1;
    case X86_INS_MOVQ: /* a 4-byte source was zero-extended when read */
        x86_lane_MOVQ(&r->x[0], &a->x[0], &b->x[0], imm);
        return 1;
    case X86_INS_MOVSS: case X86_INS_MOVSD:
        if (src->kind == OPK_MEM)
            *r = *b; /* a load clears the rest */
        else if (in->csid == X86_INS_MOVSS)
            x86_lane_MOVSS(&r->x[0], &a->x[0], &b->x[0], imm);
        else
            x86_lane_MOVLPS(&r->x[0], &a->x[0], &b->x[0], imm);
        return 1;
    case X86_INS_MOVHPS: case X86_INS_MOVHPD: case X86_INS_MOVLHPS:
        x86_lane_MOVHPS(&r->x[0], &a->x[0], &b->x[0], imm);
        return 1;
    case X86_INS_MOVLPS: case X86_INS_MOVLPD:
        x86_lane_MOVLPS(&r->x[0], &a->x[0], &b->x[0], imm);
        return 1;
    case X86_INS_MOVHLPS:
        x86_lane_MOVHLPS(&r->x[0], &a->x[0], &b->x[0], imm);
        return 1;
    case X86_INS_MOVDDUP:
        LANES r->q[2 * l] = r->q[2 * l + 1] = b->q[2 * l];
        return 1;
    case X86_INS_MOVSHDUP: case X86_INS_MOVSLDUP: {
        unsigned odd = in->csid == X86_INS_MOVSHDUP;
        for (unsigned i = 0; i < vl / 8; i++)
            r->d[2 * i] = r->d[2 * i + 1] = b->d[2 * i + odd];
        return 1;
    }
    X86_LANE_OPS(LANE_CASE)
    X86_LANE_ELEM_OPS(LANE_CASE)
    /* ---- floating-point arithmetic ---- */
#define SCALAR_CASE(NAME) \
    case X86_INS_##NAME: x86_lane_##NAME(&r->x[0], &a->x[0], &b->x[0], imm); return 1;
    X86_LANE_SCALAR_OPS(SCALAR_CASE)
#undef SCALAR_CASE
    case X86_INS_ADDSUBPS: case X86_INS_ADDSUBPD: case X86_INS_HADDPS: case X86_INS_HADDPD:
    case X86_INS_HSUBPS: case X86_INS_HSUBPD:
        LANES hops_lane(&r->x[l], &a->x[l], &b->x[l], in->csid);
        return 1;
    case X86_INS_DPPS:
        LANES dpps_lane(&r->x[l], &a->x[l], &b->x[l], imm);
        return 1;
    case X86_INS_DPPD:
        dppd_lane(&r->x[0], &a->x[0], &b->x[0], imm);
        return 1;
    case X86_INS_ROUNDSS: case X86_INS_ROUNDSD: case X86_INS_ROUNDPS: case X86_INS_ROUNDPD:
        exec_round(c, in, vl, r, a, b);
        return 1;
    /* ---- integer arithmetic ---- */
    ELEM(X86_INS_PADDUSB, uint8_t, b, sat_u8(x + y)) ELEM(X86_INS_PADDUSW, uint16_t, w, sat_u16(x + y))
    ELEM(X86_INS_PSUBUSB, uint8_t, b, sat_u8(x - y)) ELEM(X86_INS_PSUBUSW, uint16_t, w, sat_u16(x - y))
    ELEM(X86_INS_PADDSB, int8_t, sb, sat_s8(x + y)) ELEM(X86_INS_PADDSW, int16_t, sw, sat_s16(x + y))
    ELEM(X86_INS_PSUBSB, int8_t, sb, sat_s8(x - y)) ELEM(X86_INS_PSUBSW, int16_t, sw, sat_s16(x - y))
    ELEM(X86_INS_PAVGB, uint8_t, b, (x + y + 1) >> 1) ELEM(X86_INS_PAVGW, uint16_t, w, (x + y + 1) >> 1)
    ELEM(X86_INS_PMULLW, uint16_t, w, (uint32_t)x * y)
    ELEM(X86_INS_PMULHW, int16_t, sw, ((int32_t)x * y) >> 16)
    ELEM(X86_INS_PMULHUW, uint16_t, w, ((uint32_t)x * y) >> 16)
    ELEM(X86_INS_PMULHRSW, int16_t, sw, ((((int32_t)x * y) >> 14) + 1) >> 1)
    ELEM(X86_INS_PABSB, int8_t, sb, y < 0 ? -y : y) ELEM(X86_INS_PABSW, int16_t, sw, y < 0 ? -y : y)
    ELEM(X86_INS_PABSD, uint32_t, d, (int32_t)y < 0 ? 0u - y : y)
    ELEM(X86_INS_PSIGNB, int8_t, sb, y < 0 ? -x : y ? x : 0)
    ELEM(X86_INS_PSIGNW, int16_t, sw, y < 0 ? -x : y ? x : 0)
    ELEM(X86_INS_PSIGND, uint32_t, d, (int32_t)y < 0 ? 0u - x : y ? x : 0)
    case X86_INS_PMULDQ:
        for (unsigned i = 0; i < vl / 8; i++)
            r->sq[i] = (int64_t)a->sd[2 * i] * b->sd[2 * i];
        return 1;
    case X86_INS_PMADDWD:
        for (unsigned i = 0; i < vl / 4; i++)
            r->d[i] = (uint32_t)((int32_t)a->sw[2 * i] * b->sw[2 * i]) +
                      (uint32_t)((int32_t)a->sw[2 * i + 1] * b->sw[2 * i + 1]);
        return 1;
    case X86_INS_PMADDUBSW:
        for (unsigned i = 0; i < vl / 2; i++)
            r->sw[i] = sat_s16(a->b[2 * i] * b->sb[2 * i] + a->b[2 * i + 1] * b->sb[2 * i + 1]);
        return 1;
    case X86_INS_PSADBW:
        for (unsigned h = 0; h < vl / 8; h++) {
            unsigned sum = 0;
            for (unsigned i = 0; i < 8; i++) {
                int d = (int)a->b[8 * h + i] - (int)b->b[8 * h + i];
                sum += (unsigned)(d < 0 ? -d : d);
            }
            r->q[h] = sum;
        }
        return 1;
    case X86_INS_MPSADBW:
        LANES mpsadbw_lane(&r->x[l], &a->x[l], &b->x[l], imm >> (3 * l));
        return 1;
    case X86_INS_PHADDW: case X86_INS_PHADDD: case X86_INS_PHADDSW: case X86_INS_PHSUBW:
    case X86_INS_PHSUBD: case X86_INS_PHSUBSW:
        LANES phops_lane(&r->x[l], &a->x[l], &b->x[l], in->csid);
        return 1;
    case X86_INS_PHMINPOSUW: {
        unsigned best = 0;
        for (unsigned i = 1; i < 8; i++)
            if (b->w[i] < b->w[best])
                best = i;
        r->q[0] = b->w[best] | ((uint64_t)best << 16);
        return 1;
    }
    /* ---- shifts ---- */
    case X86_INS_PSLLW: shift_elements(r, a, vl, 2, shift_count(in, b), 0, 0); return 1;
    case X86_INS_PSLLD: shift_elements(r, a, vl, 4, shift_count(in, b), 0, 0); return 1;
    case X86_INS_PSLLQ: shift_elements(r, a, vl, 8, shift_count(in, b), 0, 0); return 1;
    case X86_INS_PSRLW: shift_elements(r, a, vl, 2, shift_count(in, b), 1, 0); return 1;
    case X86_INS_PSRLD: shift_elements(r, a, vl, 4, shift_count(in, b), 1, 0); return 1;
    case X86_INS_PSRLQ: shift_elements(r, a, vl, 8, shift_count(in, b), 1, 0); return 1;
    case X86_INS_PSRAW: shift_elements(r, a, vl, 2, shift_count(in, b), 1, 1); return 1;
    case X86_INS_PSRAD: shift_elements(r, a, vl, 4, shift_count(in, b), 1, 1); return 1;
    case X86_INS_PSLLDQ: case X86_INS_PSRLDQ:
        LANES {
            unsigned n = imm;
            if (n < 16) {
                if (in->csid == X86_INS_PSLLDQ)
                    memcpy(r->x[l].b + n, a->x[l].b, 16 - n);
                else
                    memcpy(r->x[l].b, a->x[l].b + n, 16 - n);
            }
        }
        return 1;
    /* ---- conversions ---- */
    case X86_INS_CVTSI2SD: case X86_INS_CVTSI2SS: case X86_INS_CVTDQ2PD: case X86_INS_CVTPS2PD:
    case X86_INS_CVTPD2PS: case X86_INS_CVTPD2DQ: case X86_INS_CVTTPD2DQ:
        return exec_convert(in, vl, r, a, b);
    /* ---- shuffles, unpacks, packs, inserts, blends ---- */
    case X86_INS_PACKUSWB: case X86_INS_PACKSSWB:
        LANES for (unsigned i = 0; i < 16; i++) {
            int v = i < 8 ? a->x[l].sw[i] : b->x[l].sw[i - 8];
            if (in->csid == X86_INS_PACKUSWB)
                r->x[l].b[i] = sat_u8(v);
            else
                r->x[l].sb[i] = sat_s8(v);
        }
        return 1;
    case X86_INS_PACKSSDW: case X86_INS_PACKUSDW:
        LANES for (unsigned i = 0; i < 8; i++) {
            int32_t v = i < 4 ? a->x[l].sd[i] : b->x[l].sd[i - 4];
            int32_t lo = in->csid == X86_INS_PACKUSDW ? 0 : -32768;
            int32_t hi = in->csid == X86_INS_PACKUSDW ? 65535 : 32767;
            r->x[l].w[i] = (uint16_t)(v < lo ? lo : v > hi ? hi : v);
        }
        return 1;
    case X86_INS_SHUFPD:
        LANES {
            unsigned k = imm >> (2 * l);
            r->x[l].q[0] = a->x[l].q[k & 1];
            r->x[l].q[1] = b->x[l].q[(k >> 1) & 1];
        }
        return 1;
    case X86_INS_PSHUFLW: case X86_INS_PSHUFHW: {
        unsigned base = in->csid == X86_INS_PSHUFHW ? 4 : 0;
        LANES {
            r->x[l] = b->x[l];
            for (unsigned i = 0; i < 4; i++)
                r->x[l].w[base + i] = b->x[l].w[base + ((imm >> (2 * i)) & 3)];
        }
        return 1;
    }
    case X86_INS_PSHUFB:
        LANES for (unsigned i = 0; i < 16; i++) {
            uint8_t s = b->x[l].b[i];
            r->x[l].b[i] = (s & 0x80) ? 0 : a->x[l].b[s & 15];
        }
        return 1;
    case X86_INS_PALIGNR:
        LANES {
            uint8_t cat[32];
            memcpy(cat, b->x[l].b, 16);
            memcpy(cat + 16, a->x[l].b, 16);
            for (unsigned i = 0; i < 16; i++)
                r->x[l].b[i] = imm + i < 32 ? cat[imm + i] : 0;
        }
        return 1;
    case X86_INS_PINSRW: *r = *a; r->w[imm & 7] = b->w[0]; return 1;
    case X86_INS_PINSRB: *r = *a; r->b[imm & 15] = b->b[0]; return 1;
    case X86_INS_PINSRD: *r = *a; r->d[imm & 3] = b->d[0]; return 1;
    case X86_INS_PINSRQ: *r = *a; r->q[imm & 1] = b->q[0]; return 1;
    case X86_INS_INSERTPS:
        *r = *a;
        r->d[(imm >> 4) & 3] = src->kind == OPK_MEM ? b->d[0] : b->d[(imm >> 6) & 3];
        for (unsigned i = 0; i < 4; i++)
            if ((imm >> i) & 1)
                r->d[i] = 0;
        return 1;
    case X86_INS_BLENDPS: blend(r, a, b, vl, 4, imm, NULL); return 1;
    case X86_INS_BLENDPD: blend(r, a, b, vl, 8, imm, NULL); return 1;
    case X86_INS_PBLENDW: blend(r, a, b, vl, 2, imm | (imm << 8), NULL); return 1;
    case X86_INS_BLENDVPS: blend(r, a, b, vl, 4, 0, m); return 1;
    case X86_INS_BLENDVPD: blend(r, a, b, vl, 8, 0, m); return 1;
    case X86_INS_PBLENDVB: blend(r, a, b, vl, 1, 0, m); return 1;
    default:
        return exec_extend(in->csid, vl, r, b);
    }
}
