/* SSE/SSE2: scalar and packed float, double and integer operations as
 * compilers emit them for a baseline x86-64 target. Dispatches on the
 * capstone instruction id. */
#include <capstone/capstone.h>
#include <math.h>

#include "tracegen/x86/decode.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/interp.h"
#include "tracegen/x86/operand.h"
#include "tracegen/x86/ops.h"

/* Source operand as a 128-bit value: XMM register, memory (its operand
 * size, zero-extended) or general register. */
static xmm_t load(struct x86_cpu *c, const struct x86_opnd *o)
{
    xmm_t v;
    memset(&v, 0, sizeof v);
    switch (o->kind) {
    case OPK_XMM:
        return c->xmm[o->reg];
    case OPK_MEM: {
        unsigned n = o->size > 16 || o->size == 0 ? 16 : o->size;
        uint64_t a = op_ea(c, o);
        if (n <= 8 && (n & (n - 1)) == 0)
            v.q[0] = x86_read(c, a, n);
        else if (n == 16)
            x86_read_bytes(c, a, v.b, 16); /* a constant size copies inline */
        else
            x86_read_bytes(c, a, v.b, n);
        return v;
    }
    case OPK_REG:
        v.q[0] = reg_get(c, o->reg, o->size);
        return v;
    case OPK_IMM:
        v.q[0] = (uint64_t)o->val;
        return v;
    default:
        return v;
    }
}

/* Scalar sources: only the low element is read (from a register or
 * 4/8 bytes of memory), which keeps scalar code fast. */
