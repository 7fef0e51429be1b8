/* Scalar ALU and program control: SOP2, SOPK, SOP1, SOPC, SOPP (SI ISA
 * chapter 5 and 12).  SCC follows each opcode's definition in the manual. */
#include "tracegen/si/si_wave.h"

static int popcount64(uint64_t x) { return __builtin_popcountll(x); }

/* Bits of a value are accessed by width-independent helpers. */
static uint64_t read_src(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in,
                         unsigned i, unsigned width)
{
    return width == 2 ? si_read_scalar64(c, w, in, in->src[i], 0)
                      : si_read_scalar(c, w, in, in->src[i]);
}

static int write_dst(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in,
                     unsigned width, uint64_t v)
{
    if (si_write_scalar(c, w, in, in->dst, (uint32_t)v))
        return -1;
    if (width == 2 && si_write_scalar(c, w, in, in->dst + 1, (uint32_t)(v >> 32)))
        return -1;
    return 0;
}

static int sop2(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    struct cgm_si_widths wd = { in->width[0], { in->width[1], in->width[2], in->width[3] } };
    uint64_t a = read_src(c, w, in, 0, wd.src[0]), b = read_src(c, w, in, 1, wd.src[1]);
    uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
    uint64_t d = 0, t;
    int scc = w->scc;
    switch (in->op) {
    case 0: t = (uint64_t)a32 + b32; d = (uint32_t)t; scc = t >> 32; break;         /* add_u32 */
    case 1: d = a32 - b32; scc = b32 > a32; break;                                   /* sub_u32 */
    case 2: d = a32 + b32;                                                             /* add_i32 */
        scc = ((a32 ^ b32) & 0x80000000u) == 0 && ((a32 ^ (uint32_t)d) & 0x80000000u);
        break;
    case 3: d = a32 - b32;                                                             /* sub_i32 */
        scc = ((a32 ^ b32) & 0x80000000u) && ((a32 ^ (uint32_t)d) & 0x80000000u);
        break;
    case 4: t = (uint64_t)a32 + b32 + (uint64_t)w->scc; d = (uint32_t)t; scc = t >> 32; break;
    case 5: t = (uint64_t)b32 + (uint64_t)w->scc; d = a32 - (uint32_t)t; scc = t > a32; break;
    case 6: scc = (int32_t)a32 < (int32_t)b32; d = scc ? a32 : b32; break;            /* min_i32 */
    case 7: scc = a32 < b32; d = scc ? a32 : b32; break;
    case 8: scc = (int32_t)a32 > (int32_t)b32; d = scc ? a32 : b32; break;            /* max_i32 */
    case 9: scc = a32 > b32; d = scc ? a32 : b32; break;
    case 10: case 11: d = w->scc ? a : b; break;                                      /* cselect */
    case 14: case 15: d = a & b; scc = d != 0; break;
    case 16: case 17: d = a | b; scc = d != 0; break;
    case 18: case 19: d = a ^ b; scc = d != 0; break;
    case 20: case 21: d = a & ~b; scc = d != 0; break;
    case 22: case 23: d = a | ~b; scc = d != 0; break;
    case 24: case 25: d = ~(a & b); scc = d != 0; break;
    case 26: case 27: d = ~(a | b); scc = d != 0; break;
    case 28: case 29: d = ~(a ^ b); scc = d != 0; break;
    case 30: d = (uint32_t)(a32 << (b32 & 31)); scc = d != 0; break;
    case 31: d = a << (b32 & 63); scc = d != 0; break;
    case 32: d = a32 >> (b32 & 31); scc = d != 0; break;
    case 33: d = a >> (b32 & 63); scc = d != 0; break;
    case 34: d = (uint32_t)((int32_t)a32 >> (b32 & 31)); scc = d != 0; break;
    case 35: d = (uint64_t)((int64_t)a >> (b32 & 63)); scc = d != 0; break;
    case 36: d = (uint32_t)(((1ull << (a32 & 31)) - 1) << (b32 & 31)); break;       /* bfm_b32 */
    case 37: d = ((1ull << (a32 & 63)) - 1) << (b32 & 63); break;
    case 38: d = (uint32_t)((int64_t)(int32_t)a32 * (int32_t)b32); break;            /* mul_i32 */
    case 39: case 40: {                                                               /* bfe 32 */
        unsigned off = b32 & 31, width = (b32 >> 16) & 0x7f;
        uint32_t v = width >= 32 ? a32 >> off : (a32 >> off) & ((1u << width) - 1);
        if (in->op == 40 && width > 0 && width < 32 && (v >> (width - 1) & 1))
            v |= ~0u << width;
        d = width ? v : 0;
        scc = d != 0;
        break;
    }
    case 41: case 42: {                                                               /* bfe 64 */
        unsigned off = b32 & 63, width = (b32 >> 16) & 0x7f;
        uint64_t v = width >= 64 ? a >> off : (a >> off) & ((1ull << width) - 1);
        if (in->op == 42 && width > 0 && width < 64 && (v >> (width - 1) & 1))
            v |= ~0ull << width;
        d = width ? v : 0;
        scc = d != 0;
        break;
    }
    case 44: d = (int32_t)a32 > (int32_t)b32 ? a32 - b32 : b32 - a32;                /* absdiff */
        d = (uint32_t)d; scc = d != 0; break;
    default:
        return si_fault(c, w, in, -1, "unimplemented scalar instruction");
    }
    if (write_dst(c, w, in, wd.dst, d))
        return -1;
    w->scc = scc;
    return 0;
}

