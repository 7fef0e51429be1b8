/* "Did you mean": edit distances counted by hand (kitten -> sitting is the
 * textbook's 3: two substitutions and an insertion), the limit that stops
 * counting, and the choice of the nearest near-enough name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cgm/nearest.h"

static void test_edit_distance(void **state)
{
    (void)state;
    assert_int_equal(cgm_edit_distance("kitten", "sitting", 5), 3);
    assert_int_equal(cgm_edit_distance("", "abc", 5), 3);
    assert_int_equal(cgm_edit_distance("abc", "abc", 0), 0);
    assert_int_equal(cgm_edit_distance("compute_unit", "compute_units", 4), 1);
    assert_int_equal(cgm_edit_distance("flaw", "lawn", 5), 2);
    /* past the limit the answer is limit + 1, whatever the distance */
    assert_int_equal(cgm_edit_distance("kitten", "sitting", 2), 3);
    assert_int_equal(cgm_edit_distance("a", "abcdefgh", 3), 4);
}

static void test_nearest(void **state)
{
    (void)state;
    static const char *const keys[] = { "cores", "frequency", "fetch_width", "compute_units", "coalescing" };
    struct cgm_nearest n = { NULL, 0 };
    for (size_t i = 0; i < 5; i++)
        cgm_nearest_offer(&n, "compute_unit", keys[i]);
    assert_string_equal(n.best, "compute_units");
    assert_int_equal(n.distance, 1);
    n = (struct cgm_nearest){ NULL, 0 };
    for (size_t i = 0; i < 5; i++)
        cgm_nearest_offer(&n, "fequency", keys[i]);
    assert_string_equal(n.best, "frequency");
    n = (struct cgm_nearest){ NULL, 0 };
    for (size_t i = 0; i < 5; i++)
        cgm_nearest_offer(&n, "zzzzzz", keys[i]);
    assert_null(n.best);
    /* a tie goes to the first offered; an exact name beats every other */
    n = (struct cgm_nearest){ NULL, 0 };
    cgm_nearest_offer(&n, "l1", "l1i");
    cgm_nearest_offer(&n, "l1", "l1d");
    assert_string_equal(n.best, "l1i");
    cgm_nearest_offer(&n, "l1", "l1");
    assert_string_equal(n.best, "l1");
    cgm_nearest_offer(&n, "l1", "l2");
    assert_string_equal(n.best, "l1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_nearest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
