/* The SIMD instructions' general path (SSE through AVX2, legacy and VEX
 * encodings alike, simd.h): the sources are read, the operation computed
 * (simd_ops.c, sse42.c, avx.c) and the result written. Here too are the
 * instructions whose result is not a vector register: stores, moves and
 * conversions to general registers, compares that set RFLAGS, MXCSR. */
#include <capstone/capstone.h>

#include "tracegen/x86/decode.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/fpenv.h"
#include "tracegen/x86/interp.h"
#include "tracegen/x86/operand.h"
#include "tracegen/x86/simd.h"

void x86_vec_read(struct x86_cpu *c, const struct x86_opnd *o, ymm_t *v)
{
    memset(v, 0, sizeof *v);
    switch (o->kind) {
    case OPK_XMM:
        v->x[0] = c->xmm[o->reg];
        if (o->size == 32)
            v->x[1] = c->yhi[o->reg];
        return;
    case OPK_MEM: {
        unsigned n = o->size == 0 || o->size > 32 ? 16 : o->size;
        uint64_t a = op_ea(c, o);
        if (n <= 8 && (n & (n - 1)) == 0)
            v->q[0] = x86_read(c, a, n);
        else if (n == 16)
            x86_read_bytes(c, a, v->b, 16); /* a constant size copies inline */
        else
            x86_read_bytes(c, a, v->b, n);
        return;
    }
    case OPK_REG:
        v->q[0] = reg_get(c, o->reg, o->size);
        return;
    case OPK_IMM:
        v->q[0] = (uint64_t)o->val;
        return;
    default:
        return;
    }
}

void x86_vec_write(struct x86_cpu *c, const struct x86_dinsn *in, const ymm_t *r)
{
    unsigned d = in->o[0].reg;
    c->xmm[d] = r->x[0];
    if (in->vl) {
        if (in->o[0].size == 32)
            c->yhi[d] = r->x[1];
        else
            memset(&c->yhi[d], 0, sizeof c->yhi[d]);
    }
}

void x86_simd_raise(struct x86_cpu *c, uint32_t flags)
{
    x86_fpenv_set_mxcsr(c, x86_fpenv_mxcsr(c) | (flags & MXCSR_FLAGS));
}

/* Stores the low N bytes of V to a memory or general-register destination. */
static void store_n(struct x86_cpu *c, const struct x86_opnd *o, const ymm_t *v, unsigned n)
{
    if (o->kind == OPK_MEM) {
        uint64_t a = op_ea(c, o);
        if (n <= 8 && (n & (n - 1)) == 0)
            x86_write(c, a, n, v->q[0]);
        else if (n == 16)
            x86_write_bytes(c, a, v->b, 16);
        else
            x86_write_bytes(c, a, v->b, n);
    } else if (o->kind == OPK_REG) {
        reg_set(c, o->reg, o->size == 8 ? 8 : 4, v->q[0]); /* a 32-bit write zero-extends */
    }
}

/* Instructions whose destination is memory or a general register (moves,
 * extracts). Returns 0 for any other. */
static int exec_store(struct x86_cpu *c, const struct x86_dinsn *in)
{
    const struct x86_opnd *o0 = &in->o[0], *o1 = &in->o[1];
    ymm_t s, v;
    if (o0->kind != OPK_MEM && o0->kind != OPK_REG)
        return 0;
    memset(&v, 0, sizeof v);
    switch (in->csid) {
    case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
    case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_MOVNTDQ: case X86_INS_MOVNTPS:
    case X86_INS_MOVNTPD:
        x86_vec_read(c, o1, &s);
        store_n(c, o0, &s, o0->size == 32 ? 32 : 16);
        return 1;
    case X86_INS_MOVSS: case X86_INS_MOVSD: case X86_INS_MOVD: case X86_INS_MOVQ:
    case X86_INS_MOVLPS: case X86_INS_MOVLPD:
        x86_vec_read(c, o1, &s);
        store_n(c, o0, &s, in->csid == X86_INS_MOVSS || o0->size == 4 ? 4 : 8);
        return 1;
    case X86_INS_MOVHPS: case X86_INS_MOVHPD:
        x86_vec_read(c, o1, &s);
        v.q[0] = s.q[1];
        store_n(c, o0, &v, 8);
        return 1;
    case X86_INS_MOVNTI:
        op_write(c, o0, o0->size, reg_get(c, o1->reg, o0->size));
        return 1;
    case X86_INS_PEXTRB: case X86_INS_PEXTRW: case X86_INS_PEXTRD: case X86_INS_PEXTRQ:
    case X86_INS_EXTRACTPS: {
        unsigned esize = in->csid == X86_INS_PEXTRB ? 1 : in->csid == X86_INS_PEXTRW ? 2
                         : in->csid == X86_INS_PEXTRQ ? 8 : 4;
        x86_vec_read(c, o1, &s);
        memcpy(v.b, s.b + (in->imm & (16 / esize - 1)) * esize, esize);
        store_n(c, o0, &v, o0->kind == OPK_MEM ? esize : o0->size);
        return 1;
    }
    default:
        return 0;
    }
}