static int sopk(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    uint32_t d = w->s[in->dst & (SI_SREGS - 1)];
    int32_t simm = in->simm16;
    uint32_t uimm = (uint16_t)in->simm16;
    switch (in->op) {
    case 0: return si_write_scalar(c, w, in, in->dst, (uint32_t)simm);               /* movk */
    case 2: return w->scc ? si_write_scalar(c, w, in, in->dst, (uint32_t)simm) : 0;
    case 3: w->scc = (int32_t)d == simm; return 0;
    case 4: w->scc = (int32_t)d != simm; return 0;
    case 5: w->scc = (int32_t)d > simm; return 0;
    case 6: w->scc = (int32_t)d >= simm; return 0;
    case 7: w->scc = (int32_t)d < simm; return 0;
    case 8: w->scc = (int32_t)d <= simm; return 0;
    case 9: w->scc = d == uimm; return 0;
    case 10: w->scc = d != uimm; return 0;
    case 11: w->scc = d > uimm; return 0;
    case 12: w->scc = d >= uimm; return 0;
    case 13: w->scc = d < uimm; return 0;
    case 14: w->scc = d <= uimm; return 0;
    case 15: {                                                                        /* addk */
        uint32_t r = d + (uint32_t)simm;
        w->scc = ((d ^ (uint32_t)simm) & 0x80000000u) == 0 && ((d ^ r) & 0x80000000u);
        return si_write_scalar(c, w, in, in->dst, r);
    }
    case 16: return si_write_scalar(c, w, in, in->dst, d * (uint32_t)simm);
    case 18: {                                                                        /* getreg */
        unsigned id = uimm & 0x3f, off = (uimm >> 6) & 0x1f, size = ((uimm >> 11) & 0x1f) + 1;
        uint32_t reg = id == 1 ? w->mode : 0;
        uint32_t mask = size >= 32 ? ~0u : (1u << size) - 1;
        return si_write_scalar(c, w, in, in->dst, (reg >> off) & mask);
    }
    case 19: case 21: {                                                               /* setreg */
        unsigned id = uimm & 0x3f, off = (uimm >> 6) & 0x1f, size = ((uimm >> 11) & 0x1f) + 1;
        uint32_t v = in->op == 21 ? in->literal : d;
        uint32_t mask = (size >= 32 ? ~0u : (1u << size) - 1) << off;
        if (id != 1)
            return si_fault(c, w, in, -1, "s_setreg of hardware register %u", id);
        uint32_t mode = (w->mode & ~mask) | ((v << off) & mask);
        /* Denormal modes may change (compilers toggle them around f32
         * division); only round to nearest even is emulated. */
        if (mode & 0xf)
            return si_fault(c, w, in, -1, "FP round mode 0x%x is not emulated", mode & 0xf);
        w->mode = mode;
        return 0;
    }
    default:
        return si_fault(c, w, in, -1, "unimplemented scalar instruction");
    }
}

