/* The SSE run forms (ops.h) the decoder picks for the most frequent
 * shapes: scalar moves, 16-byte moves, scalar add/sub/mul and the one-lane
 * operations (simd_lane.h) with an XMM destination; for VEX the lane
 * operations over 128 or 256 bits and the moves to memory. Each is the
 * general path's work (sse.c, simd_ops.c) for that shape, called directly
 * by the interpreter's dispatch. */
#include <capstone/capstone.h>

#include "tracegen/x86/interp.h"
#include "tracegen/x86/operand.h"
#include "tracegen/x86/ops.h"
#include "tracegen/x86/simd_lane.h"

/* The one-lane operations, numbered for x86_dinsn.cond (0: none). */
enum lane_op {
    LANE_NONE,
#define LANE_ENUM(NAME) LANE_##NAME,
    X86_LANE_OPS(LANE_ENUM) X86_LANE_ELEM_OPS(LANE_ENUM) X86_LANE_LEGACY_OPS(LANE_ENUM)
    X86_LANE_SCALAR_OPS(LANE_ENUM) X86_LANE_MOVE_OPS(LANE_ENUM)
#undef LANE_ENUM
};

/* The one-lane operation legacy SSE instruction IN with second source SRC
 * is, or LANE_NONE. */
static unsigned lane_op(const struct x86_dinsn *in, const struct x86_opnd *src)
{
    int wide = src->size == 8;
    switch (in->csid) {
#define LANE_ID(NAME) case X86_INS_##NAME: return LANE_##NAME;
    X86_LANE_OPS(LANE_ID)
#undef LANE_ID
    case X86_INS_CVTPS2PD: return LANE_CVTPS2PD;
    case X86_INS_CVTDQ2PD: return LANE_CVTDQ2PD;
    case X86_INS_CVTPD2PS: return LANE_CVTPD2PS;
    case X86_INS_CVTPD2DQ: return LANE_CVTPD2DQ;
    case X86_INS_CVTTPD2DQ: return LANE_CVTTPD2DQ;
    case X86_INS_CVTSI2SD: return wide ? LANE_CVTSI2SD64 : LANE_CVTSI2SD32;
    case X86_INS_CVTSI2SS: return wide ? LANE_CVTSI2SS64 : LANE_CVTSI2SS32;
    case X86_INS_MOVD: return LANE_MOVD;
    case X86_INS_MOVQ: return LANE_MOVQ;
    case X86_INS_MOVLPS: case X86_INS_MOVLPD: return LANE_MOVLPS;
    case X86_INS_MOVHPS: case X86_INS_MOVHPD: case X86_INS_MOVLHPS: return LANE_MOVHPS;
    case X86_INS_MOVHLPS: return LANE_MOVHLPS;
    default: return LANE_NONE;
    }
}

/* 1 for the operations that do the same in every 128-bit lane. */
static int alike_in_every_lane(unsigned lane)
{
    switch (lane) {
#define LANE_ALIKE(NAME) case LANE_##NAME: return 1;
    X86_LANE_OPS(LANE_ALIKE) X86_LANE_ELEM_OPS(LANE_ALIKE)
#undef LANE_ALIKE
    default: return 0;
    }
}

/* The lane operation VEX instruction IN is, or LANE_NONE: at 256 bits
 * those alike in every lane, at 128 bits also the ones whose legacy form
 * is one lane, scalar arithmetic and the moves into a register. */
static unsigned vex_lane_op(const struct x86_dinsn *in)
{
    const struct x86_opnd *b = &in->o[in->nds + 1];
    unsigned lane;
    switch (in->csid) {
    case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
    case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_LDDQU: case X86_INS_MOVNTDQA:
        return LANE_COPY;
#define LANE_ID(NAME) case X86_INS_##NAME: lane = LANE_##NAME; break;
    X86_LANE_SCALAR_OPS(LANE_ID) X86_LANE_ELEM_OPS(LANE_ID)
#undef LANE_ID
    case X86_INS_MOVSS: lane = b->kind == OPK_MEM ? LANE_COPY : LANE_MOVSS; break;
    case X86_INS_MOVSD: lane = b->kind == OPK_MEM ? LANE_COPY : LANE_MOVLPS; break;
    default: lane = lane_op(in, b); break;
    }
    return in->vl == 16 || alike_in_every_lane(lane) ? lane : LANE_NONE;
}

