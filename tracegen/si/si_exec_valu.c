/* Vector ALU: VOP2, VOP1, VOPC and VOP3 (SI ISA chapter 6 and 12).  An
 * opcode is the same enum cgm_si_opcode in every encoding that carries it;
 * sources are fetched per lane with the VOP3 abs/neg modifiers, and results
 * get omod/clamp.  f32 denormals are flushed unless the kernel descriptor
 * keeps them; rounding is to nearest even. */
#include "tracegen/si/si_wave.h"
#include "tracegen/si/si_compare.h"

#include <math.h>

#define PI2 6.283185307179586476925286766559

/* Sources of one instruction: a VGPR row (stride 1) or a scalar (stride 0). */
struct vsrc {
    const uint32_t *lo, *hi;
    unsigned step;
    uint32_t k[2];
};

struct valu {
    struct si_ctx *c;
    struct si_wave *w;
    const struct cgm_si_inst *in;
    unsigned op;               /* enum cgm_si_opcode */
    struct vsrc s[3];
    uint64_t exec;
    int flush32;
};

static int fetch(struct valu *v, unsigned i, unsigned width, int is_f64)
{
    struct vsrc *s = &v->s[i];
    unsigned code = v->in->src[i];
    if (code >= CGM_SI_OP_VGPR0) {
        unsigned r = code - CGM_SI_OP_VGPR0;
        unsigned wd = width ? width : 1;
        if (r + wd > v->w->vgprs)
            return si_fault(v->c, v->w, v->in, -1, "source v%u beyond the %u allocated VGPRs", r,
                            v->w->vgprs);
        s->lo = v->w->v + (size_t)r * SI_LANES;
        s->hi = wd > 1 ? s->lo + SI_LANES : s->lo;
        s->step = 1;
        return 0;
    }
    if (code == CGM_SI_OP_LDS_DIRECT)
        return si_fault(v->c, v->w, v->in, -1, "lds_direct operand is not supported");
    uint64_t k = width == 2 ? si_read_scalar64(v->c, v->w, v->in, code, is_f64)
                            : si_read_scalar(v->c, v->w, v->in, code);
    s->k[0] = (uint32_t)k;
    s->k[1] = (uint32_t)(k >> 32);
    s->lo = &s->k[0];
    s->hi = &s->k[1];
    s->step = 0;
    return 0;
}

static inline uint32_t mods32(const struct valu *v, unsigned i, uint32_t x)
{
    if (v->in->abs >> i & 1) x &= 0x7fffffffu;
    if (v->in->neg >> i & 1) x ^= 0x80000000u;
    return x;
}

static inline __attribute__((always_inline)) uint32_t get32(const struct valu *v, unsigned i,
                                                            int lane)
{
    const struct vsrc *s = &v->s[i];
    return mods32(v, i, s->lo[s->step * (unsigned)lane]);
}

static inline uint64_t get64(const struct valu *v, unsigned i, int lane)
{
    const struct vsrc *s = &v->s[i];
    uint64_t x = s->lo[s->step * (unsigned)lane] | (uint64_t)s->hi[s->step * (unsigned)lane] << 32;
    if (v->in->abs >> i & 1) x &= ~(1ull << 63);
    if (v->in->neg >> i & 1) x ^= 1ull << 63;
    return x;
}

static inline float flush(const struct valu *v, float f)
{
    if (v->flush32) {
        uint32_t u = si_f2u(f);
        if ((u & 0x7f800000u) == 0)
            return si_u2f(u & 0x80000000u);
    }
    return f;
}

static inline __attribute__((always_inline)) float getf(const struct valu *v, unsigned i, int lane)
{
    return flush(v, si_u2f(get32(v, i, lane)));
}

static inline double getd(const struct valu *v, unsigned i, int lane)
{
    return si_u2d(get64(v, i, lane));
}

static int exponent32(float f) { return (int)((si_f2u(f) >> 23) & 0xff); }
static int exponent64(double d) { return (int)((si_d2u(d) >> 52) & 0x7ff); }

/* IEEE half precision: float -> half rounding to nearest even (or toward
 * zero for v_cvt_pkrtz), keeping half denormals; half -> float is exact. */
static uint16_t f32_to_f16(float f, int toward_zero)
{
    uint32_t x = si_f2u(f), sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
    int exp = (int)((x >> 23) & 0xff);
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
    int e = exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | (toward_zero ? 0x7bffu : 0x7c00u));
    uint32_t h, rem, halfway;
    if (e <= 0) {                                  /* a half denormal or zero */
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        unsigned shift = (unsigned)(14 - e);
        h = mant >> shift;
        rem = mant & ((1u << shift) - 1);
        halfway = 1u << (shift - 1);
    } else {
        h = (uint32_t)e << 10 | mant >> 13;
        rem = mant & 0x1fffu;
        halfway = 0x1000u;
    }
    if (!toward_zero && (rem > halfway || (rem == halfway && (h & 1))))
        h++;                                       /* a carry may reach infinity: right */
    return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f)
        return si_u2f(sign | 0x7f800000u | m << 13);
    if (e == 0) {
        float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    return si_u2f(sign | (e - 15 + 127) << 23 | m << 13);
}

/* The low 24 bits as a signed number. */
static inline int64_t sext24(uint32_t x)
{
    return (int64_t)((x & 0xffffffu) ^ 0x800000u) - 0x800000;
}

static uint32_t ffbh(uint32_t x) { return x ? (uint32_t)__builtin_clz(x) : ~0u; }

static uint32_t cvt_i32(double x)
{
    if (isnan(x)) return 0;
    if (x >= 2147483647.0) return 0x7fffffffu;
    if (x <= -2147483648.0) return 0x80000000u;
    return (uint32_t)(int32_t)x;
}

static uint32_t cvt_u32(double x)
{
    if (isnan(x) || x <= 0) return 0;
    if (x >= 4294967295.0) return 0xffffffffu;
    return (uint32_t)x;
}

static uint32_t med3u(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t mx = a > b ? a : b, mn = a < b ? a : b;
    return c > mx ? mx : c < mn ? mn : c;
}