static inline double src_f64(struct x86_cpu *c, const struct x86_opnd *o)
{
    if (o->kind == OPK_XMM)
        return c->xmm[o->reg].fd[0];
    uint64_t v = x86_read(c, op_ea(c, o), 8);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static inline float src_f32(struct x86_cpu *c, const struct x86_opnd *o)
{
    if (o->kind == OPK_XMM)
        return c->xmm[o->reg].f[0];
    uint32_t v = (uint32_t)x86_read(c, op_ea(c, o), 4);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

/* Stores the low N bytes of V to a memory or XMM destination (an XMM
 * destination keeps its other bytes). */
static void store_n(struct x86_cpu *c, const struct x86_opnd *o, const xmm_t *v, unsigned n)
{
    if (o->kind == OPK_XMM) {
        memcpy(c->xmm[o->reg].b, v->b, n);
    } else if (o->kind == OPK_MEM) {
        uint64_t a = op_ea(c, o);
        if (n <= 8)
            x86_write(c, a, n, v->q[0]);
        else if (n == 16)
            x86_write_bytes(c, a, v->b, 16); /* a constant size copies inline */
        else
            x86_write_bytes(c, a, v->b, n);
    } else if (o->kind == OPK_REG) {
        reg_set(c, o->reg, n == 4 ? 4 : 8, v->q[0]);
    }
}

static void set_compare_flags(struct x86_cpu *c, int unordered, int less, int equal)
{
    c->lz_op = LZ_NONE;
    c->rflags &= ~(uint64_t)FL_ARITH;
    if (unordered)
        c->rflags |= FL_ZF | FL_PF | FL_CF;
    else if (less)
        c->rflags |= FL_CF;
    else if (equal)
        c->rflags |= FL_ZF;
}

static int cmp_pred(double a, double b, unsigned pred)
{
    switch (pred & 7) {
    case 0: return a == b;
    case 1: return a < b;
    case 2: return a <= b;
    case 3: return isnan(a) || isnan(b);
    case 4: return !(a == b);
    case 5: return !(a < b);
    case 6: return !(a <= b);
    default: return !isnan(a) && !isnan(b);
    }
}

static int64_t cvt_to_int(double v, unsigned size, int truncate)
{
    double r = truncate ? trunc(v) : nearbyint(v);
    double lim = size == 8 ? 9223372036854775808.0 : 2147483648.0;
    if (isnan(r) || r >= lim || r < -lim)
        return size == 8 ? INT64_MIN : INT32_MIN;
    return (int64_t)r;
}

/* x86 NaN rule for two-operand arithmetic: a NaN destination wins over a
 * NaN source, and either is returned quieted (C leaves the choice to the
 * compiler, which may swap commutative operands). */
static inline double quiet64(double a)
{
    uint64_t u;
    memcpy(&u, &a, 8);
    u |= 1ull << 51;
    memcpy(&a, &u, 8);
    return a;
}

static inline float quiet32(float a)
{
    uint32_t u;
    memcpy(&u, &a, 4);
    u |= 1u << 22;
    memcpy(&a, &u, 4);
    return a;
}

#define NAN2(T, a, b, expr) \
    (isnan(a) ? (T)(sizeof(T) == 8 ? quiet64((double)(a)) : quiet32((float)(a))) \
     : isnan(b) ? (T)(sizeof(T) == 8 ? quiet64((double)(b)) : quiet32((float)(b))) : (T)(expr))

static double fmin_x86(double a, double b) { return a < b ? a : b; }
static double fmax_x86(double a, double b) { return a > b ? a : b; }

static uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }
static int8_t sat_s8(int v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }
static uint16_t sat_u16(int v) { return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v); }
static int16_t sat_s16(int v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

static void exec_cmp(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    xmm_t s = load(c, &in->o[1]);
    unsigned p = in->cond;
    switch (in->aux) {
    case 1: d->d[0] = cmp_pred(d->f[0], s.f[0], p) ? ~0u : 0; break;
    case 2: d->q[0] = cmp_pred(d->fd[0], s.fd[0], p) ? ~0ull : 0; break;
    case 3: for (int i = 0; i < 4; i++) d->d[i] = cmp_pred(d->f[i], s.f[i], p) ? ~0u : 0; break;
    default: for (int i = 0; i < 2; i++) d->q[i] = cmp_pred(d->fd[i], s.fd[i], p) ? ~0ull : 0; break;
    }
}

static void shift_imm_or_xmm(struct x86_cpu *c, const struct x86_dinsn *in, unsigned esize,
                             int right, int arith)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    xmm_t s = load(c, &in->o[1]);
    uint64_t cnt = in->o[1].kind == OPK_IMM ? ((uint64_t)in->o[1].val & 0xff) : s.q[0];
    unsigned bits = esize * 8;
    for (unsigned i = 0; i < 16 / esize; i++) {
        uint64_t v;
        switch (esize) {
        case 2: v = d->w[i]; break;
        case 4: v = d->d[i]; break;
        default: v = d->q[i]; break;
        }
        if (arith) {
            int64_t sv = x86_sext(v, esize);
            v = (uint64_t)(sv >> (cnt >= bits ? bits - 1 : cnt));
        } else if (cnt >= bits) {
            v = 0;
        } else {
            v = right ? v >> cnt : v << cnt;
        }
        switch (esize) {
        case 2: d->w[i] = (uint16_t)v; break;
        case 4: d->d[i] = (uint32_t)v; break;
        default: d->q[i] = v; break;
        }
    }
}

unsigned x86_sse_run_form(const struct x86_dinsn *in)
{
    const struct x86_opnd *o0 = &in->o[0], *o1 = &in->o[1];
    int sd = in->csid == X86_INS_MOVSD || in->csid == X86_INS_ADDSD ||
             in->csid == X86_INS_SUBSD || in->csid == X86_INS_MULSD;
    int src_ok = o1->kind == OPK_XMM || o1->kind == OPK_MEM;
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
    default: return XOP_SSE;
    }
}

/* The scalar forms x86_sse_run_form picks, one small function each (the
 * same code as the cases of x86_exec_sse): the dispatch calls them
 * directly instead of through x86_exec_sse's large frame and its switch
 * over capstone ids. */
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

/* 16-byte moves (movaps, movdqu and the like): x86_exec_sse's load then
 * store_n of 16 bytes for these operand kinds. */
void x86_sse_movx_rr(struct x86_cpu *c, const struct x86_dinsn *in)
{
    c->xmm[in->o[0].reg] = c->xmm[in->o[1].reg];
}