/* The bytes VEX move IN stores from its XMM source's low end (the
 * destination's size), or 0 for any other instruction. */
static unsigned vex_store_size(const struct x86_dinsn *in)
{
    switch (in->csid) {
    case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
    case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_MOVNTDQ: case X86_INS_MOVNTPS:
    case X86_INS_MOVNTPD:
        return in->vl;
    case X86_INS_MOVSD: case X86_INS_MOVQ: case X86_INS_MOVLPS: case X86_INS_MOVLPD:
        return 8;
    case X86_INS_MOVSS: case X86_INS_MOVD:
        return 4;
    default:
        return 0;
    }
}

/* RUN_SSE_LANE's shape: XMM destination, one source x86_sse_source reads,
 * maybe an imm8. */
static int lane_shape(const struct x86_dinsn *in)
{
    return in->o[0].kind == OPK_XMM && x86_sse_source_ok(&in->o[1]) &&
           (in->nops == 2 || (in->nops == 3 && in->o[2].kind == OPK_IMM));
}

/* The VEX lane forms' shape: destination and first source registers of
 * the vector length, the second an XMM register of that length, memory of
 * it (or at 128 bits of 4 or 8 bytes) or at 128 bits a 32/64-bit general
 * register, maybe an imm8 after them. */
static int vex_lane_shape(const struct x86_dinsn *in)
{
    const struct x86_opnd *d = &in->o[0], *a = &in->o[in->nds], *b = &in->o[in->nds + 1];
    unsigned vl = in->vl;
    if (in->nds + 1 >= in->nops || d->kind != OPK_XMM || d->size != vl ||
        a->kind != OPK_XMM || a->size != vl)
        return 0;
    if (in->nds + 2 < in->nops && in->o[in->nds + 2].kind != OPK_IMM)
        return 0;
    switch (b->kind) {
    case OPK_XMM: return b->size == vl;
    case OPK_MEM: return b->size == vl || (vl == 16 && (b->size == 4 || b->size == 8));
    case OPK_REG: return vl == 16 && (b->size == 4 || b->size == 8);
    default: return 0;
    }
}

/* The run form of VEX instruction IN (its lane operation into cond), or 0. */
static unsigned vex_run_form(struct x86_dinsn *in)
{
    const struct x86_opnd *o0 = &in->o[0], *o1 = &in->o[1];
    if (in->cond == X86_VEC_FMA)
        return x86_fma_run_form(in);
    if (x86_avx_owns(in))
        return 0;
    if (o0->kind == OPK_MEM && o1->kind == OPK_XMM && vex_store_size(in) == o0->size)
        return RUN_VEX_STORE;
    unsigned lane = vex_lane_op(in);
    if (lane == LANE_NONE || !vex_lane_shape(in))
        return 0;
    in->cond = (uint8_t)lane;
    return in->o[in->nds + 1].kind == OPK_XMM ? RUN_VEX_LANE_RR : RUN_VEX_LANE;
}