static int32_t med3i(int32_t a, int32_t b, int32_t c)
{
    int32_t mx = a > b ? a : b, mn = a < b ? a : b;
    return c > mx ? mx : c < mn ? mn : c;
}

/* ---- compares ------------------------------------------------------------- */

static int fclass(double x, uint32_t mask)
{
    int neg = signbit(x) != 0;
    unsigned bit;
    switch (fpclassify(x)) {
    case FP_NAN: bit = 1; break;   /* quiet; signaling NaNs are not told apart here */
    case FP_INFINITE: bit = neg ? 2 : 9; break;
    case FP_NORMAL: bit = neg ? 3 : 8; break;
    case FP_SUBNORMAL: bit = neg ? 4 : 7; break;
    default: bit = neg ? 5 : 6; break;
    }
    if (bit == 1 && (mask & 1))
        return 1;
    return (mask >> bit) & 1;
}

/* 32-bit integer and float compares without modifiers, a loop per
 * condition; returns 1 with *out set when it handled the op. */
#define CMP_EACH(expr)                                                   \
    for (uint64_t m_ = v->exec; m_; m_ &= m_ - 1) {                      \
        unsigned l = (unsigned)__builtin_ctzll(m_);                      \
        r |= (uint64_t)((expr) != 0) << l;                               \
    }
#define CMP_CONDS(T, CVT)                                                          \
    switch (cmp.cond) {                                                            \
    case SI_CMP_LT: CMP_EACH(CVT(T, a0[sa * l]) < CVT(T, b0[sb * l])); break;      \
    case SI_CMP_EQ: CMP_EACH(CVT(T, a0[sa * l]) == CVT(T, b0[sb * l])); break;     \
    case SI_CMP_LE: CMP_EACH(CVT(T, a0[sa * l]) <= CVT(T, b0[sb * l])); break;     \
    case SI_CMP_GT: CMP_EACH(CVT(T, a0[sa * l]) > CVT(T, b0[sb * l])); break;      \
    case SI_CMP_GE: CMP_EACH(CVT(T, a0[sa * l]) >= CVT(T, b0[sb * l])); break;     \
    default: return 0;                                                             \
    }
#define AS_INT(T, x) ((T)(x))
#define AS_FLOAT(T, x) ((T)flush(v, si_u2f(x)))

static int fast_compare(const struct valu *v, struct si_compare cmp, uint64_t *out)
{
    const uint32_t *a0 = v->s[0].lo, *b0 = v->s[1].lo;
    unsigned sa = v->s[0].step, sb = v->s[1].step;
    uint64_t r = 0;
    if (v->in->abs || v->in->neg)
        return 0;
    switch (cmp.type) {
    case SI_CMP_TYPE_F32:
        CMP_CONDS(float, AS_FLOAT)
        break;
    case SI_CMP_TYPE_I32:
        if (cmp.cond == SI_CMP_LG) { CMP_EACH(a0[sa * l] != b0[sb * l]); }
        else { CMP_CONDS(int32_t, AS_INT) }
        break;
    case SI_CMP_TYPE_U32:
        if (cmp.cond == SI_CMP_LG) { CMP_EACH(a0[sa * l] != b0[sb * l]); }
        else { CMP_CONDS(uint32_t, AS_INT) }
        break;
    default:
        return 0;
    }
    *out = r;
    return 1;
}
#undef CMP_EACH
#undef CMP_CONDS
#undef AS_INT
#undef AS_FLOAT

/* One lane of any compare. */
static int compare_lane(const struct valu *v, struct si_compare cmp, int l)
{
    switch (cmp.type) {
    case SI_CMP_TYPE_F32:
        return si_compare_float(cmp.cond, getf(v, 0, l), getf(v, 1, l));
    case SI_CMP_TYPE_F64:
        return si_compare_float(cmp.cond, getd(v, 0, l), getd(v, 1, l));
    case SI_CMP_TYPE_CLASS_F32:
        return fclass((double)si_u2f(get32(v, 0, l)), get32(v, 1, l));
    case SI_CMP_TYPE_CLASS_F64:
        return fclass(getd(v, 0, l), get32(v, 1, l));
    case SI_CMP_TYPE_I32: {
        int32_t a = (int32_t)get32(v, 0, l), b = (int32_t)get32(v, 1, l);
        return si_compare_int(cmp.cond, a < b, a == b);
    }
    case SI_CMP_TYPE_I64: {
        int64_t a = (int64_t)get64(v, 0, l), b = (int64_t)get64(v, 1, l);
        return si_compare_int(cmp.cond, a < b, a == b);
    }
    case SI_CMP_TYPE_U32: {
        uint32_t a = get32(v, 0, l), b = get32(v, 1, l);
        return si_compare_int(cmp.cond, a < b, a == b);
    }
    case SI_CMP_TYPE_U64: {
        uint64_t a = get64(v, 0, l), b = get64(v, 1, l);
        return si_compare_int(cmp.cond, a < b, a == b);
    }
    }
    return 0;
}

static int vopc(struct valu *v)
{
    struct si_compare cmp = si_compare_of(cgm_si_info(v->in)->code);
    uint64_t result = 0;
    if (!fast_compare(v, cmp, &result))
        for (int l = 0; l < SI_LANES; l++)
            if (v->exec >> l & 1)
                result |= (uint64_t)(compare_lane(v, cmp, l) != 0) << l;
    unsigned dst = v->in->fmt == CGM_SI_FMT_VOP3 ? v->in->dst : CGM_SI_OP_VCC_LO;
    if (si_write_scalar(v->c, v->w, v->in, dst, (uint32_t)result) ||
        si_write_scalar(v->c, v->w, v->in, dst + 1, (uint32_t)(result >> 32)))
        return -1;
    if (cmp.writes_exec)
        si_set_exec(v->w, result);
    return 0;
}

/* ---- the rest ------------------------------------------------------------- */

static uint64_t lane_mask_of(struct valu *v, unsigned src_index)
{
    if (v->in->fmt != CGM_SI_FMT_VOP3)
        return si_vcc(v->w);
    return si_read_scalar64(v->c, v->w, v->in, v->in->src[src_index], 0);
}