void x86_sse_movx_load(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t v; /* a faulting load leaves the register as it was */
    x86_read_bytes(c, op_ea(c, &in->o[1]), v.b, 16);
    c->xmm[in->o[0].reg] = v;
}

void x86_sse_movx_store(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t v = c->xmm[in->o[1].reg];
    x86_write_bytes(c, op_ea(c, &in->o[0]), v.b, 16);
}

void x86_sse_addsd(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    double a = d->fd[0], b = src_f64(c, &in->o[1]);
    d->fd[0] = NAN2(double, a, b, a + b);
}

void x86_sse_subsd(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    double a = d->fd[0], b = src_f64(c, &in->o[1]);
    d->fd[0] = NAN2(double, a, b, a - b);
}

void x86_sse_mulsd(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    double a = d->fd[0], b = src_f64(c, &in->o[1]);
    d->fd[0] = NAN2(double, a, b, a * b);
}

void x86_sse_addss(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    float a = d->f[0], b = src_f32(c, &in->o[1]);
    d->f[0] = NAN2(float, a, b, a + b);
}

void x86_sse_subss(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    float a = d->f[0], b = src_f32(c, &in->o[1]);
    d->f[0] = NAN2(float, a, b, a - b);
}

void x86_sse_mulss(struct x86_cpu *c, const struct x86_dinsn *in)
{
    xmm_t *d = &c->xmm[in->o[0].reg];
    float a = d->f[0], b = src_f32(c, &in->o[1]);
    d->f[0] = NAN2(float, a, b, a * b);
}

