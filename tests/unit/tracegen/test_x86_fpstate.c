/* Saving and restoring the floating-point state (fnstenv, fldenv, fnsave,
 * frstor, fxsave, fxrstor, xsave, xrstor, fwait, fnclex) against the host
 * processor: short sequences run natively and under the emulator on the
 * same x87 stack, control word, MXCSR and XMM registers, and the saved
 * images, the
 * state afterwards and the values left on the stack must be equal. The
 * saved images are compared except for the last instruction's code and
 * data pointers and opcode (the emulator keeps none and stores zeros),
 * fxsave's MXCSR_MASK (the emulated processor's, not the host's) and the
 * status word's C1 where it tells whether an arithmetic result was rounded
 * up (the emulator does not keep that either). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/x86_harness.h"
#include "tests/unit/x86_isa.h"
#include "tests/unit/x86_rand.h"

struct frame {
    uint8_t a[16];      /* +0: st0 in, first value out */
    uint8_t b[16];      /* +16: st1 in, second value out */
    uint8_t x0[16];     /* +32 */
    uint8_t x1[16];     /* +48 */
    uint16_t cw, cw_out; /* +64, +66 */
    uint32_t mxcsr;     /* +68 */
    uint64_t sw;        /* +72 */
    uint8_t pad[48];
    uint8_t area[1024]; /* +128: the save area (64-byte aligned) */
} __attribute__((aligned(64)));

static const uint8_t prologue[] = {
    0xdb, 0xe3,                         /* fninit */
    0xd9, 0x6f, 0x40,                   /* fldcw [rdi+64] */
    0x0f, 0xae, 0x57, 0x44,             /* ldmxcsr [rdi+68] */
    0xf3, 0x0f, 0x6f, 0x47, 0x20,       /* movdqu xmm0, [rdi+32] */
    0xf3, 0x0f, 0x6f, 0x4f, 0x30,       /* movdqu xmm1, [rdi+48] */
    0xdb, 0x6f, 0x10,                   /* fld tbyte [rdi+16] */
    0xdb, 0x2f,                         /* fld tbyte [rdi] */
};
static const uint8_t epilogue[] = {
    0xdf, 0xe0,                         /* fnstsw ax */
    0x48, 0x89, 0x47, 0x48,             /* mov [rdi+72], rax */
    0xd9, 0x7f, 0x42,                   /* fnstcw [rdi+66] */
    0x0f, 0xae, 0x5f, 0x44,             /* stmxcsr [rdi+68] */
    0xf3, 0x0f, 0x7f, 0x47, 0x20,       /* movdqu [rdi+32], xmm0 */
    0xf3, 0x0f, 0x7f, 0x4f, 0x30,       /* movdqu [rdi+48], xmm1 */
    0xdb, 0x3f,                         /* fstp tbyte [rdi] */
    0xdb, 0x7f, 0x10,                   /* fstp tbyte [rdi+16] */
};
static const struct x86_wrap wrap = { prologue, sizeof prologue, epilogue, sizeof epilogue };

#define AREA 0x80
/* ModRM + disp32 for [rdi+AREA+d] with reg field R */
#define AT(r, d) (uint8_t)(0x87 | ((r) << 3)), (uint8_t)(AREA + (d)), 0, 0, 0

enum image { IMG_NONE, IMG_ENV, IMG_FXSAVE, IMG_XSAVE };

struct fp_case {
    const char *name;
    uint8_t code[48];
    uint8_t len;
    uint8_t image;      /* enum image: the layout saved in the area */
};

#define F(name, image, ...) { name, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), image }

static const struct fp_case cases[] = {
    F("fnstenv", IMG_ENV, 0xd9, AT(6, 0)),
    F("fnstenv; fldenv", IMG_ENV, 0xd9, AT(6, 0), 0xd9, AT(4, 0)),
    F("fdiv by st1; fnstenv; fldenv", IMG_ENV, 0xd8, 0xf1, 0xd9, AT(6, 0), 0xd9, AT(4, 0)),
    F("fnstenv; rounding up in the image; fldenv", IMG_ENV,
      0xd9, AT(6, 0), 0x66, 0x81, AT(1, 0), 0x00, 0x08, 0xd9, AT(4, 0)),
    F("fnsave; frstor", IMG_ENV, 0xdd, AT(6, 0), 0xdd, AT(4, 0)),
    F("fnsave; fld1 fld1; frstor", IMG_ENV, 0xdd, AT(6, 0), 0xd9, 0xe8, 0xd9, 0xe8, 0xdd, AT(4, 0)),
    F("fxsave; fxrstor", IMG_FXSAVE, 0x0f, 0xae, AT(0, 0), 0x0f, 0xae, AT(1, 0)),
    F("fxsave64; pxor xmm0; fxrstor64", IMG_FXSAVE,
      0x48, 0x0f, 0xae, AT(0, 0), 0x66, 0x0f, 0xef, 0xc0, 0x48, 0x0f, 0xae, AT(1, 0)),
    F("fxsave; mxcsr rounding up in the image; fxrstor", IMG_FXSAVE,
      0x0f, 0xae, AT(0, 0), 0x81, AT(1, 24), 0x00, 0x40, 0x00, 0x00, 0x0f, 0xae, AT(1, 0)),
    F("fdiv by st1; fwait; fnclex", IMG_NONE, 0xd8, 0xf1, 0x9b, 0xdb, 0xe2),
    /* ymm0's upper half = xmm1 (vinsertf128), then xsave/xrstor of x87, SSE
     * and AVX (edx:eax = 7); xmm1 ends as ymm0's upper half (vextractf128) */
    F("xsave; vpxor ymm0; xrstor", IMG_XSAVE, 0xc4, 0xe3, 0x7d, 0x18, 0xc1, 0x01,
      0xb8, 0x07, 0x00, 0x00, 0x00, 0x31, 0xd2, 0x0f, 0xae, AT(4, 0),
      0xc5, 0xfd, 0xef, 0xc0, 0x0f, 0xae, AT(5, 0), 0xc4, 0xe3, 0x7d, 0x19, 0xc1, 0x01),
    F("xsave64 of x87 and SSE; fld1; pxor xmm0; xrstor64", IMG_XSAVE,
      0xb8, 0x03, 0x00, 0x00, 0x00, 0x31, 0xd2, 0x48, 0x0f, 0xae, AT(4, 0),
      0xd9, 0xe8, 0x66, 0x0f, 0xef, 0xc0, 0x48, 0x0f, 0xae, AT(5, 0)),
};

