/* The integer interpreter: one switch over the pre-decoded operations. */
#include "tracegen/x86/interp.h"

#include "tracegen/x86/fault.h"
#include "tracegen/x86/fpenv.h"
#include "tracegen/x86/operand.h"
#include "tracegen/x86/ops.h"

uint64_t x86_operand_address(const struct x86_cpu *c, const struct x86_opnd *o)
{
    return op_ea(c, o);
}

/* Read-modify-write destination: its address is computed once. */
struct rmw {
    const struct x86_opnd *o;
    uint64_t addr;
};

static inline uint64_t rmw_read(struct x86_cpu *c, struct rmw *d, const struct x86_opnd *o,
                                unsigned size)
{
    d->o = o;
    if (o->kind == OPK_MEM) {
        d->addr = op_ea(c, o);
        return x86_read(c, d->addr, size);
    }
    d->addr = 0;
    return reg_get(c, o->reg, size);
}

static inline void rmw_write(struct x86_cpu *c, const struct rmw *d, unsigned size, uint64_t v)
{
    if (d->o->kind == OPK_MEM)
        x86_write(c, d->addr, size, v);
    else
        reg_set(c, d->o->reg, size, v);
}

static void set_cf(struct x86_cpu *c, int cf)
{
    x86_flags_materialize(c);
    c->rflags = (c->rflags & ~(uint64_t)FL_CF) | (cf ? FL_CF : 0);
}

static int get_cf(const struct x86_cpu *c)
{
    return x86_flags_cf(c);
}

/* Sets all arithmetic flags eagerly from a result plus explicit CF/OF. */
static void set_flags_result(struct x86_cpu *c, unsigned size, uint64_t res, int cf, int of)
{
    uint32_t f = 0;
    res &= x86_size_mask(size);
    if (cf) f |= FL_CF;
    if (of) f |= FL_OF;
    if (res == 0) f |= FL_ZF;
    if (res & x86_sign_bit(size)) f |= FL_SF;
    if (!(__builtin_popcount((unsigned)(res & 0xff)) & 1)) f |= FL_PF;
    c->lz_op = LZ_NONE;
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | f;
}

static void exec_alu(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz;
    uint64_t m = x86_size_mask(sz);
    struct rmw d;
    uint64_t a = rmw_read(c, &d, &in->o[0], sz);
    uint64_t b = op_read(c, &in->o[1], sz);
    uint64_t r;
    switch (in->op) {
    case XOP_ADD:
        r = (a + b) & m;
        x86_set_lazy(c, LZ_ADD, sz, a, b, r);
        break;
    case XOP_SUB:
        r = (a - b) & m;
        x86_set_lazy(c, LZ_SUB, sz, a, b, r);
        break;
    case XOP_CMP:
        x86_set_lazy(c, LZ_SUB, sz, a, b, (a - b) & m);
        return;
    case XOP_ADC: {
        uint32_t cin = (uint32_t)get_cf(c);
        r = (a + b + cin) & m;
        x86_set_lazy(c, LZ_ADC, sz, a, b, r);
        c->lz_cin = cin;
        break;
    }
    case XOP_SBB: {
        uint32_t cin = (uint32_t)get_cf(c);
        r = (a - b - cin) & m;
        x86_set_lazy(c, LZ_SBB, sz, a, b, r);
        c->lz_cin = cin;
        break;
    }
    case XOP_AND: r = a & b; x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, r); break;
    case XOP_OR:  r = a | b; x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, r); break;
    case XOP_XOR: r = a ^ b; x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, r); break;
    default: /* TEST */
        x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, a & b);
        return;
    }
    rmw_write(c, &d, sz, r);
}

/* The arithmetic of exec_alu on operands already read, with a constant OP.
 * Returns 1 when the result R is to be written back (not CMP or TEST). */
__attribute__((always_inline)) static inline int alu_compute(struct x86_cpu *c, unsigned op,
                                                             unsigned sz, uint64_t m, uint64_t a,
                                                             uint64_t b, uint64_t *r)
{
    switch (op) {
    case XOP_ADD: *r = (a + b) & m; x86_set_lazy(c, LZ_ADD, sz, a, b, *r); return 1;
    case XOP_SUB: *r = (a - b) & m; x86_set_lazy(c, LZ_SUB, sz, a, b, *r); return 1;
    case XOP_CMP: x86_set_lazy(c, LZ_SUB, sz, a, b, (a - b) & m); return 0;
    case XOP_AND: *r = a & b; x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, *r); return 1;
    case XOP_OR: *r = a | b; x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, *r); return 1;
    case XOP_XOR: *r = a ^ b; x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, *r); return 1;
    default: x86_set_lazy(c, LZ_LOGIC, sz, 0, 0, a & b); return 0; /* TEST */
    }
}

