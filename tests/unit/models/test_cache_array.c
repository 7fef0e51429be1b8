/* Cache array and MSHR: LRU replacement against a brute-force model of a
 * fully ordered recency list, victim filtering, the bypass hint, a policy
 * of the caller's behind the replacement interface, MSHR allocation limits
 * and coalescer capacity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/cache.h"

/* Reference: per set, a list of blocks from most to least recently used. */
#define SETS 4
#define MAX_WAYS 64

static bool any(const struct cgm_cache_line *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return true;
}

/* WAYS not a multiple of 4 leaves padding in each set's packed tags, and
 * 64 ways fill the whole match mask. */
static void lru_matches_reference(unsigned WAYS)
{
    struct cgm_cache_array a;
    assert_int_equal(cgm_cache_array_init(&a, SETS, WAYS, 64, 0), 0);
    uint64_t ref[SETS][MAX_WAYS];
    unsigned n[SETS] = { 0 };
    uint64_t rng = 12345;
    uint64_t hits = 0, misses = 0;
    for (int i = 0; i < 200000; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t block = (rng >> 33) % (2 * SETS * WAYS);
        unsigned s = (unsigned)(block % SETS);
        /* Reference lookup. */
        int pos = -1;
        for (unsigned k = 0; k < n[s]; k++)
            if (ref[s][k] == block)
                pos = (int)k;
        struct cgm_cache_line *l = cgm_cache_find(&a, block);
        assert_int_equal(l != NULL, pos >= 0);
        if (pos >= 0) {
            hits++;
            memmove(&ref[s][1], &ref[s][0], (size_t)pos * sizeof ref[s][0]);
            ref[s][0] = block;
            cgm_cache_touch(&a, l);
            continue;
        }
        misses++;
        struct cgm_cache_line *v = cgm_cache_victim(&a, block, any, NULL);
        assert_non_null(v);
        if (n[s] == WAYS) {
            /* The victim is the reference's least recently used block. */
            assert_int_equal(v->state, 1);
            assert_int_equal(v->block, ref[s][WAYS - 1]);
            n[s]--;
        } else {
            assert_int_equal(v->state, 0);
        }
        memmove(&ref[s][1], &ref[s][0], n[s] * sizeof ref[s][0]);
        ref[s][0] = block;
        n[s]++;
        cgm_cache_set_block(&a, v, block);
        v->state = 1;
        cgm_cache_touch(&a, v);
        assert_int_equal(cgm_cache_set_of(&a, block), s);
    }
    assert_true(hits > 10000 && misses > 10000);
    cgm_cache_array_free(&a);
}

static void test_lru_matches_reference(void **state)
{
    (void)state;
    static const unsigned ways[] = { 1, 3, 4, 8, 13, 16, 64 };
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++)
        lru_matches_reference(ways[i]);
}

/* A written line stands for one the caller may not give up (a transient one). */
static bool not_pinned(const struct cgm_cache_line *l, void *ctx)
{
    (void)ctx;
    return !l->dirty;
}

static void test_victim_skips_transient_lines(void **state)
{
    (void)state;
    struct cgm_cache_array a;
    assert_int_equal(cgm_cache_array_init(&a, 1, 2, 64, 0), 0);
    for (uint64_t b = 0; b < 2; b++) {
        struct cgm_cache_line *v = cgm_cache_victim(&a, b, not_pinned, NULL);
        cgm_cache_set_block(&a, v, b);
        v->state = 1;
        cgm_cache_touch(&a, v);
    }
    cgm_cache_find(&a, 0)->dirty = true; /* the LRU line is transient */
    assert_int_equal(cgm_cache_victim(&a, 9, not_pinned, NULL)->block, 1);
    cgm_cache_find(&a, 1)->dirty = true;
    assert_null(cgm_cache_victim(&a, 9, not_pinned, NULL));
    cgm_cache_array_free(&a);
    assert_int_equal(cgm_cache_array_init(&a, 3, 2, 64, 0), -1); /* sets must be a power of two */
}

