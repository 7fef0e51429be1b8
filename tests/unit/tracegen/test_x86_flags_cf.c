/* x86_flags_cf, the carry flag alone (INC and DEC read it at every run),
 * must agree with the full lazy-flag evaluation x86_flags_arith for every
 * lazy operation, operand size and operand values, including the edges
 * where carries and borrows appear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tests/unit/x86_rand.h"
#include "tracegen/x86/flags.h"

static const uint64_t edges[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                  0x7fffffff, 0x80000000u, 0xffffffffu,
                                  0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull };

/* The lazy state an instruction of OP leaves for operands A, B (result
 * computed as the interpreter computes it). */
static void set_state(struct x86_cpu *c, uint32_t op, unsigned size, uint64_t a, uint64_t b,
                      uint32_t cin)
{
    uint64_t m = x86_size_mask(size);
    a &= m;
    b &= m;
    uint64_t r;
    switch (op) {
    case LZ_ADD: r = a + b; break;
    case LZ_ADC: r = a + b + cin; break;
    case LZ_SUB: r = a - b; break;
    case LZ_SBB: r = a - b - cin; break;
    case LZ_INC: r = a + 1; b = 1; break;
    case LZ_DEC: r = a - 1; b = 1; break;
    case LZ_NEG: r = 0 - b; a = 0; break;
    default: r = a & b; a = b = 0; break; /* LZ_LOGIC */
    }
    x86_set_lazy(c, op, size, a, b, r & m);
    c->lz_cin = cin;
}

static void check(struct x86_cpu *c)
{
    int full = (x86_flags_arith(c) & FL_CF) != 0;
    assert_int_equal(x86_flags_cf(c), full);
}

static void test_cf_matches_full_evaluation(void **state)
{
    (void)state;
    static const uint32_t ops[] = { LZ_ADD, LZ_ADC, LZ_SUB, LZ_SBB, LZ_LOGIC,
                                    LZ_INC, LZ_DEC, LZ_NEG };
    static const unsigned sizes[] = { 1, 2, 4, 8 };
    struct x86_cpu *c = test_calloc(1, sizeof *c);
    assert_non_null(c);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    size_t nedges = sizeof edges / sizeof edges[0];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t s = 0; s < 4; s++)
            for (uint32_t cin = 0; cin < 2; cin++) {
                for (size_t i = 0; i < nedges; i++)
                    for (size_t j = 0; j < nedges; j++) {
                        set_state(c, ops[o], sizes[s], edges[i], edges[j], cin);
                        check(c);
                    }
                for (int k = 0; k < 2000; k++) {
                    set_state(c, ops[o], sizes[s], x86_xorshift64(&rng), x86_xorshift64(&rng),
                              cin);
                    check(c);
                }
            }
    /* materialized flags: CF is read from rflags */
    for (int cf = 0; cf < 2; cf++) {
        c->lz_op = LZ_NONE;
        c->rflags = cf ? FL_CF | FL_ZF : FL_ZF;
        check(c);
        assert_int_equal(x86_flags_cf(c), cf);
    }
    test_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cf_matches_full_evaluation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