/* exec_alu for the decoder's alu_reg forms (enum alu_form, ops.h),
 * inlined with a constant OP: no operand-kind branches, which mispredict
 * when the kinds change from one instruction to the next, and the size
 * mask is a select. Memory is read and written in exec_alu's order. */
__attribute__((always_inline)) static inline void alu_reg(struct x86_cpu *c,
                                                          const struct x86_dinsn *in, unsigned op)
{
    unsigned sz = in->osz;
    uint64_t m = sz == 8 ? ~0ull : 0xffffffffull;
    uint64_t r;
    if (in->alu_reg <= ALU_REG_IMM) {
        uint64_t a = c->r[in->o[0].reg] & m;
        uint64_t b = (in->alu_reg == ALU_REG_REG ? c->r[in->o[1].reg] : (uint64_t)in->o[1].val) & m;
        if (alu_compute(c, op, sz, m, a, b, &r))
            c->r[in->o[0].reg] = r; /* a 32-bit result zero-extends */
    } else if (in->alu_reg == ALU_REG_MEM) {
        uint64_t a = c->r[in->o[0].reg] & m;
        uint64_t b = x86_read(c, op_ea(c, &in->o[1]), sz);
        if (alu_compute(c, op, sz, m, a, b, &r))
            c->r[in->o[0].reg] = r;
    } else {
        uint64_t addr = op_ea(c, &in->o[0]);
        uint64_t a = x86_read(c, addr, sz);
        uint64_t b = (in->alu_reg == ALU_MEM_REG ? c->r[in->o[1].reg] : (uint64_t)in->o[1].val) & m;
        if (alu_compute(c, op, sz, m, a, b, &r))
            x86_write(c, addr, sz, r);
    }
}

/* A conditional jump with a constant condition code. */
__attribute__((always_inline)) static inline void jcc(struct x86_cpu *c,
                                                      const struct x86_dinsn *in, unsigned cc)
{
    if (x86_cond_inline(c, cc))
        c->rip = (uint64_t)in->o[0].val;
}

static void exec_shift(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz, bits = sz * 8;
    uint64_t m = x86_size_mask(sz), sign = x86_sign_bit(sz);
    struct rmw d;
    uint64_t a = rmw_read(c, &d, &in->o[0], sz);
    unsigned cnt = in->nops > 1 ? (unsigned)op_read(c, &in->o[1], 1) : 1;
    cnt &= sz == 8 ? 63 : 31;
    if (cnt == 0) {
        /* flags stay, but a 32-bit register is still written (zero-extended) */
        if (sz == 4 && in->o[0].kind == OPK_REG)
            rmw_write(c, &d, sz, a);
        return;
    }
    uint64_t r;
    int cf, of;
    switch (in->op) {
    case XOP_SHL:
        r = cnt >= 64 ? 0 : (a << cnt) & m;
        cf = cnt <= bits ? (int)((a >> (bits - cnt)) & 1) : 0;
        of = ((r & sign) != 0) ^ cf;
        set_flags_result(c, sz, r, cf, of);
        break;
    case XOP_SHR:
        r = a >> cnt;
        cf = (int)((a >> (cnt - 1)) & 1);
        of = (a & sign) != 0;
        set_flags_result(c, sz, r, cf, of);
        break;
    case XOP_SAR: {
        int64_t s = x86_sext(a, sz);
        r = (uint64_t)(s >> (cnt > 63 ? 63 : cnt)) & m;
        cf = (int)(((uint64_t)s >> (cnt - 1 > 63 ? 63 : cnt - 1)) & 1);
        set_flags_result(c, sz, r, cf, 0);
        break;
    }
    case XOP_ROL: {
        unsigned k = cnt % bits;
        r = k ? ((a << k) | (a >> (bits - k))) & m : a;
        x86_flags_materialize(c);
        cf = (int)(r & 1);
        of = ((r & sign) != 0) ^ cf;
        c->rflags = (c->rflags & ~(uint64_t)(FL_CF | FL_OF)) | (cf ? FL_CF : 0) | (of ? FL_OF : 0);
        break;
    }
    case XOP_ROR: {
        unsigned k = cnt % bits;
        r = k ? ((a >> k) | (a << (bits - k))) & m : a;
        x86_flags_materialize(c);
        cf = (r & sign) != 0;
        of = cf ^ ((r & (sign >> 1)) != 0);
        c->rflags = (c->rflags & ~(uint64_t)(FL_CF | FL_OF)) | (cf ? FL_CF : 0) | (of ? FL_OF : 0);
        break;
    }
    case XOP_RCL: case XOP_RCR: {
        unsigned k = cnt % (bits + 1);
        x86_flags_materialize(c);
        int carry = (c->rflags & FL_CF) != 0;
        r = a;
        for (unsigned i = 0; i < k; i++) {
            if (in->op == XOP_RCL) {
                int out = (r & sign) != 0;
                r = ((r << 1) | (uint64_t)carry) & m;
                carry = out;
            } else {
                int out = (int)(r & 1);
                r = (r >> 1) | (carry ? sign : 0);
                carry = out;
            }
        }
        if (in->op == XOP_RCL)
            of = ((r & sign) != 0) ^ carry;
        else
            of = ((r & sign) != 0) ^ ((r & (sign >> 1)) != 0);
        c->rflags = (c->rflags & ~(uint64_t)(FL_CF | FL_OF)) | (carry ? FL_CF : 0) | (of ? FL_OF : 0);
        break;
    }
    default:
        return;
    }
    rmw_write(c, &d, sz, r);
}

