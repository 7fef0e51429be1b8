/* The x87 subset C libraries use (long double arithmetic, conversions,
 * comparisons, control word). Decoded from the opcode byte (aux) and ModRM
 * (cond) as in the Intel manual's opcode map; the host's long double is the
 * same 80-bit extended format, so arithmetic is exact to the hardware. */
#include <math.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/interp.h"
#include "tracegen/x86/operand.h"

#define C0 0x0100u
#define C1 0x0200u
#define C2 0x0400u
#define C3 0x4000u

static long double *st(struct x86_cpu *c, unsigned i)
{
    return &c->st[(c->ftop + i) & 7];
}

static void fpush(struct x86_cpu *c, long double v)
{
    c->ftop = (c->ftop - 1) & 7;
    c->st[c->ftop] = v;
    c->ftag |= (uint8_t)(1u << c->ftop);
}

static void fpop(struct x86_cpu *c)
{
    c->ftag &= (uint8_t)~(1u << c->ftop);
    c->ftop = (c->ftop + 1) & 7;
}

static long double load_real(struct x86_cpu *c, uint64_t a, unsigned size)
{
    if (size == 4) {
        uint32_t v = (uint32_t)x86_read(c, a, 4);
        float f;
        memcpy(&f, &v, 4);
        return f;
    }
    if (size == 8) {
        uint64_t v = x86_read(c, a, 8);
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    long double ld = 0;
    uint8_t buf[16] = { 0 };
    x86_read_bytes(c, a, buf, 10);
    memcpy(&ld, buf, 10);
    return ld;
}

static void store_real(struct x86_cpu *c, uint64_t a, unsigned size, long double v)
{
    if (size == 4) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        x86_write(c, a, 4, u);
    } else if (size == 8) {
        double d = (double)v;
        uint64_t u;
        memcpy(&u, &d, 8);
        x86_write(c, a, 8, u);
    } else {
        uint8_t buf[16] = { 0 };
        memcpy(buf, &v, 10);
        x86_write_bytes(c, a, buf, 10);
    }
}

/* 1 when the float (4) or double (8) at A is a signaling NaN. */
static int is_snan_mem(struct x86_cpu *c, uint64_t a, unsigned size)
{
    uint64_t v = x86_read(c, a, size);
    if (size == 4)
        return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu) && !(v & 0x400000u);
    return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
           (v & 0xfffffffffffffull) && !(v & 0x8000000000000ull);
}

static long double load_int(struct x86_cpu *c, uint64_t a, unsigned size)
{
    return (long double)x86_sext(x86_read(c, a, size), size);
}

static long double round_rc(const struct x86_cpu *c, long double v)
{
    switch ((c->fcw >> 10) & 3) {
    case 0: return nearbyintl(v);
    case 1: return floorl(v);
    case 2: return ceill(v);
    default: return truncl(v);
    }
}

static void store_int(struct x86_cpu *c, uint64_t a, unsigned size, long double v, int truncate)
{
    long double r = truncate ? truncl(v) : round_rc(c, v);
    long double lim = ldexpl(1.0L, (int)size * 8 - 1);
    uint64_t out;
    if (isnan(r) || r >= lim || r < -lim)
        out = 1ull << (size * 8 - 1); /* integer indefinite */
    else
        out = (uint64_t)(int64_t)r;
    x86_write(c, a, size, out & x86_size_mask(size));
}

static long double arith(unsigned sub, long double a, long double b)
{
    switch (sub) {
    case 0: return a + b;
    case 1: return a * b;
    case 4: return a - b;
    case 5: return b - a;
    case 6: return a / b;
    default: return b / a; /* 7 */
    }
}

static void compare_sw(struct x86_cpu *c, long double a, long double b)
{
    c->fsw &= (uint16_t)~(C0 | C2 | C3);
    if (isnan(a) || isnan(b))
        c->fsw |= C0 | C2 | C3;
    else if (a < b)
        c->fsw |= C0;
    else if (a == b)
        c->fsw |= C3;
}