/* Fills a 4-way set with blocks 0..3 (inserted with hint), each then used once in order. */
static void fill_set(struct cgm_cache_array *a, enum cgm_cache_hint hint_of_2)
{
    for (uint64_t b = 0; b < 4; b++) {
        struct cgm_cache_line *v = cgm_cache_victim(a, b, NULL, NULL);
        assert_int_equal(v->state, 0);
        cgm_cache_insert(a, v, b, b == 2 ? hint_of_2 : CGM_HINT_NORMAL);
        v->state = 1;
    }
}

/* LRU: a block brought in as a bypass is the next victim even though it
 * came after the others; used once, it is an ordinary line again. */
static void test_lru_bypass_hint(void **state)
{
    (void)state;
    struct cgm_cache_array a;
    assert_int_equal(cgm_cache_array_init(&a, 1, 4, 64, 0), 0);
    fill_set(&a, CGM_HINT_NORMAL);
    assert_int_equal(cgm_cache_victim(&a, 9, NULL, NULL)->block, 0);
    cgm_cache_array_free(&a);
    assert_int_equal(cgm_cache_array_init(&a, 1, 4, 64, 0), 0);
    fill_set(&a, CGM_HINT_BYPASS);
    assert_int_equal(cgm_cache_victim(&a, 9, NULL, NULL)->block, 2);
    cgm_cache_touch(&a, cgm_cache_find(&a, 2));
    assert_int_equal(cgm_cache_victim(&a, 9, NULL, NULL)->block, 0);
    cgm_cache_array_free(&a);
}

/* A policy of the caller's: first in, first out (touches change nothing).
 * The array asks it for victims and tells it of inserts. */
static void fifo_touch(struct cgm_cache_array *a, struct cgm_cache_line *l) { (void)a, (void)l; }
static void fifo_insert(struct cgm_cache_array *a, struct cgm_cache_line *l, enum cgm_cache_hint hint)
{
    (void)hint;
    ((uint64_t *)a->repl_lines)[cgm_cache_line_index(a, l)] = ++a->repl_clock;
}
static struct cgm_cache_line *fifo_victim(struct cgm_cache_array *a, unsigned set, cgm_cache_may_evict may_evict,
                                          void *ctx)
{
    struct cgm_cache_line *best = NULL;
    const uint64_t *order = a->repl_lines;
    for (unsigned w = 0; w < a->ways; w++) {
        size_t i = (size_t)set * a->ways + w;
        if (!a->lines[i].state)
            return &a->lines[i];
        if ((!may_evict || may_evict(&a->lines[i], ctx)) && (!best || order[i] < order[best - a->lines]))
            best = &a->lines[i];
    }
    return best;
}
static const struct cgm_repl_policy fifo = {
    .name = "fifo", .line_bytes = sizeof(uint64_t), .touch = fifo_touch, .insert = fifo_insert,
    .victim = fifo_victim,
};

static void test_policy_of_the_caller(void **state)
{
    (void)state;
    struct cgm_cache_array a;
    assert_int_equal(cgm_cache_array_init_policy(&a, 1, 4, 64, 0, &fifo), 0);
    fill_set(&a, CGM_HINT_NORMAL);
    cgm_cache_touch(&a, cgm_cache_find(&a, 0)); /* LRU would now give up block 1 */
    assert_int_equal(cgm_cache_victim(&a, 9, NULL, NULL)->block, 0);
    cgm_cache_find(&a, 0)->dirty = true;
    assert_int_equal(cgm_cache_victim(&a, 9, not_pinned, NULL)->block, 1);
    cgm_cache_array_free(&a);
    assert_int_equal(cgm_cache_array_init_policy(&a, 1, 4, 64, 0, NULL), -1);
}