static void exec_double_shift(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz, bits = sz * 8;
    uint64_t m = x86_size_mask(sz), sign = x86_sign_bit(sz);
    struct rmw d;
    uint64_t a = rmw_read(c, &d, &in->o[0], sz);
    uint64_t b = op_read(c, &in->o[1], sz);
    unsigned cnt = (unsigned)op_read(c, &in->o[2], 1) & (sz == 8 ? 63 : 31);
    if (cnt == 0) {
        if (sz == 4 && in->o[0].kind == OPK_REG)
            rmw_write(c, &d, sz, a);
        return;
    }
    if (cnt > bits)
        cnt = bits; /* undefined by the manual; keep it well defined */
    uint64_t r;
    int cf;
    if (in->op == XOP_SHLD) {
        r = cnt == bits ? b : ((a << cnt) | (b >> (bits - cnt))) & m;
        cf = (int)((a >> (bits - cnt)) & 1);
    } else {
        r = cnt == bits ? b : ((a >> cnt) | (b << (bits - cnt))) & m;
        cf = (int)((a >> (cnt - 1)) & 1);
    }
    set_flags_result(c, sz, r, cf, ((r ^ a) & sign) != 0);
    rmw_write(c, &d, sz, r);
}

static void exec_muldiv(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz, bits = sz * 8;
    uint64_t m = x86_size_mask(sz);
    uint64_t src = op_read(c, &in->o[0], sz);
    uint64_t ax = c->r[R_RAX] & m;
    uint64_t dx = c->r[R_RDX] & m;
    switch (in->op) {
    case XOP_MUL: {
        unsigned __int128 p = (unsigned __int128)ax * src;
        uint64_t lo = (uint64_t)p & m;
        uint64_t hi = sz == 8 ? (uint64_t)(p >> 64) : ((uint64_t)p >> bits) & m;
        if (sz == 1) {
            reg_set(c, R_RAX, 2, (uint64_t)p & 0xffff);
        } else {
            reg_set(c, R_RAX, sz, lo);
            reg_set(c, R_RDX, sz, hi);
        }
        set_flags_result(c, sz, lo, hi != 0, hi != 0);
        return;
    }
    case XOP_IMUL1: {
        __int128 p = (__int128)x86_sext(ax, sz) * x86_sext(src, sz);
        uint64_t lo = (uint64_t)p & m;
        uint64_t hi = sz == 8 ? (uint64_t)((unsigned __int128)p >> 64)
                              : ((uint64_t)p >> bits) & m;
        int ovf = (__int128)x86_sext(lo, sz) != p;
        if (sz == 1) {
            reg_set(c, R_RAX, 2, (uint64_t)p & 0xffff);
        } else {
            reg_set(c, R_RAX, sz, lo);
            reg_set(c, R_RDX, sz, hi);
        }
        set_flags_result(c, sz, lo, ovf, ovf);
        return;
    }
    case XOP_DIV: {
        if (src == 0)
            x86_fault(c, XF_DIVIDE, 0);
        unsigned __int128 n;
        if (sz == 1)
            n = c->r[R_RAX] & 0xffff;
        else if (sz == 8)
            n = ((unsigned __int128)dx << 64) | ax;
        else
            n = (dx << bits) | ax;
        unsigned __int128 q = n / src, rem = n % src;
        if (q > m)
            x86_fault(c, XF_DIVIDE, 0);
        if (sz == 1) {
            reg_set(c, R_RAX, 2, ((uint64_t)rem << 8) | (uint64_t)q);
        } else {
            reg_set(c, R_RAX, sz, (uint64_t)q);
            reg_set(c, R_RDX, sz, (uint64_t)rem);
        }
        return;
    }
    default: { /* IDIV */
        if (src == 0)
            x86_fault(c, XF_DIVIDE, 0);
        __int128 n;
        if (sz == 1)
            n = (int16_t)(c->r[R_RAX] & 0xffff);
        else if (sz == 8)
            n = (__int128)(((unsigned __int128)dx << 64) | ax);
        else
            n = x86_sext((dx << bits) | ax, sz * 2);
        __int128 s = x86_sext(src, sz);
        if (sz == 8 && s == -1 && n == (__int128)((unsigned __int128)1 << 127))
            x86_fault(c, XF_DIVIDE, 0);
        __int128 q = n / s, rem = n % s;
        __int128 lim = (__int128)1 << (bits - 1);
        if (q >= lim || q < -lim)
            x86_fault(c, XF_DIVIDE, 0);
        if (sz == 1) {
            reg_set(c, R_RAX, 2, (((uint64_t)rem & 0xff) << 8) | ((uint64_t)q & 0xff));
        } else {
            reg_set(c, R_RAX, sz, (uint64_t)q & m);
            reg_set(c, R_RDX, sz, (uint64_t)rem & m);
        }
        return;
    }
    }
}