static float div_scale32(float s0, float s1, float s2, int *vcc)
{
    *vcc = 0;
    if (s2 == 0.0f || s1 == 0.0f)
        return NAN;
    int e1 = exponent32(s1), e2 = exponent32(s2);
    if (e2 - e1 >= 96) {
        *vcc = 1;
        return s0 == s1 ? ldexpf(s0, 64) : s0;
    }
    if (fpclassify(s1) == FP_SUBNORMAL)
        return ldexpf(s0, 64);
    if (fpclassify(1.0f / s1) == FP_SUBNORMAL && fpclassify(s2 / s1) == FP_NORMAL) {
        *vcc = 1;
        return s0 == s1 ? ldexpf(s0, 64) : s0;
    }
    if (fpclassify(1.0f / s1) == FP_SUBNORMAL)
        return ldexpf(s0, -64);
    if (fpclassify(s2 / s1) == FP_SUBNORMAL) {
        *vcc = 1;
        return s0 == s2 ? ldexpf(s0, 64) : s0;
    }
    if (e2 <= 23)
        return ldexpf(s0, 64);
    return s0;
}

static double div_scale64(double s0, double s1, double s2, int *vcc)
{
    *vcc = 0;
    if (s2 == 0.0 || s1 == 0.0)
        return NAN;
    int e1 = exponent64(s1), e2 = exponent64(s2);
    if (e2 - e1 >= 768) {
        *vcc = 1;
        return s0 == s1 ? ldexp(s0, 128) : s0;
    }
    if (fpclassify(s1) == FP_SUBNORMAL)
        return ldexp(s0, 128);
    if (fpclassify(1.0 / s1) == FP_SUBNORMAL && fpclassify(s2 / s1) == FP_NORMAL) {
        *vcc = 1;
        return s0 == s1 ? ldexp(s0, 128) : s0;
    }
    if (fpclassify(1.0 / s1) == FP_SUBNORMAL)
        return ldexp(s0, -128);
    if (fpclassify(s2 / s1) == FP_SUBNORMAL) {
        *vcc = 1;
        return s0 == s2 ? ldexp(s0, 128) : s0;
    }
    if (e2 <= 53)
        return ldexp(s0, 128);
    return s0;
}

/* The special cases of a quotient, then the computed one with its sign.
 * Exponent differences far outside the range give the IEEE overflow or
 * underflow result whatever the scaled iteration produced; EXP_BITS picks
 * the format (8 for f32, 11 for f64). */
static double div_fixup(double q, double den, double num, int exp_bits)
{
    int neg = (signbit(den) != 0) ^ (signbit(num) != 0);
    if (isnan(num)) return num;
    if (isnan(den)) return den;
    if ((den == 0 && num == 0) || (isinf(den) && isinf(num))) return NAN;
    if (den == 0 || isinf(num)) return neg ? -INFINITY : INFINITY;
    if (isinf(den) || num == 0) return neg ? -0.0 : 0.0;
    int e_num, e_den, bias = (1 << (exp_bits - 1)) - 1, mant = exp_bits == 8 ? 23 : 52;
    frexp(num, &e_num);
    frexp(den, &e_den);
    if (e_num - e_den > bias + 1) return neg ? -INFINITY : INFINITY;
    if (e_num - e_den < -(bias + mant + 1)) return neg ? -0.0 : 0.0;
    return neg ? -fabs(q) : fabs(q);
}