static void compare_eflags(struct x86_cpu *c, long double a, long double b)
{
    c->lz_op = LZ_NONE;
    c->rflags &= ~(uint64_t)FL_ARITH;
    if (isnan(a) || isnan(b))
        c->rflags |= FL_ZF | FL_PF | FL_CF;
    else if (a < b)
        c->rflags |= FL_CF;
    else if (a == b)
        c->rflags |= FL_ZF;
}

static void fxam(struct x86_cpu *c)
{
    long double v = *st(c, 0);
    uint16_t f = 0;
    if (signbit(v))
        f |= C1;
    if (!(c->ftag & (1u << c->ftop)))
        f |= C3 | C0;
    else {
        switch (fpclassify(v)) {
        case FP_NAN: f |= C0; break;
        case FP_INFINITE: f |= C2 | C0; break;
        case FP_ZERO: f |= C3; break;
        case FP_SUBNORMAL: f |= C3 | C2; break;
        default: f |= C2; break;
        }
    }
    c->fsw = (uint16_t)((c->fsw & ~(C0 | C1 | C2 | C3)) | f);
}

static uint16_t status_word(const struct x86_cpu *c)
{
    return (uint16_t)((c->fsw & ~0x3800u) | ((c->ftop & 7) << 11));
}

static int fcmov_cond(struct x86_cpu *c, unsigned opc, unsigned sub)
{
    /* DA: B E BE U; DB: NB NE NBE NU */
    static const unsigned cc[4] = { 2, 4, 6, 10 };
    int r = x86_cond(c, cc[sub & 3]);
    return opc == 0xda ? r : !r;
}

/* The x87 result when an operand is a NaN: the NaN with the larger
 * significand (the positive one on a tie), quieted. */
static long double nan_pick(long double a, long double b)
{
    uint64_t sa = 0, sb = 0;
    long double q;
    if (isnan(a) && isnan(b)) {
        memcpy(&sa, &a, 8);
        memcpy(&sb, &b, 8);
        sa &= ~(1ull << 63);
        sb &= ~(1ull << 63);
        q = sa > sb ? a : sb > sa ? b : (signbit(a) ? b : a);
    } else {
        q = isnan(a) ? a : b;
    }
    uint64_t sig;
    memcpy(&sig, &q, 8);
    sig |= 1ull << 62; /* quiet */
    memcpy(&q, &sig, 8);
    return q;
}

/* FSCALE: ST0 * 2^trunc(ST1), with the manual's special cases. */
static long double fscale(long double x, long double y)
{
    if (isnan(x) || isnan(y))
        return nan_pick(x, y);
    if (isinf(y)) {
        if ((y > 0 && x == 0) || (y < 0 && isinf(x)))
            return -NAN; /* invalid: the default (negative) NaN */
        if (y > 0)
            return x == 0 ? x : copysignl(INFINITY, x);
        return isinf(x) ? x : copysignl(0.0L, x);
    }
    long double e = truncl(y);
    int n = e > 100000 ? 100000 : e < -100000 ? -100000 : (int)e;
    return scalbnl(x, n);
}

