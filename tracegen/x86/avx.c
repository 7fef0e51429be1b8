/* VEX instructions without a legacy SSE twin (AVX, AVX2, FMA, F16C):
 * vzeroupper/vzeroall, broadcasts, 128-bit inserts, extracts and lane
 * permutes, element permutes, dword blends, variable shifts, vtestps/pd,
 * masked loads and stores, gathers, fused multiply-add and half-precision
 * conversions. Operand roles are those of simd.h. Masked moves and
 * gathers touch memory one element at a time (one access each, and only
 * the elements their mask selects), as the processor does. */
#include <capstone/capstone.h>
#include <math.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/fma_host.h"
#include "tracegen/x86/fpenv.h"
#include "tracegen/x86/interp.h"
#include "tracegen/x86/ops.h"
#include "tracegen/x86/operand.h"
#include "tracegen/x86/simd.h"

#define FL_IE 0x01u
#define FL_DE 0x02u
#define FL_OE 0x08u
#define FL_UE 0x10u
#define FL_PE 0x20u

/* ---- broadcasts, inserts, extracts, permutes ---- */

/* Copies the low ESIZE bytes of S into every element of R over VL bytes. */
static void broadcast(ymm_t *r, const ymm_t *s, unsigned esize, unsigned vl)
{
    if (esize == 16) {
        r->x[0] = r->x[1] = s->x[0];
        return;
    }
    uint64_t v = x86_elem_get(s->b, esize);
    for (unsigned i = 0; i < vl / esize; i++)
        x86_elem_set(r->b + i * esize, esize, v);
}

/* vpermilps/vpermilpd: elements chosen within each lane, by an imm8 or by
 * a control vector. */
static void permil(const struct x86_dinsn *in, ymm_t *r, const ymm_t *a, const ymm_t *b,
                   unsigned vl, int pd)
{
    int by_imm = in->o[2].kind == OPK_IMM;
    const ymm_t *src = by_imm ? b : a;
    for (unsigned i = 0; i < vl / (pd ? 8 : 4); i++) {
        unsigned lane_first = pd ? (i & ~1u) : (i & ~3u);
        unsigned sel;
        if (pd)
            sel = by_imm ? (in->imm >> (i & 7)) & 1 : (unsigned)(b->q[i] >> 1) & 1;
        else
            sel = by_imm ? (in->imm >> (2 * (i & 3))) & 3 : b->d[i] & 3;
        if (pd)
            r->q[i] = src->q[lane_first + sel];
        else
            r->d[i] = src->d[lane_first + sel];
    }
}

/* vperm2f128/vperm2i128: each destination lane from either source's lanes. */
static void perm2x128(ymm_t *r, const ymm_t *a, const ymm_t *b, unsigned imm)
{
    for (unsigned l = 0; l < 2; l++) {
        unsigned sel = imm >> (4 * l);
        const ymm_t *s = (sel & 2) ? b : a;
        if (sel & 8)
            memset(&r->x[l], 0, sizeof r->x[l]);
        else
            r->x[l] = s->x[sel & 1];
    }
}

/* Variable shifts of AVX2: element I of A by element I of B. */
static void shift_variable(ymm_t *r, const ymm_t *a, const ymm_t *b, unsigned vl, unsigned esize,
                           int right, int arith)
{
    unsigned bits = esize * 8;
    for (unsigned i = 0; i < vl / esize; i++) {
        uint64_t v = x86_elem_get(a->b + i * esize, esize);
        uint64_t cnt = x86_elem_get(b->b + i * esize, esize);
        if (arith) {
            int64_t sv = (int64_t)(v << (64 - bits)) >> (64 - bits);
            v = (uint64_t)(sv >> (cnt >= bits ? bits - 1 : cnt));
        } else {
            v = cnt >= bits ? 0 : right ? v >> cnt : v << cnt;
        }
        x86_elem_set(r->b + i * esize, esize, v);
    }
}

/* ---- fused multiply-add ---- */

/* The shape byte (in->aux) of an FMA instruction: in bits 0-1 which
 * elements subtract the addend (bit 0 the even ones, bit 1 the odd ones),
 * bit 2 a negated product, the operand order in bits 3-4 (0: 132, 1: 213,
 * 2: 231), scalar in bit 5, double in bit 6. */