unsigned x86_sse_run_form(struct x86_dinsn *in)
{
    const struct x86_opnd *o0 = &in->o[0], *o1 = &in->o[1];
    int sd = in->csid == X86_INS_MOVSD || in->csid == X86_INS_ADDSD ||
             in->csid == X86_INS_SUBSD || in->csid == X86_INS_MULSD;
    int src_ok = o1->kind == OPK_XMM || o1->kind == OPK_MEM;
    switch (in->csid) {
    case X86_INS_COMISD: case X86_INS_UCOMISD: case X86_INS_COMISS: case X86_INS_UCOMISS:
        return o0->kind == OPK_XMM && o0->size != 32 && x86_sse_source_ok(o1) &&
               o1->kind != OPK_REG ? RUN_SSE_COMIS : XOP_SSE;
    case X86_INS_CVTSD2SI: case X86_INS_CVTTSD2SI: case X86_INS_CVTSS2SI: case X86_INS_CVTTSS2SI:
        return o0->kind == OPK_REG && (o0->size == 4 || o0->size == 8) &&
               x86_sse_source_ok(o1) && o1->kind != OPK_REG ? RUN_SSE_CVT2SI : XOP_SSE;
    default:
        break;
    }
    if (in->vl) {
        unsigned form = vex_run_form(in);
        return form ? form : x86_sse_computes_vector(in) ? RUN_SSE_VEC : XOP_SSE;
    }
    unsigned lane = lane_op(in, o1);
    if (lane != LANE_NONE && lane_shape(in)) {
        in->cond = (uint8_t)lane;
        return o1->kind == OPK_XMM ? RUN_SSE_LANE_RR : RUN_SSE_LANE;
    }
    switch (in->csid) {
    case X86_INS_MOVSD: case X86_INS_MOVSS:
        if (o0->kind == OPK_XMM && o1->kind == OPK_XMM)
            return sd ? RUN_MOVSD_RR : RUN_MOVSS_RR;
        if (o0->kind == OPK_XMM && o1->kind == OPK_MEM)
            return sd ? RUN_MOVSD_LOAD : RUN_MOVSS_LOAD;
        if (o0->kind == OPK_MEM && o1->kind == OPK_XMM)
            return sd ? RUN_MOVSD_STORE : RUN_MOVSS_STORE;
        return XOP_SSE;
    case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
    case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_LDDQU: case X86_INS_MOVNTDQ:
    case X86_INS_MOVNTPS: case X86_INS_MOVNTPD: case X86_INS_MOVNTDQA:
        if (o0->kind == OPK_XMM && o1->kind == OPK_XMM)
            return RUN_MOVX_RR;
        if (o0->kind == OPK_XMM && o1->kind == OPK_MEM && o1->size == 16)
            return RUN_MOVX_LOAD;
        if (o0->kind == OPK_MEM && o1->kind == OPK_XMM)
            return RUN_MOVX_STORE;
        return XOP_SSE;
    case X86_INS_ADDSD: return o0->kind == OPK_XMM && src_ok ? RUN_ADDSD : XOP_SSE;
    case X86_INS_SUBSD: return o0->kind == OPK_XMM && src_ok ? RUN_SUBSD : XOP_SSE;
    case X86_INS_MULSD: return o0->kind == OPK_XMM && src_ok ? RUN_MULSD : XOP_SSE;
    case X86_INS_ADDSS: return o0->kind == OPK_XMM && src_ok ? RUN_ADDSS : XOP_SSE;
    case X86_INS_SUBSS: return o0->kind == OPK_XMM && src_ok ? RUN_SUBSS : XOP_SSE;
    case X86_INS_MULSS: return o0->kind == OPK_XMM && src_ok ? RUN_MULSS : XOP_SSE;
    default: return x86_sse_computes_vector(in) ? RUN_SSE_VEC : XOP_SSE;
    }
}

/* Scalar sources: only the low element is read (from a register or
 * 4/8 bytes of memory). Inline: as calls, their frames cost more than the
 * register case's copy. */
