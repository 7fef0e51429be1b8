/* The emulator's reading of the VOPC opcode field against LLVM's names for
 * the same opcodes: every VOPC row of cgm/si_opcodes.def is spelled
 * v_cmp[s][x]_COND_TYPE or v_cmp[x]_class_TYPE, and si_compare_of must find
 * that condition, type and EXEC write in the row's opcode field.  The
 * conditions are checked against the ISA's definitions: each N form and U
 * and TRU is the complement of the condition fifteen below it, every ordered
 * relation is false on NaN, and the integer conditions agree with C's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "cgm/si_isa.h"
#include "tracegen/si/si_compare.h"

static const char *const cond_names[16] = {
    "f", "lt", "eq", "le", "gt", "lg", "ge", "o",
    "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru",
};

static int cond_of_name(const char *s, size_t n)
{
    if (n == 2 && !strncmp(s, "ne", 2))       /* integers: LLVM's ne is LG */
        return SI_CMP_LG;
    if (n == 1 && s[0] == 't')                /* integers: t is TRU */
        return SI_CMP_TRU;
    for (int c = 0; c < 16; c++)
        if (strlen(cond_names[c]) == n && !strncmp(s, cond_names[c], n))
            return c;
    return -1;
}

static int type_of_name(const char *s, int is_class)
{
    static const struct { const char *name; enum si_cmp_type type, class_type; } types[] = {
        { "f32", SI_CMP_TYPE_F32, SI_CMP_TYPE_CLASS_F32 },
        { "f64", SI_CMP_TYPE_F64, SI_CMP_TYPE_CLASS_F64 },
        { "i32", SI_CMP_TYPE_I32, SI_CMP_TYPE_I32 },
        { "i64", SI_CMP_TYPE_I64, SI_CMP_TYPE_I64 },
        { "u32", SI_CMP_TYPE_U32, SI_CMP_TYPE_U32 },
        { "u64", SI_CMP_TYPE_U64, SI_CMP_TYPE_U64 },
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(s, types[i].name))
            return (int)(is_class ? types[i].class_type : types[i].type);
    return -1;
}

static void every_vopc_row_reads_as_llvm_names_it(void **state)
{
    (void)state;
    unsigned rows = 0, classes = 0;
    for (unsigned op = 1; op < CGM_SI_OPCODE_COUNT; op++) {
        const struct cgm_si_opcode_info *row = &cgm_si_opcodes[op];
        if (row->fmt != CGM_SI_FMT_VOPC)
            continue;
        rows++;
        const char *p = row->name;
        assert_int_equal(strncmp(p, "v_cmp", 5), 0);
        p += 5;
        if (*p == 's')                        /* signaling: same bits here */
            p++;
        int x = *p == 'x';
        if (x)
            p++;
        assert_int_equal(*p++, '_');
        const char *under = strchr(p, '_');
        assert_non_null(under);
        struct si_compare got = si_compare_of(row->code);
        assert_int_equal(got.writes_exec, x);
        if (!strncmp(p, "class_", 6)) {
            classes++;
            assert_int_equal(got.type, type_of_name(under + 1, 1));
            continue;
        }
        int cond = cond_of_name(p, (size_t)(under - p));
        assert_true(cond >= 0);
        assert_int_equal(got.cond, cond);
        assert_int_equal(got.type, type_of_name(under + 1, 0));
    }
    /* SI: 16 conditions x {cmp, cmpx, cmps, cmpsx} x {f32, f64}, 8 x {cmp,
     * cmpx} x {i32, i64, u32, u64}, and 4 class tests (ISA 12.8). */
    assert_int_equal(rows, 16 * 4 * 2 + 8 * 2 * 4 + 4);
    assert_int_equal(classes, 4);
}

static void float_conditions_follow_the_isa(void **state)
{
    (void)state;
    const double v[] = { -1.5, 0.0, -0.0, 2.0, INFINITY, -INFINITY, NAN };
    const size_t n = sizeof v / sizeof v[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double a = v[i], b = v[j];
            int unordered = isnan(a) || isnan(b);
            for (int c = 0; c < 8; c++)
                assert_int_equal(si_compare_float((enum si_cmp_cond)(15 - c), a, b),
                                 !si_compare_float((enum si_cmp_cond)c, a, b));
            assert_int_equal(si_compare_float(SI_CMP_F, a, b), 0);
            assert_int_equal(si_compare_float(SI_CMP_O, a, b), !unordered);
            int lt = si_compare_float(SI_CMP_LT, a, b), eq = si_compare_float(SI_CMP_EQ, a, b);
            int gt = si_compare_float(SI_CMP_GT, a, b);
            assert_int_equal(lt + eq + gt, unordered ? 0 : 1);
            assert_int_equal(si_compare_float(SI_CMP_LE, a, b), lt || eq);
            assert_int_equal(si_compare_float(SI_CMP_GE, a, b), gt || eq);
            assert_int_equal(si_compare_float(SI_CMP_LG, a, b), lt || gt);
            if (!unordered)
                assert_int_equal(eq, a == b);     /* -0 == +0 */
        }
}

static void integer_conditions_agree_with_c(void **state)
{
    (void)state;
    const int64_t v[] = { INT64_MIN, -7, 0, 7, INT64_MAX };
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 5; j++) {
            int64_t a = v[i], b = v[j];
            int lt = a < b, eq = a == b;
            assert_int_equal(si_compare_int(SI_CMP_F, lt, eq), 0);
            assert_int_equal(si_compare_int(SI_CMP_LT, lt, eq), a < b);
            assert_int_equal(si_compare_int(SI_CMP_EQ, lt, eq), a == b);
            assert_int_equal(si_compare_int(SI_CMP_LE, lt, eq), a <= b);
            assert_int_equal(si_compare_int(SI_CMP_GT, lt, eq), a > b);
            assert_int_equal(si_compare_int(SI_CMP_LG, lt, eq), a != b);
            assert_int_equal(si_compare_int(SI_CMP_GE, lt, eq), a >= b);
            assert_int_equal(si_compare_int(SI_CMP_TRU, lt, eq), 1);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_vopc_row_reads_as_llvm_names_it),
        cmocka_unit_test(float_conditions_follow_the_isa),
        cmocka_unit_test(integer_conditions_agree_with_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