/* Clears what the comparison leaves out of a saved image: the pointers and
 * opcode, MXCSR_MASK, the registers the test does not set (xmm2-15) and
 * C1 in the status word. */
static void mask_image(uint8_t *area, enum image img)
{
    if (img == IMG_ENV) {
        memset(area + 12, 0, 16);
        area[5] &= (uint8_t)~0x02;
    } else if (img == IMG_FXSAVE || img == IMG_XSAVE) {
        memset(area + 6, 0, 18);
        memset(area + 28, 0, 4);
        memset(area + 192, 0, 416 - 192);
        area[3] &= (uint8_t)~0x02;
        if (img == IMG_XSAVE) {
            /* XSTATE_BV: which components the host holds in their initial
             * state; the upper halves of ymm1-15, which the test does not set */
            memset(area + 512, 0, 8);
            memset(area + 592, 0, 832 - 592);
        }
    }
}

static uint64_t rng = 0x0f0e0d0c0b0a0908ull;

static void some_ext(uint8_t *out)
{
    static const long double special[] = { 0.0L, -0.0L, 1.0L, -2.5L, 1e4000L, 1e-4940L };
    uint64_t r = x86_xorshift64(&rng);
    long double v;
    switch (r % 4) {
    case 0: v = special[(r >> 8) % 6]; break;
    case 1: v = (r & 0x100) ? INFINITY : NAN; break;
    default: v = (long double)(int64_t)x86_xorshift64(&rng) / 1000.0L; break;
    }
    memset(out, 0, 16);
    memcpy(out, &v, 10);
}

static void test_fp_state_matches_host(void **state)
{
    struct x86_guest_pair *both = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct fp_case *k = &cases[i];
        if (k->image == IMG_XSAVE && !x86_isa_host_has(X86_ISA_AVX)) {
            print_message("skipped %s: the host processor lacks AVX (or XSAVE)\n", k->name);
            continue;
        }
        for (int n = 0; n < 100 && failures < 10; n++) {
            struct frame in, h, e;
            memset(&in, 0, sizeof in);
            some_ext(in.a);
            some_ext(in.b);
            for (int j = 0; j < 16; j++) {
                in.x0[j] = (uint8_t)x86_xorshift64(&rng);
                in.x1[j] = (uint8_t)x86_xorshift64(&rng);
            }
            uint64_t r = x86_xorshift64(&rng);
            static const unsigned pc[3] = { 0, 2, 3 };
            in.cw = (uint16_t)(0x7f | ((r & 3) << 10) | (pc[(r >> 2) % 3] << 8));
            in.mxcsr = 0x1f80 | (uint32_t)((r >> 4) & 3) << 13 | (uint32_t)((r >> 8) & 0x3f);
            memset(in.area, 0xa5, sizeof in.area);
            memset(in.area + 512, 0, 64); /* a valid xsave header */
            h = in;
            e = in;
            x86_host_run(both->page, &wrap, k->code, k->len, &h);
            free(x86_guest_run(&both->guest, &wrap, k->code, k->len, &e, sizeof e));
            mask_image(h.area, (enum image)k->image);
            mask_image(e.area, (enum image)k->image);
            h.sw &= ~0x200ull;
            e.sw &= ~0x200ull;
            int bad = memcmp(h.a, e.a, 10) || memcmp(h.b, e.b, 10) || memcmp(h.x0, e.x0, 16) ||
                      memcmp(h.x1, e.x1, 16) || h.cw_out != e.cw_out || h.mxcsr != e.mxcsr ||
                      (h.sw & 0xffff) != (e.sw & 0xffff) || memcmp(h.area, e.area, sizeof h.area);
            if (bad) {
                failures++;
                print_error("%s: cw %x mxcsr %x -> host cw %x mxcsr %x sw %llx, emulated cw %x "
                            "mxcsr %x sw %llx\n", k->name, in.cw, in.mxcsr, h.cw_out, h.mxcsr,
                            (unsigned long long)h.sw, e.cw_out, e.mxcsr, (unsigned long long)e.sw);
                for (size_t j = 0; j < sizeof h.area; j++)
                    if (h.area[j] != e.area[j])
                        print_error("  area byte %zu: host %02x emulated %02x\n", j, h.area[j],
                                    e.area[j]);
            }
        }
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp_state_matches_host),
    };
    return cmocka_run_group_tests(tests, x86_guest_pair_setup, x86_guest_pair_teardown);
}