static void exec_special_d9(struct x86_cpu *c, const struct x86_dinsn *in, unsigned modrm)
{
    long double *s0 = st(c, 0);
    switch (modrm) {
    case 0xe0: *s0 = -*s0; return;
    case 0xe1: *s0 = fabsl(*s0); return;
    case 0xe4: compare_sw(c, *s0, 0.0L); return;
    case 0xe5: fxam(c); return;
    case 0xe8: fpush(c, 1.0L); return;
    case 0xe9: fpush(c, log2l(10.0L)); return;
    case 0xea: fpush(c, 1.0L / logl(2.0L)); return;
    case 0xeb: fpush(c, 3.14159265358979323846264338327950288L); return;
    case 0xec: fpush(c, log10l(2.0L)); return;
    case 0xed: fpush(c, logl(2.0L)); return;
    case 0xee: fpush(c, 0.0L); return;
    case 0xf0: *s0 = exp2l(*s0) - 1.0L; return;
    case 0xf1: *st(c, 1) = *st(c, 1) * log2l(*s0); fpop(c); return;
    case 0xf2: *s0 = tanl(*s0); fpush(c, 1.0L); c->fsw &= (uint16_t)~C2; return;
    case 0xf3: *st(c, 1) = atan2l(*st(c, 1), *s0); fpop(c); return;
    case 0xf4: {
        int e;
        long double m = frexpl(*s0, &e);
        *s0 = (long double)(e - 1);
        fpush(c, m * 2.0L);
        return;
    }
    case 0xf5: case 0xf8: {
        /* FPREM (truncating) / FPREM1 (nearest); C0 C3 C1 get the low three
         * bits of the quotient's magnitude, found exactly from fmod(|a|, 8|b|).
         * The reduction is always complete (C2 = 0), also where hardware
         * would stop after a partial step for exponent gaps of 64 or more. */
        long double a = *s0, b = *st(c, 1);
        long double r = modrm == 0xf8 ? fmodl(a, b) : remainderl(a, b);
        c->fsw &= (uint16_t)~(C0 | C1 | C2 | C3);
        if (!isnan(r) && !isinf(a) && b != 0) {
            long double A = fabsl(a), B = fabsl(b);
            long double m = fmodl(A, 8.0L * B);
            long double rr = modrm == 0xf8 ? fmodl(A, B) : remainderl(A, B);
            unsigned qi = (unsigned)llrintl((m - rr) / B) & 7;
            if (qi & 1) c->fsw |= C1;
            if (qi & 2) c->fsw |= C3;
            if (qi & 4) c->fsw |= C0;
        }
        *s0 = r;
        return;
    }
    case 0xf6: c->ftop = (c->ftop - 1) & 7; return;
    case 0xf7: c->ftop = (c->ftop + 1) & 7; return;
    case 0xf9: *st(c, 1) = *st(c, 1) * log2l(1.0L + *s0); fpop(c); return;
    case 0xfa: *s0 = sqrtl(*s0); return;
    case 0xfb: {
        long double v = *s0;
        *s0 = sinl(v);
        fpush(c, cosl(v));
        c->fsw &= (uint16_t)~C2;
        return;
    }
    case 0xfc: *s0 = round_rc(c, *s0); return;
    case 0xfd:
        *s0 = fscale(*s0, *st(c, 1));
        return;
    case 0xfe: *s0 = sinl(*s0); c->fsw &= (uint16_t)~C2; return;
    case 0xff: *s0 = cosl(*s0); c->fsw &= (uint16_t)~C2; return;
    case 0xd0: return; /* fnop */
    default:
        x86_fault(c, XF_UNIMPL, in->next - in->len);
    }
}

static void exec_mem(struct x86_cpu *c, const struct x86_dinsn *in, unsigned opc, unsigned sub)
{
    uint64_t a = op_ea(c, &in->o[0]);
    switch (opc) {
    case 0xd8: case 0xdc: case 0xda: case 0xde: {
        unsigned size = opc == 0xd8 ? 4 : opc == 0xdc ? 8 : opc == 0xda ? 4 : 2;
        int real = opc == 0xd8 || opc == 0xdc;
        long double m = real ? load_real(c, a, size) : load_int(c, a, size);
        if (sub == 2 || sub == 3) {
            compare_sw(c, *st(c, 0), m);
            if (sub == 3)
                fpop(c);
        } else if (real && isnan(*st(c, 0)) && is_snan_mem(c, a, size)) {
            /* a signaling NaN in memory against a quiet NaN: the quiet one */
        } else {
            *st(c, 0) = arith(sub, *st(c, 0), m);
        }
        return;
    }
    case 0xd9:
        switch (sub) {
        case 0: fpush(c, load_real(c, a, 4)); return;
        case 2: store_real(c, a, 4, *st(c, 0)); return;
        case 3: store_real(c, a, 4, *st(c, 0)); fpop(c); return;
        case 5: c->fcw = (uint16_t)x86_read(c, a, 2); return;
        case 7: x86_write(c, a, 2, c->fcw); return;
        default: break;
        }
        break;
    case 0xdb:
        switch (sub) {
        case 0: fpush(c, load_int(c, a, 4)); return;
        case 1: store_int(c, a, 4, *st(c, 0), 1); fpop(c); return;
        case 2: store_int(c, a, 4, *st(c, 0), 0); return;
        case 3: store_int(c, a, 4, *st(c, 0), 0); fpop(c); return;
        case 5: fpush(c, load_real(c, a, 10)); return;
        case 7: store_real(c, a, 10, *st(c, 0)); fpop(c); return;
        default: break;
        }
        break;
    case 0xdd:
        switch (sub) {
        case 0: fpush(c, load_real(c, a, 8)); return;
        case 1: store_int(c, a, 8, *st(c, 0), 1); fpop(c); return;
        case 2: store_real(c, a, 8, *st(c, 0)); return;
        case 3: store_real(c, a, 8, *st(c, 0)); fpop(c); return;
        case 7: x86_write(c, a, 2, status_word(c)); return;
        default: break;
        }
        break;
    case 0xdf:
        switch (sub) {
        case 0: fpush(c, load_int(c, a, 2)); return;
        case 1: store_int(c, a, 2, *st(c, 0), 1); fpop(c); return;
        case 2: store_int(c, a, 2, *st(c, 0), 0); return;
        case 3: store_int(c, a, 2, *st(c, 0), 0); fpop(c); return;
        case 5: fpush(c, load_int(c, a, 8)); return;
        case 7: store_int(c, a, 8, *st(c, 0), 0); fpop(c); return;
        default: break;
        }
        break;
    default:
        break;
    }
    x86_fault(c, XF_UNIMPL, in->next - in->len);
}