/* Results of 32-bit-result operations for one lane.  *ok = 0: not handled. */
static uint32_t op32(struct valu *v, int l, int *ok, uint64_t *carry, uint64_t mask)
{
    unsigned op = v->op;
    uint32_t a = get32(v, 0, l), b, cc;
    float fa, fb, fc, p;
    uint64_t t;
    switch (op) {
    /* VOP2 */
    case CGM_SI_v_cndmask_b32: return (mask >> l & 1) ? get32(v, 1, l) : a;
    case CGM_SI_v_add_f32: return si_f2u(flush(v, getf(v, 0, l) + getf(v, 1, l)));
    case CGM_SI_v_sub_f32: return si_f2u(flush(v, getf(v, 0, l) - getf(v, 1, l)));
    case CGM_SI_v_subrev_f32: return si_f2u(flush(v, getf(v, 1, l) - getf(v, 0, l)));
    case CGM_SI_v_mac_legacy_f32: case CGM_SI_v_mul_legacy_f32:
        fa = getf(v, 0, l);
        fb = getf(v, 1, l);
        p = (fa == 0.0f || fb == 0.0f) ? 0.0f : fa * fb;
        if (op == CGM_SI_v_mac_legacy_f32)
            p = p + si_u2f(v->w->v[(size_t)(v->in->dst - CGM_SI_OP_VGPR0) * SI_LANES + l]);
        return si_f2u(flush(v, p));
    case CGM_SI_v_mul_f32: return si_f2u(flush(v, getf(v, 0, l) * getf(v, 1, l)));
    case CGM_SI_v_mul_i32_i24: return (uint32_t)(sext24(a) * sext24(get32(v, 1, l)));
    case CGM_SI_v_mul_hi_i32_i24:
        return (uint32_t)((uint64_t)(sext24(a) * sext24(get32(v, 1, l))) >> 32);
    case CGM_SI_v_mul_u32_u24: return (a & 0xffffff) * (get32(v, 1, l) & 0xffffff);
    case CGM_SI_v_mul_hi_u32_u24:
        return (uint32_t)(((uint64_t)(a & 0xffffff) * (get32(v, 1, l) & 0xffffff)) >> 32);
    case CGM_SI_v_min_legacy_f32:
        fa = getf(v, 0, l);
        fb = getf(v, 1, l);
        return si_f2u(fa < fb ? fa : fb);
    case CGM_SI_v_max_legacy_f32:
        fa = getf(v, 0, l);
        fb = getf(v, 1, l);
        return si_f2u(fa > fb ? fa : fb);
    case CGM_SI_v_min_f32: return si_f2u(fminf(getf(v, 0, l), getf(v, 1, l)));
    case CGM_SI_v_max_f32: return si_f2u(fmaxf(getf(v, 0, l), getf(v, 1, l)));
    case CGM_SI_v_min_i32: b = get32(v, 1, l); return (int32_t)a < (int32_t)b ? a : b;
    case CGM_SI_v_max_i32: b = get32(v, 1, l); return (int32_t)a > (int32_t)b ? a : b;
    case CGM_SI_v_min_u32: b = get32(v, 1, l); return a < b ? a : b;
    case CGM_SI_v_max_u32: b = get32(v, 1, l); return a > b ? a : b;
    case CGM_SI_v_lshr_b32: return a >> (get32(v, 1, l) & 31);
    case CGM_SI_v_lshrrev_b32: return get32(v, 1, l) >> (a & 31);
    case CGM_SI_v_ashr_i32: return (uint32_t)((int32_t)a >> (get32(v, 1, l) & 31));
    case CGM_SI_v_ashrrev_i32: return (uint32_t)((int32_t)get32(v, 1, l) >> (a & 31));
    case CGM_SI_v_lshl_b32: return a << (get32(v, 1, l) & 31);
    case CGM_SI_v_lshlrev_b32: return get32(v, 1, l) << (a & 31);
    case CGM_SI_v_and_b32: return a & get32(v, 1, l);
    case CGM_SI_v_or_b32: return a | get32(v, 1, l);
    case CGM_SI_v_xor_b32: return a ^ get32(v, 1, l);
    case CGM_SI_v_bfm_b32: return (uint32_t)(((1ull << (a & 31)) - 1) << (get32(v, 1, l) & 31));
    case CGM_SI_v_mac_f32:
        fc = si_u2f(v->w->v[(size_t)(v->in->dst - CGM_SI_OP_VGPR0) * SI_LANES + l]);
        p = getf(v, 0, l) * getf(v, 1, l);
        return si_f2u(flush(v, p + fc));
    case CGM_SI_v_madmk_f32:
        p = getf(v, 0, l) * si_u2f(v->in->literal);
        return si_f2u(flush(v, p + getf(v, 1, l)));
    case CGM_SI_v_madak_f32:
        p = getf(v, 0, l) * getf(v, 1, l);
        return si_f2u(flush(v, p + si_u2f(v->in->literal)));
    case CGM_SI_v_bcnt_u32_b32: return (uint32_t)__builtin_popcount(a) + get32(v, 1, l);
    case CGM_SI_v_mbcnt_lo_u32_b32:
        return (uint32_t)__builtin_popcount(a & (uint32_t)((1ull << (l < 32 ? l : 32)) - 1)) +
               get32(v, 1, l);
    case CGM_SI_v_mbcnt_hi_u32_b32:
        return (uint32_t)__builtin_popcount(a & (uint32_t)(l <= 32 ? 0
                                                                   : ((1ull << (l - 32)) - 1))) +
               get32(v, 1, l);
    case CGM_SI_v_add_i32:
        t = (uint64_t)a + get32(v, 1, l);
        *carry |= (t >> 32) << l;
        return (uint32_t)t;
    case CGM_SI_v_sub_i32: b = get32(v, 1, l); *carry |= (uint64_t)(b > a) << l; return a - b;
    case CGM_SI_v_subrev_i32: b = get32(v, 1, l); *carry |= (uint64_t)(a > b) << l; return b - a;
    case CGM_SI_v_addc_u32:
        t = (uint64_t)a + get32(v, 1, l) + (mask >> l & 1);
        *carry |= (t >> 32) << l;
        return (uint32_t)t;
    case CGM_SI_v_subb_u32:
        t = (uint64_t)get32(v, 1, l) + (mask >> l & 1);
        *carry |= (uint64_t)(t > a) << l;
        return a - (uint32_t)t;
    case CGM_SI_v_subbrev_u32:
        t = (uint64_t)a + (mask >> l & 1);
        b = get32(v, 1, l);
        *carry |= (uint64_t)(t > b) << l;
        return b - (uint32_t)t;
    case CGM_SI_v_ldexp_f32:
        return si_f2u(flush(v, ldexpf(getf(v, 0, l), (int32_t)get32(v, 1, l))));
    case CGM_SI_v_cvt_pkrtz_f16_f32:
        return (uint32_t)f32_to_f16(getf(v, 1, l), 1) << 16 | f32_to_f16(getf(v, 0, l), 1);
    /* VOP3 only */
    case CGM_SI_v_mad_legacy_f32:
        fa = getf(v, 0, l);
        fb = getf(v, 1, l);
        p = (fa == 0.0f || fb == 0.0f) ? 0.0f : fa * fb;
        return si_f2u(flush(v, p + getf(v, 2, l)));
    case CGM_SI_v_mad_f32:
        p = getf(v, 0, l) * getf(v, 1, l);
        return si_f2u(flush(v, p + getf(v, 2, l)));
    case CGM_SI_v_mad_i32_i24:
        return (uint32_t)(sext24(a) * sext24(get32(v, 1, l)) + (int32_t)get32(v, 2, l));
    case CGM_SI_v_mad_u32_u24:
        return (a & 0xffffff) * (get32(v, 1, l) & 0xffffff) + get32(v, 2, l);
    case CGM_SI_v_bfe_u32: case CGM_SI_v_bfe_i32: {
        unsigned off = get32(v, 1, l) & 31, width = get32(v, 2, l) & 31;
        if (width == 0)
            return 0;
        uint32_t x = (a >> off) & (uint32_t)((1ull << width) - 1);
        if (op == CGM_SI_v_bfe_i32 && (x >> (width - 1) & 1))
            x |= (uint32_t)(~0ull << width);
        return x;
    }
    case CGM_SI_v_bfi_b32: return (a & get32(v, 1, l)) | (~a & get32(v, 2, l));
    case CGM_SI_v_fma_f32:
        return si_f2u(flush(v, fmaf(getf(v, 0, l), getf(v, 1, l), getf(v, 2, l))));
    case CGM_SI_v_alignbit_b32:
        t = (uint64_t)a << 32 | get32(v, 1, l);
        return (uint32_t)(t >> (get32(v, 2, l) & 31));
    case CGM_SI_v_alignbyte_b32:
        t = (uint64_t)a << 32 | get32(v, 1, l);
        return (uint32_t)(t >> (8 * (get32(v, 2, l) & 3)));
    case CGM_SI_v_min3_f32:
        return si_f2u(fminf(fminf(getf(v, 0, l), getf(v, 1, l)), getf(v, 2, l)));
    case CGM_SI_v_min3_i32: {
        int32_t x = (int32_t)a, y = (int32_t)get32(v, 1, l), z = (int32_t)get32(v, 2, l);
        int32_t m = x < y ? x : y;
        return (uint32_t)(m < z ? m : z);
    }
    case CGM_SI_v_min3_u32: {
        uint32_t y = get32(v, 1, l), z = get32(v, 2, l), m = a < y ? a : y;
        return m < z ? m : z;
    }
    case CGM_SI_v_max3_f32:
        return si_f2u(fmaxf(fmaxf(getf(v, 0, l), getf(v, 1, l)), getf(v, 2, l)));
    case CGM_SI_v_max3_i32: {
        int32_t x = (int32_t)a, y = (int32_t)get32(v, 1, l), z = (int32_t)get32(v, 2, l);
        int32_t m = x > y ? x : y;
        return (uint32_t)(m > z ? m : z);
    }
    case CGM_SI_v_max3_u32: {
        uint32_t y = get32(v, 1, l), z = get32(v, 2, l), m = a > y ? a : y;
        return m > z ? m : z;
    }
    case CGM_SI_v_med3_f32: {
        fa = getf(v, 0, l);
        fb = getf(v, 1, l);
        fc = getf(v, 2, l);
        float mx = fmaxf(fa, fb), mn = fminf(fa, fb);
        return si_f2u(fc > mx ? mx : fc < mn ? mn : fc);
    }
    case CGM_SI_v_med3_i32:
        return (uint32_t)med3i((int32_t)a, (int32_t)get32(v, 1, l), (int32_t)get32(v, 2, l));
    case CGM_SI_v_med3_u32: return med3u(a, get32(v, 1, l), get32(v, 2, l));
    case CGM_SI_v_sad_u8:
        b = get32(v, 1, l);
        cc = get32(v, 2, l);
        for (int k = 0; k < 32; k += 8) {
            int x = (int)((a >> k) & 0xff), y = (int)((b >> k) & 0xff);
            cc += (uint32_t)(x > y ? x - y : y - x);
        }
        return cc;
    case CGM_SI_v_sad_u16:
        b = get32(v, 1, l);
        cc = get32(v, 2, l);
        for (int k = 0; k < 32; k += 16) {
            int x = (int)((a >> k) & 0xffff), y = (int)((b >> k) & 0xffff);
            cc += (uint32_t)(x > y ? x - y : y - x);
        }
        return cc;
    case CGM_SI_v_sad_u32: b = get32(v, 1, l); return (a > b ? a - b : b - a) + get32(v, 2, l);
    case CGM_SI_v_div_fixup_f32:
        return si_f2u((float)div_fixup(getf(v, 0, l), getf(v, 1, l), getf(v, 2, l), 8));
    case CGM_SI_v_mul_lo_u32: case CGM_SI_v_mul_lo_i32: return a * get32(v, 1, l);
    case CGM_SI_v_mul_hi_u32: return (uint32_t)(((uint64_t)a * get32(v, 1, l)) >> 32);
    case CGM_SI_v_mul_hi_i32:
        return (uint32_t)(((int64_t)(int32_t)a * (int32_t)get32(v, 1, l)) >> 32);
    case CGM_SI_v_div_scale_f32: {
        int s;
        float r = div_scale32(getf(v, 0, l), getf(v, 1, l), getf(v, 2, l), &s);
        *carry |= (uint64_t)s << l;
        return si_f2u(r);
    }
    case CGM_SI_v_div_fmas_f32: {
        float r = fmaf(getf(v, 0, l), getf(v, 1, l), getf(v, 2, l));
        if (si_vcc(v->w) >> l & 1)
            r = ldexpf(r, exponent32(getf(v, 2, l)) > 127 ? 64 : -64);
        return si_f2u(flush(v, r));
    }
    /* VOP1 */
    case CGM_SI_v_mov_b32: return a;
    case CGM_SI_v_cvt_i32_f64: return cvt_i32(getd(v, 0, l));
    case CGM_SI_v_cvt_f32_i32: return si_f2u((float)(int32_t)a);
    case CGM_SI_v_cvt_f32_u32: return si_f2u((float)a);
    case CGM_SI_v_cvt_u32_f32: return cvt_u32(getf(v, 0, l));
    case CGM_SI_v_cvt_i32_f32: return cvt_i32(getf(v, 0, l));
    case CGM_SI_v_cvt_f16_f32: return f32_to_f16(getf(v, 0, l), 0);
    case CGM_SI_v_cvt_f32_f16: return si_f2u(f16_to_f32((uint16_t)a));
    case CGM_SI_v_cvt_rpi_i32_f32: return cvt_i32(floorf(getf(v, 0, l) + 0.5f));
    case CGM_SI_v_cvt_flr_i32_f32: return cvt_i32(floorf(getf(v, 0, l)));
    case CGM_SI_v_cvt_f32_f64: return si_f2u(flush(v, (float)getd(v, 0, l)));
    case CGM_SI_v_cvt_f32_ubyte0: return si_f2u((float)(a & 0xff));
    case CGM_SI_v_cvt_f32_ubyte1: return si_f2u((float)((a >> 8) & 0xff));
    case CGM_SI_v_cvt_f32_ubyte2: return si_f2u((float)((a >> 16) & 0xff));
    case CGM_SI_v_cvt_f32_ubyte3: return si_f2u((float)(a >> 24));
    case CGM_SI_v_cvt_u32_f64: return cvt_u32(getd(v, 0, l));
    case CGM_SI_v_fract_f32:
        fa = getf(v, 0, l);
        fb = fa - floorf(fa);
        return si_f2u(fb >= 1.0f ? 0x1.fffffep-1f : fb);
    case CGM_SI_v_trunc_f32: return si_f2u(truncf(getf(v, 0, l)));
    case CGM_SI_v_ceil_f32: return si_f2u(ceilf(getf(v, 0, l)));
    case CGM_SI_v_rndne_f32: return si_f2u(rintf(getf(v, 0, l)));
    case CGM_SI_v_floor_f32: return si_f2u(floorf(getf(v, 0, l)));
    case CGM_SI_v_exp_f32: return si_f2u(flush(v, exp2f(getf(v, 0, l))));
    case CGM_SI_v_log_clamp_f32: case CGM_SI_v_log_f32: return si_f2u(log2f(getf(v, 0, l)));
    case CGM_SI_v_rcp_clamp_f32: case CGM_SI_v_rcp_legacy_f32: case CGM_SI_v_rcp_f32:
    case CGM_SI_v_rcp_iflag_f32:
        return si_f2u(flush(v, 1.0f / getf(v, 0, l)));
    case CGM_SI_v_rsq_clamp_f32: case CGM_SI_v_rsq_legacy_f32: case CGM_SI_v_rsq_f32:
        return si_f2u(flush(v, 1.0f / sqrtf(getf(v, 0, l))));
    case CGM_SI_v_sqrt_f32: return si_f2u(sqrtf(getf(v, 0, l)));
    case CGM_SI_v_sin_f32: return si_f2u((float)sin((double)getf(v, 0, l) * PI2));
    case CGM_SI_v_cos_f32: return si_f2u((float)cos((double)getf(v, 0, l) * PI2));
    case CGM_SI_v_not_b32: return ~a;
    case CGM_SI_v_bfrev_b32:
        cc = 0;
        for (int i = 0; i < 32; i++)
            cc |= ((a >> i) & 1) << (31 - i);
        return cc;
    case CGM_SI_v_ffbh_u32: return ffbh(a);
    case CGM_SI_v_ffbl_b32: return a ? (uint32_t)__builtin_ctz(a) : ~0u;
    case CGM_SI_v_ffbh_i32: return (a == 0 || a == ~0u) ? ~0u : ffbh((int32_t)a < 0 ? ~a : a);
    case CGM_SI_v_frexp_exp_i32_f64: {
        double d = getd(v, 0, l);
        int e = 0;
        if (isnan(d) || isinf(d))
            return 0;
        frexp(d, &e);
        return (uint32_t)e;
    }
    case CGM_SI_v_frexp_exp_i32_f32: {
        fa = getf(v, 0, l);
        int e = 0;
        if (isnan(fa) || isinf(fa))
            return 0;
        frexpf(fa, &e);
        return (uint32_t)e;
    }
    case CGM_SI_v_frexp_mant_f32: {
        fa = getf(v, 0, l);
        int e;
        if (isnan(fa) || isinf(fa))
            return si_f2u(fa);
        return si_f2u(frexpf(fa, &e));
    }
    default:
        *ok = 0;
        return 0;
    }
}

