/* SSE/SSE2 results against the host processor: each instruction runs
 * natively (from an executable buffer) and under the interpreter on the
 * same xmm0, xmm1, rax, flags and MXCSR; float operands mix ordinary
 * values with signed zeros, infinities, NaNs and denormals, under every
 * rounding mode with and without FTZ and DAZ, and the exception flags
 * each instruction raises must be the host's. The memory-source forms
 * read xmm1's or rax's bytes from the frame in memory (rdi). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/x86_harness.h"
#include "tests/unit/x86_rand.h"
#include "tracegen/x86/flags.h"
#include "tracegen/x86/fpenv.h"
#include "tracegen/x86/interp.h"

struct state {
    _Alignas(16) uint8_t x0[16];
    uint8_t x1[16];
    uint64_t rax, flags;
    uint32_t mxcsr, pad;
};

static const uint8_t prologue[] = {
    0xf3, 0x0f, 0x6f, 0x07,             /* movdqu xmm0, [rdi] */
    0xf3, 0x0f, 0x6f, 0x4f, 0x10,       /* movdqu xmm1, [rdi+16] */
    0x48, 0x8b, 0x47, 0x20,             /* mov rax, [rdi+32] */
    0xff, 0x77, 0x28, 0x9d,             /* push [rdi+40]; popfq */
    0x0f, 0xae, 0x57, 0x30,             /* ldmxcsr [rdi+48] */
};
static const uint8_t epilogue[] = {
    0x0f, 0xae, 0x5f, 0x30,             /* stmxcsr [rdi+48] */
    0x9c, 0x8f, 0x47, 0x28,             /* pushfq; pop [rdi+40] */
    0xf3, 0x0f, 0x7f, 0x07,             /* movdqu [rdi], xmm0 */
    0xf3, 0x0f, 0x7f, 0x4f, 0x10,       /* movdqu [rdi+16], xmm1 */
    0x48, 0x89, 0x47, 0x20,             /* mov [rdi+32], rax */
};
static const struct x86_wrap wrap = { prologue, sizeof prologue, epilogue, sizeof epilogue };

static void run_emulated(struct x86_harness *h, const uint8_t *code, size_t n, struct state *s)
{
    struct x86_cpu *c = x86_harness_cpu(h);
    x86_fpu_reset(c);
    memcpy(c->xmm[0].b, s->x0, 16);
    memcpy(c->xmm[1].b, s->x1, 16);
    c->r[R_RAX] = s->rax;
    x86_set_rflags(c, s->flags);
    c->mxcsr = s->mxcsr;
    x86_run_block(h, c, code, n, 1);
    s->mxcsr = x86_fpenv_mxcsr(c);
    x86_fpenv_leave();
    memcpy(s->x0, c->xmm[0].b, 16);
    memcpy(s->x1, c->xmm[1].b, 16);
    s->rax = c->r[R_RAX];
    s->flags = x86_rflags(c);
}

static uint64_t rng = 0x1234567887654321ull;

static uint64_t next_rand(void)
{
    return x86_xorshift64(&rng);
}

static double some_double(void)
{
    static const double special[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.5, 1e308, -1e308,
                                      4.9e-324, DBL_MIN, 2147483647.5, -2147483648.5,
                                      9.3e18, -9.3e18, 123456.789 };
    uint64_t r = next_rand();
    switch (r % 6) {
    case 0: return special[(r >> 8) % (sizeof special / sizeof special[0])];
    case 1: return (r & 0x100) ? INFINITY : -INFINITY;
    case 2: return (r & 0x100) ? NAN : -NAN;
    default: return ((double)(int64_t)(next_rand() >> 20) / 4096.0) * ((r & 0x200) ? 1e-3 : 1.0);
    }
}

static void fill(uint8_t *x, int kind)
{
    if (kind == 0) { /* integers */
        uint64_t a = next_rand(), b = next_rand();
        if (next_rand() % 4 == 0)
            a &= 0x00ff00ff00ff00ffull;
        memcpy(x, &a, 8);
        memcpy(x + 8, &b, 8);
    } else if (kind == 1) { /* doubles */
        double d[2] = { some_double(), some_double() };
        memcpy(x, d, 16);
    } else { /* floats */
        float f[4];
        for (int i = 0; i < 4; i++)
            f[i] = (float)some_double();
        memcpy(x, f, 16);
    }
}