static void test_set_shift_for_striped_slices(void **state)
{
    (void)state;
    struct cgm_cache_array a;
    assert_int_equal(cgm_cache_array_init(&a, 8, 1, 64, 2), 0);
    /* With four slices taking the low two bits, blocks 0..3 share set 0. */
    for (uint64_t b = 0; b < 4; b++)
        assert_int_equal(cgm_cache_set_of(&a, b), 0);
    assert_int_equal(cgm_cache_set_of(&a, 4), 1);
    assert_int_equal(cgm_cache_set_of(&a, 4 * 8), 0);
    cgm_cache_array_free(&a);
}

/* Striped in runs of four blocks over two banks (bit 2 chooses the bank):
 * the set is the block number without bit 2, so each bank's blocks still
 * fill all of its sets: block b goes to set ((b >> 3) << 2 | (b & 3)) mod 8. */
static void test_low_bits_kept_below_the_stripe(void **state)
{
    (void)state;
    struct cgm_cache_array a;
    assert_int_equal(cgm_cache_array_init(&a, 8, 1, 64, 1), 0);
    cgm_cache_array_keep_low_bits(&a, 2);
    for (uint64_t b = 0; b < 256; b++)
        assert_int_equal(cgm_cache_set_of(&a, b), (unsigned)((((b >> 3) << 2) | (b & 3)) % 8));
    /* bank 0's blocks (bit 2 clear) reach all eight sets */
    unsigned seen = 0;
    for (uint64_t b = 0; b < 64; b++)
        if (!(b & 4))
            seen |= 1u << cgm_cache_set_of(&a, b);
    assert_int_equal(seen, 0xff);
    cgm_cache_array_keep_low_bits(&a, 0);
    assert_int_equal(cgm_cache_set_of(&a, 5), 2); /* as without: (5 >> 1) mod 8 */
    cgm_cache_array_free(&a);
}