int x86_fma_shape(const char *mnemonic, uint8_t *shape)
{
    static const struct { const char *name; uint8_t signs; } kinds[] = {
        { "maddsub", 1 }, { "msubadd", 2 }, { "madd", 0 },
        { "msub", 3 }, { "nmadd", 4 }, { "nmsub", 4 | 3 },
    };
    static const char *const orders[] = { "132", "213", "231" };
    if (strncmp(mnemonic, "vf", 2))
        return 0;
    const char *p = mnemonic + 2;
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].name);
        if (strncmp(p, kinds[k].name, n))
            continue;
        for (unsigned o = 0; o < 3; o++) {
            const char *t = p + n;
            if (strncmp(t, orders[o], 3) || strlen(t + 3) != 2)
                continue;
            t += 3;
            if ((t[0] != 'p' && t[0] != 's') || (t[1] != 's' && t[1] != 'd'))
                return 0;
            *shape = (uint8_t)(kinds[k].signs | (o << 3) | ((t[0] == 's') << 5) |
                               ((t[1] == 'd') << 6));
            return 1;
        }
        return 0;
    }
    return 0;
}

/* NaN tests on the bits: a floating-point compare would raise the
 * denormal exception for another operand, which the processor does not. */
static int nan64(uint64_t u) { return (u & ~(1ull << 63)) > 0x7ff0000000000000ull; }
static int nan32(uint32_t u) { return (u & ~(1u << 31)) > 0x7f800000u; }

/* Without a host FMA unit (fma_host.h), one element: x * y + z (OP in
 * the order multiplicand, multiplier, addend) with the kind's signs. A
 * NaN operand is returned quieted, the first in that order, as the
 * processor does; invalid for a signaling one (or inf * 0, which fma
 * raises). */
static uint64_t fma_f64(const uint64_t op[3], int negate_product, int subtract, uint32_t *flags)
{
    for (int k = 0; k < 3; k++) {
        if (nan64(op[k])) {
            for (int j = 0; j < 3; j++)
                if (nan64(op[j]) && !(op[j] & (1ull << 51)))
                    *flags |= FL_IE;
            return op[k] | (1ull << 51);
        }
    }
    double x, y, z;
    memcpy(&x, &op[0], 8);
    memcpy(&y, &op[1], 8);
    memcpy(&z, &op[2], 8);
    double r = fma(negate_product ? -x : x, y, subtract ? -z : z);
    uint64_t u;
    memcpy(&u, &r, 8);
    return u;
}

static uint32_t fma_f32(const uint32_t op[3], int negate_product, int subtract, uint32_t *flags)
{
    for (int k = 0; k < 3; k++) {
        if (nan32(op[k])) {
            for (int j = 0; j < 3; j++)
                if (nan32(op[j]) && !(op[j] & (1u << 22)))
                    *flags |= FL_IE;
            return op[k] | (1u << 22);
        }
    }
    float x, y, z;
    memcpy(&x, &op[0], 4);
    memcpy(&y, &op[1], 4);
    memcpy(&z, &op[2], 4);
    float r = fmaf(negate_product ? -x : x, y, subtract ? -z : z);
    uint32_t u;
    memcpy(&u, &r, 4);
    return u;
}

/* The product's operands and the addend, by operand number (0 the
 * destination, 1 vvvv, 2 r/m), for the orders 132, 213 and 231. */
static const unsigned fma_orders[3][3] = { { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 } };

/* An FMA source register, its upper half zero in the 128-bit forms. */
static void fma_register(struct x86_cpu *c, const struct x86_opnd *o, ymm_t *v)
{
    v->x[0] = c->xmm[o->reg];
    if (o->size == 32)
        v->x[1] = c->yhi[o->reg];
    else
        memset(&v->x[1], 0, sizeof v->x[1]);
}

/* An FMA instruction's memory source, read before any register is
 * written (a fault leaves them all). */