/* Results of 64-bit-result operations for one lane. */
static uint64_t op64(struct valu *v, int l, int *ok, uint64_t *carry)
{
    double d;
    switch (v->op) {
    case CGM_SI_v_fma_f64: return si_d2u(fma(getd(v, 0, l), getd(v, 1, l), getd(v, 2, l)));
    case CGM_SI_v_div_fixup_f64:
        return si_d2u(div_fixup(getd(v, 0, l), getd(v, 1, l), getd(v, 2, l), 11));
    case CGM_SI_v_lshl_b64: return get64(v, 0, l) << (get32(v, 1, l) & 63);
    case CGM_SI_v_lshr_b64: return get64(v, 0, l) >> (get32(v, 1, l) & 63);
    case CGM_SI_v_ashr_i64: return (uint64_t)((int64_t)get64(v, 0, l) >> (get32(v, 1, l) & 63));
    case CGM_SI_v_add_f64: return si_d2u(getd(v, 0, l) + getd(v, 1, l));
    case CGM_SI_v_mul_f64: return si_d2u(getd(v, 0, l) * getd(v, 1, l));
    case CGM_SI_v_min_f64: return si_d2u(fmin(getd(v, 0, l), getd(v, 1, l)));
    case CGM_SI_v_max_f64: return si_d2u(fmax(getd(v, 0, l), getd(v, 1, l)));
    case CGM_SI_v_ldexp_f64: return si_d2u(ldexp(getd(v, 0, l), (int32_t)get32(v, 1, l)));
    case CGM_SI_v_div_scale_f64: {
        int s;
        d = div_scale64(getd(v, 0, l), getd(v, 1, l), getd(v, 2, l), &s);
        *carry |= (uint64_t)s << l;
        return si_d2u(d);
    }
    case CGM_SI_v_div_fmas_f64:
        d = fma(getd(v, 0, l), getd(v, 1, l), getd(v, 2, l));
        if (si_vcc(v->w) >> l & 1)
            d = ldexp(d, exponent64(getd(v, 2, l)) > 1023 ? 128 : -128);
        return si_d2u(d);
    case CGM_SI_v_cvt_f64_i32: return si_d2u((double)(int32_t)get32(v, 0, l));
    case CGM_SI_v_cvt_f64_f32: return si_d2u((double)getf(v, 0, l));
    case CGM_SI_v_cvt_f64_u32: return si_d2u((double)get32(v, 0, l));
    case CGM_SI_v_rcp_f64: case CGM_SI_v_rcp_clamp_f64: return si_d2u(1.0 / getd(v, 0, l));
    case CGM_SI_v_rsq_f64: case CGM_SI_v_rsq_clamp_f64:
        return si_d2u(1.0 / sqrt(getd(v, 0, l)));
    case CGM_SI_v_sqrt_f64: return si_d2u(sqrt(getd(v, 0, l)));
    case CGM_SI_v_frexp_mant_f64: {
        int e;
        d = getd(v, 0, l);
        if (isnan(d) || isinf(d))
            return si_d2u(d);
        return si_d2u(frexp(d, &e));
    }
    case CGM_SI_v_fract_f64: {
        d = getd(v, 0, l);
        double f = d - floor(d);
        return si_d2u(f >= 1.0 ? 0x1.fffffffffffffp-1 : f);
    }
    default:
        *ok = 0;
        return 0;
    }
}