__attribute__((always_inline)) static inline double src_f64(struct x86_cpu *c, const struct x86_opnd *o)
{
    if (o->kind == OPK_XMM)
        return c->xmm[o->reg].fd[0];
    uint64_t v = x86_read(c, op_ea(c, o), 8);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

__attribute__((always_inline)) static inline float src_f32(struct x86_cpu *c, const struct x86_opnd *o)
{
    if (o->kind == OPK_XMM)
        return c->xmm[o->reg].f[0];
    uint32_t v = (uint32_t)x86_read(c, op_ea(c, o), 4);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

void x86_sse_movsd_rr(struct x86_cpu *c, const struct x86_dinsn *in)
{
    memcpy(c->xmm[in->o[0].reg].b, c->xmm[in->o[1].reg].b, 8);
}

void x86_sse_movss_rr(struct x86_cpu *c, const struct x86_dinsn *in)
{
    memcpy(c->xmm[in->o[0].reg].b, c->xmm[in->o[1].reg].b, 4);
}

void x86_sse_movsd_load(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    d->q[0] = x86_read(c, op_ea(c, &in->o[1]), 8);
    d->q[1] = 0;
}

void x86_sse_movss_load(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    d->q[0] = x86_read(c, op_ea(c, &in->o[1]), 4);
    d->q[1] = 0;
}

void x86_sse_movsd_store(struct x86_cpu *c, const struct x86_dinsn *in)
{
    x86_write(c, op_ea(c, &in->o[0]), 8, c->xmm[in->o[1].reg].q[0]);
}

void x86_sse_movss_store(struct x86_cpu *c, const struct x86_dinsn *in)
{
    x86_write(c, op_ea(c, &in->o[0]), 4, c->xmm[in->o[1].reg].q[0]);
}

void x86_sse_movx_rr(struct x86_cpu *c, const struct x86_dinsn *in)
{
    c->xmm[in->o[0].reg] = c->xmm[in->o[1].reg];
}

void x86_sse_movx_load(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t v; /* a faulting load leaves the register as it was */
    uint64_t a = op_ea(c, &in->o[1]);
    x86_vec_check_align(c, in, a);
    x86_read_bytes(c, a, v.b, 16);
    c->xmm[in->o[0].reg] = v;
}

void x86_sse_movx_store(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t v = c->xmm[in->o[1].reg];
    uint64_t a = op_ea(c, &in->o[0]);
    x86_vec_check_align(c, in, a);
    x86_write_bytes(c, a, v.b, 16);
}

/* Scalar arithmetic: the host instruction on the low elements (simd.h). */
#define SCALAR_FORM(name, T, F, SRC, SET, GET, OP) \
    void name(struct x86_cpu *c, const struct x86_dinsn *in) \
    { \
        xmm_t *d = &c->xmm[in->o[0].reg]; \
        T b = SRC(c, &in->o[1]); \
        d->F[0] = GET(OP(SET(d->F[0]), SET(b))); \
    }
SCALAR_FORM(x86_sse_addsd, double, fd, src_f64, _mm_set_sd, _mm_cvtsd_f64, x86_addsd)
SCALAR_FORM(x86_sse_subsd, double, fd, src_f64, _mm_set_sd, _mm_cvtsd_f64, _mm_sub_sd)
SCALAR_FORM(x86_sse_mulsd, double, fd, src_f64, _mm_set_sd, _mm_cvtsd_f64, x86_mulsd)
SCALAR_FORM(x86_sse_addss, float, f, src_f32, _mm_set_ss, _mm_cvtss_f32, x86_addss)
SCALAR_FORM(x86_sse_subss, float, f, src_f32, _mm_set_ss, _mm_cvtss_f32, _mm_sub_ss)
SCALAR_FORM(x86_sse_mulss, float, f, src_f32, _mm_set_ss, _mm_cvtss_f32, x86_mulss)
#undef SCALAR_FORM

/* R = element operation OP (X86_LANE_ELEM_OPS) of A and B. */
__attribute__((noinline)) static void lane_elem(unsigned op, xmm_t *r, const xmm_t *a,
                                                const xmm_t *b)
{
    switch (op) {
#define LANE_RUN(NAME) case LANE_##NAME: x86_lane_##NAME(r, a, b, 0); return;
    X86_LANE_ELEM_OPS(LANE_RUN)
#undef LANE_RUN
    default: return;
    }
}

/* R = IN's lane operation of A and B (R may be either). VEX (a constant)
 * has the scalar, move and SSE4.1 element operations too: legacy SSE has
 * run forms of its own for the first two and takes the general path for
 * the last, and without their cases (and the call) its code needs no
 * frame. */
__attribute__((always_inline)) static inline void lane_run(struct x86_cpu *c,
                                                           const struct x86_dinsn *in, xmm_t *r,
                                                           const xmm_t *a, const xmm_t *b,
                                                           int vex)
{
    switch (in->cond) {
#define LANE_RUN(NAME) case LANE_##NAME: x86_lane_##NAME(r, a, b, in->imm); return;
    X86_LANE_OPS(LANE_RUN) X86_LANE_LEGACY_OPS(LANE_RUN)
    default:
        break;
    }
    if (vex) {
        switch (in->cond) {
        X86_LANE_SCALAR_OPS(LANE_RUN) X86_LANE_MOVE_OPS(LANE_RUN)
#define LANE_ELEM(NAME) case LANE_##NAME:
        X86_LANE_ELEM_OPS(LANE_ELEM)
#undef LANE_ELEM
            lane_elem(in->cond, r, a, b);
            return;
        default: break;
        }
    }
#undef LANE_RUN
    x86_fault(c, XF_UNIMPL, in->next - in->len);
}

/* The register form is a function of its own: without the memory read's
 * calls it needs no frame. */
void x86_sse_lane_rr(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    lane_run(c, in, d, d, &c->xmm[in->o[1].reg], 0);
}

void x86_sse_lane(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t s;
    x86_sse_source(c, in, &in->o[1], &s);
    xmm_t *d = &c->xmm[in->o[0].reg];
    lane_run(c, in, d, d, &s, 0);
}

/* VEX: D = the lane operation of A and B in each lane of the vector, the
 * rest of the YMM register cleared. Lane 1 is computed before lane 0 is
 * written, since D may be a source. */
__attribute__((always_inline)) static inline void vex_lane_run(struct x86_cpu *c,
                                                               const struct x86_dinsn *in,
                                                               const xmm_t *b0, const xmm_t *b1)
{
    unsigned d = in->o[0].reg, a = in->o[in->nds].reg;
    if (in->vl == 32) {
        xmm_t hi;
        lane_run(c, in, &hi, &c->yhi[a], b1, 1);
        lane_run(c, in, &c->xmm[d], &c->xmm[a], b0, 1);
        c->yhi[d] = hi;
    } else {
        lane_run(c, in, &c->xmm[d], &c->xmm[a], b0, 1);
        memset(&c->yhi[d], 0, sizeof c->yhi[d]);
    }
}

void x86_vex_lane_rr(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned b = in->o[in->nds + 1].reg;
    xmm_t b0 = c->xmm[b], b1 = c->yhi[b];
    vex_lane_run(c, in, &b0, &b1);
}

void x86_vex_lane(struct x86_cpu *c, const struct x86_dinsn *in)
{
    const struct x86_opnd *o = &in->o[in->nds + 1];
    ymm_t b;
    if (o->kind == OPK_MEM) {
        uint64_t a = op_ea(c, o);
        x86_vec_check_align(c, in, a);
        if (o->size == 32) {
            x86_read_bytes(c, a, b.b, 32);
        } else if (o->size == 16) {
            x86_read_bytes(c, a, b.b, 16);
        } else {
            b.q[0] = x86_read(c, a, o->size);
            b.q[1] = 0;
        }
    } else {
        b.q[0] = reg_get(c, o->reg, o->size);
        b.q[1] = 0;
    }
    vex_lane_run(c, in, &b.x[0], &b.x[1]);
}

void x86_vex_store(struct x86_cpu *c, const struct x86_dinsn *in)
{
    unsigned s = in->o[1].reg;
    uint64_t a = op_ea(c, &in->o[0]);
    ymm_t v;
    x86_vec_check_align(c, in, a);
    switch (in->o[0].size) {
    case 32:
        v.x[0] = c->xmm[s];
        v.x[1] = c->yhi[s];
        x86_write_bytes(c, a, v.b, 32);
        return;
    case 16:
        v.x[0] = c->xmm[s];
        x86_write_bytes(c, a, v.b, 16);
        return;
    default:
        x86_write(c, a, in->o[0].size, c->xmm[s].q[0]);
        return;
    }
}