struct sse_case {
    const char *name;
    uint8_t code[8];
    uint8_t len;
    uint8_t kind;     /* operand type: 0 int, 1 double, 2 float */
    uint8_t rax;      /* compare rax (int results) */
    uint8_t flags;    /* compare ZF PF CF OF SF AF */
};

#define S(name, kind, rax, flags, ...) \
    { name, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), kind, rax, flags }

static const struct sse_case cases[] = {
    S("addsd", 1, 0, 0, 0xf2, 0x0f, 0x58, 0xc1), S("subsd", 1, 0, 0, 0xf2, 0x0f, 0x5c, 0xc1),
    S("mulsd", 1, 0, 0, 0xf2, 0x0f, 0x59, 0xc1), S("divsd", 1, 0, 0, 0xf2, 0x0f, 0x5e, 0xc1),
    S("minsd", 1, 0, 0, 0xf2, 0x0f, 0x5d, 0xc1), S("maxsd", 1, 0, 0, 0xf2, 0x0f, 0x5f, 0xc1),
    S("sqrtsd", 1, 0, 0, 0xf2, 0x0f, 0x51, 0xc1),
    S("addss", 2, 0, 0, 0xf3, 0x0f, 0x58, 0xc1), S("mulss", 2, 0, 0, 0xf3, 0x0f, 0x59, 0xc1),
    S("divss", 2, 0, 0, 0xf3, 0x0f, 0x5e, 0xc1), S("minss", 2, 0, 0, 0xf3, 0x0f, 0x5d, 0xc1),
    S("maxss", 2, 0, 0, 0xf3, 0x0f, 0x5f, 0xc1), S("sqrtss", 2, 0, 0, 0xf3, 0x0f, 0x51, 0xc1),
    S("addpd", 1, 0, 0, 0x66, 0x0f, 0x58, 0xc1), S("mulpd", 1, 0, 0, 0x66, 0x0f, 0x59, 0xc1),
    S("divpd", 1, 0, 0, 0x66, 0x0f, 0x5e, 0xc1), S("maxpd", 1, 0, 0, 0x66, 0x0f, 0x5f, 0xc1),
    S("addps", 2, 0, 0, 0x0f, 0x58, 0xc1), S("subps", 2, 0, 0, 0x0f, 0x5c, 0xc1),
    S("minps", 2, 0, 0, 0x0f, 0x5d, 0xc1), S("sqrtps", 2, 0, 0, 0x0f, 0x51, 0xc1),
    S("andpd", 1, 0, 0, 0x66, 0x0f, 0x54, 0xc1), S("andnps", 2, 0, 0, 0x0f, 0x55, 0xc1),
    S("orpd", 1, 0, 0, 0x66, 0x0f, 0x56, 0xc1), S("xorps", 2, 0, 0, 0x0f, 0x57, 0xc1),
    S("ucomisd", 1, 0, 1, 0x66, 0x0f, 0x2e, 0xc1), S("comisd", 1, 0, 1, 0x66, 0x0f, 0x2f, 0xc1),
    S("ucomiss", 2, 0, 1, 0x0f, 0x2e, 0xc1),
    S("cmpeqsd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 0), S("cmpltsd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 1),
    S("cmplesd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 2), S("cmpunordsd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 3),
    S("cmpneqsd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 4), S("cmpnltsd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 5),
    S("cmpnlesd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 6), S("cmpordsd", 1, 0, 0, 0xf2, 0x0f, 0xc2, 0xc1, 7),
    S("cmpltps", 2, 0, 0, 0x0f, 0xc2, 0xc1, 1), S("cmpneqpd", 1, 0, 0, 0x66, 0x0f, 0xc2, 0xc1, 4),
    S("cvtsi2sd rax", 1, 0, 0, 0xf2, 0x48, 0x0f, 0x2a, 0xc0),
    S("cvtsi2ss eax", 2, 0, 0, 0xf3, 0x0f, 0x2a, 0xc0),
    S("cvttsd2si rax", 1, 1, 0, 0xf2, 0x48, 0x0f, 0x2c, 0xc1),
    S("cvttsd2si eax", 1, 1, 0, 0xf2, 0x0f, 0x2c, 0xc1),
    S("cvtsd2si rax", 1, 1, 0, 0xf2, 0x48, 0x0f, 0x2d, 0xc1),
    S("cvttss2si eax", 2, 1, 0, 0xf3, 0x0f, 0x2c, 0xc1),
    S("cvtsd2ss", 1, 0, 0, 0xf2, 0x0f, 0x5a, 0xc1), S("cvtss2sd", 2, 0, 0, 0xf3, 0x0f, 0x5a, 0xc1),
    S("cvtdq2pd", 0, 0, 0, 0xf3, 0x0f, 0xe6, 0xc1), S("cvttpd2dq", 1, 0, 0, 0x66, 0x0f, 0xe6, 0xc1),
    S("cvtdq2ps", 0, 0, 0, 0x0f, 0x5b, 0xc1), S("cvttps2dq", 2, 0, 0, 0xf3, 0x0f, 0x5b, 0xc1),
    S("cvtps2dq", 2, 0, 0, 0x66, 0x0f, 0x5b, 0xc1),
    S("cvtps2pd", 2, 0, 0, 0x0f, 0x5a, 0xc1), S("cvtpd2ps", 1, 0, 0, 0x66, 0x0f, 0x5a, 0xc1),
    S("movsd r", 1, 0, 0, 0xf2, 0x0f, 0x10, 0xc1), S("movss r", 2, 0, 0, 0xf3, 0x0f, 0x10, 0xc1),
    S("movq xmm", 0, 0, 0, 0xf3, 0x0f, 0x7e, 0xc1), S("movd xmm,eax", 0, 0, 0, 0x66, 0x0f, 0x6e, 0xc0),
    S("movq rax,xmm", 0, 1, 0, 0x66, 0x48, 0x0f, 0x7e, 0xc0),
    S("movhlps", 2, 0, 0, 0x0f, 0x12, 0xc1), S("movlhps", 2, 0, 0, 0x0f, 0x16, 0xc1),
    S("unpcklpd", 1, 0, 0, 0x66, 0x0f, 0x14, 0xc1), S("unpckhpd", 1, 0, 0, 0x66, 0x0f, 0x15, 0xc1),
    S("unpcklps", 2, 0, 0, 0x0f, 0x14, 0xc1), S("unpckhps", 2, 0, 0, 0x0f, 0x15, 0xc1),
    S("shufps", 2, 0, 0, 0x0f, 0xc6, 0xc1, 0x1b), S("shufpd", 1, 0, 0, 0x66, 0x0f, 0xc6, 0xc1, 1),
    S("pshufd", 0, 0, 0, 0x66, 0x0f, 0x70, 0xc1, 0x9c), S("pshuflw", 0, 0, 0, 0xf2, 0x0f, 0x70, 0xc1, 0x4e),
    S("pshufhw", 0, 0, 0, 0xf3, 0x0f, 0x70, 0xc1, 0xe1),
    S("punpcklbw", 0, 0, 0, 0x66, 0x0f, 0x60, 0xc1), S("punpckhbw", 0, 0, 0, 0x66, 0x0f, 0x68, 0xc1),
    S("punpcklwd", 0, 0, 0, 0x66, 0x0f, 0x61, 0xc1), S("punpckhwd", 0, 0, 0, 0x66, 0x0f, 0x69, 0xc1),
    S("punpckldq", 0, 0, 0, 0x66, 0x0f, 0x62, 0xc1), S("punpckhdq", 0, 0, 0, 0x66, 0x0f, 0x6a, 0xc1),
    S("punpcklqdq", 0, 0, 0, 0x66, 0x0f, 0x6c, 0xc1), S("punpckhqdq", 0, 0, 0, 0x66, 0x0f, 0x6d, 0xc1),
    S("packuswb", 0, 0, 0, 0x66, 0x0f, 0x67, 0xc1), S("packsswb", 0, 0, 0, 0x66, 0x0f, 0x63, 0xc1),
    S("packssdw", 0, 0, 0, 0x66, 0x0f, 0x6b, 0xc1),
    S("paddb", 0, 0, 0, 0x66, 0x0f, 0xfc, 0xc1), S("paddw", 0, 0, 0, 0x66, 0x0f, 0xfd, 0xc1),
    S("paddd", 0, 0, 0, 0x66, 0x0f, 0xfe, 0xc1), S("paddq", 0, 0, 0, 0x66, 0x0f, 0xd4, 0xc1),
    S("psubb", 0, 0, 0, 0x66, 0x0f, 0xf8, 0xc1), S("psubq", 0, 0, 0, 0x66, 0x0f, 0xfb, 0xc1),
    S("paddusb", 0, 0, 0, 0x66, 0x0f, 0xdc, 0xc1), S("psubusw", 0, 0, 0, 0x66, 0x0f, 0xd9, 0xc1),
    S("paddsw", 0, 0, 0, 0x66, 0x0f, 0xed, 0xc1), S("psubsb", 0, 0, 0, 0x66, 0x0f, 0xe8, 0xc1),
    S("pcmpeqb", 0, 0, 0, 0x66, 0x0f, 0x74, 0xc1), S("pcmpeqw", 0, 0, 0, 0x66, 0x0f, 0x75, 0xc1),
    S("pcmpeqd", 0, 0, 0, 0x66, 0x0f, 0x76, 0xc1), S("pcmpgtb", 0, 0, 0, 0x66, 0x0f, 0x64, 0xc1),
    S("pcmpgtw", 0, 0, 0, 0x66, 0x0f, 0x65, 0xc1), S("pcmpgtd", 0, 0, 0, 0x66, 0x0f, 0x66, 0xc1),
    S("pminub", 0, 0, 0, 0x66, 0x0f, 0xda, 0xc1), S("pmaxub", 0, 0, 0, 0x66, 0x0f, 0xde, 0xc1),
    S("pminsw", 0, 0, 0, 0x66, 0x0f, 0xea, 0xc1), S("pmaxsw", 0, 0, 0, 0x66, 0x0f, 0xee, 0xc1),
    S("pavgb", 0, 0, 0, 0x66, 0x0f, 0xe0, 0xc1), S("pavgw", 0, 0, 0, 0x66, 0x0f, 0xe3, 0xc1),
    S("pmullw", 0, 0, 0, 0x66, 0x0f, 0xd5, 0xc1), S("pmulhw", 0, 0, 0, 0x66, 0x0f, 0xe5, 0xc1),
    S("pmulhuw", 0, 0, 0, 0x66, 0x0f, 0xe4, 0xc1), S("pmuludq", 0, 0, 0, 0x66, 0x0f, 0xf4, 0xc1),
    S("pmaddwd", 0, 0, 0, 0x66, 0x0f, 0xf5, 0xc1), S("psadbw", 0, 0, 0, 0x66, 0x0f, 0xf6, 0xc1),
    S("pand", 0, 0, 0, 0x66, 0x0f, 0xdb, 0xc1), S("pandn", 0, 0, 0, 0x66, 0x0f, 0xdf, 0xc1),
    S("por", 0, 0, 0, 0x66, 0x0f, 0xeb, 0xc1), S("pxor", 0, 0, 0, 0x66, 0x0f, 0xef, 0xc1),
    S("psllw xmm", 0, 0, 0, 0x66, 0x0f, 0xf1, 0xc1), S("psrld xmm", 0, 0, 0, 0x66, 0x0f, 0xd2, 0xc1),
    S("psraw xmm", 0, 0, 0, 0x66, 0x0f, 0xe1, 0xc1), S("psllq xmm", 0, 0, 0, 0x66, 0x0f, 0xf3, 0xc1),
    S("psllw 3", 0, 0, 0, 0x66, 0x0f, 0x71, 0xf0, 3), S("psrlw 17", 0, 0, 0, 0x66, 0x0f, 0x71, 0xd0, 17),
    S("psrad 5", 0, 0, 0, 0x66, 0x0f, 0x72, 0xe0, 5), S("psrad 40", 0, 0, 0, 0x66, 0x0f, 0x72, 0xe0, 40),
    S("psrlq 13", 0, 0, 0, 0x66, 0x0f, 0x73, 0xd0, 13), S("psllq 63", 0, 0, 0, 0x66, 0x0f, 0x73, 0xf0, 63),
    S("psrldq 3", 0, 0, 0, 0x66, 0x0f, 0x73, 0xd8, 3), S("pslldq 9", 0, 0, 0, 0x66, 0x0f, 0x73, 0xf8, 9),
    S("pmovmskb", 0, 1, 0, 0x66, 0x0f, 0xd7, 0xc0), S("movmskpd", 1, 1, 0, 0x66, 0x0f, 0x50, 0xc0),
    S("movmskps", 2, 1, 0, 0x0f, 0x50, 0xc0),
    S("pinsrw", 0, 0, 0, 0x66, 0x0f, 0xc4, 0xc0, 3), S("pextrw", 0, 1, 0, 0x66, 0x0f, 0xc5, 0xc1, 5),
};

/* Memory sources: [rdi+16] is xmm1's bytes (modrm 0x47, disp8 0x10),
 * [rdi+32] rax's (disp8 0x20); 16-byte ones are aligned. */
static const struct sse_case mem_cases[] = {
    S("addps m", 2, 0, 0, 0x0f, 0x58, 0x47, 0x10), S("subps m", 2, 0, 0, 0x0f, 0x5c, 0x47, 0x10),
    S("mulps m", 2, 0, 0, 0x0f, 0x59, 0x47, 0x10), S("divps m", 2, 0, 0, 0x0f, 0x5e, 0x47, 0x10),
    S("minps m", 2, 0, 0, 0x0f, 0x5d, 0x47, 0x10), S("maxps m", 2, 0, 0, 0x0f, 0x5f, 0x47, 0x10),
    S("sqrtps m", 2, 0, 0, 0x0f, 0x51, 0x47, 0x10),
    S("addpd m", 1, 0, 0, 0x66, 0x0f, 0x58, 0x47, 0x10),
    S("mulpd m", 1, 0, 0, 0x66, 0x0f, 0x59, 0x47, 0x10),
    S("divpd m", 1, 0, 0, 0x66, 0x0f, 0x5e, 0x47, 0x10),
    S("addss m32", 2, 0, 0, 0xf3, 0x0f, 0x58, 0x47, 0x10),
    S("minss m32", 2, 0, 0, 0xf3, 0x0f, 0x5d, 0x47, 0x10),
    S("divss m32", 2, 0, 0, 0xf3, 0x0f, 0x5e, 0x47, 0x10),
    S("mulsd m64", 1, 0, 0, 0xf2, 0x0f, 0x59, 0x47, 0x10),
    S("maxsd m64", 1, 0, 0, 0xf2, 0x0f, 0x5f, 0x47, 0x10),
    S("divsd m64", 1, 0, 0, 0xf2, 0x0f, 0x5e, 0x47, 0x10),
    S("sqrtsd m64", 1, 0, 0, 0xf2, 0x0f, 0x51, 0x47, 0x10),
    S("comiss m32", 2, 0, 1, 0x0f, 0x2f, 0x47, 0x10),
    S("ucomisd m64", 1, 0, 1, 0x66, 0x0f, 0x2e, 0x47, 0x10),
    S("cvttsd2si rax,m64", 1, 1, 0, 0xf2, 0x48, 0x0f, 0x2c, 0x47, 0x10),
    S("cvtss2si eax,m32", 2, 1, 0, 0xf3, 0x0f, 0x2d, 0x47, 0x10),
    S("cvtsi2sd m64", 1, 0, 0, 0xf2, 0x48, 0x0f, 0x2a, 0x47, 0x20),
    S("cvtsi2ss m32", 2, 0, 0, 0xf3, 0x0f, 0x2a, 0x47, 0x20),
    S("cvtps2pd m64", 2, 0, 0, 0x0f, 0x5a, 0x47, 0x10),
    S("cvtpd2ps m", 1, 0, 0, 0x66, 0x0f, 0x5a, 0x47, 0x10),
    S("cvtsd2ss m64", 1, 0, 0, 0xf2, 0x0f, 0x5a, 0x47, 0x10),
    S("cvtss2sd m32", 2, 0, 0, 0xf3, 0x0f, 0x5a, 0x47, 0x10),
    S("cvtdq2ps m", 0, 0, 0, 0x0f, 0x5b, 0x47, 0x10),
    S("cvttps2dq m", 2, 0, 0, 0xf3, 0x0f, 0x5b, 0x47, 0x10),
    S("cvtdq2pd m64", 0, 0, 0, 0xf3, 0x0f, 0xe6, 0x47, 0x10),
    S("pxor m", 0, 0, 0, 0x66, 0x0f, 0xef, 0x47, 0x10),
    S("pand m", 0, 0, 0, 0x66, 0x0f, 0xdb, 0x47, 0x10),
    S("andnps m", 2, 0, 0, 0x0f, 0x55, 0x47, 0x10),
    S("orpd m", 1, 0, 0, 0x66, 0x0f, 0x56, 0x47, 0x10),
    S("paddd m", 0, 0, 0, 0x66, 0x0f, 0xfe, 0x47, 0x10),
    S("psubq m", 0, 0, 0, 0x66, 0x0f, 0xfb, 0x47, 0x10),
    S("pcmpeqb m", 0, 0, 0, 0x66, 0x0f, 0x74, 0x47, 0x10),
    S("pcmpgtd m", 0, 0, 0, 0x66, 0x0f, 0x66, 0x47, 0x10),
    S("pminub m", 0, 0, 0, 0x66, 0x0f, 0xda, 0x47, 0x10),
    S("pmuludq m", 0, 0, 0, 0x66, 0x0f, 0xf4, 0x47, 0x10),
    S("unpcklps m", 2, 0, 0, 0x0f, 0x14, 0x47, 0x10), S("unpckhps m", 2, 0, 0, 0x0f, 0x15, 0x47, 0x10),
    S("unpcklpd m", 1, 0, 0, 0x66, 0x0f, 0x14, 0x47, 0x10),
    S("punpcklbw m", 0, 0, 0, 0x66, 0x0f, 0x60, 0x47, 0x10),
    S("punpckhqdq m", 0, 0, 0, 0x66, 0x0f, 0x6d, 0x47, 0x10),
    S("shufps m", 2, 0, 0, 0x0f, 0xc6, 0x47, 0x10, 0x1b),
    S("pshufd m", 0, 0, 0, 0x66, 0x0f, 0x70, 0x47, 0x10, 0x9c),
    S("movlps m64", 2, 0, 0, 0x0f, 0x12, 0x47, 0x10), S("movhps m64", 2, 0, 0, 0x0f, 0x16, 0x47, 0x10),
    S("movlpd m64", 1, 0, 0, 0x66, 0x0f, 0x12, 0x47, 0x10),
    S("movhpd m64", 1, 0, 0, 0x66, 0x0f, 0x16, 0x47, 0x10),
    S("movd xmm,m32", 0, 0, 0, 0x66, 0x0f, 0x6e, 0x47, 0x10),
    S("movq xmm,m64", 0, 0, 0, 0xf3, 0x0f, 0x7e, 0x47, 0x10),
    S("movq xmm,rax", 0, 0, 0, 0x66, 0x48, 0x0f, 0x6e, 0xc0),
};

/* Random operands for case K: xmm0, xmm1, rax (sometimes a small signed
 * integer), flags and MXCSR (any rounding mode, sometimes FTZ and DAZ and
 * raised flags, all exceptions masked). */
static void random_state(const struct sse_case *k, int n, struct state *in)
{
    fill(in->x0, k->kind);
    fill(in->x1, k->kind);
    in->rax = next_rand();
    if (n % 3 == 0)
        in->rax = (uint64_t)(int64_t)(int32_t)(next_rand() % 2000001) - 1000000;
    in->flags = 0x202 | (next_rand() & 0x8d5);
    uint64_t m = next_rand();
    in->mxcsr = 0x1f80 | (uint32_t)((m & 3) << 13) | ((m & 4) ? 0x8000 : 0) | ((m & 8) ? 0x40 : 0) |
                ((m & 16) ? (uint32_t)(m >> 8) & 0x3f : 0);
    in->pad = 0;
}

/* 1 (and a message) when the emulated run E differs from the host's H. */
static int differs(const struct sse_case *k, const struct state *in, const struct state *h,
                   const struct state *e)
{
    int bad = memcmp(h->x0, e->x0, 16) != 0 || memcmp(h->x1, e->x1, 16) != 0;
    if (k->rax && h->rax != e->rax)
        bad = 1;
    if (k->flags && ((h->flags ^ e->flags) & 0x8d5))
        bad = 1;
    if (h->mxcsr != e->mxcsr)
        bad = 1;
    if (bad)
        print_error("%s: x0 %016llx%016llx x1 %016llx%016llx rax %llx -> host x0 "
                    "%016llx%016llx rax %llx fl %llx mxcsr %x, emulated x0 %016llx%016llx rax %llx fl %llx "
                    "mxcsr %x (mxcsr in %x)\n",
                    k->name, *(const unsigned long long *)(in->x0 + 8),
                    *(const unsigned long long *)in->x0, *(const unsigned long long *)(in->x1 + 8),
                    *(const unsigned long long *)in->x1, (unsigned long long)in->rax,
                    *(const unsigned long long *)(h->x0 + 8), *(const unsigned long long *)h->x0,
                    (unsigned long long)h->rax, (unsigned long long)h->flags, h->mxcsr,
                    *(const unsigned long long *)(e->x0 + 8), *(const unsigned long long *)e->x0,
                    (unsigned long long)e->rax, (unsigned long long)e->flags, e->mxcsr, in->mxcsr);
    return bad;
}

/* Runs every case of CS RUNS times on random operands, natively from
 * PAGE and under the interpreter by EMULATE (CTX its harness); returns the
 * number of differing runs (at most about ten). */
typedef void emulate_fn(void *ctx, const uint8_t *code, size_t n, struct state *s);

static int compare_cases(uint8_t *page, const struct sse_case *cs, size_t ncases, int runs,
                         emulate_fn *emulate, void *ctx)
{
    int failures = 0;
    for (size_t i = 0; i < ncases; i++) {
        const struct sse_case *k = &cs[i];
        for (int n = 0; n < runs && failures < 10; n++) {
            struct state in, h, e;
            random_state(k, n, &in);
            h = in;
            e = in;
            x86_host_run(page, &wrap, k->code, k->len, &h);
            emulate(ctx, k->code, k->len, &e);
            failures += differs(k, &in, &h, &e);
        }
    }
    return failures;
}

static void emulate_block(void *ctx, const uint8_t *code, size_t n, struct state *s)
{
    run_emulated(ctx, code, n, s);
}

static void emulate_in_memory(void *ctx, const uint8_t *code, size_t n, struct state *s)
{
    struct x86_guest_pair *both = ctx;
    free(x86_guest_run(&both->guest, &wrap, code, n, s, sizeof *s));
}

static void test_sse_matches_host(void **state)
{
    struct x86_harness *harness = *state;
    assert_int_equal(compare_cases(harness->page, cases, sizeof cases / sizeof cases[0], 2000,
                                   emulate_block, harness), 0);
}

static void test_sse_memory_sources_match_host(void **state)
{
    struct x86_guest_pair *both = *state;
    assert_int_equal(compare_cases(both->page, mem_cases, sizeof mem_cases / sizeof mem_cases[0],
                                   300, emulate_in_memory, both), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sse_matches_host),
        cmocka_unit_test_setup_teardown(test_sse_memory_sources_match_host,
                                        x86_guest_pair_setup, x86_guest_pair_teardown),
    };
    return cmocka_run_group_tests(tests, x86_harness_setup, x86_harness_teardown);
}
