/* The key-table engine (cgm/keys.h) over a small owner struct: numbers
 * with units parse to the value they name, out-of-range and malformed
 * values are refused with the key's name, names of an enumeration map to
 * their index, unsigned and 64-bit fields are written without touching
 * their neighbours, defaults and copies move every row, and the
 * power-of-two rules the flags declare are checked with the key's name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "cgm/keys.h"

struct owner {
    unsigned small, guard;
    uint64_t big;
    unsigned sets, banks, mode;
};

static const char *const modes[] = { "wait", "nack", NULL };
#define OFF(f) offsetof(struct owner, f)
static const struct cgm_key rows[] = {
    { .section = "t", .name = "small", .type = CGM_KEY_BYTES | CGM_KEY_U32, .offset = OFF(small), .def = "4KiB",
      .min = 1, .max = 1u << 20, .doc = "a size" },
    { .section = "t", .name = "big", .type = CGM_KEY_HZ, .offset = OFF(big), .def = "2GHz", .min = 1,
      .max = UINT64_MAX, .doc = "a clock" },
    { .section = "t", .name = "sets", .type = CGM_KEY_COUNT | CGM_KEY_U32 | CGM_KEY_POW2, .offset = OFF(sets),
      .def = "16", .min = 1, .max = 1024, .doc = "sets" },
    { .section = "t", .name = "banks", .type = CGM_KEY_COUNT | CGM_KEY_U32 | CGM_KEY_POW2_OR_0,
      .offset = OFF(banks), .def = "0", .min = 0, .max = 64, .doc = "banks" },
    { .section = "t", .name = "mode", .type = CGM_KEY_ENUM | CGM_KEY_U32, .offset = OFF(mode), .def = "nack",
      .min = 0, .max = 1, .names = modes, .doc = "mode" },
};
#define N (sizeof rows / sizeof rows[0])

static void test_defaults_and_units(void **state)
{
    (void)state;
    struct owner o;
    memset(&o, 0xff, sizeof o);
    char err[256];
    assert_int_equal(cgm_keys_defaults(rows, N, &o, err, sizeof err), 0);
    assert_int_equal(o.small, 4096);
    assert_true(o.big == 2000000000ull);
    assert_int_equal(o.sets, 16);
    assert_int_equal(o.banks, 0);
    assert_int_equal(o.mode, 1);
    assert_int_equal(o.guard, 0xffffffffu); /* the unsigned write stayed in its field */
    assert_int_equal(cgm_key_set(&rows[0], &o, "1.5KiB", "f:1", err, sizeof err), 0);
    assert_int_equal(o.small, 1536);
    assert_int_equal(cgm_key_set(&rows[1], &o, "1.5GHz", "f:1", err, sizeof err), 0);
    assert_true(o.big == 1500000000ull);
    char buf[32];
    cgm_key_format(CGM_KEY_BYTES, 3u << 20, buf, sizeof buf);
    assert_string_equal(buf, "3MiB");
}

static void test_refusals_name_the_key(void **state)
{
    (void)state;
    struct owner o = { 0 };
    char err[256];
    assert_int_equal(cgm_key_set(&rows[0], &o, "2MiB", "f.ini:3", err, sizeof err), -1);
    assert_string_equal(err, "f.ini:3: t.small: 2097152 is out of range [1, 1048576]");
    assert_int_equal(cgm_key_set(&rows[0], &o, "4GHz", "f.ini:4", err, sizeof err), -1);
    assert_string_equal(err, "f.ini:4: t.small: '4GHz' is not a valid value (bytes (KiB, MiB, GiB suffixes))");
    assert_int_equal(cgm_key_set(&rows[4], &o, "nak", "--set", err, sizeof err), -1);
    assert_string_equal(err, "--set: t.mode: 'nak' is not one of wait, nack (did you mean nack?)");
    assert_int_equal(o.small, 0);
    assert_int_equal(o.mode, 0);
}

static void test_rules_and_copy(void **state)
{
    (void)state;
    struct owner a, b = { 0 };
    char err[256];
    assert_int_equal(cgm_keys_defaults(rows, N, &a, err, sizeof err), 0);
    assert_int_equal(cgm_keys_check(rows, N, &a, err, sizeof err), 0);
    a.sets = 12;
    assert_int_equal(cgm_keys_check(rows, N, &a, err, sizeof err), -1);
    assert_string_equal(err, "t.sets: 12 is not a power of two");
    a.sets = 8;
    a.banks = 6;
    assert_int_equal(cgm_keys_check(rows, N, &a, err, sizeof err), -1);
    assert_string_equal(err, "t.banks: 6 is not a power of two");
    a.banks = 4;
    assert_int_equal(cgm_keys_check(rows, N, &a, err, sizeof err), 0);
    cgm_keys_copy(rows, N, &b, &a);
    assert_int_equal(b.sets, 8);
    assert_int_equal(b.banks, 4);
    assert_true(b.big == a.big);
    assert_int_equal(b.guard, 0); /* not a row: not copied */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_units),
        cmocka_unit_test(test_refusals_name_the_key),
        cmocka_unit_test(test_rules_and_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