static void exec_imul(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz;
    uint64_t m = x86_size_mask(sz);
    int64_t a, b;
    if (in->nops == 3) {
        a = x86_sext(op_read(c, &in->o[1], sz), sz);
        b = x86_sext(op_read(c, &in->o[2], sz), sz);
    } else {
        a = x86_sext(op_read(c, &in->o[0], sz), sz);
        b = x86_sext(op_read(c, &in->o[1], sz), sz);
    }
    __int128 p = (__int128)a * b;
    uint64_t lo = (uint64_t)p & m;
    int ovf = (__int128)x86_sext(lo, sz) != p;
    reg_set(c, in->o[0].reg, sz, lo);
    set_flags_result(c, sz, lo, ovf, ovf);
}

static void exec_bittest(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz, bits = sz * 8;
    const struct x86_opnd *d = &in->o[0];
    uint64_t off = op_read(c, &in->o[1], in->o[1].kind == OPK_IMM ? 1 : sz);
    uint64_t addr = 0, v;
    unsigned bit;
    if (d->kind == OPK_MEM) {
        addr = op_ea(c, d);
        if (in->o[1].kind == OPK_REG) {
            int64_t so = x86_sext(off, sz);
            addr += (uint64_t)((so >> (sz == 8 ? 6 : sz == 4 ? 5 : 4)) * (int64_t)sz);
        }
        bit = (unsigned)(off & (bits - 1));
        v = x86_read(c, addr, sz);
    } else {
        bit = (unsigned)(off & (bits - 1));
        v = reg_get(c, d->reg, sz);
    }
    int cf = (int)((v >> bit) & 1);
    set_cf(c, cf);
    uint64_t nv = v;
    switch (in->op) {
    case XOP_BTS: nv = v | (1ull << bit); break;
    case XOP_BTR: nv = v & ~(1ull << bit); break;
    case XOP_BTC: nv = v ^ (1ull << bit); break;
    default: return;
    }
    if (d->kind == OPK_MEM)
        x86_write(c, addr, sz, nv);
    else
        reg_set(c, d->reg, sz, nv);
}

static void string_step(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned sz = in->osz;
    int64_t step = (c->rflags & FL_DF) ? -(int64_t)sz : (int64_t)sz;
    switch (in->op) {
    case XOP_MOVS:
        x86_write(c, c->r[R_RDI], sz, x86_read(c, c->r[R_RSI], sz));
        c->r[R_RSI] += (uint64_t)step;
        c->r[R_RDI] += (uint64_t)step;
        break;
    case XOP_STOS:
        x86_write(c, c->r[R_RDI], sz, c->r[R_RAX] & x86_size_mask(sz));
        c->r[R_RDI] += (uint64_t)step;
        break;
    case XOP_LODS:
        reg_set(c, R_RAX, sz, x86_read(c, c->r[R_RSI], sz));
        c->r[R_RSI] += (uint64_t)step;
        break;
    case XOP_CMPS: {
        uint64_t a = x86_read(c, c->r[R_RSI], sz), b = x86_read(c, c->r[R_RDI], sz);
        x86_set_lazy(c, LZ_SUB, sz, a, b, (a - b) & x86_size_mask(sz));
        c->r[R_RSI] += (uint64_t)step;
        c->r[R_RDI] += (uint64_t)step;
        break;
    }
    default: { /* SCAS */
        uint64_t a = c->r[R_RAX] & x86_size_mask(sz), b = x86_read(c, c->r[R_RDI], sz);
        x86_set_lazy(c, LZ_SUB, sz, a, b, (a - b) & x86_size_mask(sz));
        c->r[R_RDI] += (uint64_t)step;
        break;
    }
    }
}

static void exec_string(struct x86_cpu *c, const struct x86_dinsn *in)
{
    if (!in->rep) {
        string_step(c, in);
        return;
    }
    int compares = in->op == XOP_CMPS || in->op == XOP_SCAS;
    for (int first = 1; c->r[R_RCX]; first = 0) {
        /* Iterations after the first count as instructions (as valgrind
         * counts them), so the run's limit cuts a long one short; the
         * registers are consistent between iterations, as for an
         * interrupt on hardware. */
        if (!first) {
            if (c->rep_bounded) {
                if (!c->rep_room)
                    x86_fault(c, XF_LIMIT, 0);
                c->rep_room--;
            }
            c->rep_extra++;
            if (!(c->rep_extra & 0xfff) && x86_interrupt)
                x86_fault(c, XF_INTERRUPTED, 0);
        }
        string_step(c, in);
        c->r[R_RCX]--;
        if (compares) {
            int zf = c->lz_a == c->lz_b;
            if ((in->rep == 1 && !zf) || (in->rep == 2 && zf))
                break;
        }
    }
}