/* comisd, ucomisd, comiss, ucomiss of A and B: the host instruction's
 * ZF, PF, CF. */
static void comis(struct x86_cpu *c, unsigned id, const xmm_t *a, const xmm_t *b)
{
    uint8_t zf, pf, cf;
    __m128d x = x86_pd(a), y = x86_pd(b);
    switch (id) {
    case X86_INS_COMISD:
        __asm__("comisd %3, %4" : "=@ccz"(zf), "=@ccp"(pf), "=@ccc"(cf) : "x"(y), "x"(x));
        break;
    case X86_INS_UCOMISD:
        __asm__("ucomisd %3, %4" : "=@ccz"(zf), "=@ccp"(pf), "=@ccc"(cf) : "x"(y), "x"(x));
        break;
    case X86_INS_COMISS:
        __asm__("comiss %3, %4" : "=@ccz"(zf), "=@ccp"(pf), "=@ccc"(cf) : "x"(y), "x"(x));
        break;
    default:
        __asm__("ucomiss %3, %4" : "=@ccz"(zf), "=@ccp"(pf), "=@ccc"(cf) : "x"(y), "x"(x));
        break;
    }
    c->lz_op = LZ_NONE;
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | (zf ? FL_ZF : 0) | (pf ? FL_PF : 0) |
                (cf ? FL_CF : 0);
}

void x86_sse_comis(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t a = c->xmm[in->o[0].reg], b;
    x86_sse_source(c, in, &in->o[1], &b);
    comis(c, in->csid, &a, &b);
}

void x86_vec_test(struct x86_cpu *c, const struct x86_dinsn *in, uint64_t bits)
{
    ymm_t a, b;
    uint64_t and_ = 0, andn = 0;
    x86_vec_read(c, &in->o[0], &a);
    x86_vec_read(c, &in->o[1], &b);
    for (unsigned i = 0; i < x86_vec_len(in) / 8; i++) {
        and_ |= a.q[i] & b.q[i] & bits;
        andn |= ~a.q[i] & b.q[i] & bits;
    }
    c->lz_op = LZ_NONE;
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | (and_ ? 0 : FL_ZF) | (andn ? 0 : FL_CF);
}

/* Conversions of a scalar to a general register (the host instruction:
 * MXCSR rounding, the integer indefinite value, the flags). */
static uint64_t convert_to_int(const struct x86_dinsn *in, const xmm_t *s)
{
    int wide = in->o[0].size == 8;
    __m128d d = x86_pd(s);
    __m128 f = x86_ps(s);
    if (wide) {
        switch (in->csid) {
        case X86_INS_CVTSD2SI: return (uint64_t)x86_cvtsd2si64(d);
        case X86_INS_CVTTSD2SI: return (uint64_t)x86_cvttsd2si64(d);
        case X86_INS_CVTSS2SI: return (uint64_t)x86_cvtss2si64(f);
        default: return (uint64_t)x86_cvttss2si64(f);
        }
    }
    switch (in->csid) {
    case X86_INS_CVTSD2SI: return (uint32_t)x86_cvtsd2si32(d);
    case X86_INS_CVTTSD2SI: return (uint32_t)x86_cvttsd2si32(d);
    case X86_INS_CVTSS2SI: return (uint32_t)x86_cvtss2si32(f);
    default: return (uint32_t)x86_cvttss2si32(f);
    }
}

