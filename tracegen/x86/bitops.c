/* General-register instructions of later extensions: CRC32 (SSE4.2),
 * LZCNT, TZCNT, MOVBE, BMI1 (andn, bextr, blsi, blsmsk, blsr), BMI2 (bzhi,
 * pdep, pext, rorx, sarx, shlx, shrx, mulx) and XGETBV. Flags the manual
 * leaves undefined are cleared. */
#include "tracegen/x86/interp.h"
#include "tracegen/x86/operand.h"
#include "tracegen/x86/ops.h"

#define XCR0_X87_SSE_AVX 0x7u /* the state components the OS enables */

/* CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) of the N low
 * bytes of DATA, continuing CRC. */
static uint32_t crc32c(uint32_t crc, uint64_t data, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        crc ^= (uint8_t)(data >> (8 * i));
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
    }
    return crc;
}

/* Sets CF, ZF and SF from the arguments; the other arithmetic flags clear. */
static void set_flags(struct x86_cpu *c, int cf, int zf, int sf)
{
    c->lz_op = LZ_NONE;
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | (cf ? FL_CF : 0) | (zf ? FL_ZF : 0) |
                (sf ? FL_SF : 0);
}

static uint64_t pdep(uint64_t src, uint64_t mask)
{
    uint64_t r = 0;
    for (uint64_t bit = 1; mask; bit <<= 1) {
        uint64_t low = mask & (0 - mask);
        if (src & bit)
            r |= low;
        mask ^= low;
    }
    return r;
}

static uint64_t pext(uint64_t src, uint64_t mask)
{
    uint64_t r = 0, bit = 1;
    while (mask) {
        uint64_t low = mask & (0 - mask);
        if (src & low)
            r |= bit;
        bit <<= 1;
        mask ^= low;
    }
    return r;
}

void x86_exec_bitop(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz, bits = sz * 8;
    uint64_t m = x86_size_mask(sz), sign = x86_sign_bit(sz);
    const struct x86_opnd *d = &in->o[0];
    switch (in->run) {
    case XOP_CRC32: {
        uint64_t data = op_read(c, &in->o[1], in->o[1].size);
        reg_set(c, d->reg, sz, crc32c((uint32_t)c->r[d->reg], data, in->o[1].size));
        return;
    }
    case RUN_LZCNT: case RUN_TZCNT: {
        uint64_t s = op_read(c, &in->o[1], sz);
        uint64_t r = s == 0 ? bits
                     : in->run == RUN_TZCNT ? (uint64_t)__builtin_ctzll(s)
                                           : (uint64_t)(__builtin_clzll(s) - (64 - bits));
        reg_set(c, d->reg, sz, r);
        set_flags(c, s == 0, r == 0, 0);
        return;
    }
    case XOP_MOVBE: {
        uint64_t v = op_read(c, &in->o[1], sz);
        v = sz == 8 ? __builtin_bswap64(v) : sz == 4 ? __builtin_bswap32((uint32_t)v)
                                                     : __builtin_bswap16((uint16_t)v);
        op_write(c, d, sz, v);
        return;
    }
    case XOP_ANDN: {
        uint64_t r = ~op_read(c, &in->o[1], sz) & op_read(c, &in->o[2], sz) & m;
        reg_set(c, d->reg, sz, r);
        set_flags(c, 0, r == 0, (r & sign) != 0);
        return;
    }
    case XOP_BEXTR: {
        uint64_t s = op_read(c, &in->o[1], sz), ctl = op_read(c, &in->o[2], sz);
        unsigned start = (unsigned)(ctl & 0xff), len = (unsigned)((ctl >> 8) & 0xff);
        uint64_t r = start >= bits ? 0 : s >> start;
        if (len < 64)
            r &= (1ull << len) - 1;
        reg_set(c, d->reg, sz, r);
        set_flags(c, 0, r == 0, 0);
        return;
    }
    case XOP_BLSI: case XOP_BLSMSK: case XOP_BLSR: {
        uint64_t s = op_read(c, &in->o[1], sz), r;
        int cf = s != 0;
        if (in->op == XOP_BLSI) {
            r = s & (0 - s) & m;
        } else if (in->op == XOP_BLSMSK) {
            r = (s ^ (s - 1)) & m;
            cf = s == 0;
        } else {
            r = s & (s - 1) & m;
            cf = s == 0;
        }
        reg_set(c, d->reg, sz, r);
        set_flags(c, cf, r == 0, (r & sign) != 0);
        return;
    }
    case XOP_BZHI: {
        uint64_t s = op_read(c, &in->o[1], sz);
        unsigned n = (unsigned)(op_read(c, &in->o[2], sz) & 0xff);
        uint64_t r = n < bits ? s & ((1ull << n) - 1) : s;
        reg_set(c, d->reg, sz, r);
        set_flags(c, n > bits - 1, r == 0, (r & sign) != 0);
        return;
    }
    case XOP_PDEP: case XOP_PEXT: {
        uint64_t s = op_read(c, &in->o[1], sz), mask = op_read(c, &in->o[2], sz);
        reg_set(c, d->reg, sz, in->op == XOP_PDEP ? pdep(s, mask) : pext(s, mask));
        return;
    }
    case XOP_RORX: {
        uint64_t s = op_read(c, &in->o[1], sz);
        unsigned k = (unsigned)in->o[2].val & (bits - 1);
        reg_set(c, d->reg, sz, k ? ((s >> k) | (s << (bits - k))) & m : s);
        return;
    }
    case XOP_SARX: case XOP_SHLX: case XOP_SHRX: {
        uint64_t s = op_read(c, &in->o[1], sz);
        unsigned k = (unsigned)op_read(c, &in->o[2], sz) & (bits - 1);
        uint64_t r = in->op == XOP_SHLX ? s << k
                     : in->op == XOP_SHRX ? s >> k : (uint64_t)(x86_sext(s, sz) >> k);
        reg_set(c, d->reg, sz, r & m);
        return;
    }
    case XOP_MULX: {
        /* hi:lo = rdx * source; the high half wins when both name one register */
        unsigned __int128 p = (unsigned __int128)(c->r[R_RDX] & m) * op_read(c, &in->o[2], sz);
        uint64_t lo = (uint64_t)p & m, hi = sz == 8 ? (uint64_t)(p >> 64) : (uint64_t)(p >> 32) & m;
        reg_set(c, in->o[1].reg, sz, lo);
        reg_set(c, d->reg, sz, hi);
        return;
    }
    default: /* XGETBV: XCR0 for ECX = 0 */
        c->r[R_RAX] = (uint32_t)c->r[R_RCX] == 0 ? XCR0_X87_SSE_AVX : 0;
        c->r[R_RDX] = 0;
        return;
    }
}
