/* x87 results against the host processor. The same byte sequence (set
 * the control word, load two extended values, the instruction, store
 * results, flags and status word) runs natively and, from guest memory,
 * under the emulator. Operands mix exact doubles, full 64-bit significands,
 * zeros, infinities and NaNs; the control word takes every rounding mode
 * and precision; the exception flags must be the host's. Transcendental
 * instructions are compared bit for bit too: the emulator runs them as the
 * host's own. */
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
#include "tests/unit/x86_rand.h"
#include "tracegen/x86/decode_cache.h"
#include "tracegen/x86/flags.h"
#include "tracegen/x86/interp.h"

/* Guest-visible layout at RDI. */
struct frame {
    uint8_t a[16];      /* +0: st0 in, first result out */
    uint8_t b[16];      /* +16: st1 in, second result out */
    uint64_t mem;       /* +32: memory operand */
    uint64_t cw;        /* +40: control word loaded before the code */
    uint64_t flags;     /* +48 */
    uint64_t sw;        /* +56: status word */
};

static const uint8_t prologue[] = {
    0xdb, 0xe3,                 /* fninit */
    0xd9, 0x6f, 0x28,           /* fldcw [rdi+40] */
    0xdb, 0x6f, 0x10,           /* fld tbyte [rdi+16] */
    0xdb, 0x2f,                 /* fld tbyte [rdi] */
    0xff, 0x77, 0x30, 0x9d,     /* push [rdi+48]; popfq */
};
static const uint8_t epilogue[] = {
    0x9c, 0x8f, 0x47, 0x30,     /* pushfq; pop [rdi+48] */
    0xdf, 0xe0,                 /* fnstsw ax */
    0x48, 0x89, 0x47, 0x38,     /* mov [rdi+56], rax */
    0xdb, 0x3f,                 /* fstp tbyte [rdi] */
    0xdb, 0x7f, 0x10,           /* fstp tbyte [rdi+16] */
};

static const struct x86_wrap wrap = { prologue, sizeof prologue, epilogue, sizeof epilogue };


static uint64_t rng = 0xabcdef0123456789ull;

static uint64_t next_rand(void)
{
    return x86_xorshift64(&rng);
}

static void some_ext(uint8_t *out, int range)
{
    long double v;
    uint64_t r = next_rand();
    switch (r % 8) {
    case 0: v = (r & 0x100) ? 0.0L : -0.0L; break;
    case 1: v = (r & 0x100) ? INFINITY : -INFINITY; break;
    case 2: v = (r & 0x100) ? NAN : -NAN; break;
    case 3: v = (long double)(int64_t)(next_rand() >> 12) / 1024.0L; break;
    default: {
        /* a full 64-bit significand with a moderate exponent */
        uint64_t sig = next_rand() | (1ull << 63);
        int e = (int)(next_rand() % (unsigned)(2 * range + 1)) - range;
        v = ldexpl((long double)sig, e - 63);
        if (r & 0x200)
            v = -v;
        break;
    }
    }
    memset(out, 0, 16);
    memcpy(out, &v, 10);
}

/* The exception flags (IE DE ZE OE UE PE), compared for every case. */
#define X87_EXCEPTIONS 0x3f

struct x87_case {
    const char *name;
    uint8_t code[12];
    uint8_t len;
    uint8_t results;    /* stack values compared (0..2) */
    uint8_t flags;      /* compare ZF PF CF */
    uint16_t sw_mask;   /* status word bits compared */
    uint8_t mem;        /* compare the memory operand */
    uint8_t range;      /* exponent range of operands */
};

#define X(name, results, flags, sw, mem, range, ...) \
    { name, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), results, flags, sw, mem, range }