static int sop1(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    struct cgm_si_widths wd = { in->width[0], { in->width[1], in->width[2], in->width[3] } };
    uint64_t a = read_src(c, w, in, 0, wd.src[0]), d = 0, exec = si_exec(w);
    uint32_t a32 = (uint32_t)a;
    int scc = w->scc;
    switch (in->op) {
    case 3: case 4: d = a; break;                                                     /* mov */
    case 5: case 6: if (!w->scc) return 0; d = a; break;                              /* cmov */
    case 7: d = (uint32_t)~a32; scc = d != 0; break;
    case 8: d = ~a; scc = d != 0; break;
    case 9: case 10: {                                                                /* wqm */
        for (int q = 0; q < (in->op == 9 ? 32 : 64); q += 4)
            if ((a >> q) & 0xf)
                d |= 0xfull << q;
        scc = d != 0;
        break;
    }
    case 11: for (int i = 0; i < 32; i++) d |= (uint64_t)((a32 >> i) & 1) << (31 - i); break;
    case 12: for (int i = 0; i < 64; i++) d |= ((a >> i) & 1) << (63 - i); break;
    case 13: d = (uint32_t)(32 - __builtin_popcount(a32)); scc = d != 0; break;
    case 14: d = (uint32_t)(64 - popcount64(a)); scc = d != 0; break;
    case 15: d = (uint32_t)__builtin_popcount(a32); scc = d != 0; break;
    case 16: d = (uint32_t)popcount64(a); scc = d != 0; break;
    case 17: d = ~a32 ? (uint32_t)__builtin_ctz(~a32) : ~0u; break;                   /* ff0 */
    case 18: d = ~a ? (uint32_t)__builtin_ctzll(~a) : ~0u; break;
    case 19: d = a32 ? (uint32_t)__builtin_ctz(a32) : ~0u; break;                     /* ff1 */
    case 20: d = a ? (uint32_t)__builtin_ctzll(a) : ~0u; break;
    case 21: d = a32 ? (uint32_t)__builtin_clz(a32) : ~0u; break;                     /* flbit */
    case 22: d = a ? (uint32_t)__builtin_clzll(a) : ~0u; break;
    case 23: {                                                                        /* flbit_i32 */
        uint32_t x = (int32_t)a32 < 0 ? ~a32 : a32;
        d = (a32 == 0 || a32 == ~0u) ? ~0u : (uint32_t)__builtin_clz(x);
        break;
    }
    case 24: {
        uint64_t x = (int64_t)a < 0 ? ~a : a;
        d = (a == 0 || a == ~0ull) ? ~0u : (uint32_t)__builtin_clzll(x);
        break;
    }
    case 25: d = (uint32_t)(int32_t)(int8_t)a32; break;
    case 26: d = (uint32_t)(int32_t)(int16_t)a32; break;
    case 27: case 29: {                                                               /* bitset b32 */
        uint32_t cur = w->s[in->dst & (SI_SREGS - 1)];
        d = in->op == 27 ? cur & ~(1u << (a32 & 31)) : cur | (1u << (a32 & 31));
        break;
    }
    case 28: case 30: {
        uint64_t cur = si_read_scalar64(c, w, in, in->dst, 0);
        d = in->op == 28 ? cur & ~(1ull << (a32 & 63)) : cur | (1ull << (a32 & 63));
        break;
    }
    case 31: d = w->next_pc; break;                                                   /* getpc */
    case 32: w->next_pc = a & ~3ull; return 0;                                        /* setpc */
    case 33: d = w->next_pc; w->next_pc = a & ~3ull; break;                           /* swappc */
    case 36: case 37: case 38: case 39: case 40: case 41: case 42: case 43: {        /* saveexec */
        uint64_t e;
        switch (in->op) {
        case 36: e = a & exec; break;
        case 37: e = a | exec; break;
        case 38: e = a ^ exec; break;
        case 39: e = a & ~exec; break;
        case 40: e = a | ~exec; break;
        case 41: e = ~(a & exec); break;
        case 42: e = ~(a | exec); break;
        default: e = ~(a ^ exec); break;
        }
        if (write_dst(c, w, in, 2, exec))
            return -1;
        si_set_exec(w, e);
        w->scc = e != 0;
        return 0;
    }
    case 44: case 45: {                                                               /* quadmask */
        for (int q = 0; q < (in->op == 44 ? 8 : 16); q++)
            if ((a >> (4 * q)) & 0xf)
                d |= 1ull << q;
        scc = d != 0;
        break;
    }
    case 46: case 47: {                                                               /* movrels */
        unsigned src = in->src[0] + w->s[CGM_SI_OP_M0];
        if (src + wd.src[0] > CGM_SI_OP_SGPR_LAST + 1)
            return si_fault(c, w, in, -1, "s_movrels source s%u out of range", src);
        d = wd.src[0] == 2 ? si_read_scalar64(c, w, in, src, 0) : w->s[src];
        break;
    }
    case 48: case 49: {                                                               /* movreld */
        unsigned dst = in->dst + w->s[CGM_SI_OP_M0];
        if (dst + wd.dst > CGM_SI_OP_SGPR_LAST + 1)
            return si_fault(c, w, in, -1, "s_movreld destination s%u out of range", dst);
        w->s[dst] = (uint32_t)a;
        if (wd.dst == 2)
            w->s[dst + 1] = (uint32_t)(a >> 32);
        return 0;
    }
    case 52: d = (int32_t)a32 < 0 ? -a32 : a32; d = (uint32_t)d; scc = d != 0; break;
    default:
        return si_fault(c, w, in, -1, "unimplemented scalar instruction");
    }
    if (write_dst(c, w, in, wd.dst, d))
        return -1;
    w->scc = scc;
    return 0;
}

