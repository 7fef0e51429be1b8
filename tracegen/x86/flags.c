/* Lazy flag evaluation: see flags.h. */
#include "tracegen/x86/flags.h"

static uint32_t parity_flag(uint64_t res)
{
    return (__builtin_popcount((unsigned)(res & 0xff)) & 1) ? 0 : FL_PF;
}

uint32_t x86_flags_arith(const struct x86_cpu *c)
{
    unsigned sz = c->lz_size;
    uint64_t a = c->lz_a, b = c->lz_b, r = c->lz_res, sign = 0;
    uint32_t f = 0;
    if (c->lz_op == LZ_NONE)
        return (uint32_t)(c->rflags & FL_ARITH);
    sign = x86_sign_bit(sz);
    switch (c->lz_op) {
    case LZ_ADD:
        if (r < a) f |= FL_CF;
        if ((a ^ r) & (b ^ r) & sign) f |= FL_OF;
        f |= (uint32_t)((a ^ b ^ r) & FL_AF);
        break;
    case LZ_ADC:
        if (c->lz_cin ? r <= a : r < a) f |= FL_CF;
        if ((a ^ r) & (b ^ r) & sign) f |= FL_OF;
        f |= (uint32_t)((a ^ b ^ r) & FL_AF);
        break;
    case LZ_SUB:
        if (a < b) f |= FL_CF;
        if ((a ^ b) & (a ^ r) & sign) f |= FL_OF;
        f |= (uint32_t)((a ^ b ^ r) & FL_AF);
        break;
    case LZ_SBB:
        if (c->lz_cin ? a <= b : a < b) f |= FL_CF;
        if ((a ^ b) & (a ^ r) & sign) f |= FL_OF;
        f |= (uint32_t)((a ^ b ^ r) & FL_AF);
        break;
    case LZ_LOGIC:
        break;
    case LZ_INC:
        if (c->lz_cin) f |= FL_CF;
        if (r == sign) f |= FL_OF;
        if ((r & 0xf) == 0) f |= FL_AF;
        break;
    case LZ_DEC:
        if (c->lz_cin) f |= FL_CF;
        if (r == sign - 1) f |= FL_OF;
        if ((r & 0xf) == 0xf) f |= FL_AF;
        break;
    case LZ_NEG:
        if (r != 0) f |= FL_CF;
        if (r == sign) f |= FL_OF;
        f |= (uint32_t)((b ^ r) & FL_AF);
        break;
    default:
        break;
    }
    if (r == 0) f |= FL_ZF;
    if (r & sign) f |= FL_SF;
    f |= parity_flag(r);
    return f;
}

int x86_flags_cf(const struct x86_cpu *c)
{
    uint64_t a = c->lz_a, b = c->lz_b, r = c->lz_res;
    switch (c->lz_op) {
    case LZ_NONE: return (c->rflags & FL_CF) != 0;
    case LZ_ADD: return r < a;
    case LZ_ADC: return c->lz_cin ? r <= a : r < a;
    case LZ_SUB: return a < b;
    case LZ_SBB: return c->lz_cin ? a <= b : a < b;
    case LZ_INC: case LZ_DEC: return c->lz_cin != 0;
    case LZ_NEG: return r != 0;
    default: return 0; /* LZ_LOGIC */
    }
}

void x86_flags_materialize(struct x86_cpu *c)
{
    if (c->lz_op == LZ_NONE)
        return;
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | x86_flags_arith(c);
    c->lz_op = LZ_NONE;
}

uint64_t x86_rflags(struct x86_cpu *c)
{
    x86_flags_materialize(c);
    return c->rflags | 0x202;
}

void x86_set_rflags(struct x86_cpu *c, uint64_t v)
{
    c->lz_op = LZ_NONE;
    c->rflags = (c->rflags & ~(uint64_t)(FL_ARITH | FL_DF)) | (v & (FL_ARITH | FL_DF));
}

int x86_cond_slow(const struct x86_cpu *c, unsigned cc)
{
    uint32_t f = x86_flags_arith(c);
    int cf = (f & FL_CF) != 0, zf = (f & FL_ZF) != 0, sf = (f & FL_SF) != 0;
    int of = (f & FL_OF) != 0, pf = (f & FL_PF) != 0;
    int r;
    switch (cc >> 1) {
    case 0: r = of; break;
    case 1: r = cf; break;
    case 2: r = zf; break;
    case 3: r = cf || zf; break;
    case 4: r = sf; break;
    case 5: r = pf; break;
    case 6: r = sf != of; break;
    default: r = zf || sf != of; break;
    }
    return (cc & 1) ? !r : r;
}