static const struct x87_case cases[] = {
    X("fadd st0,st1", 2, 0, 0, 0, 40, 0xd8, 0xc1), X("fmul st0,st1", 2, 0, 0, 0, 40, 0xd8, 0xc9),
    X("fsub st0,st1", 2, 0, 0, 0, 40, 0xd8, 0xe1), X("fsubr st0,st1", 2, 0, 0, 0, 40, 0xd8, 0xe9),
    X("fdiv st0,st1", 2, 0, 0, 0, 40, 0xd8, 0xf1), X("fdivr st0,st1", 2, 0, 0, 0, 40, 0xd8, 0xf9),
    X("fadd st1,st0", 2, 0, 0, 0, 40, 0xdc, 0xc1), X("fsub st1,st0", 2, 0, 0, 0, 40, 0xdc, 0xe9),
    X("fsubr st1,st0", 2, 0, 0, 0, 40, 0xdc, 0xe1), X("fdiv st1,st0", 2, 0, 0, 0, 40, 0xdc, 0xf9),
    X("fdivr st1,st0", 2, 0, 0, 0, 40, 0xdc, 0xf1), X("fmul st1,st0", 2, 0, 0, 0, 40, 0xdc, 0xc9),
    X("faddp", 1, 0, 0, 0, 40, 0xde, 0xc1), X("fsubp", 1, 0, 0, 0, 40, 0xde, 0xe9),
    X("fsubrp", 1, 0, 0, 0, 40, 0xde, 0xe1), X("fmulp", 1, 0, 0, 0, 40, 0xde, 0xc9),
    X("fdivp", 1, 0, 0, 0, 40, 0xde, 0xf9), X("fdivrp", 1, 0, 0, 0, 40, 0xde, 0xf1),
    X("fchs", 2, 0, 0, 0, 40, 0xd9, 0xe0), X("fabs", 2, 0, 0, 0, 40, 0xd9, 0xe1),
    X("fsqrt", 2, 0, 0, 0, 40, 0xd9, 0xfa), X("frndint", 2, 0, 0, 0, 70, 0xd9, 0xfc),
    X("fscale", 2, 0, 0, 0, 6, 0xd9, 0xfd), X("fxch", 2, 0, 0, 0, 40, 0xd9, 0xc9),
    X("fld st0", 2, 0, 0, 0, 40, 0xd9, 0xc0), X("fld1", 2, 0, 0, 0, 40, 0xd9, 0xe8),
    X("fldz", 2, 0, 0, 0, 40, 0xd9, 0xee), X("fldpi", 1, 0, 0, 0, 40, 0xd9, 0xeb),
    X("fldl2e", 1, 0, 0, 0, 40, 0xd9, 0xea), X("fldln2", 1, 0, 0, 0, 40, 0xd9, 0xed),
    X("fucomi", 2, 1, 0, 0, 40, 0xdb, 0xe9), X("fcomi", 2, 1, 0, 0, 40, 0xdb, 0xf1),
    X("fucomip", 1, 1, 0, 0, 40, 0xdf, 0xe9),
    X("fucom", 2, 0, 0x4500, 0, 40, 0xdd, 0xe1), X("fucompp", 0, 0, 0x4500, 0, 40, 0xda, 0xe9),
    X("fcom st1", 2, 0, 0x4500, 0, 40, 0xd8, 0xd1), X("ftst", 2, 0, 0x4500, 0, 40, 0xd9, 0xe4),
    X("fxam", 2, 0, 0x4700, 0, 40, 0xd9, 0xe5),
    X("fprem", 2, 0, 0x4700, 0, 20, 0xd9, 0xf8), X("fprem1", 2, 0, 0x4700, 0, 20, 0xd9, 0xf5),
    X("fcmovb", 2, 0, 0, 0, 40, 0xda, 0xc1), X("fcmovne", 2, 0, 0, 0, 40, 0xdb, 0xc9),
    X("fcmovu", 2, 0, 0, 0, 40, 0xda, 0xd9),
    X("fistp m64", 1, 0, 0, 1, 70, 0xdf, 0x7f, 0x20), X("fistp m32", 1, 0, 0, 1, 35, 0xdb, 0x5f, 0x20),
    X("fist m16", 2, 0, 0, 1, 20, 0xdf, 0x57, 0x20),
    X("fst m64", 2, 0, 0, 1, 40, 0xdd, 0x57, 0x20), X("fstp m32", 1, 0, 0, 1, 40, 0xd9, 0x5f, 0x20),
    X("fild m64", 2, 0, 0, 0, 40, 0xdf, 0x6f, 0x20), X("fild m32", 2, 0, 0, 0, 40, 0xdb, 0x47, 0x20),
    X("fld m64", 2, 0, 0, 0, 40, 0xdd, 0x47, 0x20), X("fadd m64", 2, 0, 0, 0, 40, 0xdc, 0x47, 0x20),
    X("fmul m32", 2, 0, 0, 0, 40, 0xd8, 0x4f, 0x20), X("fidiv m32", 2, 0, 0, 0, 40, 0xda, 0x77, 0x20),
    X("fnstcw; fld1", 2, 0, 0, 1, 40, 0xd9, 0x7f, 0x20 /* fnstcw [rdi+32] */, 0xd9, 0xe8),
    X("fldcw (truncate); fistp m64", 1, 0, 0, 1, 70,
      0x66, 0xc7, 0x47, 0x20, 0x7f, 0x0f, /* mov word [rdi+32], 0x0f7f */
      0xd9, 0x6f, 0x20,                   /* fldcw [rdi+32] */
      0xdf, 0x7f, 0x20),                  /* fistp qword [rdi+32] */
    X("fsin", 2, 0, 0x4700, 0, 70, 0xd9, 0xfe), X("fcos", 2, 0, 0x4700, 0, 70, 0xd9, 0xff),
    X("fptan", 2, 0, 0x4700, 0, 70, 0xd9, 0xf2), X("fsincos", 2, 0, 0x4700, 0, 70, 0xd9, 0xfb),
    X("fpatan", 1, 0, 0, 0, 40, 0xd9, 0xf3), X("f2xm1", 2, 0, 0, 0, 1, 0xd9, 0xf0),
    X("fyl2x", 1, 0, 0, 0, 40, 0xd9, 0xf1), X("fyl2xp1", 1, 0, 0, 0, 1, 0xd9, 0xf9),
    X("fxtract", 2, 0, 0, 0, 70, 0xd9, 0xf4), X("fldl2t", 1, 0, 0, 0, 40, 0xd9, 0xe9),
    X("fldlg2", 1, 0, 0, 0, 40, 0xd9, 0xec),
    X("fprem (wide)", 2, 0, 0x4700, 0, 200, 0xd9, 0xf8),
    X("fisttp m32", 1, 0, 0, 1, 35, 0xdb, 0x4f, 0x20), X("fisttp m16", 1, 0, 0, 1, 20, 0xdf, 0x4f, 0x20),
    X("fldcw (down); frndint", 2, 0, 0, 0, 70,
      0x66, 0xc7, 0x47, 0x20, 0x7f, 0x07, 0xd9, 0x6f, 0x20, 0xd9, 0xfc),
};