void x86_sse_cvt2si(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t s;
    x86_sse_source(c, in, &in->o[1], &s);
    reg_set(c, in->o[0].reg, in->o[0].size, convert_to_int(in, &s));
}

/* movmskps/pd and pmovmskb: the sign bit of every element of the source. */
static uint32_t sign_mask(const ymm_t *s, unsigned bytes, unsigned esize)
{
    uint32_t m = 0;
    if (bytes > sizeof s->b)
        bytes = sizeof s->b;
    for (unsigned i = 0; i < bytes / esize; i++)
        m |= (uint32_t)(s->b[i * esize + esize - 1] >> 7) << i;
    return m;
}

/* The instructions that write a general register, RFLAGS or MXCSR, or do
 * nothing. Returns 0 for any other. */
static int exec_other(struct x86_cpu *c, const struct x86_dinsn *in)
{
    const struct x86_opnd *o0 = &in->o[0], *o1 = &in->o[1];
    ymm_t s, a;
    switch (in->csid) {
    case X86_INS_COMISD: case X86_INS_UCOMISD: case X86_INS_COMISS: case X86_INS_UCOMISS:
        x86_vec_read(c, o0, &a);
        x86_vec_read(c, o1, &s);
        comis(c, in->csid, &a.x[0], &s.x[0]);
        return 1;
    case X86_INS_PTEST:
        x86_vec_test(c, in, ~0ull);
        return 1;
    case X86_INS_CVTSD2SI: case X86_INS_CVTTSD2SI: case X86_INS_CVTSS2SI: case X86_INS_CVTTSS2SI:
        x86_vec_read(c, o1, &s);
        reg_set(c, o0->reg, o0->size, convert_to_int(in, &s.x[0]));
        return 1;
    case X86_INS_MOVMSKPS: case X86_INS_MOVMSKPD: case X86_INS_PMOVMSKB:
        x86_vec_read(c, o1, &s);
        reg_set(c, o0->reg, o0->size == 8 ? 8 : 4,
                sign_mask(&s, o1->size, in->csid == X86_INS_MOVMSKPS ? 4
                                        : in->csid == X86_INS_MOVMSKPD ? 8 : 1));
        return 1;
    case X86_INS_PCMPISTRI: case X86_INS_PCMPISTRM: case X86_INS_PCMPESTRI:
    case X86_INS_PCMPESTRM:
        x86_vec_read(c, o0, &a);
        x86_vec_read(c, o1, &s);
        x86_sse42_string(c, in, &a, &s);
        return 1;
    case X86_INS_MASKMOVDQU:
        x86_vec_read(c, o0, &s);
        x86_vec_read(c, o1, &a);
        for (unsigned i = 0; i < 16; i++)
            if (a.b[i] & 0x80)
                x86_write(c, c->r[R_RDI] + i, 1, s.b[i]);
        return 1;
    case X86_INS_STMXCSR:
        x86_write(c, op_ea(c, o0), 4, x86_fpenv_mxcsr(c));
        return 1;
    case X86_INS_LDMXCSR:
        x86_fpenv_set_mxcsr(c, (uint32_t)x86_read(c, op_ea(c, o0), 4));
        return 1;
    case X86_INS_FXSAVE: case X86_INS_FXSAVE64:
        x86_fxsave(c, op_ea(c, o0), in->csid == X86_INS_FXSAVE64);
        return 1;
    case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
        x86_fxrstor(c, op_ea(c, o0), in->csid == X86_INS_FXRSTOR64);
        return 1;
    case X86_INS_XSAVE: case X86_INS_XSAVE64: case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64:
        x86_xsave(c, op_ea(c, o0), (c->r[R_RDX] << 32) | (uint32_t)c->r[R_RAX]);
        return 1;
    case X86_INS_XRSTOR: case X86_INS_XRSTOR64:
        x86_xrstor(c, op_ea(c, o0), (c->r[R_RDX] << 32) | (uint32_t)c->r[R_RAX]);
        return 1;
    case X86_INS_EMMS:
        return 1;
    default:
        return exec_store(c, in);
    }
}

