/* Page classification for directory-less coherence (cgm/page_class.h):
 * private to the first user, shared from the second on (the previous
 * owner, if a core, named for its downgrade), flat among cores, adaptive
 * for the GPU (a page it gives up is private to its one core again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cgm/page_class.h"

static void test_first_user_owns_second_shares(void **state)
{
    (void)state;
    struct cgm_page_class *pc = cgm_page_class_create(8);
    assert_non_null(pc);
    struct cgm_page_class_touch t = cgm_page_class_touch(pc, 3, 2);
    assert_false(t.shared);
    assert_int_equal(t.downgrade, -1);
    assert_int_equal(cgm_page_class_kind(pc, 3), CGM_PAGE_PRIVATE_CPU);
    t = cgm_page_class_touch(pc, 3, 2); /* the owner again: nothing changes */
    assert_false(t.shared);
    t = cgm_page_class_touch(pc, 3, 5);
    assert_true(t.shared);
    assert_int_equal(t.downgrade, 2);
    t = cgm_page_class_touch(pc, 3, 2); /* shared stays shared: no second downgrade */
    assert_true(t.shared);
    assert_int_equal(t.downgrade, -1);
    const struct cgm_page_class_stats *st = cgm_page_class_stats(pc);
    assert_int_equal(st->pages[CGM_PAGE_SHARED], 1);
    assert_int_equal(st->pages[CGM_PAGE_UNUSED], 7);
    assert_int_equal(st->to_shared, 1);
    assert_int_equal(st->downgrades, 1);
    cgm_page_class_destroy(pc);
}

static void test_gpu_page_adapts(void **state)
{
    (void)state;
    struct cgm_page_class *pc = cgm_page_class_create(4);
    /* the GPU first: private to it; a core then shares it, with nothing
     * to downgrade (the GPU writes through) */
    assert_false(cgm_page_class_touch(pc, 1, CGM_PAGE_AGENT_GPU).shared);
    assert_int_equal(cgm_page_class_kind(pc, 1), CGM_PAGE_PRIVATE_GPU);
    struct cgm_page_class_touch t = cgm_page_class_touch(pc, 1, 0);
    assert_true(t.shared);
    assert_int_equal(t.downgrade, -1);
    /* the GPU's TLB gives it up: private to core 0 again */
    cgm_page_class_gpu_left(pc, 1);
    assert_int_equal(cgm_page_class_kind(pc, 1), CGM_PAGE_PRIVATE_CPU);
    assert_false(cgm_page_class_shared(pc, 1));
    /* the GPU comes back: shared, core 0's writes go back first */
    t = cgm_page_class_touch(pc, 1, CGM_PAGE_AGENT_GPU);
    assert_true(t.shared);
    assert_int_equal(t.downgrade, 0);
    const struct cgm_page_class_stats *st = cgm_page_class_stats(pc);
    assert_int_equal(st->to_shared, 2);
    assert_int_equal(st->to_private, 1);
    cgm_page_class_destroy(pc);
}

static void test_cores_stay_shared(void **state)
{
    (void)state;
    struct cgm_page_class *pc = cgm_page_class_create(2);
    cgm_page_class_touch(pc, 0, 1);
    cgm_page_class_touch(pc, 0, 2);
    cgm_page_class_touch(pc, 0, CGM_PAGE_AGENT_GPU);
    cgm_page_class_gpu_left(pc, 0); /* two cores use it: it stays shared */
    assert_true(cgm_page_class_shared(pc, 0));
    cgm_page_class_forget(pc, 0);   /* unmapped: unused, private to the next user */
    assert_int_equal(cgm_page_class_kind(pc, 0), CGM_PAGE_UNUSED);
    assert_false(cgm_page_class_touch(pc, 0, 2).shared);
    assert_true(cgm_page_class_shared(pc, 9)); /* beyond the frames: treated as shared */
    cgm_page_class_destroy(pc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_user_owns_second_shares),
        cmocka_unit_test(test_gpu_page_adapts),
        cmocka_unit_test(test_cores_stay_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