static void fma_memory(struct x86_cpu *c, const struct x86_dinsn *in, ymm_t *v)
{
    const struct x86_opnd *m = &in->o[2];
    uint64_t a = op_ea(c, m);
    x86_vec_check_align(c, in, a);
    memset(v, 0, sizeof *v);
    if (m->size == 4 || m->size == 8)
        v->q[0] = x86_read(c, a, m->size);
    else
        x86_read_bytes(c, a, v->b, m->size == 32 ? 32 : 16);
}

/* Element 0 of a scalar form from OP (multiplicand, multiplier, addend)
 * without a host FMA unit. */
__attribute__((noinline)) static uint64_t fma_scalar_software(struct x86_cpu *c,
                                                              const struct x86_dinsn *in,
                                                              const uint64_t op[3])
{
    int neg = (in->aux >> 2) & 1, sub = in->aux & 1; /* element 0 is even */
    uint32_t flags = 0;
    uint64_t r;
    if ((in->aux >> 6) & 1) {
        r = fma_f64(op, neg, sub, &flags);
    } else {
        uint32_t op32[3] = { (uint32_t)op[0], (uint32_t)op[1], (uint32_t)op[2] };
        r = fma_f32(op32, neg, sub, &flags);
    }
    if (flags)
        x86_simd_raise(c, flags);
    return r;
}

/* The scalar forms: element 0 computed from the registers themselves, the
 * rest of the destination's XMM register kept, its upper half cleared. */
void x86_vex_fma_scalar(struct x86_cpu *c, const struct x86_dinsn *in)
{
    const unsigned *order = fma_orders[(in->aux >> 3) & 3];
    const struct x86_opnd *m = &in->o[2];
    unsigned d = in->o[0].reg;
    int dbl = (in->aux >> 6) & 1;
    uint64_t e[3]; /* element 0 of the destination, vvvv and r/m */
    if (m->kind == OPK_MEM && (m->size == 4 || m->size == 8)) {
        uint64_t a = op_ea(c, m);
        x86_vec_check_align(c, in, a);
        e[2] = x86_read(c, a, m->size);
    } else if (m->kind == OPK_MEM) {
        ymm_t v;
        fma_memory(c, in, &v);
        e[2] = v.q[0];
    } else {
        e[2] = c->xmm[m->reg].q[0];
    }
    e[0] = c->xmm[d].q[0];
    e[1] = c->xmm[in->o[1].reg].q[0];
    uint64_t op[3] = { e[order[0]], e[order[1]], e[order[2]] }, r;
    if (!x86_fma_host())
        r = fma_scalar_software(c, in, op);
    else if (dbl)
        r = x86_fma_host_sd(in->aux & 7, op[0], op[1], op[2]);
    else
        r = x86_fma_host_ss(in->aux & 7, (uint32_t)op[0], (uint32_t)op[1], (uint32_t)op[2]);
    if (dbl)
        c->xmm[d].q[0] = r;
    else
        c->xmm[d].d[0] = (uint32_t)r;
    memset(&c->yhi[d], 0, sizeof c->yhi[d]);
}

/* The packed forms: every element of the vector length (the upper halves
 * read as zero at 128 bits). */
void x86_vex_fma(struct x86_cpu *c, const struct x86_dinsn *in)
{
    const unsigned *order = fma_orders[(in->aux >> 3) & 3];
    int neg = (in->aux >> 2) & 1;
    unsigned sub = in->aux & 3;
    unsigned d = in->o[0].reg;
    uint32_t flags = 0;
    ymm_t v[3];
    if (in->o[2].kind == OPK_MEM)
        fma_memory(c, in, &v[2]);
    else
        fma_register(c, &in->o[2], &v[2]);
    fma_register(c, &in->o[0], &v[0]);
    fma_register(c, &in->o[1], &v[1]);
    ymm_t r = v[0];
    if (x86_fma_host()) {
        x86_fma_host_packed(in->aux & 7, (in->aux >> 6) & 1, in->vl, &r, &v[order[0]],
                            &v[order[1]], &v[order[2]]);
    } else if ((in->aux >> 6) & 1) {
        for (unsigned i = 0; i < in->vl / 8; i++) {
            uint64_t op[3] = { v[order[0]].q[i], v[order[1]].q[i], v[order[2]].q[i] };
            r.q[i] = fma_f64(op, neg, (sub >> (i & 1)) & 1, &flags);
        }
    } else {
        for (unsigned i = 0; i < in->vl / 4; i++) {
            uint32_t op[3] = { v[order[0]].d[i], v[order[1]].d[i], v[order[2]].d[i] };
            r.d[i] = fma_f32(op, neg, (sub >> (i & 1)) & 1, &flags);
        }
    }
    c->xmm[d] = r.x[0];
    c->yhi[d] = r.x[1];
    if (flags)
        x86_simd_raise(c, flags);
}

