/* The write-back queues' block filter: after every random take or release,
 * every find answers what a plain scan of the entries answers (the lowest
 * entry in use holding the block, NULL if none), and a free slot is the
 * lowest one not in use. Blocks neighbouring or 2^20 apart, a few more of
 * them than the queue holds, so the filter's bits collide and the same
 * block may sit in two entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "models/coh/mesi_internal.h"

static uint64_t next(uint64_t *rng)
{
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    return *rng >> 20;
}

static void check_core_queue(unsigned n, uint64_t stride)
{
    struct core_wbq q;
    assert_true(wbq_init(&q, n));
    uint64_t rng = 7 + n + stride, blocks = 2 * n + 3;
    unsigned found = 0;
    for (unsigned step = 0; step < 20000; step++) {
        struct core_wb *e = &q.e[next(&rng) % n];
        if (e->used)
            wbq_release(&q, e);
        else
            wbq_take(&q, e, (struct core_wb){ .block = next(&rng) % blocks * stride, .used = true });
        for (uint64_t k = 0; k < blocks; k++) {
            struct core_wb *want = NULL;
            for (unsigned i = 0; i < n && !want; i++)
                if (q.e[i].used && q.e[i].block == k * stride)
                    want = &q.e[i];
            assert_ptr_equal(wbq_find(&q, k * stride), want);
            found += want != NULL;
        }
        struct core_wb *free_slot = NULL;
        for (unsigned i = 0; i < n && !free_slot; i++)
            if (!q.e[i].used)
                free_slot = &q.e[i];
        assert_ptr_equal(wbq_free(&q), free_slot);
    }
    assert_true(found > 20000 / 4); /* the finds did meet entries in use */
    free(q.e);
}

static void check_dir_queue(unsigned n, uint64_t stride)
{
    struct dir_wbq q;
    assert_true(dwbq_init(&q, n));
    uint64_t rng = 11 + n + stride, blocks = 2 * n + 3;
    unsigned found = 0;
    for (unsigned step = 0; step < 20000; step++) {
        struct dir_wb *e = &q.e[next(&rng) % n];
        if (e->state)
            dwbq_release(&q, e);
        else
            dwbq_take(&q, e, next(&rng) % blocks * stride, (uint8_t)(DWB_FLUSHING + next(&rng) % 3));
        for (uint64_t k = 0; k < blocks; k++) {
            struct dir_wb *want = NULL;
            for (unsigned i = 0; i < n && !want; i++)
                if (q.e[i].state && q.e[i].block == k * stride)
                    want = &q.e[i];
            assert_ptr_equal(dwbq_find(&q, k * stride), want);
            found += want != NULL;
        }
        struct dir_wb *free_slot = NULL;
        for (unsigned i = 0; i < n && !free_slot; i++)
            if (!q.e[i].state)
                free_slot = &q.e[i];
        assert_ptr_equal(dwbq_free(&q), free_slot);
    }
    assert_true(found > 20000 / 4);
    free(q.e);
}

static void test_find_matches_a_scan(void **state)
{
    (void)state;
    static const unsigned sizes[] = { 1, 2, 4, 8, 16, 64 };
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        check_core_queue(sizes[s], 1);
        check_core_queue(sizes[s], 1ull << 20);
        check_dir_queue(sizes[s], 1);
        check_dir_queue(sizes[s], 1ull << 20);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_matches_a_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