void x86_exec_sse(struct x86_cpu *c, const struct x86_dinsn *in)
{
    const struct x86_opnd *o0 = &in->o[0], *o1 = &in->o[1];
    xmm_t *d = o0->kind == OPK_XMM ? &c->xmm[o0->reg] : NULL;
    xmm_t s, r;
    if (in->csid == X86_SSE_CMP_ID) {
        exec_cmp(c, in);
        return;
    }
    /* Every form below with an XMM destination needs D. */
#define NEED_D() do { if (!d) goto unimpl; } while (0)
    switch (in->csid) {
    /* ---- moves ---- */
    case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
    case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_LDDQU: case X86_INS_MOVNTDQ:
    case X86_INS_MOVNTPS: case X86_INS_MOVNTPD: case X86_INS_MOVNTDQA:
        s = load(c, o1);
        store_n(c, o0, &s, 16);
        return;
    case X86_INS_MOVD: case X86_INS_MOVQ:
        if (o0->kind == OPK_XMM) {
            s = load(c, o1);
            memset(&r, 0, sizeof r);
            if (in->csid == X86_INS_MOVD || (o1->kind != OPK_XMM && o1->size == 4))
                r.d[0] = s.d[0];
            else
                r.q[0] = s.q[0];
            *d = r;
        } else {
            s = c->xmm[o1->reg];
            unsigned n = in->csid == X86_INS_MOVD ? 4 : (o0->size == 4 ? 4 : 8);
            store_n(c, o0, &s, n);
        }
        return;
    case X86_INS_MOVSS: case X86_INS_MOVSD: {
        unsigned n = in->csid == X86_INS_MOVSS ? 4 : 8;
        if (o0->kind == OPK_XMM && o1->kind == OPK_XMM) {
            memcpy(d->b, c->xmm[o1->reg].b, n);
        } else if (o0->kind == OPK_XMM) {
            d->q[0] = x86_read(c, op_ea(c, o1), n);
            d->q[1] = 0;
        } else {
            s = c->xmm[o1->reg];
            store_n(c, o0, &s, n);
        }
        return;
    }
    case X86_INS_MOVHPS: case X86_INS_MOVHPD:
        if (o0->kind == OPK_XMM) {
            d->q[1] = load(c, o1).q[0];
        } else {
            r.q[0] = c->xmm[o1->reg].q[1];
            store_n(c, o0, &r, 8);
        }
        return;
    case X86_INS_MOVLPS: case X86_INS_MOVLPD:
        if (o0->kind == OPK_XMM) {
            d->q[0] = load(c, o1).q[0];
        } else {
            r.q[0] = c->xmm[o1->reg].q[0];
            store_n(c, o0, &r, 8);
        }
        return;
    case X86_INS_MOVHLPS: NEED_D(); d->q[0] = c->xmm[o1->reg].q[1]; return;
    case X86_INS_MOVLHPS: NEED_D(); d->q[1] = c->xmm[o1->reg].q[0]; return;
    case X86_INS_MOVNTI:
        op_write(c, o0, o0->size, reg_get(c, o1->reg, o0->size));
        return;
    case X86_INS_MOVMSKPS: {
        s = c->xmm[o1->reg];
        unsigned m = 0;
        for (int i = 0; i < 4; i++) m |= (s.d[i] >> 31) << i;
        reg_set(c, o0->reg, 4, m);
        return;
    }
    case X86_INS_MOVMSKPD: {
        s = c->xmm[o1->reg];
        unsigned m = (unsigned)(s.q[0] >> 63) | (unsigned)((s.q[1] >> 63) << 1);
        reg_set(c, o0->reg, 4, m);
        return;
    }
    case X86_INS_PMOVMSKB: {
        s = c->xmm[o1->reg];
        unsigned m = 0;
        for (int i = 0; i < 16; i++) m |= (unsigned)(s.b[i] >> 7) << i;
        reg_set(c, o0->reg, 4, m);
        return;
    }
    /* ---- scalar arithmetic ---- */
#define SCALAR(ID, T, F, EXPR) \
    case ID: NEED_D(); { T a = d->F[0], b = sizeof(T) == 8 ? (T)src_f64(c, o1) : (T)src_f32(c, o1); \
        (void)a; (void)b; d->F[0] = (EXPR); } return;
    SCALAR(X86_INS_ADDSD, double, fd, NAN2(double, a, b, a + b))
    SCALAR(X86_INS_SUBSD, double, fd, NAN2(double, a, b, a - b))
    SCALAR(X86_INS_MULSD, double, fd, NAN2(double, a, b, a * b))
    SCALAR(X86_INS_DIVSD, double, fd, NAN2(double, a, b, a / b))
    SCALAR(X86_INS_MINSD, double, fd, fmin_x86(a, b))
    SCALAR(X86_INS_MAXSD, double, fd, fmax_x86(a, b))
    SCALAR(X86_INS_SQRTSD, double, fd, sqrt(b))
    SCALAR(X86_INS_ADDSS, float, f, NAN2(float, a, b, a + b))
    SCALAR(X86_INS_SUBSS, float, f, NAN2(float, a, b, a - b))
    SCALAR(X86_INS_MULSS, float, f, NAN2(float, a, b, a * b))
    SCALAR(X86_INS_DIVSS, float, f, NAN2(float, a, b, a / b))
    SCALAR(X86_INS_MINSS, float, f, (float)fmin_x86(a, b))
    SCALAR(X86_INS_MAXSS, float, f, (float)fmax_x86(a, b))
    SCALAR(X86_INS_SQRTSS, float, f, sqrtf(b))
#undef SCALAR
    /* ---- packed float ---- */
#define PACKED(ID, T, F, N, EXPR) \
    case ID: NEED_D(); s = load(c, o1); \
        for (int i = 0; i < N; i++) { T a = d->F[i], b = s.F[i]; (void)a; (void)b; d->F[i] = (EXPR); } return;
    PACKED(X86_INS_ADDPD, double, fd, 2, NAN2(double, a, b, a + b))
    PACKED(X86_INS_SUBPD, double, fd, 2, NAN2(double, a, b, a - b))
    PACKED(X86_INS_MULPD, double, fd, 2, NAN2(double, a, b, a * b))
    PACKED(X86_INS_DIVPD, double, fd, 2, NAN2(double, a, b, a / b))
    PACKED(X86_INS_MINPD, double, fd, 2, fmin_x86(a, b))
    PACKED(X86_INS_MAXPD, double, fd, 2, fmax_x86(a, b))
    PACKED(X86_INS_SQRTPD, double, fd, 2, sqrt(b))
    PACKED(X86_INS_ADDPS, float, f, 4, NAN2(float, a, b, a + b))
    PACKED(X86_INS_SUBPS, float, f, 4, NAN2(float, a, b, a - b))
    PACKED(X86_INS_MULPS, float, f, 4, NAN2(float, a, b, a * b))
    PACKED(X86_INS_DIVPS, float, f, 4, NAN2(float, a, b, a / b))
    PACKED(X86_INS_MINPS, float, f, 4, (float)fmin_x86(a, b))
    PACKED(X86_INS_MAXPS, float, f, 4, (float)fmax_x86(a, b))
    PACKED(X86_INS_SQRTPS, float, f, 4, sqrtf(b))
    /* ---- packed integer ---- */
    PACKED(X86_INS_PADDB, uint8_t, b, 16, (uint8_t)(a + b))
    PACKED(X86_INS_PADDW, uint16_t, w, 8, (uint16_t)(a + b))
    PACKED(X86_INS_PADDD, uint32_t, d, 4, a + b)
    PACKED(X86_INS_PADDQ, uint64_t, q, 2, a + b)
    PACKED(X86_INS_PSUBB, uint8_t, b, 16, (uint8_t)(a - b))
    PACKED(X86_INS_PSUBW, uint16_t, w, 8, (uint16_t)(a - b))
    PACKED(X86_INS_PSUBD, uint32_t, d, 4, a - b)
    PACKED(X86_INS_PSUBQ, uint64_t, q, 2, a - b)
    PACKED(X86_INS_PADDUSB, uint8_t, b, 16, sat_u8(a + b))
    PACKED(X86_INS_PADDUSW, uint16_t, w, 8, sat_u16(a + b))
    PACKED(X86_INS_PSUBUSB, uint8_t, b, 16, sat_u8(a - b))
    PACKED(X86_INS_PSUBUSW, uint16_t, w, 8, sat_u16(a - b))
    PACKED(X86_INS_PADDSB, int8_t, sb, 16, sat_s8(a + b))
    PACKED(X86_INS_PADDSW, int16_t, sw, 8, sat_s16(a + b))
    PACKED(X86_INS_PSUBSB, int8_t, sb, 16, sat_s8(a - b))
    PACKED(X86_INS_PSUBSW, int16_t, sw, 8, sat_s16(a - b))
    PACKED(X86_INS_PCMPEQB, uint8_t, b, 16, a == b ? 0xff : 0)
    PACKED(X86_INS_PCMPEQW, uint16_t, w, 8, a == b ? 0xffff : 0)
    PACKED(X86_INS_PCMPEQD, uint32_t, d, 4, a == b ? ~0u : 0)
    PACKED(X86_INS_PCMPGTB, int8_t, sb, 16, a > b ? -1 : 0)
    PACKED(X86_INS_PCMPGTW, int16_t, sw, 8, a > b ? -1 : 0)
    PACKED(X86_INS_PCMPGTD, int32_t, sd, 4, a > b ? -1 : 0)
    PACKED(X86_INS_PMINUB, uint8_t, b, 16, a < b ? a : b)
    PACKED(X86_INS_PMAXUB, uint8_t, b, 16, a > b ? a : b)
    PACKED(X86_INS_PMINSW, int16_t, sw, 8, a < b ? a : b)
    PACKED(X86_INS_PMAXSW, int16_t, sw, 8, a > b ? a : b)
    PACKED(X86_INS_PAVGB, uint8_t, b, 16, (uint8_t)((a + b + 1) >> 1))
    PACKED(X86_INS_PAVGW, uint16_t, w, 8, (uint16_t)((a + b + 1) >> 1))
    PACKED(X86_INS_PMULLW, int16_t, sw, 8, (int16_t)(uint16_t)((int32_t)a * b))
    PACKED(X86_INS_PMULHW, int16_t, sw, 8, (int16_t)(((int32_t)a * b) >> 16))
    PACKED(X86_INS_PMULHUW, uint16_t, w, 8, (uint16_t)(((uint32_t)a * b) >> 16))
    /* ---- logic ---- */
    case X86_INS_ANDPS: case X86_INS_ANDPD: case X86_INS_PAND:
        NEED_D(); s = load(c, o1); d->q[0] &= s.q[0]; d->q[1] &= s.q[1]; return;
    case X86_INS_ANDNPS: case X86_INS_ANDNPD: case X86_INS_PANDN:
        NEED_D(); s = load(c, o1); d->q[0] = ~d->q[0] & s.q[0]; d->q[1] = ~d->q[1] & s.q[1]; return;
    case X86_INS_ORPS: case X86_INS_ORPD: case X86_INS_POR:
        NEED_D(); s = load(c, o1); d->q[0] |= s.q[0]; d->q[1] |= s.q[1]; return;
    case X86_INS_XORPS: case X86_INS_XORPD: case X86_INS_PXOR:
        NEED_D(); s = load(c, o1); d->q[0] ^= s.q[0]; d->q[1] ^= s.q[1]; return;
    case X86_INS_PMULUDQ:
        NEED_D(); s = load(c, o1);
        d->q[0] = (uint64_t)d->d[0] * s.d[0];
        d->q[1] = (uint64_t)d->d[2] * s.d[2];
        return;
    case X86_INS_PMADDWD:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 4; i++)
            r.sd[i] = (int32_t)((uint32_t)((int32_t)d->sw[2 * i] * s.sw[2 * i]) +
                                (uint32_t)((int32_t)d->sw[2 * i + 1] * s.sw[2 * i + 1]));
        *d = r;
        return;
    case X86_INS_PSADBW:
        NEED_D(); s = load(c, o1);
        for (int h = 0; h < 2; h++) {
            unsigned sum = 0;
            for (int i = 0; i < 8; i++) {
                int df = (int)d->b[8 * h + i] - (int)s.b[8 * h + i];
                sum += (unsigned)(df < 0 ? -df : df);
            }
            r.q[h] = sum;
        }
        *d = r;
        return;
    /* ---- compares setting EFLAGS ---- */
    case X86_INS_UCOMISD: case X86_INS_COMISD: {
        double a = c->xmm[o0->reg].fd[0], b = src_f64(c, o1);
        set_compare_flags(c, isnan(a) || isnan(b), a < b, a == b);
        return;
    }
    case X86_INS_UCOMISS: case X86_INS_COMISS: {
        float a = c->xmm[o0->reg].f[0], b = src_f32(c, o1);
        set_compare_flags(c, isnan(a) || isnan(b), a < b, a == b);
        return;
    }
    /* ---- conversions ---- */
    case X86_INS_CVTSI2SD: {
        NEED_D();
        uint64_t v = op_read(c, o1, o1->size);
        d->fd[0] = o1->size == 8 ? (double)(int64_t)v : (double)(int32_t)v;
        return;
    }
    case X86_INS_CVTSI2SS: {
        NEED_D();
        uint64_t v = op_read(c, o1, o1->size);
        d->f[0] = o1->size == 8 ? (float)(int64_t)v : (float)(int32_t)v;
        return;
    }
    case X86_INS_CVTTSD2SI: case X86_INS_CVTSD2SI:
        reg_set(c, o0->reg, o0->size,
                (uint64_t)cvt_to_int(load(c, o1).fd[0], o0->size, in->csid == X86_INS_CVTTSD2SI));
        return;
    case X86_INS_CVTTSS2SI: case X86_INS_CVTSS2SI:
        reg_set(c, o0->reg, o0->size,
                (uint64_t)cvt_to_int(load(c, o1).f[0], o0->size, in->csid == X86_INS_CVTTSS2SI));
        return;
    case X86_INS_CVTSD2SS: NEED_D(); d->f[0] = (float)load(c, o1).fd[0]; return;
    case X86_INS_CVTSS2SD: NEED_D(); d->fd[0] = (double)load(c, o1).f[0]; return;
    case X86_INS_CVTDQ2PD:
        NEED_D(); s = load(c, o1);
        r.fd[0] = s.sd[0]; r.fd[1] = s.sd[1];
        *d = r;
        return;
    case X86_INS_CVTDQ2PS:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 4; i++) r.f[i] = (float)s.sd[i];
        *d = r;
        return;
    case X86_INS_CVTTPS2DQ: case X86_INS_CVTPS2DQ:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 4; i++)
            r.sd[i] = (int32_t)cvt_to_int(s.f[i], 4, in->csid == X86_INS_CVTTPS2DQ);
        *d = r;
        return;
    case X86_INS_CVTTPD2DQ: case X86_INS_CVTPD2DQ:
        NEED_D(); s = load(c, o1);
        memset(&r, 0, sizeof r);
        for (int i = 0; i < 2; i++)
            r.sd[i] = (int32_t)cvt_to_int(s.fd[i], 4, in->csid == X86_INS_CVTTPD2DQ);
        *d = r;
        return;
    case X86_INS_CVTPS2PD:
        NEED_D(); s = load(c, o1);
        r.fd[0] = s.f[0]; r.fd[1] = s.f[1];
        *d = r;
        return;
    case X86_INS_CVTPD2PS:
        NEED_D(); s = load(c, o1);
        memset(&r, 0, sizeof r);
        r.f[0] = (float)s.fd[0]; r.f[1] = (float)s.fd[1];
        *d = r;
        return;
    /* ---- shuffles and unpacks ---- */
    case X86_INS_UNPCKLPS: case X86_INS_PUNPCKLDQ:
        NEED_D(); s = load(c, o1);
        r.d[0] = d->d[0]; r.d[1] = s.d[0]; r.d[2] = d->d[1]; r.d[3] = s.d[1];
        *d = r;
        return;
    case X86_INS_UNPCKHPS: case X86_INS_PUNPCKHDQ:
        NEED_D(); s = load(c, o1);
        r.d[0] = d->d[2]; r.d[1] = s.d[2]; r.d[2] = d->d[3]; r.d[3] = s.d[3];
        *d = r;
        return;
    case X86_INS_UNPCKLPD: case X86_INS_PUNPCKLQDQ:
        NEED_D(); s = load(c, o1); d->q[1] = s.q[0]; return;
    case X86_INS_UNPCKHPD: case X86_INS_PUNPCKHQDQ:
        NEED_D(); s = load(c, o1); d->q[0] = d->q[1]; d->q[1] = s.q[1]; return;
    case X86_INS_PUNPCKLBW:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 8; i++) { r.b[2 * i] = d->b[i]; r.b[2 * i + 1] = s.b[i]; }
        *d = r;
        return;
    case X86_INS_PUNPCKHBW:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 8; i++) { r.b[2 * i] = d->b[8 + i]; r.b[2 * i + 1] = s.b[8 + i]; }
        *d = r;
        return;
    case X86_INS_PUNPCKLWD:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 4; i++) { r.w[2 * i] = d->w[i]; r.w[2 * i + 1] = s.w[i]; }
        *d = r;
        return;
    case X86_INS_PUNPCKHWD:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 4; i++) { r.w[2 * i] = d->w[4 + i]; r.w[2 * i + 1] = s.w[4 + i]; }
        *d = r;
        return;
    case X86_INS_PACKUSWB:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 8; i++) { r.b[i] = sat_u8(d->sw[i]); r.b[8 + i] = sat_u8(s.sw[i]); }
        *d = r;
        return;
    case X86_INS_PACKSSWB:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 8; i++) { r.sb[i] = sat_s8(d->sw[i]); r.sb[8 + i] = sat_s8(s.sw[i]); }
        *d = r;
        return;
    case X86_INS_PACKSSDW:
        NEED_D(); s = load(c, o1);
        for (int i = 0; i < 4; i++) {
            int32_t x = d->sd[i], y = s.sd[i];
            r.sw[i] = (int16_t)(x < -32768 ? -32768 : x > 32767 ? 32767 : x);
            r.sw[4 + i] = (int16_t)(y < -32768 ? -32768 : y > 32767 ? 32767 : y);
        }
        *d = r;
        return;
    case X86_INS_SHUFPS: {
        NEED_D(); s = load(c, o1);
        unsigned im = (unsigned)in->o[2].val;
        r.d[0] = d->d[im & 3]; r.d[1] = d->d[(im >> 2) & 3];
        r.d[2] = s.d[(im >> 4) & 3]; r.d[3] = s.d[(im >> 6) & 3];
        *d = r;
        return;
    }
    case X86_INS_SHUFPD: {
        NEED_D(); s = load(c, o1);
        unsigned im = (unsigned)in->o[2].val;
        r.q[0] = d->q[im & 1]; r.q[1] = s.q[(im >> 1) & 1];
        *d = r;
        return;
    }
    case X86_INS_PSHUFD: {
        NEED_D(); s = load(c, o1);
        unsigned im = (unsigned)in->o[2].val;
        for (int i = 0; i < 4; i++) r.d[i] = s.d[(im >> (2 * i)) & 3];
        *d = r;
        return;
    }
    case X86_INS_PSHUFLW: case X86_INS_PSHUFHW: {
        NEED_D(); s = load(c, o1);
        unsigned im = (unsigned)in->o[2].val, base = in->csid == X86_INS_PSHUFHW ? 4 : 0;
        r = s;
        for (unsigned i = 0; i < 4; i++) r.w[base + i] = s.w[base + ((im >> (2 * i)) & 3)];
        *d = r;
        return;
    }
    case X86_INS_PINSRW: {
        NEED_D();
        uint64_t v = op_read(c, o1, 2);
        d->w[in->o[2].val & 7] = (uint16_t)v;
        return;
    }
    case X86_INS_PEXTRW:
        reg_set(c, o0->reg, 4, c->xmm[o1->reg].w[in->o[2].val & 7]);
        return;
    /* ---- shifts ---- */
    case X86_INS_PSLLW: NEED_D(); shift_imm_or_xmm(c, in, 2, 0, 0); return;
    case X86_INS_PSLLD: NEED_D(); shift_imm_or_xmm(c, in, 4, 0, 0); return;
    case X86_INS_PSLLQ: NEED_D(); shift_imm_or_xmm(c, in, 8, 0, 0); return;
    case X86_INS_PSRLW: NEED_D(); shift_imm_or_xmm(c, in, 2, 1, 0); return;
    case X86_INS_PSRLD: NEED_D(); shift_imm_or_xmm(c, in, 4, 1, 0); return;
    case X86_INS_PSRLQ: NEED_D(); shift_imm_or_xmm(c, in, 8, 1, 0); return;
    case X86_INS_PSRAW: NEED_D(); shift_imm_or_xmm(c, in, 2, 1, 1); return;
    case X86_INS_PSRAD: NEED_D(); shift_imm_or_xmm(c, in, 4, 1, 1); return;
    case X86_INS_PSLLDQ: case X86_INS_PSRLDQ: {
        NEED_D();
        unsigned n = (unsigned)in->o[1].val & 0xff;
        memset(&r, 0, sizeof r);
        if (n < 16) {
            if (in->csid == X86_INS_PSLLDQ)
                memcpy(r.b + n, d->b, 16 - n);
            else
                memcpy(r.b, d->b + n, 16 - n);
        }
        *d = r;
        return;
    }
    /* ---- control ---- */
    case X86_INS_STMXCSR:
        x86_write(c, op_ea(c, o0), 4, c->mxcsr);
        return;
    case X86_INS_LDMXCSR:
        c->mxcsr = (uint32_t)x86_read(c, op_ea(c, o0), 4);
        return;
    case X86_INS_EMMS:
        return;
    default:
        break;
    }
#undef NEED_D
unimpl:
    x86_fault(c, XF_UNIMPL, in->next - in->len);
}

void x86_fpu_reset(struct x86_cpu *c)
{
    c->mxcsr = 0x1f80;
    c->fcw = 0x037f;
    c->fsw = 0;
    c->ftop = 0;
    c->ftag = 0;
    memset(c->xmm, 0, sizeof c->xmm);
    memset(c->st, 0, sizeof c->st);
}