static int is_blendv(unsigned id)
{
    return id == X86_INS_BLENDVPS || id == X86_INS_BLENDVPD || id == X86_INS_PBLENDVB;
}

/* #GP before anything happens when IN's memory operand is misaligned and
 * IN demands it aligned. */
static void check_alignment(struct x86_cpu *c, const struct x86_dinsn *in)
{
    for (unsigned i = 0; i < in->nops; i++)
        if (in->o[i].kind == OPK_MEM)
            x86_vec_check_align(c, in, op_ea(c, &in->o[i]));
}

/* x86_vec_read with its most frequent case, a register, inline: the call
 * and its frame cost more than the copy. */
static inline void read_source(struct x86_cpu *c, const struct x86_opnd *o, ymm_t *v)
{
    if (o->kind != OPK_XMM) {
        x86_vec_read(c, o, v);
        return;
    }
    v->x[0] = c->xmm[o->reg];
    if (o->size == 32)
        v->x[1] = c->yhi[o->reg];
    else
        memset(&v->x[1], 0, sizeof v->x[1]);
}

/* The general path's vector result: the sources read, the operation
 * computed (x86_simd_compute) and the destination register written. */
static void compute_vector(struct x86_cpu *c, const struct x86_dinsn *in)
{
    ymm_t a, b, m, r;
    const ymm_t *mask = NULL;
    read_source(c, &in->o[in->nds], &a);
    if (in->nds + 1 < in->nops)
        read_source(c, &in->o[in->nds + 1], &b);
    else
        memset(&b, 0, sizeof b);
    if (is_blendv(in->csid)) {
        /* the mask: XMM0 for SSE, the register in imm[7:4] for VEX */
        struct x86_opnd mo = { .kind = OPK_XMM, .size = (uint8_t)x86_vec_len(in),
                               .reg = (uint8_t)(in->vl ? in->imm >> 4 : 0) };
        x86_vec_read(c, &mo, &m);
        mask = &m;
    }
    memset(&r, 0, sizeof r);
    if (!x86_simd_compute(c, in, &r, &a, &b, mask))
        x86_fault(c, XF_UNIMPL, in->next - in->len);
    x86_vec_write(c, in, &r);
}

void x86_exec_sse(struct x86_cpu *c, const struct x86_dinsn *in)
{
    if (in->align)
        check_alignment(c, in);
    if (x86_avx_exec(c, in) || exec_other(c, in))
        return;
    if (in->o[0].kind != OPK_XMM)
        x86_fault(c, XF_UNIMPL, in->next - in->len);
    compute_vector(c, in);
}

int x86_sse_computes_vector(const struct x86_dinsn *in)
{
    if (in->o[0].kind != OPK_XMM || x86_avx_owns(in))
        return 0; /* x86_avx_exec's own; exec_other's with XMM destinations: */
    switch (in->csid) {
    case X86_INS_COMISD: case X86_INS_UCOMISD: case X86_INS_COMISS: case X86_INS_UCOMISS:
    case X86_INS_PTEST: case X86_INS_PCMPISTRI: case X86_INS_PCMPISTRM: case X86_INS_PCMPESTRI:
    case X86_INS_PCMPESTRM: case X86_INS_MASKMOVDQU:
        return 0;
    default:
        return 1;
    }
}

void x86_exec_sse_vec(struct x86_cpu *c, const struct x86_dinsn *in)
{
    if (in->align)
        check_alignment(c, in);
    compute_vector(c, in);
}

void x86_fpu_reset(struct x86_cpu *c)
{
    c->mxcsr = MXCSR_DEFAULT;
    c->fcw = 0x037f;
    c->fsw = 0;
    c->ftop = 0;
    c->ftag = 0;
    memset(c->xmm, 0, sizeof c->xmm);
    memset(c->yhi, 0, sizeof c->yhi);
    memset(c->st, 0, sizeof c->st);
    x86_fpenv_forget();
}