static void test_mshr_limits(void **state)
{
    (void)state;
    struct cgm_mshr m;
    assert_int_equal(cgm_mshr_init(&m, 2, 3), 0);
    struct cgm_mshr_entry *a = cgm_mshr_alloc(&m, 10, 0);
    struct cgm_mshr_entry *b = cgm_mshr_alloc(&m, 11, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(cgm_mshr_alloc(&m, 12, 0));
    assert_ptr_equal(cgm_mshr_find(&m, 10, 0), a);
    assert_null(cgm_mshr_find(&m, 10, 1));
    struct cgm_mshr_waiter w = { .tag = 1 };
    for (int i = 0; i < 3; i++) {
        w.tag = (uint64_t)i;
        assert_true(cgm_mshr_push(a, m.coalesce, &w));
    }
    assert_false(cgm_mshr_push(a, m.coalesce, &w));
    assert_int_equal(a->n, 3);
    assert_int_equal(a->w[2].tag, 2);
    cgm_mshr_release(&m, a);
    assert_null(cgm_mshr_find(&m, 10, 0));
    assert_non_null(cgm_mshr_alloc(&m, 12, 0));
    assert_int_equal(m.peak_used, 2);
    cgm_mshr_free(&m);
}

/* Two blocks of one set whose 32-bit folded tags are equal (low ^ high
 * word: 0x10 ^ 0x1 == 0x18 ^ 0x9): each lookup must find its own line. */
static void test_folded_tags_never_confuse_blocks(void **state)
{
    (void)state;
    struct cgm_cache_array a;
    assert_int_equal(cgm_cache_array_init(&a, 8, 4, 64, 0), 0);
    const uint64_t b1 = 0x100000010ull, b2 = 0x900000018ull;
    assert_int_equal(cgm_cache_set_of(&a, b1), cgm_cache_set_of(&a, b2));
    assert_int_equal((uint32_t)b1 ^ (uint32_t)(b1 >> 32), (uint32_t)b2 ^ (uint32_t)(b2 >> 32));
    struct cgm_cache_line *l1 = cgm_cache_victim(&a, b1, any, NULL);
    cgm_cache_set_block(&a, l1, b1);
    l1->state = 1;
    assert_ptr_equal(cgm_cache_find(&a, b1), l1);
    assert_null(cgm_cache_find(&a, b2));
    struct cgm_cache_line *l2 = cgm_cache_victim(&a, b2, any, NULL);
    assert_ptr_not_equal(l1, l2);
    cgm_cache_set_block(&a, l2, b2);
    l2->state = 1;
    assert_ptr_equal(cgm_cache_find(&a, b1), l1);
    assert_ptr_equal(cgm_cache_find(&a, b2), l2);
    l1->state = 0; /* invalid: its tag stays, the lookup must still miss */
    assert_null(cgm_cache_find(&a, b1));
    assert_ptr_equal(cgm_cache_find(&a, b2), l2);
    cgm_cache_array_free(&a);
}

/* Random allocations and releases, in any order, against a plain list of
 * (block, kind) pairs in use: after every step each pair of the list and
 * each pair not in it is looked up, and the lookup must return exactly the
 * lowest-numbered entry holding it (what a scan in order finds), so an index
 * that lost, kept or misplaced an entry fails. Blocks are drawn from a few
 * values spread far apart (multiples of 2^20 collide in any hash that uses
 * the low bits) and from a run of neighbours, to make probe runs long. */
static void check_mshr_against_list(unsigned n, uint64_t stride, unsigned steps)
{
    struct cgm_mshr m;
    assert_int_equal(cgm_mshr_init(&m, n, 2), 0);
    struct cgm_mshr_entry **held = calloc(n, sizeof *held);
    assert_non_null(held);
    uint64_t rng = 99 + n;
    unsigned finds = 0;
    for (unsigned i = 0; i < steps; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t block = ((rng >> 40) % (2 * n + 3)) * stride;
        uint8_t kind = (uint8_t)((rng >> 20) % 2);
        unsigned slot = (unsigned)((rng >> 50) % n);
        if (held[slot]) {
            cgm_mshr_release(&m, held[slot]);
            held[slot] = NULL;
        } else {
            held[slot] = cgm_mshr_alloc(&m, block, kind);
            assert_non_null(held[slot]);
        }
        for (uint64_t k = 0; k < 2 * n + 3; k++) {
            for (uint8_t kd = 0; kd < 2; kd++) {
                struct cgm_mshr_entry *ref = NULL;
                for (unsigned h = 0; h < n; h++)
                    if (held[h] && held[h]->block == k * stride && held[h]->kind == kd && (!ref || held[h] < ref))
                        ref = held[h];
                struct cgm_mshr_entry *got = cgm_mshr_find(&m, k * stride, kd);
                assert_ptr_equal(got, ref);
                finds += ref != NULL;
            }
        }
    }
    unsigned used = 0;
    for (unsigned h = 0; h < n; h++)
        used += held[h] != NULL;
    assert_int_equal(m.used, used);
    assert_true(finds > steps / 4); /* the lookups did meet entries in use */
    free(held);
    cgm_mshr_free(&m);
}

static void test_mshr_find_matches_reference(void **state)
{
    (void)state;
    const unsigned sizes[] = { 1, 2, 12, 16, 32, 64 };
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        check_mshr_against_list(sizes[s], 1, 20000);
        check_mshr_against_list(sizes[s], 1ull << 20, 20000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_matches_reference),
        cmocka_unit_test(test_victim_skips_transient_lines),
        cmocka_unit_test(test_lru_bypass_hint),
        cmocka_unit_test(test_policy_of_the_caller),
        cmocka_unit_test(test_set_shift_for_striped_slices),
        cmocka_unit_test(test_low_bits_kept_below_the_stripe),
        cmocka_unit_test(test_mshr_limits),
        cmocka_unit_test(test_mshr_find_matches_reference),
        cmocka_unit_test(test_folded_tags_never_confuse_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
