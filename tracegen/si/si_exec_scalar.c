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
    struct cgm_si_widths wd = cgm_si_info(in)->widths;
    uint64_t a = read_src(c, w, in, 0, wd.src[0]), b = read_src(c, w, in, 1, wd.src[1]);
    uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
    uint64_t d = 0, t;
    int scc = w->scc;
    switch (in->opcode) {
    case CGM_SI_s_add_u32: t = (uint64_t)a32 + b32; d = (uint32_t)t; scc = t >> 32; break;
    case CGM_SI_s_sub_u32: d = a32 - b32; scc = b32 > a32; break;
    case CGM_SI_s_add_i32: d = a32 + b32;
        scc = ((a32 ^ b32) & 0x80000000u) == 0 && ((a32 ^ (uint32_t)d) & 0x80000000u);
        break;
    case CGM_SI_s_sub_i32: d = a32 - b32;
        scc = ((a32 ^ b32) & 0x80000000u) && ((a32 ^ (uint32_t)d) & 0x80000000u);
        break;
    case CGM_SI_s_addc_u32:
        t = (uint64_t)a32 + b32 + (uint64_t)w->scc; d = (uint32_t)t; scc = t >> 32; break;
    case CGM_SI_s_subb_u32:
        t = (uint64_t)b32 + (uint64_t)w->scc; d = a32 - (uint32_t)t; scc = t > a32; break;
    case CGM_SI_s_min_i32: scc = (int32_t)a32 < (int32_t)b32; d = scc ? a32 : b32; break;
    case CGM_SI_s_min_u32: scc = a32 < b32; d = scc ? a32 : b32; break;
    case CGM_SI_s_max_i32: scc = (int32_t)a32 > (int32_t)b32; d = scc ? a32 : b32; break;
    case CGM_SI_s_max_u32: scc = a32 > b32; d = scc ? a32 : b32; break;
    case CGM_SI_s_cselect_b32: case CGM_SI_s_cselect_b64: d = w->scc ? a : b; break;
    case CGM_SI_s_and_b32: case CGM_SI_s_and_b64: d = a & b; scc = d != 0; break;
    case CGM_SI_s_or_b32: case CGM_SI_s_or_b64: d = a | b; scc = d != 0; break;
    case CGM_SI_s_xor_b32: case CGM_SI_s_xor_b64: d = a ^ b; scc = d != 0; break;
    case CGM_SI_s_andn2_b32: case CGM_SI_s_andn2_b64: d = a & ~b; scc = d != 0; break;
    case CGM_SI_s_orn2_b32: case CGM_SI_s_orn2_b64: d = a | ~b; scc = d != 0; break;
    case CGM_SI_s_nand_b32: case CGM_SI_s_nand_b64: d = ~(a & b); scc = d != 0; break;
    case CGM_SI_s_nor_b32: case CGM_SI_s_nor_b64: d = ~(a | b); scc = d != 0; break;
    case CGM_SI_s_xnor_b32: case CGM_SI_s_xnor_b64: d = ~(a ^ b); scc = d != 0; break;
    case CGM_SI_s_lshl_b32: d = (uint32_t)(a32 << (b32 & 31)); scc = d != 0; break;
    case CGM_SI_s_lshl_b64: d = a << (b32 & 63); scc = d != 0; break;
    case CGM_SI_s_lshr_b32: d = a32 >> (b32 & 31); scc = d != 0; break;
    case CGM_SI_s_lshr_b64: d = a >> (b32 & 63); scc = d != 0; break;
    case CGM_SI_s_ashr_i32: d = (uint32_t)((int32_t)a32 >> (b32 & 31)); scc = d != 0; break;
    case CGM_SI_s_ashr_i64: d = (uint64_t)((int64_t)a >> (b32 & 63)); scc = d != 0; break;
    case CGM_SI_s_bfm_b32: d = (uint32_t)(((1ull << (a32 & 31)) - 1) << (b32 & 31)); break;
    case CGM_SI_s_bfm_b64: d = ((1ull << (a32 & 63)) - 1) << (b32 & 63); break;
    case CGM_SI_s_mul_i32: d = (uint32_t)((int64_t)(int32_t)a32 * (int32_t)b32); break;
    case CGM_SI_s_bfe_u32: case CGM_SI_s_bfe_i32: {
        unsigned off = b32 & 31, width = (b32 >> 16) & 0x7f;
        uint32_t v = width >= 32 ? a32 >> off : (a32 >> off) & ((1u << width) - 1);
        if (in->opcode == CGM_SI_s_bfe_i32 && width > 0 && width < 32 && (v >> (width - 1) & 1))
            v |= ~0u << width;
        d = width ? v : 0;
        scc = d != 0;
        break;
    }
    case CGM_SI_s_bfe_u64: case CGM_SI_s_bfe_i64: {
        unsigned off = b32 & 63, width = (b32 >> 16) & 0x7f;
        uint64_t v = width >= 64 ? a >> off : (a >> off) & ((1ull << width) - 1);
        if (in->opcode == CGM_SI_s_bfe_i64 && width > 0 && width < 64 && (v >> (width - 1) & 1))
            v |= ~0ull << width;
        d = width ? v : 0;
        scc = d != 0;
        break;
    }
    case CGM_SI_s_absdiff_i32: d = (int32_t)a32 > (int32_t)b32 ? a32 - b32 : b32 - a32;
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
    switch (in->opcode) {
    case CGM_SI_s_movk_i32: return si_write_scalar(c, w, in, in->dst, (uint32_t)simm);
    case CGM_SI_s_cmovk_i32: return w->scc ? si_write_scalar(c, w, in, in->dst, (uint32_t)simm) : 0;
    case CGM_SI_s_cmpk_eq_i32: w->scc = (int32_t)d == simm; return 0;
    case CGM_SI_s_cmpk_lg_i32: w->scc = (int32_t)d != simm; return 0;
    case CGM_SI_s_cmpk_gt_i32: w->scc = (int32_t)d > simm; return 0;
    case CGM_SI_s_cmpk_ge_i32: w->scc = (int32_t)d >= simm; return 0;
    case CGM_SI_s_cmpk_lt_i32: w->scc = (int32_t)d < simm; return 0;
    case CGM_SI_s_cmpk_le_i32: w->scc = (int32_t)d <= simm; return 0;
    case CGM_SI_s_cmpk_eq_u32: w->scc = d == uimm; return 0;
    case CGM_SI_s_cmpk_lg_u32: w->scc = d != uimm; return 0;
    case CGM_SI_s_cmpk_gt_u32: w->scc = d > uimm; return 0;
    case CGM_SI_s_cmpk_ge_u32: w->scc = d >= uimm; return 0;
    case CGM_SI_s_cmpk_lt_u32: w->scc = d < uimm; return 0;
    case CGM_SI_s_cmpk_le_u32: w->scc = d <= uimm; return 0;
    case CGM_SI_s_addk_i32: {
        uint32_t r = d + (uint32_t)simm;
        w->scc = ((d ^ (uint32_t)simm) & 0x80000000u) == 0 && ((d ^ r) & 0x80000000u);
        return si_write_scalar(c, w, in, in->dst, r);
    }
    case CGM_SI_s_mulk_i32: return si_write_scalar(c, w, in, in->dst, d * (uint32_t)simm);
    case CGM_SI_s_getreg_b32: {
        unsigned id = uimm & 0x3f, off = (uimm >> 6) & 0x1f, size = ((uimm >> 11) & 0x1f) + 1;
        uint32_t reg = id == 1 ? w->mode : 0;
        uint32_t mask = size >= 32 ? ~0u : (1u << size) - 1;
        return si_write_scalar(c, w, in, in->dst, (reg >> off) & mask);
    }
    case CGM_SI_s_setreg_b32: case CGM_SI_s_setreg_imm32_b32: {
        unsigned id = uimm & 0x3f, off = (uimm >> 6) & 0x1f, size = ((uimm >> 11) & 0x1f) + 1;
        uint32_t v = in->opcode == CGM_SI_s_setreg_imm32_b32 ? in->literal : d;
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
    struct cgm_si_widths wd = cgm_si_info(in)->widths;
    uint64_t a = read_src(c, w, in, 0, wd.src[0]), d = 0, exec = si_exec(w);
    uint32_t a32 = (uint32_t)a;
    int scc = w->scc;
    switch (in->opcode) {
    case CGM_SI_s_mov_b32: case CGM_SI_s_mov_b64: d = a; break;
    case CGM_SI_s_cmov_b32: case CGM_SI_s_cmov_b64: if (!w->scc) return 0; d = a; break;
    case CGM_SI_s_not_b32: d = (uint32_t)~a32; scc = d != 0; break;
    case CGM_SI_s_not_b64: d = ~a; scc = d != 0; break;
    case CGM_SI_s_wqm_b32: case CGM_SI_s_wqm_b64: {
        for (int q = 0; q < (in->opcode == CGM_SI_s_wqm_b32 ? 32 : 64); q += 4)
            if ((a >> q) & 0xf)
                d |= 0xfull << q;
        scc = d != 0;
        break;
    }
    case CGM_SI_s_brev_b32:
        for (int i = 0; i < 32; i++)
            d |= (uint64_t)((a32 >> i) & 1) << (31 - i);
        break;
    case CGM_SI_s_brev_b64:
        for (int i = 0; i < 64; i++)
            d |= ((a >> i) & 1) << (63 - i);
        break;
    case CGM_SI_s_bcnt0_i32_b32: d = (uint32_t)(32 - __builtin_popcount(a32)); scc = d != 0; break;
    case CGM_SI_s_bcnt0_i32_b64: d = (uint32_t)(64 - popcount64(a)); scc = d != 0; break;
    case CGM_SI_s_bcnt1_i32_b32: d = (uint32_t)__builtin_popcount(a32); scc = d != 0; break;
    case CGM_SI_s_bcnt1_i32_b64: d = (uint32_t)popcount64(a); scc = d != 0; break;
    case CGM_SI_s_ff0_i32_b32: d = ~a32 ? (uint32_t)__builtin_ctz(~a32) : ~0u; break;
    case CGM_SI_s_ff0_i32_b64: d = ~a ? (uint32_t)__builtin_ctzll(~a) : ~0u; break;
    case CGM_SI_s_ff1_i32_b32: d = a32 ? (uint32_t)__builtin_ctz(a32) : ~0u; break;
    case CGM_SI_s_ff1_i32_b64: d = a ? (uint32_t)__builtin_ctzll(a) : ~0u; break;
    case CGM_SI_s_flbit_i32_b32: d = a32 ? (uint32_t)__builtin_clz(a32) : ~0u; break;
    case CGM_SI_s_flbit_i32_b64: d = a ? (uint32_t)__builtin_clzll(a) : ~0u; break;
    case CGM_SI_s_flbit_i32: {
        uint32_t x = (int32_t)a32 < 0 ? ~a32 : a32;
        d = (a32 == 0 || a32 == ~0u) ? ~0u : (uint32_t)__builtin_clz(x);
        break;
    }
    case CGM_SI_s_flbit_i32_i64: {
        uint64_t x = (int64_t)a < 0 ? ~a : a;
        d = (a == 0 || a == ~0ull) ? ~0u : (uint32_t)__builtin_clzll(x);
        break;
    }
    case CGM_SI_s_sext_i32_i8: d = (uint32_t)(int32_t)(int8_t)a32; break;
    case CGM_SI_s_sext_i32_i16: d = (uint32_t)(int32_t)(int16_t)a32; break;
    case CGM_SI_s_bitset0_b32: case CGM_SI_s_bitset1_b32: {
        uint32_t cur = w->s[in->dst & (SI_SREGS - 1)];
        d = in->opcode == CGM_SI_s_bitset0_b32 ? cur & ~(1u << (a32 & 31))
                                               : cur | (1u << (a32 & 31));
        break;
    }
    case CGM_SI_s_bitset0_b64: case CGM_SI_s_bitset1_b64: {
        uint64_t cur = si_read_scalar64(c, w, in, in->dst, 0);
        d = in->opcode == CGM_SI_s_bitset0_b64 ? cur & ~(1ull << (a32 & 63))
                                               : cur | (1ull << (a32 & 63));
        break;
    }
    case CGM_SI_s_getpc_b64: d = w->next_pc; break;
    case CGM_SI_s_setpc_b64: w->next_pc = a & ~3ull; return 0;
    case CGM_SI_s_swappc_b64: d = w->next_pc; w->next_pc = a & ~3ull; break;
    case CGM_SI_s_and_saveexec_b64: case CGM_SI_s_or_saveexec_b64: case CGM_SI_s_xor_saveexec_b64:
    case CGM_SI_s_andn2_saveexec_b64: case CGM_SI_s_orn2_saveexec_b64:
    case CGM_SI_s_nand_saveexec_b64: case CGM_SI_s_nor_saveexec_b64:
    case CGM_SI_s_xnor_saveexec_b64: {
        uint64_t e;
        switch (in->opcode) {
        case CGM_SI_s_and_saveexec_b64: e = a & exec; break;
        case CGM_SI_s_or_saveexec_b64: e = a | exec; break;
        case CGM_SI_s_xor_saveexec_b64: e = a ^ exec; break;
        case CGM_SI_s_andn2_saveexec_b64: e = a & ~exec; break;
        case CGM_SI_s_orn2_saveexec_b64: e = a | ~exec; break;
        case CGM_SI_s_nand_saveexec_b64: e = ~(a & exec); break;
        case CGM_SI_s_nor_saveexec_b64: e = ~(a | exec); break;
        default: e = ~(a ^ exec); break;
        }
        if (write_dst(c, w, in, 2, exec))
            return -1;
        si_set_exec(w, e);
        w->scc = e != 0;
        return 0;
    }
    case CGM_SI_s_quadmask_b32: case CGM_SI_s_quadmask_b64: {
        for (int q = 0; q < (in->opcode == CGM_SI_s_quadmask_b32 ? 8 : 16); q++)
            if ((a >> (4 * q)) & 0xf)
                d |= 1ull << q;
        scc = d != 0;
        break;
    }
    case CGM_SI_s_movrels_b32: case CGM_SI_s_movrels_b64: {
        unsigned src = in->src[0] + w->s[CGM_SI_OP_M0];
        if (src + wd.src[0] > CGM_SI_OP_SGPR_LAST + 1)
            return si_fault(c, w, in, -1, "s_movrels source s%u out of range", src);
        d = wd.src[0] == 2 ? si_read_scalar64(c, w, in, src, 0) : w->s[src];
        break;
    }
    case CGM_SI_s_movreld_b32: case CGM_SI_s_movreld_b64: {
        unsigned dst = in->dst + w->s[CGM_SI_OP_M0];
        if (dst + wd.dst > CGM_SI_OP_SGPR_LAST + 1)
            return si_fault(c, w, in, -1, "s_movreld destination s%u out of range", dst);
        w->s[dst] = (uint32_t)a;
        if (wd.dst == 2)
            w->s[dst + 1] = (uint32_t)(a >> 32);
        return 0;
    }
    case CGM_SI_s_abs_i32: d = (int32_t)a32 < 0 ? -a32 : a32; d = (uint32_t)d; scc = d != 0; break;
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
    struct cgm_si_widths wd = cgm_si_info(in)->widths;
    uint64_t a = read_src(c, w, in, 0, wd.src[0]), b = read_src(c, w, in, 1, wd.src[1]);
    int32_t ia = (int32_t)a, ib = (int32_t)b;
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    switch (in->opcode) {
    case CGM_SI_s_cmp_eq_i32: w->scc = ia == ib; break;
    case CGM_SI_s_cmp_lg_i32: w->scc = ia != ib; break;
    case CGM_SI_s_cmp_gt_i32: w->scc = ia > ib; break;
    case CGM_SI_s_cmp_ge_i32: w->scc = ia >= ib; break;
    case CGM_SI_s_cmp_lt_i32: w->scc = ia < ib; break;
    case CGM_SI_s_cmp_le_i32: w->scc = ia <= ib; break;
    case CGM_SI_s_cmp_eq_u32: w->scc = ua == ub; break;
    case CGM_SI_s_cmp_lg_u32: w->scc = ua != ub; break;
    case CGM_SI_s_cmp_gt_u32: w->scc = ua > ub; break;
    case CGM_SI_s_cmp_ge_u32: w->scc = ua >= ub; break;
    case CGM_SI_s_cmp_lt_u32: w->scc = ua < ub; break;
    case CGM_SI_s_cmp_le_u32: w->scc = ua <= ub; break;
    case CGM_SI_s_bitcmp0_b32: w->scc = ((ua >> (ub & 31)) & 1) == 0; break;
    case CGM_SI_s_bitcmp1_b32: w->scc = ((ua >> (ub & 31)) & 1) == 1; break;
    case CGM_SI_s_bitcmp0_b64: w->scc = ((a >> (ub & 63)) & 1) == 0; break;
    case CGM_SI_s_bitcmp1_b64: w->scc = ((a >> (ub & 63)) & 1) == 1; break;
    default:
        return si_fault(c, w, in, -1, "unimplemented scalar compare");
    }
    return 0;
}

static int sopp(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    uint64_t target = w->next_pc + (uint64_t)((int64_t)in->simm16 * 4);
    int take;
    switch (in->opcode) {
    case CGM_SI_s_nop: case CGM_SI_s_waitcnt: case CGM_SI_s_sleep: case CGM_SI_s_setprio:
    case CGM_SI_s_icache_inv: case CGM_SI_s_incperflevel: case CGM_SI_s_decperflevel:
    case CGM_SI_s_ttracedata:
        return 0;                     /* no architectural effect in a functional run */
    case CGM_SI_s_endpgm: w->status = SI_WAVE_DONE; return 0;
    case CGM_SI_s_branch: w->next_pc = target; return 0;
    case CGM_SI_s_cbranch_scc0: take = !w->scc; break;
    case CGM_SI_s_cbranch_scc1: take = w->scc; break;
    case CGM_SI_s_cbranch_vccz: take = si_vcc(w) == 0; break;
    case CGM_SI_s_cbranch_vccnz: take = si_vcc(w) != 0; break;
    case CGM_SI_s_cbranch_execz: take = si_exec(w) == 0; break;
    case CGM_SI_s_cbranch_execnz: take = si_exec(w) != 0; break;
    case CGM_SI_s_barrier: w->status = SI_WAVE_BARRIER; return 0;
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
