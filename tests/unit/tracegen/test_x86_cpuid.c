/* CPUID at each --cpu level reports the features the x86-64 psABI's
 * micro-architecture levels list (x86-64-v2: CMPXCHG16B, LAHF-SAHF,
 * POPCNT, SSE3, SSE4.1, SSE4.2, SSSE3; x86-64-v3 adds AVX, AVX2, BMI1,
 * BMI2, F16C, FMA, LZCNT, MOVBE, OSXSAVE) and no more than its level, and
 * XGETBV and the XSAVE leaf describe the state xsave writes (x87, SSE,
 * AVX; 832 bytes, the YMM upper halves at 576). The haswell level is
 * x86-64-v3 with ERMS and the caches of the Core i7-4910MQ valgrind's
 * virtual CPU reports (Intel's specification of that part: 32 KiB L1 data
 * and instruction caches, 256 KiB L2, 8 MiB L3, 64-byte lines). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>

#include "tests/unit/x86_harness.h"
#include "tracegen/x86/interp.h"

struct bit { uint32_t leaf, sub; int reg; unsigned bit; const char *name; int level; };

/* reg: 0 eax, 1 ebx, 2 ecx, 3 edx */
static const struct bit bits[] = {
    { 1, 0, 2, 13, "CMPXCHG16B", X86_CPU_V2 }, { 0x80000001, 0, 2, 0, "LAHF-SAHF", X86_CPU_BASELINE },
    { 1, 0, 2, 23, "POPCNT", X86_CPU_V2 }, { 1, 0, 2, 0, "SSE3", X86_CPU_V2 },
    { 1, 0, 2, 19, "SSE4.1", X86_CPU_V2 }, { 1, 0, 2, 20, "SSE4.2", X86_CPU_V2 },
    { 1, 0, 2, 9, "SSSE3", X86_CPU_V2 },
    { 1, 0, 2, 28, "AVX", X86_CPU_V3 }, { 7, 0, 1, 5, "AVX2", X86_CPU_V3 },
    { 7, 0, 1, 3, "BMI1", X86_CPU_V3 }, { 7, 0, 1, 8, "BMI2", X86_CPU_V3 },
    { 1, 0, 2, 29, "F16C", X86_CPU_V3 }, { 1, 0, 2, 12, "FMA", X86_CPU_V3 },
    { 0x80000001, 0, 2, 5, "LZCNT", X86_CPU_V3 }, { 1, 0, 2, 22, "MOVBE", X86_CPU_V3 },
    { 1, 0, 2, 27, "OSXSAVE", X86_CPU_V3 }, { 1, 0, 2, 26, "XSAVE", X86_CPU_V3 },
    { 1, 0, 3, 26, "SSE2", X86_CPU_BASELINE }, { 1, 0, 3, 25, "SSE", X86_CPU_BASELINE },
    { 7, 0, 1, 9, "ERMS", X86_CPU_HASWELL }, { 1, 0, 3, 28, "HTT", X86_CPU_HASWELL },
};

static uint32_t cpuid_reg(struct x86_cpu *c, uint32_t leaf, uint32_t sub, int reg)
{
    static const int regs[4] = { R_RAX, R_RBX, R_RCX, R_RDX };
    c->r[R_RAX] = leaf;
    c->r[R_RCX] = sub;
    x86_cpuid(c);
    return (uint32_t)c->r[regs[reg]];
}

static void test_levels_report_their_features(void **state)
{
    (void)state;
    struct x86_cpu *c = calloc(1, sizeof *c);
    assert_non_null(c);
    for (int level = X86_CPU_BASELINE; level <= X86_CPU_HASWELL; level++) {
        c->level = (uint8_t)level;
        for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
            const struct bit *b = &bits[i];
            int on = (cpuid_reg(c, b->leaf, b->sub, b->reg) >> b->bit) & 1;
            if (on != (level >= b->level))
                fail_msg("level %d: %s is %s", level, b->name, on ? "reported" : "missing");
        }
    }
    free(c);
}

static void test_xsave_layout(void **state)
{
    (void)state;
    struct x86_cpu *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->level = X86_CPU_V3;
    assert_int_equal(cpuid_reg(c, 0xd, 0, 0), 0x7);  /* x87, SSE, AVX */
    assert_int_equal(cpuid_reg(c, 0xd, 0, 1), 832);  /* 512 + 64 + 256 */
    assert_int_equal(cpuid_reg(c, 0xd, 2, 0), 256);  /* 16 upper halves of 16 bytes */
    assert_int_equal(cpuid_reg(c, 0xd, 2, 1), 576);
    c->level = X86_CPU_BASELINE;
    assert_int_equal(cpuid_reg(c, 0xd, 0, 0), 0);
    free(c);
}

/* Leaf 4 (deterministic cache parameters) at the haswell level: each
 * subleaf's size is ways * partitions * line size * sets; subleaf 4 ends
 * the list. Below haswell no cache is described. */
static void test_haswell_caches(void **state)
{
    (void)state;
    static const struct { unsigned type, level; uint32_t bytes; } caches[] = {
        { 1, 1, 32 << 10 }, { 2, 1, 32 << 10 }, { 3, 2, 256 << 10 }, { 3, 3, 8 << 20 },
    };
    struct x86_cpu *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->level = X86_CPU_HASWELL;
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t a = cpuid_reg(c, 4, i, 0), b = cpuid_reg(c, 4, i, 1), n = cpuid_reg(c, 4, i, 2);
        uint32_t bytes = ((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (n + 1);
        assert_int_equal(a & 0x1f, caches[i].type);
        assert_int_equal((a >> 5) & 7, caches[i].level);
        assert_int_equal((b & 0xfff) + 1, 64);
        assert_int_equal(bytes, caches[i].bytes);
    }
    assert_int_equal(cpuid_reg(c, 4, 4, 0) & 0x1f, 0);
    c->level = X86_CPU_V3;
    assert_int_equal(cpuid_reg(c, 4, 0, 0), 0);
    free(c);
}

/* xgetbv (0f 01 d0) with ecx = 0: XCR0 enables x87, SSE and AVX state. */
static void test_xgetbv(void **state)
{
    struct x86_harness *h = *state;
    static const uint8_t code[] = { 0x0f, 0x01, 0xd0 };
    struct x86_cpu *c = x86_harness_cpu(h);
    c->r[R_RCX] = 0;
    c->r[R_RAX] = c->r[R_RDX] = ~0ull;
    x86_run_block(h, c, code, sizeof code, 1);
    assert_int_equal(c->r[R_RAX], 7);
    assert_int_equal(c->r[R_RDX], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_report_their_features),
        cmocka_unit_test(test_xsave_layout),
        cmocka_unit_test(test_haswell_caches),
        cmocka_unit_test(test_xgetbv),
    };
    return cmocka_run_group_tests(tests, x86_harness_setup, x86_harness_teardown);
}
