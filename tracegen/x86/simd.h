/* What the SIMD units (SSE through AVX2, sse.c, simd_ops.c, avx.c) share:
 * vector operands, the host instructions that compute exactly what the
 * guest's do, and the operation table.
 *
 * Vector instructions are decoded into one shape (cpu.h): the destination
 * is o[0]; the first source is o[nds] (the destination itself for legacy
 * SSE, VEX's vvvv register otherwise) and the second o[nds + 1]; the
 * trailing imm8 is in `imm`; `vl` is 0 for legacy SSE and the vector
 * length in bytes (16 or 32) for VEX. A VEX instruction runs as the legacy
 * one of the same name (csid is the legacy instruction's id) over vl
 * bytes; the destination's bytes beyond what it writes are zeroed. */
#ifndef TRACEGEN_X86_SIMD_H
#define TRACEGEN_X86_SIMD_H

#include <emmintrin.h>

#include "tracegen/x86/cpu.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/operand.h"

/* Reads a vector source: an XMM or YMM register (by the operand's size),
 * memory (the operand's size, one access, zero-extended), a general
 * register or an immediate (zero-extended). */
void x86_vec_read(struct x86_cpu *c, const struct x86_opnd *o, ymm_t *v);
/* Writes R to the destination register of IN: 16 bytes for legacy SSE
 * (the upper half of the YMM register stays), the destination operand's
 * size for VEX with the rest of the YMM register zeroed. */
void x86_vec_write(struct x86_cpu *c, const struct x86_dinsn *in, const ymm_t *r);
/* The vector length an instruction computes over (16 for legacy SSE). */
static inline unsigned x86_vec_len(const struct x86_dinsn *in)
{
    return in->vl ? in->vl : 16;
}

/* The alignment mask (0, 15, 31 or 63) the memory operand of SSE/AVX
 * instruction ID (the legacy id of a VEX one) must meet, for vector length
 * VL (0 legacy) and a memory operand of MEM_SIZE bytes (vec_align.c). */
uint8_t x86_vec_align_mask(unsigned id, unsigned vl, unsigned mem_size);

/* A misaligned operand IN demands aligned (x86_dinsn.align) raises #GP
 * before any access, as on the processor. */
static inline void x86_vec_check_align(struct x86_cpu *c, const struct x86_dinsn *in,
                                       uint64_t addr)
{
    if (__builtin_expect((addr & in->align) != 0, 0))
        x86_fault(c, XF_PROTECTION, 0);
}

/* A 16-byte source of legacy SSE instruction IN, inline: an XMM register,
 * 4, 8 or 16 bytes of memory (checked against IN's alignment, one access,
 * zero-extended) or a 32/64-bit general register (zero-extended). The
 * decoder gives the forms that call it no other shape. */
__attribute__((always_inline)) static inline void x86_sse_source(struct x86_cpu *c,
                                                                 const struct x86_dinsn *in,
                                                                 const struct x86_opnd *o,
                                                                 xmm_t *v)
{
    if (o->kind == OPK_XMM) {
        *v = c->xmm[o->reg];
    } else if (o->kind == OPK_MEM) {
        uint64_t a = op_ea(c, o);
        x86_vec_check_align(c, in, a);
        if (o->size == 16) {
            x86_read_bytes(c, a, v->b, 16);
        } else {
            v->q[0] = x86_read(c, a, o->size);
            v->q[1] = 0;
        }
    } else {
        v->q[0] = reg_get(c, o->reg, o->size);
        v->q[1] = 0;
    }
}

/* The element of ESIZE (1, 2, 4 or 8) bytes at P, zero-extended, and its
 * store: a memcpy of a run-time size is a library call per element. */
static inline uint64_t x86_elem_get(const uint8_t *p, unsigned esize)
{
    uint8_t b;
    uint16_t w;
    uint32_t d;
    uint64_t q;
    switch (esize) {
    case 1: memcpy(&b, p, 1); return b;
    case 2: memcpy(&w, p, 2); return w;
    case 4: memcpy(&d, p, 4); return d;
    default: memcpy(&q, p, 8); return q;
    }
}

static inline void x86_elem_set(uint8_t *p, unsigned esize, uint64_t v)
{
    uint8_t b = (uint8_t)v;
    uint16_t w = (uint16_t)v;
    uint32_t d = (uint32_t)v;
    switch (esize) {
    case 1: memcpy(p, &b, 1); return;
    case 2: memcpy(p, &w, 2); return;
    case 4: memcpy(p, &d, 4); return;
    default: memcpy(p, &v, 8); return;
    }
}

/* The shapes x86_sse_source reads. */
static inline int x86_sse_source_ok(const struct x86_opnd *o)
{
    switch (o->kind) {
    case OPK_XMM: return o->size != 32;
    case OPK_MEM: return o->size == 4 || o->size == 8 || o->size == 16;
    case OPK_REG: return o->size == 4 || o->size == 8;
    default: return 0;
    }
}

/* The operations whose result is a vector register computed from the
 * first source A, the second source B and, for blends by a mask register,
 * M (the table in simd_ops.c). Returns 0 when IN is not one of them. */
int x86_simd_compute(struct x86_cpu *c, const struct x86_dinsn *in, ymm_t *r, const ymm_t *a,
                     const ymm_t *b, const ymm_t *m);

/* Adds exception flags (MXCSR bits 0..5) to the guest's MXCSR, for
 * operations computed without a host instruction that raises them. */
void x86_simd_raise(struct x86_cpu *c, uint32_t flags);

/* ptest (BITS all ones) and vtestps/pd (BITS the elements' sign bits) of
 * the first two operands: ZF when their AND is zero, CF when the second
 * AND NOT the first is; the other arithmetic flags are cleared. */