void x86_exec_x87(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned opc = in->aux, modrm = in->cond;
    unsigned sub = (modrm >> 3) & 7, i = modrm & 7;
    if (modrm < 0xc0) {
        exec_mem(c, in, opc, sub);
        return;
    }
    long double *s0 = st(c, 0), *si = st(c, i);
    switch (opc) {
    case 0xd8:
        if (sub == 2 || sub == 3) {
            compare_sw(c, *s0, *si);
            if (sub == 3)
                fpop(c);
        } else {
            *s0 = arith(sub, *s0, *si);
        }
        return;
    case 0xd9:
        if (sub == 0) {
            fpush(c, *si);
        } else if (sub == 1) {
            long double t = *s0;
            *s0 = *si;
            *si = t;
        } else {
            exec_special_d9(c, in, modrm);
        }
        return;
    case 0xda:
        if (modrm == 0xe9) {
            compare_sw(c, *s0, *st(c, 1));
            fpop(c);
            fpop(c);
        } else if (sub < 4) {
            if (fcmov_cond(c, opc, sub))
                *s0 = *si;
        } else {
            break;
        }
        return;
    case 0xdb:
        if (sub < 4) {
            if (fcmov_cond(c, opc, sub))
                *s0 = *si;
        } else if (modrm == 0xe2) {
            c->fsw &= 0x7f00;
        } else if (modrm == 0xe3) {
            c->fcw = 0x037f;
            c->fsw = 0;
            c->ftag = 0;
            c->ftop = 0;
        } else if (sub == 5 || sub == 6) {
            compare_eflags(c, *s0, *si);
        } else {
            break;
        }
        return;
    case 0xdc: case 0xde: {
        /* register forms write ST(i); sub 4/5 and 6/7 swap meaning here */
        static const unsigned swap[8] = { 0, 1, 2, 3, 5, 4, 7, 6 };
        if (opc == 0xde && modrm == 0xd9) {
            compare_sw(c, *s0, *st(c, 1));
            fpop(c);
            fpop(c);
            return;
        }
        if (sub == 2 || sub == 3)
            break;
        *si = arith(swap[sub], *si, *s0);
        if (opc == 0xde)
            fpop(c);
        return;
    }
    case 0xdd:
        switch (sub) {
        case 0: c->ftag &= (uint8_t)~(1u << ((c->ftop + i) & 7)); return; /* ffree */
        case 2: *si = *s0; return;
        case 3: *si = *s0; fpop(c); return;
        case 4: compare_sw(c, *s0, *si); return;
        case 5: compare_sw(c, *s0, *si); fpop(c); return;
        default: break;
        }
        break;
    case 0xdf:
        if (modrm == 0xe0) {
            reg_set(c, R_RAX, 2, status_word(c));
            return;
        }
        if (sub == 5 || sub == 6) {
            compare_eflags(c, *s0, *si);
            fpop(c);
            return;
        }
        break;
    default:
        break;
    }
    x86_fault(c, XF_UNIMPL, in->next - in->len);
}