static void test_x87_matches_host(void **state)
{
    struct x86_guest_pair *both = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct x87_case *k = &cases[i];
        for (int n = 0; n < 600 && failures < 10; n++) {
            struct frame in, h, e;
            memset(&in, 0, sizeof in);
            some_ext(in.a, k->range);
            some_ext(in.b, k->range);
            in.mem = next_rand();
            if (n & 1) {
                double d = (double)(int32_t)next_rand() / 7.0;
                memcpy(&in.mem, &d, 8);
            }
            in.flags = 0x202 | (next_rand() & 0x8d5);
            /* any rounding mode and precision (24, 53, 64 bits), masked */
            uint64_t m = next_rand();
            static const unsigned pc[3] = { 0, 2, 3 };
            in.cw = 0x7f | ((m & 3) << 10) | ((uint64_t)pc[(m >> 2) % 3] << 8);
            h = in;
            e = in;
            x86_host_run(both->page, &wrap, k->code, k->len, &h);
            free(x86_guest_run(&both->guest, &wrap, k->code, k->len, &e, sizeof e));
            int bad = 0;
            if (k->results >= 1 && memcmp(h.a, e.a, 10))
                bad = 1;
            if (k->results >= 2 && memcmp(h.b, e.b, 10))
                bad = 1;
            if (k->flags && ((h.flags ^ e.flags) & 0x45))
                bad = 1;
            if ((h.sw ^ e.sw) & (k->sw_mask | X87_EXCEPTIONS))
                bad = 1;
            if (k->mem && h.mem != e.mem)
                bad = 1;
            if (bad) {
                failures++;
                long double a, b, ha, ea;
                memcpy(&a, in.a, 10);
                memcpy(&b, in.b, 10);
                memcpy(&ha, h.a, 10);
                memcpy(&ea, e.a, 10);
                print_error("%s: a=%La b=%La mem=%llx cw %llx -> host %La sw %llx fl %llx mem %llx; "
                            "emulated %La sw %llx fl %llx mem %llx\n", k->name, a, b,
                            (unsigned long long)in.mem, (unsigned long long)in.cw, ha,
                            (unsigned long long)h.sw,
                            (unsigned long long)h.flags, (unsigned long long)h.mem, ea,
                            (unsigned long long)e.sw, (unsigned long long)e.flags,
                            (unsigned long long)e.mem);
            }
        }
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x87_matches_host),
    };
    return cmocka_run_group_tests(tests, x86_guest_pair_setup, x86_guest_pair_teardown);
}
