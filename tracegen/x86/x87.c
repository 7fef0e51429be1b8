/* The x87 subset C libraries use (long double arithmetic, conversions,
 * comparisons, transcendental functions, control word). Decoded from the
 * opcode byte (aux) and ModRM (cond) as in the Intel manual's opcode map.
 * The host's long double is the same 80-bit extended format and each
 * instruction runs under the guest's control word (fpenv.h), so results,
 * rounding and exception flags are the processor's; the special
 * instructions, compares and integer stores are the host's own. Not kept:
 * C1's report that a result was rounded up, the last instruction's code
 * and data pointers, stack overflow and underflow (an empty register reads
 * as its last value). */
#include <math.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/fpenv.h"
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

/* The integer store (fist, fistp, fisttp) as the host's fistp: the
 * guest's rounding (the host's control word is the guest's here, fpenv.h),
 * the integer indefinite value, invalid and precision exceptions.
 * fisttp is fistp under truncation. */
static void store_int(struct x86_cpu *c, uint64_t a, unsigned size, long double v, int truncate)
{
    uint16_t cw, tcw;
    int64_t q = 0;
    int32_t d = 0;
    int16_t w = 0;
    if (truncate) {
        __asm__ volatile("fnstcw %0" : "=m"(cw));
        tcw = (uint16_t)(cw | 0x0c00);
        __asm__ volatile("fldcw %0" : : "m"(tcw));
    }
    switch (size) {
    case 2: __asm__ volatile("fistps %0" : "=m"(w) : "t"(v) : "st"); break;
    case 4: __asm__ volatile("fistpl %0" : "=m"(d) : "t"(v) : "st"); break;
    default: __asm__ volatile("fistpll %0" : "=m"(q) : "t"(v) : "st"); break;
    }
    if (truncate)
        __asm__ volatile("fldcw %0" : : "m"(cw));
    uint64_t out = size == 2 ? (uint16_t)w : size == 4 ? (uint32_t)d : (uint64_t)q;
    x86_write(c, a, size, out);
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

/* Compares as the host's fcom (QUIET: fucom) does, into C0 C2 C3; C1
 * clears. fcom raises invalid for any NaN, fucom only for a signaling one. */
static void compare_sw(struct x86_cpu *c, long double a, long double b, int quiet)
{
    uint16_t sw;
    if (quiet)
        __asm__ volatile("fucom %%st(1)\n\tfnstsw %0" : "=m"(sw) : "t"(a), "u"(b));
    else
        __asm__ volatile("fcom %%st(1)\n\tfnstsw %0" : "=m"(sw) : "t"(a), "u"(b));
    c->fsw = (uint16_t)((c->fsw & ~(C0 | C1 | C2 | C3)) | (sw & (C0 | C2 | C3)));
}

/* Compares as the host's fcomi (QUIET: fucomi) does, into ZF PF CF; the
 * other arithmetic flags clear. */
static void compare_eflags(struct x86_cpu *c, long double a, long double b, int quiet)
{
    uint8_t zf, pf, cf;
    if (quiet)
        __asm__ volatile("fucomi %%st(1), %%st" : "=@ccz"(zf), "=@ccp"(pf), "=@ccc"(cf)
                         : "t"(a), "u"(b));
    else
        __asm__ volatile("fcomi %%st(1), %%st" : "=@ccz"(zf), "=@ccp"(pf), "=@ccc"(cf)
                         : "t"(a), "u"(b));
    c->lz_op = LZ_NONE;
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | (zf ? FL_ZF : 0) | (pf ? FL_PF : 0) |
                (cf ? FL_CF : 0);
}

/* fxam: an empty register is the emulator's to report, anything else the
 * host's fxam classifies (no exception, unlike a compare of a denormal). */
static void fxam(struct x86_cpu *c)
{
    long double v = *st(c, 0);
    uint16_t sw;
    __asm__ volatile("fxam\n\tfnstsw %0" : "=m"(sw) : "t"(v));
    if (!(c->ftag & (1u << c->ftop)))
        sw = (uint16_t)((sw & C1) | C3 | C0);
    c->fsw = (uint16_t)((c->fsw & ~(C0 | C1 | C2 | C3)) | (sw & (C0 | C1 | C2 | C3)));
}

static int fcmov_cond(struct x86_cpu *c, unsigned opc, unsigned sub)
{
    /* DA: B E BE U; DB: NB NE NBE NU */
    static const unsigned cc[4] = { 2, 4, 6, 10 };
    int r = x86_cond(c, cc[sub & 3]);
    return opc == 0xda ? r : !r;
}

/* The condition bits C0-C3 of the host's status word after an
 * instruction that sets them (fprem, fptan, fsin ...) replace the guest's. */
static void take_conditions(struct x86_cpu *c, uint16_t host_sw)
{
    c->fsw = (uint16_t)((c->fsw & ~(C0 | C1 | C2 | C3)) | (host_sw & (C0 | C1 | C2 | C3)));
}

/* The special instructions of D9 /E0-/FF run as the host's own (under the
 * guest's control word): results, exceptions and condition bits are the
 * processor's, transcendental ones included. */
#define HOST1(insn, x) __asm__ volatile(insn : "+t"(x))
/* An instruction that replaces ST0 and pushes a value, but changes nothing
 * when C2 reports its operand out of range: then a copy is pushed so that
 * the asm always leaves the two values the compiler expects. */
#define PUSHES_TWO(insn) insn "\n\tfnstsw %2\n\ttestw $0x400, %2\n\tjz 1f\n\tfld %%st(0)\n1:"
static void exec_special_d9(struct x86_cpu *c, const struct x86_dinsn *in, unsigned modrm)
{
    long double *s0 = st(c, 0), x = *s0, y = *st(c, 1), r0, r1;
    uint16_t sw;
    switch (modrm) {
    case 0xe0: *s0 = -x; return;
    case 0xe1: *s0 = fabsl(x); return;
    case 0xe4: compare_sw(c, x, 0.0L, 0); return;
    case 0xe5: fxam(c); return;
    case 0xe8: fpush(c, 1.0L); return;
    case 0xe9: __asm__ volatile("fldl2t" : "=t"(r0)); fpush(c, r0); return;
    case 0xea: __asm__ volatile("fldl2e" : "=t"(r0)); fpush(c, r0); return;
    case 0xeb: __asm__ volatile("fldpi" : "=t"(r0)); fpush(c, r0); return;
    case 0xec: __asm__ volatile("fldlg2" : "=t"(r0)); fpush(c, r0); return;
    case 0xed: __asm__ volatile("fldln2" : "=t"(r0)); fpush(c, r0); return;
    case 0xee: fpush(c, 0.0L); return;
    case 0xf0: HOST1("f2xm1", x); *s0 = x; return;
    case 0xf1: /* fyl2x: ST1 = ST1 * log2(ST0), pop */
        __asm__ volatile("fyl2x" : "=t"(r0) : "0"(x), "u"(y) : "st(1)");
        *st(c, 1) = r0;
        fpop(c);
        return;
    case 0xf9: /* fyl2xp1 */
        __asm__ volatile("fyl2xp1" : "=t"(r0) : "0"(x), "u"(y) : "st(1)");
        *st(c, 1) = r0;
        fpop(c);
        return;
    case 0xf3: /* fpatan: ST1 = atan(ST1 / ST0), pop */
        __asm__ volatile("fpatan" : "=t"(r0) : "0"(x), "u"(y) : "st(1)");
        *st(c, 1) = r0;
        fpop(c);
        return;
    case 0xf2: case 0xfb: /* fptan: ST0 = tan, push 1; fsincos: ST0 = sin, push cos */
        if (modrm == 0xf2)
            __asm__ volatile(PUSHES_TWO("fptan") : "=t"(r0), "=u"(r1), "=m"(sw) : "0"(x) : "cc");
        else
            __asm__ volatile(PUSHES_TWO("fsincos") : "=t"(r0), "=u"(r1), "=m"(sw) : "0"(x) : "cc");
        take_conditions(c, sw);
        if (sw & C2)
            return; /* out of range: nothing changes */
        *s0 = r1;
        fpush(c, r0);
        return;
    case 0xfe: case 0xff:
        if (modrm == 0xfe)
            __asm__ volatile("fsin\n\tfnstsw %1" : "+t"(x), "=m"(sw));
        else
            __asm__ volatile("fcos\n\tfnstsw %1" : "+t"(x), "=m"(sw));
        take_conditions(c, sw);
        *s0 = x;
        return;
    case 0xf4: /* fxtract: ST0 = exponent, push significand */
        __asm__ volatile("fxtract" : "=t"(r0), "=u"(r1) : "0"(x));
        *s0 = r1;
        fpush(c, r0);
        return;
    case 0xf5: case 0xf8: /* fprem1, fprem: the host's partial remainder */
        if (modrm == 0xf8)
            __asm__ volatile("fprem\n\tfnstsw %1" : "+t"(x), "=m"(sw) : "u"(y));
        else
            __asm__ volatile("fprem1\n\tfnstsw %1" : "+t"(x), "=m"(sw) : "u"(y));
        take_conditions(c, sw);
        *s0 = x;
        return;
    case 0xf6: c->ftop = (c->ftop - 1) & 7; return;
    case 0xf7: c->ftop = (c->ftop + 1) & 7; return;
    case 0xfa: HOST1("fsqrt", x); *s0 = x; return;
    case 0xfc: HOST1("frndint", x); *s0 = x; return;
    case 0xfd: __asm__ volatile("fscale" : "+t"(x) : "u"(y)); *s0 = x; return;
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
            compare_sw(c, *st(c, 0), m, 0);
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
        case 4: x86_fldenv(c, a); return;
        case 5: c->fcw = (uint16_t)x86_read(c, a, 2); return;
        case 6: x86_fnstenv(c, a); return;
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
        case 4: x86_frstor(c, a); return;
        case 6: x86_fnsave(c, a); return;
        case 7: x86_write(c, a, 2, x86_x87_status_word(c)); return;
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

static void exec_x87(struct x86_cpu *c, const struct x86_dinsn *in)
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
            compare_sw(c, *s0, *si, 0);
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
        if (modrm == 0xe9) { /* fucompp */
            compare_sw(c, *s0, *st(c, 1), 1);
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
        } else if (sub == 5 || sub == 6) { /* fucomi, fcomi */
            compare_eflags(c, *s0, *si, sub == 5);
        } else {
            break;
        }
        return;
    case 0xdc: case 0xde: {
        /* register forms write ST(i); sub 4/5 and 6/7 swap meaning here */
        static const unsigned swap[8] = { 0, 1, 2, 3, 5, 4, 7, 6 };
        if (opc == 0xde && modrm == 0xd9) { /* fcompp */
            compare_sw(c, *s0, *st(c, 1), 0);
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
        case 4: compare_sw(c, *s0, *si, 1); return; /* fucom */
        case 5: compare_sw(c, *s0, *si, 1); fpop(c); return;
        default: break;
        }
        break;
    case 0xdf:
        if (modrm == 0xe0) {
            reg_set(c, R_RAX, 2, x86_x87_status_word(c));
            return;
        }
        if (sub == 5 || sub == 6) { /* fucomip, fcomip */
            compare_eflags(c, *s0, *si, sub == 5);
            fpop(c);
            return;
        }
        break;
    default:
        break;
    }
    x86_fault(c, XF_UNIMPL, in->next - in->len);
}

/* Every x87 instruction runs under the guest's control word and adds the
 * exceptions it raised to the guest's status word (fpenv.h). */
void x86_exec_x87(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned entered = x86_x87_enter(c);
    exec_x87(c, in);
    x86_x87_leave(c, entered);
}