/* Common operations without source or output modifiers, one loop each (the
 * general path switches per lane).  Returns 1 when it handled the op. */
#define EACH(...)                                                        \
    for (uint64_t m_ = v->exec; m_; m_ &= m_ - 1) {                      \
        unsigned l = (unsigned)__builtin_ctzll(m_);                      \
        __VA_ARGS__;                                                     \
    }
#define A (a0[a_step * l])
#define B (b0[b_step * l])
#define C (c0[c_step * l])
#define A64 (A | (uint64_t)v->s[0].hi[a_step * l] << 32)
#define B64 (B | (uint64_t)v->s[1].hi[b_step * l] << 32)
#define F(x) flush(v, si_u2f(x))
#define OUTF(x) (dlo[l] = si_f2u(flush(v, (x))))
#define OUT64(x) (dlo[l] = (uint32_t)(x), dhi[l] = (uint32_t)((x) >> 32))

static int fast_valu(struct valu *v, uint32_t *dlo, uint32_t *dhi, uint64_t *carry,
                     uint64_t mask)
{
    const uint32_t *a0 = v->s[0].lo, *b0 = v->s[1].lo, *c0 = v->s[2].lo;
    unsigned a_step = v->s[0].step, b_step = v->s[1].step, c_step = v->s[2].step;
    uint64_t cy = 0;
    switch (v->op) {
    case CGM_SI_v_mov_b32: EACH(dlo[l] = A); break;
    case CGM_SI_v_cndmask_b32: EACH(dlo[l] = (mask >> l & 1) ? B : A); break;
    case CGM_SI_v_add_f32: EACH(OUTF(F(A) + F(B))); break;
    case CGM_SI_v_sub_f32: EACH(OUTF(F(A) - F(B))); break;
    case CGM_SI_v_subrev_f32: EACH(OUTF(F(B) - F(A))); break;
    case CGM_SI_v_mul_f32: EACH(OUTF(F(A) * F(B))); break;
    case CGM_SI_v_min_f32: EACH(dlo[l] = si_f2u(fminf(F(A), F(B)))); break;
    case CGM_SI_v_max_f32: EACH(dlo[l] = si_f2u(fmaxf(F(A), F(B)))); break;
    case CGM_SI_v_mac_f32: EACH(float p = F(A) * F(B); OUTF(p + F(dlo[l]))); break;
    case CGM_SI_v_mad_f32: EACH(float p = F(A) * F(B); OUTF(p + F(C))); break;
    case CGM_SI_v_fma_f32: EACH(OUTF(fmaf(F(A), F(B), F(C)))); break;
    case CGM_SI_v_min_i32: EACH(dlo[l] = (int32_t)A < (int32_t)B ? A : B); break;
    case CGM_SI_v_max_i32: EACH(dlo[l] = (int32_t)A > (int32_t)B ? A : B); break;
    case CGM_SI_v_min_u32: EACH(dlo[l] = A < B ? A : B); break;
    case CGM_SI_v_max_u32: EACH(dlo[l] = A > B ? A : B); break;
    case CGM_SI_v_lshr_b32: EACH(dlo[l] = A >> (B & 31)); break;
    case CGM_SI_v_lshrrev_b32: EACH(dlo[l] = B >> (A & 31)); break;
    case CGM_SI_v_ashr_i32: EACH(dlo[l] = (uint32_t)((int32_t)A >> (B & 31))); break;
    case CGM_SI_v_ashrrev_i32: EACH(dlo[l] = (uint32_t)((int32_t)B >> (A & 31))); break;
    case CGM_SI_v_lshl_b32: EACH(dlo[l] = A << (B & 31)); break;
    case CGM_SI_v_lshlrev_b32: EACH(dlo[l] = B << (A & 31)); break;
    case CGM_SI_v_and_b32: EACH(dlo[l] = A & B); break;
    case CGM_SI_v_or_b32: EACH(dlo[l] = A | B); break;
    case CGM_SI_v_xor_b32: EACH(dlo[l] = A ^ B); break;
    case CGM_SI_v_add_i32:
        EACH(uint64_t t = (uint64_t)A + B; cy |= (t >> 32) << l; dlo[l] = (uint32_t)t);
        break;
    case CGM_SI_v_sub_i32:
        EACH(uint32_t a = A, b = B; cy |= (uint64_t)(b > a) << l; dlo[l] = a - b);
        break;
    case CGM_SI_v_subrev_i32:
        EACH(uint32_t a = A, b = B; cy |= (uint64_t)(a > b) << l; dlo[l] = b - a);
        break;
    case CGM_SI_v_addc_u32:
        EACH(uint64_t t = (uint64_t)A + B + (mask >> l & 1); cy |= (t >> 32) << l;
             dlo[l] = (uint32_t)t);
        break;
    case CGM_SI_v_subb_u32:
        EACH(uint32_t a = A; uint64_t t = (uint64_t)B + (mask >> l & 1);
             cy |= (uint64_t)(t > a) << l; dlo[l] = a - (uint32_t)t);
        break;
    case CGM_SI_v_mul_lo_u32: case CGM_SI_v_mul_lo_i32: EACH(dlo[l] = A * B); break;
    case CGM_SI_v_mul_hi_u32: EACH(dlo[l] = (uint32_t)(((uint64_t)A * B) >> 32)); break;
    case CGM_SI_v_bfe_u32:
        EACH(unsigned off = B & 31, w = C & 31;
             dlo[l] = w ? (A >> off) & (uint32_t)((1ull << w) - 1) : 0);
        break;
    case CGM_SI_v_bfi_b32: EACH(dlo[l] = (A & B) | (~A & C)); break;
    case CGM_SI_v_lshl_b64: EACH(uint64_t x = A64 << (B & 63); OUT64(x)); break;
    case CGM_SI_v_add_f64: EACH(uint64_t x = si_d2u(si_u2d(A64) + si_u2d(B64)); OUT64(x)); break;
    case CGM_SI_v_mul_f64: EACH(uint64_t x = si_d2u(si_u2d(A64) * si_u2d(B64)); OUT64(x)); break;
    default:
        return 0;
    }
    *carry = cy;
    return 1;
}
#undef EACH
#undef A
#undef B
#undef C
#undef A64
#undef B64
#undef F
#undef OUTF
#undef OUT64