unsigned x86_fma_run_form(const struct x86_dinsn *in)
{
    if (in->nops != 3 || in->o[0].kind != OPK_XMM || in->o[1].kind != OPK_XMM ||
        (in->o[2].kind != OPK_XMM && in->o[2].kind != OPK_MEM))
        return 0;
    return (in->aux >> 5) & 1 ? RUN_VEX_FMA_SCALAR : RUN_VEX_FMA;
}

/* ---- half precision (F16C) ---- */

static float half_to_float(uint16_t h, uint32_t *flags)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, u;
    if (exp == 0x1f) {
        u = sign | 0x7f800000u | (man << 13);
        if (man && !(man & 0x200)) {
            u |= 0x400000u; /* a signaling NaN is quieted */
            *flags |= FL_IE;
        }
    } else if (exp == 0) {
        if (man == 0) {
            u = sign;
        } else { /* a denormal half is a normal float */
            int e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400));
            u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else {
        u = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Rounds the float with bits U to half precision in MODE (0 nearest even,
 * 1 down, 2 up, 3 toward zero), setting the exceptions of the conversion. */
static uint16_t float_to_half(uint32_t u, unsigned mode, int daz, uint32_t *flags)
{
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t exp = (u >> 23) & 0xff, man = u & 0x7fffff;
    if (exp == 0xff) {
        if (!man)
            return sign | 0x7c00;
        if (!(man & 0x400000))
            *flags |= FL_IE;
        return sign | 0x7e00 | (uint16_t)(man >> 13);
    }
    if (exp == 0 && man) {
        if (daz)
            return sign;
        *flags |= FL_DE;
    }
    if (exp == 0 && man == 0)
        return sign;
    /* value = m * 2^(e): m with the hidden bit, 24 bits */
    uint64_t m = exp ? man | 0x800000u : man;
    int e = exp ? (int)exp - 127 - 23 : -126 - 23;
    /* half: normal exponents -14..15, 10 fraction bits; scale to 2^-24 units */
    int shift = -24 - e; /* bits to drop so that the result counts 2^-24 */
    uint64_t q, rem, half_unit;
    int tiny_before = 0;
    /* the number of bits a normal half keeps: find the result's exponent */
    int top = 63 - __builtin_clzll(m) + e; /* exponent of the leading bit */
    if (top >= -14)
        shift = (int)(63 - __builtin_clzll(m)) - 10; /* keep 11 significant bits */
    else
        tiny_before = 1;
    if (shift <= 0) {
        q = m << -shift;
        rem = 0;
        half_unit = 1;
    } else if (shift >= 64) {
        q = 0;
        rem = m;
        half_unit = 0;
    } else {
        q = m >> shift;
        rem = m & ((1ull << shift) - 1);
        half_unit = 1ull << (shift - 1);
    }
    int up;
    switch (mode) {
    case 0: up = shift >= 64 ? 0 : rem > half_unit || (rem == half_unit && (q & 1)); break;
    case 1: up = rem && sign; break;
    case 2: up = rem && !sign; break;
    default: up = 0; break;
    }
    if (rem)
        *flags |= FL_PE;
    q += (uint64_t)up;
    int qexp = top >= -14 ? top : -14; /* exponent of q's unit position + 10 */
    if (top >= -14 && q >= 0x800) { /* rounding carried into the next binade */
        q >>= 1;
        qexp++;
    }
    if (top >= -14 && qexp > 15) {
        *flags |= FL_OE | FL_PE;
        int to_inf = mode == 0 || (mode == 1 && sign) || (mode == 2 && !sign);
        return to_inf ? sign | 0x7c00 : sign | 0x7bff;
    }
    if (tiny_before && rem)
        *flags |= FL_UE;
    if (top < -14)
        return sign | (uint16_t)q; /* denormal (or rounded up to the smallest normal) */
    return sign | (uint16_t)(((uint32_t)(qexp + 15) << 10) | (q & 0x3ff));
}

static int exec_f16c(struct x86_cpu *c, const struct x86_dinsn *in)
{
    ymm_t s, r;
    uint32_t flags = 0;
    memset(&r, 0, sizeof r);
    if (in->csid == X86_INS_VCVTPH2PS) {
        x86_vec_read(c, &in->o[1], &s);
        for (unsigned i = 0; i < x86_vec_len(in) / 4; i++)
            r.f[i] = half_to_float(s.w[i], &flags);
        if (flags)
            x86_simd_raise(c, flags);
        x86_vec_write(c, in, &r);
        return 1;
    }
    /* vcvtps2ph: imm bit 2 takes MXCSR's rounding, else bits 0-1 */
    uint32_t mxcsr = x86_fpenv_mxcsr(c);
    unsigned mode = (in->imm & 4) ? (mxcsr >> 13) & 3 : in->imm & 3;
    x86_vec_read(c, &in->o[1], &s);
    unsigned n = x86_vec_len(in) / 4;
    for (unsigned i = 0; i < n; i++)
        r.w[i] = float_to_half(s.d[i], mode, (mxcsr & 0x40) != 0, &flags);
    if (flags)
        x86_simd_raise(c, flags);
    if (in->o[0].kind == OPK_MEM) {
        uint64_t a = op_ea(c, &in->o[0]);
        if (n == 4)
            x86_write(c, a, 8, r.q[0]);
        else
            x86_write_bytes(c, a, r.b, 16);
    } else {
        struct x86_dinsn w = *in;
        w.o[0].size = 16; /* the result is an XMM register, the rest cleared */
        x86_vec_write(c, &w, &r);
    }
    return 1;
}

/* ---- masked moves and gathers ---- */

/* vmaskmovps/pd, vpmaskmovd/q: elements whose mask sign bit is set are
 * loaded (the others read as zero) or stored (the others left alone). */
static void masked_move(struct x86_cpu *c, const struct x86_dinsn *in, unsigned esize)
{
    unsigned vl = x86_vec_len(in);
    ymm_t mask, data, r;
    if (in->o[0].kind == OPK_MEM) { /* store: o[1] the mask, o[2] the data */
        uint64_t a = op_ea(c, &in->o[0]);
        x86_vec_read(c, &in->o[1], &mask);
        x86_vec_read(c, &in->o[2], &data);
        for (unsigned i = 0; i < vl / esize; i++)
            if (mask.b[i * esize + esize - 1] & 0x80)
                x86_write(c, a + i * esize, esize, esize == 8 ? data.q[i] : data.d[i]);
        return;
    }
    uint64_t a = op_ea(c, &in->o[2]);
    x86_vec_read(c, &in->o[1], &mask);
    memset(&r, 0, sizeof r);
    for (unsigned i = 0; i < vl / esize; i++)
        if (mask.b[i * esize + esize - 1] & 0x80) {
            x86_elem_set(r.b + i * esize, esize, x86_read(c, a + i * esize, esize));
        }
    x86_vec_write(c, in, &r);
}

/* The gathers: element I of the destination, where mask element I has its
 * sign bit set, loads from base + index[I] * scale + displacement; each
 * element's mask clears as it completes, so a fault leaves the progress as
 * the processor does; the mask ends all zero. */
static void gather(struct x86_cpu *c, const struct x86_dinsn *in, unsigned isize)
{
    const struct x86_opnd *m = &in->o[1];
    unsigned esize = m->size, vl = x86_vec_len(in);
    unsigned n = vl / (esize > isize ? esize : isize);
    unsigned msk = in->o[2].reg, idx = m->reg & 15;
    ymm_t index, d, k;
    x86_vec_read(c, &(struct x86_opnd){ .kind = OPK_XMM, .size = 32, .reg = (uint8_t)idx }, &index);
    uint64_t base = op_ea(c, m);
    for (unsigned i = 0; i < n; i++) {
        x86_vec_read(c, &in->o[0], &d);
        x86_vec_read(c, &in->o[2], &k);
        if (!(k.b[i * esize + esize - 1] & 0x80))
            continue;
        int64_t ix = isize == 8 ? index.sq[i] : index.sd[i];
        uint64_t a = base + ((uint64_t)ix << m->scale);
        if (m->addr32)
            a = (uint32_t)a;
        x86_elem_set(d.b + i * esize, esize, x86_read(c, a, esize));
        memset(k.b + i * esize, 0, esize);
        struct x86_dinsn w = *in;
        x86_vec_write(c, &w, &d);
        w.o[0] = in->o[2];
        x86_vec_write(c, &w, &k);
    }
    /* what the elements did not cover: the destination's and the mask's
     * upper parts clear (VEX), the mask clears entirely */
    x86_vec_read(c, &in->o[0], &d);
    memset(d.b + n * esize, 0, sizeof d.b - n * esize);
    x86_vec_write(c, in, &d);
    memset(&k, 0, sizeof k);
    c->xmm[msk] = k.x[0];
    c->yhi[msk] = k.x[1];
}

/* 1 for the instructions x86_avx_exec computes from its two sources
 * (their operands are read only once it is known they are its own). */
static int computes_vector(unsigned id)
{
    switch (id) {
    case X86_INS_VBROADCASTSS: case X86_INS_VPBROADCASTD: case X86_INS_VBROADCASTSD:
    case X86_INS_VPBROADCASTQ: case X86_INS_VPBROADCASTB: case X86_INS_VPBROADCASTW:
    case X86_INS_VBROADCASTF128: case X86_INS_VINSERTF128: case X86_INS_VINSERTI128:
    case X86_INS_VPERM2F128: case X86_INS_VPERM2I128: case X86_INS_VPERMILPS:
    case X86_INS_VPERMILPD: case X86_INS_VPERMQ: case X86_INS_VPERMPD: case X86_INS_VPERMD:
    case X86_INS_VPERMPS: case X86_INS_VPBLENDD: case X86_INS_VPSLLVD: case X86_INS_VPSLLVQ:
    case X86_INS_VPSRLVD: case X86_INS_VPSRLVQ: case X86_INS_VPSRAVD:
        return 1;
    default:
        return 0;
    }
}

int x86_avx_owns(const struct x86_dinsn *in)
{
    if (!in->vl)
        return 0;
    if (in->cond == X86_VEC_FMA || computes_vector(in->csid))
        return 1;
    switch (in->csid) {
    case X86_INS_VZEROUPPER: case X86_INS_VZEROALL: case X86_INS_VTESTPS: case X86_INS_VTESTPD:
    case X86_INS_VMASKMOVPS: case X86_INS_VPMASKMOVD: case X86_INS_VMASKMOVPD:
    case X86_INS_VPMASKMOVQ: case X86_INS_VGATHERDPS: case X86_INS_VGATHERDPD:
    case X86_INS_VPGATHERDD: case X86_INS_VPGATHERDQ: case X86_INS_VGATHERQPS:
    case X86_INS_VGATHERQPD: case X86_INS_VPGATHERQD: case X86_INS_VPGATHERQQ:
    case X86_INS_VCVTPH2PS: case X86_INS_VCVTPS2PH: case X86_INS_VEXTRACTF128:
    case X86_INS_VEXTRACTI128:
        return 1;
    default:
        return 0;
    }
}

int x86_avx_exec(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned vl = x86_vec_len(in);
    ymm_t a, b, r;
    if (!in->vl)
        return 0;
    if (in->cond == X86_VEC_FMA) {
        switch (x86_fma_run_form(in)) {
        case RUN_VEX_FMA_SCALAR: x86_vex_fma_scalar(c, in); return 1;
        case RUN_VEX_FMA: x86_vex_fma(c, in); return 1;
        default: return 0;
        }
    }
    switch (in->csid) {
    case X86_INS_VZEROUPPER:
        memset(c->yhi, 0, sizeof c->yhi);
        return 1;
    case X86_INS_VZEROALL:
        memset(c->xmm, 0, sizeof c->xmm);
        memset(c->yhi, 0, sizeof c->yhi);
        return 1;
    case X86_INS_VTESTPS:
        x86_vec_test(c, in, 0x8000000080000000ull);
        return 1;
    case X86_INS_VTESTPD:
        x86_vec_test(c, in, 0x8000000000000000ull);
        return 1;
    case X86_INS_VMASKMOVPS: case X86_INS_VPMASKMOVD:
        masked_move(c, in, 4);
        return 1;
    case X86_INS_VMASKMOVPD: case X86_INS_VPMASKMOVQ:
        masked_move(c, in, 8);
        return 1;
    case X86_INS_VGATHERDPS: case X86_INS_VGATHERDPD: case X86_INS_VPGATHERDD:
    case X86_INS_VPGATHERDQ:
        gather(c, in, 4);
        return 1;
    case X86_INS_VGATHERQPS: case X86_INS_VGATHERQPD: case X86_INS_VPGATHERQD:
    case X86_INS_VPGATHERQQ:
        gather(c, in, 8);
        return 1;
    case X86_INS_VCVTPH2PS: case X86_INS_VCVTPS2PH:
        return exec_f16c(c, in);
    case X86_INS_VEXTRACTF128: case X86_INS_VEXTRACTI128:
        x86_vec_read(c, &in->o[1], &a);
        memset(&r, 0, sizeof r);
        r.x[0] = a.x[in->imm & 1];
        if (in->o[0].kind == OPK_MEM)
            x86_write_bytes(c, op_ea(c, &in->o[0]), r.b, 16);
        else
            x86_vec_write(c, in, &r);
        return 1;
    default:
        break;
    }
    if (!computes_vector(in->csid))
        return 0;
    /* the rest compute a vector register from a and b */
    x86_vec_read(c, &in->o[in->nds], &a);
    if (in->nds + 1 < in->nops)
        x86_vec_read(c, &in->o[in->nds + 1], &b);
    else
        memset(&b, 0, sizeof b);
    memset(&r, 0, sizeof r);
    switch (in->csid) {
    case X86_INS_VBROADCASTSS: case X86_INS_VPBROADCASTD: broadcast(&r, &b, 4, vl); break;
    case X86_INS_VBROADCASTSD: case X86_INS_VPBROADCASTQ: broadcast(&r, &b, 8, vl); break;
    case X86_INS_VPBROADCASTB: broadcast(&r, &b, 1, vl); break;
    case X86_INS_VPBROADCASTW: broadcast(&r, &b, 2, vl); break;
    case X86_INS_VBROADCASTF128: broadcast(&r, &b, 16, vl); break;
    case X86_INS_VINSERTF128: case X86_INS_VINSERTI128:
        r = a;
        r.x[in->imm & 1] = b.x[0];
        break;
    case X86_INS_VPERM2F128: case X86_INS_VPERM2I128:
        perm2x128(&r, &a, &b, in->imm);
        break;
    case X86_INS_VPERMILPS: permil(in, &r, &a, &b, vl, 0); break;
    case X86_INS_VPERMILPD: permil(in, &r, &a, &b, vl, 1); break;
    case X86_INS_VPERMQ: case X86_INS_VPERMPD:
        for (unsigned i = 0; i < 4; i++)
            r.q[i] = b.q[(in->imm >> (2 * i)) & 3];
        break;
    case X86_INS_VPERMD: case X86_INS_VPERMPS:
        for (unsigned i = 0; i < 8; i++)
            r.d[i] = b.d[a.d[i] & 7];
        break;
    case X86_INS_VPBLENDD:
        for (unsigned i = 0; i < vl / 4; i++)
            r.d[i] = (in->imm >> i) & 1 ? b.d[i] : a.d[i];
        break;
    case X86_INS_VPSLLVD: shift_variable(&r, &a, &b, vl, 4, 0, 0); break;
    case X86_INS_VPSLLVQ: shift_variable(&r, &a, &b, vl, 8, 0, 0); break;
    case X86_INS_VPSRLVD: shift_variable(&r, &a, &b, vl, 4, 1, 0); break;
    case X86_INS_VPSRLVQ: shift_variable(&r, &a, &b, vl, 8, 1, 0); break;
    case X86_INS_VPSRAVD: shift_variable(&r, &a, &b, vl, 4, 1, 1); break;
    default:
        return 0;
    }
    x86_vec_write(c, in, &r);
    return 1;
}