static int sopc(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    struct cgm_si_widths wd = { in->width[0], { in->width[1], in->width[2], in->width[3] } };
    uint64_t a = read_src(c, w, in, 0, wd.src[0]), b = read_src(c, w, in, 1, wd.src[1]);
    int32_t ia = (int32_t)a, ib = (int32_t)b;
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    switch (in->op) {
    case 0: w->scc = ia == ib; break;
    case 1: w->scc = ia != ib; break;
    case 2: w->scc = ia > ib; break;
    case 3: w->scc = ia >= ib; break;
    case 4: w->scc = ia < ib; break;
    case 5: w->scc = ia <= ib; break;
    case 6: w->scc = ua == ub; break;
    case 7: w->scc = ua != ub; break;
    case 8: w->scc = ua > ub; break;
    case 9: w->scc = ua >= ub; break;
    case 10: w->scc = ua < ub; break;
    case 11: w->scc = ua <= ub; break;
    case 12: w->scc = ((ua >> (ub & 31)) & 1) == 0; break;
    case 13: w->scc = ((ua >> (ub & 31)) & 1) == 1; break;
    case 14: w->scc = ((a >> (ub & 63)) & 1) == 0; break;
    case 15: w->scc = ((a >> (ub & 63)) & 1) == 1; break;
    default:
        return si_fault(c, w, in, -1, "unimplemented scalar compare");
    }
    return 0;
}

static int sopp(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    uint64_t target = w->next_pc + (uint64_t)((int64_t)in->simm16 * 4);
    int take;
    switch (in->op) {
    case 0: case 12: case 14: case 15: case 19: case 20: case 21: case 22:
        return 0;                     /* nop, waitcnt, sleep, setprio, icache_inv, perf, ttrace */
    case 1: w->status = SI_WAVE_DONE; return 0;
    case 2: w->next_pc = target; return 0;
    case 4: take = !w->scc; break;
    case 5: take = w->scc; break;
    case 6: take = si_vcc(w) == 0; break;
    case 7: take = si_vcc(w) != 0; break;
    case 8: take = si_exec(w) == 0; break;
    case 9: take = si_exec(w) != 0; break;
    case 10: w->status = SI_WAVE_BARRIER; return 0;
    default:
        return si_fault(c, w, in, -1, "unsupported program-control instruction");
    }
    if (take)
        w->next_pc = target;
    return 0;
}

int si_exec_scalar(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2: return sop2(c, w, in);
    case CGM_SI_FMT_SOPK: return sopk(c, w, in);
    case CGM_SI_FMT_SOP1: return sop1(c, w, in);
    case CGM_SI_FMT_SOPC: return sopc(c, w, in);
    case CGM_SI_FMT_SOPP: return sopp(c, w, in);
    default: return si_fault(c, w, in, -1, "not a scalar instruction");
    }
}