void x86_vec_test(struct x86_cpu *c, const struct x86_dinsn *in, uint64_t bits);

/* The VEX instructions without a legacy twin (avx.c: broadcasts,
 * permutes, 128-bit inserts and extracts, masked moves, gathers, variable
 * shifts, FMA, F16C, vzeroupper). Returns 0 for any other instruction. */
int x86_avx_exec(struct x86_cpu *c, const struct x86_dinsn *in);
/* 1 when x86_avx_exec runs IN (a VEX instruction without a legacy twin). */
int x86_avx_owns(const struct x86_dinsn *in);

/* FMA instructions are marked at decode: cond X86_VEC_FMA, aux the shape
 * x86_fma_shape (avx.c) reads from the mnemonic (kind, operand order,
 * scalar or packed, float or double). */
#define X86_VEC_FMA 1
int x86_fma_shape(const char *mnemonic, uint8_t *shape);
/* The run form of FMA instruction IN: RUN_VEX_FMA_SCALAR or RUN_VEX_FMA
 * (x86_vex_fma_scalar, x86_vex_fma) for a register destination and first
 * source and a register or memory second, else 0. */
unsigned x86_fma_run_form(const struct x86_dinsn *in);

/* SSE4.2 string compares (sse42.c): pcmpistri/pcmpestri set ECX and the
 * flags, pcmpistrm/pcmpestrm set XMM0. */
void x86_sse42_string(struct x86_cpu *c, const struct x86_dinsn *in, const ymm_t *a,
                      const ymm_t *b);

/* 128-bit values to and from the host's vector types (a copy each). */
static inline __m128d x86_pd(const xmm_t *x) { return _mm_loadu_pd(x->fd); }
static inline __m128 x86_ps(const xmm_t *x) { return _mm_loadu_ps(x->f); }
static inline __m128i x86_pi(const xmm_t *x) { return _mm_loadu_si128((const __m128i *)x->b); }
static inline void x86_set_pd(xmm_t *x, __m128d v) { _mm_storeu_pd(x->fd, v); }
static inline void x86_set_ps(xmm_t *x, __m128 v) { _mm_storeu_ps(x->f, v); }
static inline void x86_set_pi(xmm_t *x, __m128i v) { _mm_storeu_si128((__m128i *)x->b, v); }

/* Additions and multiplications as the named host instruction, first
 * operand first: compilers treat a + b as b + a (the intrinsics too), but
 * when both are NaNs the processor returns the first. Every other
 * operation the units need has an intrinsic that keeps its operands. */
#define X86_SIMD_ASM2(name, insn, T) \
    static inline T name(T a, T b) \
    { \
        __asm__ volatile(insn " %2, %0" : "=x"(a) : "0"(a), "x"(b)); \
        return a; \
    }
X86_SIMD_ASM2(x86_addsd, "addsd", __m128d)
X86_SIMD_ASM2(x86_addpd, "addpd", __m128d)
X86_SIMD_ASM2(x86_mulsd, "mulsd", __m128d)
X86_SIMD_ASM2(x86_mulpd, "mulpd", __m128d)
X86_SIMD_ASM2(x86_addss, "addss", __m128)
X86_SIMD_ASM2(x86_addps, "addps", __m128)
X86_SIMD_ASM2(x86_mulss, "mulss", __m128)
X86_SIMD_ASM2(x86_mulps, "mulps", __m128)
#undef X86_SIMD_ASM2

/* Conversions between scalars and integers as the host instruction. The
 * intrinsics are side-effect free to the compiler, which may then run the
 * 32- and the 64-bit one both and keep one, raising the other's flags. */
#define X86_SIMD_TO_INT(name, insn, T, V) \
    static inline T name(V v) \
    { \
        T r; \
        __asm__ volatile(insn " %1, %0" : "=r"(r) : "x"(v)); \
        return r; \
    }
X86_SIMD_TO_INT(x86_cvtsd2si32, "cvtsd2si", int32_t, __m128d)
X86_SIMD_TO_INT(x86_cvtsd2si64, "cvtsd2si", int64_t, __m128d)
X86_SIMD_TO_INT(x86_cvttsd2si32, "cvttsd2si", int32_t, __m128d)
X86_SIMD_TO_INT(x86_cvttsd2si64, "cvttsd2si", int64_t, __m128d)
X86_SIMD_TO_INT(x86_cvtss2si32, "cvtss2si", int32_t, __m128)
X86_SIMD_TO_INT(x86_cvtss2si64, "cvtss2si", int64_t, __m128)
X86_SIMD_TO_INT(x86_cvttss2si32, "cvttss2si", int32_t, __m128)
X86_SIMD_TO_INT(x86_cvttss2si64, "cvttss2si", int64_t, __m128)
#undef X86_SIMD_TO_INT
#define X86_SIMD_FROM_INT(name, insn, T, V) \
    static inline V name(V v, T i) \
    { \
        __asm__ volatile(insn " %1, %0" : "+x"(v) : "r"(i)); \
        return v; \
    }
X86_SIMD_FROM_INT(x86_cvtsi2sd32, "cvtsi2sdl", int32_t, __m128d)
X86_SIMD_FROM_INT(x86_cvtsi2sd64, "cvtsi2sdq", int64_t, __m128d)
X86_SIMD_FROM_INT(x86_cvtsi2ss32, "cvtsi2ssl", int32_t, __m128)
X86_SIMD_FROM_INT(x86_cvtsi2ss64, "cvtsi2ssq", int64_t, __m128)
#undef X86_SIMD_FROM_INT

#endif