static uint32_t output_mods32(const struct cgm_si_inst *in, uint32_t x)
{
    float f = si_u2f(x);
    if (in->omod == 1) f *= 2.0f;
    else if (in->omod == 2) f *= 4.0f;
    else if (in->omod == 3) f *= 0.5f;
    if (in->clamp) f = f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : isnan(f) ? 0.0f : f;
    return si_f2u(f);
}

static uint64_t output_mods64(const struct cgm_si_inst *in, uint64_t x)
{
    double f = si_u2d(x);
    if (in->omod == 1) f *= 2.0;
    else if (in->omod == 2) f *= 4.0;
    else if (in->omod == 3) f *= 0.5;
    if (in->clamp) f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : isnan(f) ? 0.0 : f;
    return si_d2u(f);
}

static int lane_moves(struct valu *v)
{
    struct si_wave *w = v->w;
    const struct cgm_si_inst *in = v->in;
    switch (v->op) {
    case CGM_SI_v_readlane_b32: {
        unsigned lane = si_read_scalar(v->c, w, in, in->src[1]) & 63;
        return si_write_scalar(v->c, w, in, in->dst, v->s[0].lo[v->s[0].step * lane]);
    }
    case CGM_SI_v_writelane_b32: {
        unsigned lane = si_read_scalar(v->c, w, in, in->src[1]) & 63;
        unsigned r = in->dst - CGM_SI_OP_VGPR0;
        w->v[(size_t)r * SI_LANES + lane] = v->s[0].lo[0];
        return 0;
    }
    case CGM_SI_v_readfirstlane_b32: {
        unsigned lane = v->exec ? (unsigned)__builtin_ctzll(v->exec) : 0;
        return si_write_scalar(v->c, w, in, in->dst, v->s[0].lo[v->s[0].step * lane]);
    }
    default: {                                 /* v_movreld, v_movrels, v_movrelsd */
        unsigned m0 = w->s[CGM_SI_OP_M0];
        unsigned src = in->src[0] - CGM_SI_OP_VGPR0 + (v->op == CGM_SI_v_movreld_b32 ? 0 : m0);
        unsigned dst = in->dst - CGM_SI_OP_VGPR0 + (v->op == CGM_SI_v_movrels_b32 ? 0 : m0);
        if (in->src[0] < CGM_SI_OP_VGPR0 || src >= w->vgprs || dst >= w->vgprs)
            return si_fault(v->c, w, in, -1, "relative VGPR index out of range (m0 = %u)", m0);
        for (int l = 0; l < SI_LANES; l++)
            if (v->exec >> l & 1)
                w->v[(size_t)dst * SI_LANES + l] = w->v[(size_t)src * SI_LANES + l];
        return 0;
    }
    }
}