int x86_exec_block(struct x86_cpu *c, const struct x86_block *b)
{
    const struct x86_dinsn *in = b->insn, *end = b->insn + b->ninsn;
    x86_fpenv_enter(c);
    for (; in < end; in++) {
        c->cur = in;
        c->rip = in->next;
        switch (in->run) {
        case XOP_NOP: case XOP_FENCE:
            break;
        /* MOV forms (decode.c run_form): the same as XOP_MOV's op_read and
         * op_write for these operand kinds and sizes */
        case RUN_MOV_RR:
            c->r[in->o[0].reg] = c->r[in->o[1].reg] & (in->osz == 8 ? ~0ull : 0xffffffffull);
            break;
        case RUN_MOV_RI:
            c->r[in->o[0].reg] = (uint64_t)in->o[1].val & (in->osz == 8 ? ~0ull : 0xffffffffull);
            break;
        case RUN_MOV_RM8:
            c->r[in->o[0].reg] = x86_read(c, op_ea(c, &in->o[1]), 8);
            break;
        case RUN_MOV_RM4:
            c->r[in->o[0].reg] = x86_read(c, op_ea(c, &in->o[1]), 4);
            break;
        case RUN_MOV_MR8:
            x86_write(c, op_ea(c, &in->o[0]), 8, c->r[in->o[1].reg]);
            break;
        case RUN_MOV_MR4:
            x86_write(c, op_ea(c, &in->o[0]), 4, c->r[in->o[1].reg]);
            break;
        /* MOVZX/MOVSX forms (decode.c extend_form): the zero- or
         * sign-extended value fills the 32/64-bit destination */
        case RUN_MOVZX_RM8:
            c->r[in->o[0].reg] = x86_read(c, op_ea(c, &in->o[1]), 1);
            break;
        case RUN_MOVZX_RM16:
            c->r[in->o[0].reg] = x86_read(c, op_ea(c, &in->o[1]), 2);
            break;
        case RUN_MOVZX_RR8:
            c->r[in->o[0].reg] = c->r[in->o[1].reg] & 0xff;
            break;
        case RUN_MOVZX_RR16:
            c->r[in->o[0].reg] = c->r[in->o[1].reg] & 0xffff;
            break;
        case RUN_MOVSXD_RM:
            c->r[in->o[0].reg] = (uint64_t)(int64_t)(int32_t)x86_read(c, op_ea(c, &in->o[1]), 4);
            break;
        case RUN_MOVSXD_RR:
            c->r[in->o[0].reg] = (uint64_t)(int64_t)(int32_t)c->r[in->o[1].reg];
            break;
        case RUN_MOVSD_RR: x86_sse_movsd_rr(c, in); break;
        case RUN_MOVSS_RR: x86_sse_movss_rr(c, in); break;
        case RUN_MOVSD_LOAD: x86_sse_movsd_load(c, in); break;
        case RUN_MOVSS_LOAD: x86_sse_movss_load(c, in); break;
        case RUN_MOVSD_STORE: x86_sse_movsd_store(c, in); break;
        case RUN_MOVSS_STORE: x86_sse_movss_store(c, in); break;
        case RUN_MOVX_RR: x86_sse_movx_rr(c, in); break;
        case RUN_MOVX_LOAD: x86_sse_movx_load(c, in); break;
        case RUN_MOVX_STORE: x86_sse_movx_store(c, in); break;
        case RUN_ADDSD: x86_sse_addsd(c, in); break;
        case RUN_SUBSD: x86_sse_subsd(c, in); break;
        case RUN_MULSD: x86_sse_mulsd(c, in); break;
        case RUN_ADDSS: x86_sse_addss(c, in); break;
        case RUN_SUBSS: x86_sse_subss(c, in); break;
        case RUN_MULSS: x86_sse_mulss(c, in); break;
        case RUN_SSE_VEC: x86_exec_sse_vec(c, in); break;
        case RUN_SSE_LANE_RR: x86_sse_lane_rr(c, in); break;
        case RUN_SSE_LANE: x86_sse_lane(c, in); break;
        case RUN_SSE_COMIS: x86_sse_comis(c, in); break;
        case RUN_SSE_CVT2SI: x86_sse_cvt2si(c, in); break;
        case RUN_VEX_LANE_RR: x86_vex_lane_rr(c, in); break;
        case RUN_VEX_LANE: x86_vex_lane(c, in); break;
        case RUN_VEX_STORE: x86_vex_store(c, in); break;
        case RUN_VEX_FMA_SCALAR: x86_vex_fma_scalar(c, in); break;
        case RUN_VEX_FMA: x86_vex_fma(c, in); break;
        /* one case per condition code: x86_cond's switch on it folds away */
        case RUN_JCC_FIRST + 0: jcc(c, in, 0); break;
        case RUN_JCC_FIRST + 1: jcc(c, in, 1); break;
        case RUN_JCC_FIRST + 2: jcc(c, in, 2); break;
        case RUN_JCC_FIRST + 3: jcc(c, in, 3); break;
        case RUN_JCC_FIRST + 4: jcc(c, in, 4); break;
        case RUN_JCC_FIRST + 5: jcc(c, in, 5); break;
        case RUN_JCC_FIRST + 6: jcc(c, in, 6); break;
        case RUN_JCC_FIRST + 7: jcc(c, in, 7); break;
        case RUN_JCC_FIRST + 8: jcc(c, in, 8); break;
        case RUN_JCC_FIRST + 9: jcc(c, in, 9); break;
        case RUN_JCC_FIRST + 10: jcc(c, in, 10); break;
        case RUN_JCC_FIRST + 11: jcc(c, in, 11); break;
        case RUN_JCC_FIRST + 12: jcc(c, in, 12); break;
        case RUN_JCC_FIRST + 13: jcc(c, in, 13); break;
        case RUN_JCC_FIRST + 14: jcc(c, in, 14); break;
        case RUN_JCC_FIRST + 15: jcc(c, in, 15); break;
        case XOP_MOV:
            op_write(c, &in->o[0], in->osz, op_read(c, &in->o[1], in->osz));
            break;
        case XOP_MOVZX:
            reg_set(c, in->o[0].reg, in->osz, op_read(c, &in->o[1], in->o[1].size));
            break;
        case XOP_MOVSX:
            reg_set(c, in->o[0].reg, in->osz,
                    (uint64_t)x86_sext(op_read(c, &in->o[1], in->o[1].size), in->o[1].size));
            break;
        case XOP_LEA: {
            uint64_t a = op_ea(c, &in->o[1]);
            reg_set(c, in->o[0].reg, in->osz, a);
            break;
        }
        case XOP_PUSH: {
            uint64_t v = op_read(c, &in->o[0], in->osz);
            if (in->o[0].kind == OPK_IMM)
                v = (uint64_t)in->o[0].val;
            c->r[R_RSP] -= in->osz;
            x86_write(c, c->r[R_RSP], in->osz, v);
            break;
        }
        case XOP_POP: {
            uint64_t v = x86_read(c, c->r[R_RSP], in->osz);
            c->r[R_RSP] += in->osz;
            op_write(c, &in->o[0], in->osz, v);
            break;
        }
        case XOP_XCHG: {
            struct rmw d;
            uint64_t a = rmw_read(c, &d, &in->o[0], in->osz);
            uint64_t v = op_read(c, &in->o[1], in->osz);
            rmw_write(c, &d, in->osz, v);
            op_write(c, &in->o[1], in->osz, a);
            break;
        }
        case XOP_CMPXCHG: {
            unsigned sz = in->osz;
            struct rmw d;
            uint64_t dst = rmw_read(c, &d, &in->o[0], sz);
            uint64_t acc = c->r[R_RAX] & x86_size_mask(sz);
            x86_set_lazy(c, LZ_SUB, sz, acc, dst, (acc - dst) & x86_size_mask(sz));
            if (acc == dst)
                rmw_write(c, &d, sz, op_read(c, &in->o[1], sz));
            else
                reg_set(c, R_RAX, sz, dst);
            break;
        }
        case XOP_CMPXCHG16B: {
            uint64_t a = op_ea(c, &in->o[0]);
            uint64_t lo = x86_read(c, a, 8), hi = x86_read(c, a + 8, 8);
            x86_flags_materialize(c);
            if (lo == c->r[R_RAX] && hi == c->r[R_RDX]) {
                x86_write(c, a, 8, c->r[R_RBX]);
                x86_write(c, a + 8, 8, c->r[R_RCX]);
                c->rflags |= FL_ZF;
            } else {
                c->r[R_RAX] = lo;
                c->r[R_RDX] = hi;
                c->rflags &= ~(uint64_t)FL_ZF;
            }
            break;
        }
        case XOP_XADD: {
            unsigned sz = in->osz;
            struct rmw d;
            uint64_t a = rmw_read(c, &d, &in->o[0], sz);
            uint64_t s = op_read(c, &in->o[1], sz);
            uint64_t r = (a + s) & x86_size_mask(sz);
            op_write(c, &in->o[1], sz, a);
            rmw_write(c, &d, sz, r);
            x86_set_lazy(c, LZ_ADD, sz, a, s, r);
            break;
        }
        case XOP_BSWAP:
            if (in->osz == 8)
                c->r[in->o[0].reg] = __builtin_bswap64(c->r[in->o[0].reg]);
            else
                reg_set(c, in->o[0].reg, 4, __builtin_bswap32((uint32_t)c->r[in->o[0].reg]));
            break;
        case XOP_ADD:
            if (in->alu_reg) { alu_reg(c, in, XOP_ADD); break; }
            exec_alu(c, in);
            break;
        case XOP_SUB:
            if (in->alu_reg) { alu_reg(c, in, XOP_SUB); break; }
            exec_alu(c, in);
            break;
        case XOP_CMP:
            if (in->alu_reg) { alu_reg(c, in, XOP_CMP); break; }
            exec_alu(c, in);
            break;
        case XOP_AND:
            if (in->alu_reg) { alu_reg(c, in, XOP_AND); break; }
            exec_alu(c, in);
            break;
        case XOP_OR:
            if (in->alu_reg) { alu_reg(c, in, XOP_OR); break; }
            exec_alu(c, in);
            break;
        case XOP_XOR:
            if (in->alu_reg) { alu_reg(c, in, XOP_XOR); break; }
            exec_alu(c, in);
            break;
        case XOP_TEST:
            if (in->alu_reg) { alu_reg(c, in, XOP_TEST); break; }
            exec_alu(c, in);
            break;
        case XOP_ADC: case XOP_SBB:
            exec_alu(c, in);
            break;
        case XOP_INC: case XOP_DEC: {
            unsigned sz = in->osz;
            struct rmw d;
            uint32_t cin = (uint32_t)get_cf(c);
            uint64_t a = rmw_read(c, &d, &in->o[0], sz);
            uint64_t r = (in->op == XOP_INC ? a + 1 : a - 1) & x86_size_mask(sz);
            rmw_write(c, &d, sz, r);
            x86_set_lazy(c, in->op == XOP_INC ? LZ_INC : LZ_DEC, sz, a, 1, r);
            c->lz_cin = cin;
            break;
        }
        case XOP_NEG: {
            unsigned sz = in->osz;
            struct rmw d;
            uint64_t a = rmw_read(c, &d, &in->o[0], sz);
            uint64_t r = (0 - a) & x86_size_mask(sz);
            rmw_write(c, &d, sz, r);
            x86_set_lazy(c, LZ_NEG, sz, 0, a, r);
            break;
        }
        case XOP_NOT: {
            struct rmw d;
            uint64_t a = rmw_read(c, &d, &in->o[0], in->osz);
            rmw_write(c, &d, in->osz, ~a & x86_size_mask(in->osz));
            break;
        }
        case XOP_SHL: case XOP_SHR: case XOP_SAR: case XOP_ROL: case XOP_ROR:
        case XOP_RCL: case XOP_RCR:
            exec_shift(c, in);
            break;
        case XOP_SHLD: case XOP_SHRD:
            exec_double_shift(c, in);
            break;
        case XOP_MUL: case XOP_IMUL1: case XOP_DIV: case XOP_IDIV:
            exec_muldiv(c, in);
            break;
        case XOP_IMUL:
            exec_imul(c, in);
            break;
        case XOP_CBW: reg_set(c, R_RAX, 2, (uint64_t)(int8_t)c->r[R_RAX]); break;
        case XOP_CWDE: reg_set(c, R_RAX, 4, (uint64_t)(int16_t)c->r[R_RAX]); break;
        case XOP_CDQE: c->r[R_RAX] = (uint64_t)(int32_t)c->r[R_RAX]; break;
        case XOP_CWD: reg_set(c, R_RDX, 2, (c->r[R_RAX] & 0x8000) ? 0xffff : 0); break;
        case XOP_CDQ: reg_set(c, R_RDX, 4, (c->r[R_RAX] & 0x80000000u) ? 0xffffffffu : 0); break;
        case XOP_CQO: c->r[R_RDX] = ((int64_t)c->r[R_RAX] < 0) ? ~0ull : 0; break;
        case XOP_JMP:
            c->rip = in->o[0].kind == OPK_IMM ? (uint64_t)in->o[0].val : op_read(c, &in->o[0], 8);
            break;
        case XOP_JCC:
            if (x86_cond(c, in->cond))
                c->rip = (uint64_t)in->o[0].val;
            break;
        case XOP_JRCXZ:
            if ((in->o[0].size == 4 ? (uint32_t)c->r[R_RCX] : c->r[R_RCX]) == 0)
                c->rip = (uint64_t)in->o[0].val;
            break;
        case XOP_LOOP:
            if (--c->r[R_RCX] != 0)
                c->rip = (uint64_t)in->o[0].val;
            break;
        case XOP_CALL: {
            uint64_t t = in->o[0].kind == OPK_IMM ? (uint64_t)in->o[0].val
                                                  : op_read(c, &in->o[0], 8);
            push64(c, in->next);
            c->rip = t;
            break;
        }
        case XOP_RET:
            c->rip = pop64(c);
            if (in->nops)
                c->r[R_RSP] += (uint64_t)in->o[0].val;
            break;
        case XOP_LEAVE:
            c->r[R_RSP] = c->r[R_RBP];
            c->r[R_RBP] = pop64(c);
            break;
        case XOP_CMOV: {
            /* the source is read even when the condition is false */
            uint64_t v = op_read(c, &in->o[1], in->osz);
            if (x86_cond(c, in->cond))
                reg_set(c, in->o[0].reg, in->osz, v);
            else if (in->osz == 4)
                reg_set(c, in->o[0].reg, 4, c->r[in->o[0].reg]);
            break;
        }
        case XOP_SETCC:
            op_write(c, &in->o[0], 1, (uint64_t)x86_cond(c, in->cond));
            break;
        case XOP_BT: case XOP_BTS: case XOP_BTR: case XOP_BTC:
            exec_bittest(c, in);
            break;
        case XOP_BSF: case XOP_BSR: {
            unsigned sz = in->osz;
            uint64_t s = op_read(c, &in->o[1], sz);
            x86_flags_materialize(c);
            if (s == 0) {
                c->rflags |= FL_ZF;
            } else {
                c->rflags &= ~(uint64_t)FL_ZF;
                reg_set(c, in->o[0].reg, sz, in->op == XOP_BSF ? (uint64_t)__builtin_ctzll(s)
                                                               : (uint64_t)(63 - __builtin_clzll(s)));
            }
            break;
        }
        case XOP_POPCNT: {
            uint64_t s = op_read(c, &in->o[1], in->osz);
            reg_set(c, in->o[0].reg, in->osz, (uint64_t)__builtin_popcountll(s));
            set_flags_result(c, 8, 1, 0, 0);
            if (s == 0)
                c->rflags |= FL_ZF;
            c->rflags &= ~(uint64_t)FL_PF;
            break;
        }
        case XOP_CLD: c->rflags &= ~(uint64_t)FL_DF; break;
        case XOP_STD: c->rflags |= FL_DF; break;
        case XOP_CLC: set_cf(c, 0); break;
        case XOP_STC: set_cf(c, 1); break;
        case XOP_CMC: set_cf(c, !get_cf(c)); break;
        case XOP_LAHF:
            reg_set(c, REG_HIGH8 | R_RAX, 1, (x86_flags_arith(c) & 0xd5) | 2);
            break;
        case XOP_SAHF: {
            x86_flags_materialize(c);
            uint64_t ah = (c->r[R_RAX] >> 8) & 0xd5;
            c->rflags = (c->rflags & ~(uint64_t)0xd5) | ah;
            break;
        }
        case XOP_PUSHF:
            push64(c, x86_rflags(c));
            break;
        case XOP_POPF:
            x86_set_rflags(c, pop64(c));
            break;
        case XOP_MOVS: case XOP_STOS: case XOP_LODS: case XOP_CMPS: case XOP_SCAS:
            exec_string(c, in);
            break;
        case XOP_SYSCALL:
            c->r[R_RCX] = in->next;
            c->r[R_R11] = x86_rflags(c);
            x86_fpenv_leave(); /* the system call layer runs in the host's environment */
            return EXEC_SYSCALL;
        case XOP_CPUID:
            x86_cpuid(c);
            break;
        case XOP_RDTSC: {
            /* deterministic: a 1 GHz clock at one instruction per cycle */
            uint64_t t = c->icount + (uint64_t)(in - b->insn);
            c->r[R_RAX] = (uint32_t)t;
            c->r[R_RDX] = t >> 32;
            break;
        }
        case XOP_SSE:
            x86_exec_sse(c, in);
            break;
        case XOP_X87:
            x86_exec_x87(c, in);
            break;
        case XOP_CRC32: case RUN_LZCNT: case RUN_TZCNT: case XOP_MOVBE: case XOP_ANDN:
        case XOP_BEXTR: case XOP_BLSI: case XOP_BLSMSK: case XOP_BLSR: case XOP_BZHI:
        case XOP_PDEP: case XOP_PEXT: case XOP_RORX: case XOP_SARX: case XOP_SHLX:
        case XOP_SHRX: case XOP_MULX: case XOP_XGETBV:
            x86_exec_bitop(c, in);
            break;
        case XOP_HLT: case XOP_PRIV:
            x86_fault(c, XF_PROTECTION, 0);
        case XOP_INT3:
            x86_fault(c, XF_TRAP, in->next - in->len);
        case XOP_UD2:
            x86_fault(c, XF_ILLEGAL, in->next - in->len);
        default:
            x86_fault(c, XF_UNIMPL, in->next - in->len);
        }
    }
    return EXEC_CONTINUE;
}