int si_exec_valu(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    struct valu v;
    v.c = c;
    v.w = w;
    v.in = in;
    v.exec = si_exec(w);
    v.flush32 = ((w->mode >> 4) & 3) != 3;     /* MODE.FP_DENORM for f32 */
    v.op = in->opcode;
    if (v.op == CGM_SI_v_nop || v.op == CGM_SI_v_clrexcp)
        return 0;
    const struct cgm_si_widths *wd = &cgm_si_info(in)->widths;
    unsigned nsrc = in->fmt == CGM_SI_FMT_VOP3 ? 3 : (in->fmt == CGM_SI_FMT_VOP1 ? 1 : 2);
    /* 64-bit sources read float constants as doubles (integer 64-bit ops
     * with float constants do not occur in compiled code). */
    for (unsigned i = 0; i < nsrc; i++)
        if (fetch(&v, i, wd->src[i], wd->src[i] == 2))
            return -1;
    if (cgm_si_info(in)->fmt == CGM_SI_FMT_VOPC)
        return vopc(&v);
    switch (v.op) {
    case CGM_SI_v_readlane_b32: case CGM_SI_v_writelane_b32: case CGM_SI_v_readfirstlane_b32:
    case CGM_SI_v_movreld_b32: case CGM_SI_v_movrels_b32: case CGM_SI_v_movrelsd_b32:
        return lane_moves(&v);
    default:
        break;
    }

    unsigned dwidth = wd->dst ? wd->dst : 1;
    unsigned dreg = in->dst - CGM_SI_OP_VGPR0;
    if (in->dst < CGM_SI_OP_VGPR0 || dreg + dwidth > w->vgprs)
        return si_fault(c, w, in, -1, "destination beyond the %u allocated VGPRs", w->vgprs);
    uint32_t *dlo = w->v + (size_t)dreg * SI_LANES, *dhi = dlo + SI_LANES;
    uint64_t mask = 0, carry = 0;
    if (wd->src[2] && cgm_si_info(in)->fmt == CGM_SI_FMT_VOP2)   /* cndmask, carry in */
        mask = lane_mask_of(&v, 2);
    int ok = 1, mods = in->fmt == CGM_SI_FMT_VOP3 && (in->omod || in->clamp);
    if (!mods && !in->abs && !in->neg && fast_valu(&v, dlo, dhi, &carry, mask))
        goto carry_out;
    for (int l = 0; l < SI_LANES; l++) {
        if (!(v.exec >> l & 1))
            continue;
        if (dwidth == 2) {
            uint64_t r = op64(&v, l, &ok, &carry);
            if (!ok)
                break;
            if (mods)
                r = output_mods64(in, r);
            dlo[l] = (uint32_t)r;
            dhi[l] = (uint32_t)(r >> 32);
        } else {
            uint32_t r = op32(&v, l, &ok, &carry, mask);
            if (!ok)
                break;
            if (mods)
                r = output_mods32(in, r);
            dlo[l] = r;
        }
    }
    if (!ok)
        return si_fault(c, w, in, -1, "unimplemented vector instruction");
carry_out:
    /* Carry/borrow and div_scale flags: VCC for VOP2, SDST for VOP3b. */
    if (cgm_si_is_vop3b((enum cgm_si_opcode)v.op)) {
        unsigned sd = in->fmt == CGM_SI_FMT_VOP3 ? in->sdst : CGM_SI_OP_VCC_LO;
        if (si_write_scalar(c, w, in, sd, (uint32_t)carry) ||
            si_write_scalar(c, w, in, sd + 1, (uint32_t)(carry >> 32)))
            return -1;
    }
    return 0;
}
