/* Virtual memory: the page allocator is deterministic and never gives two
 * pages one frame; translation latencies follow hit / soft fault / hard
 * fault; the TLB's hits match a brute-force LRU model; flushes and
 * exhaustion behave. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/mmu.h"

static void test_allocator_first_touch_and_injective(void **state)
{
    (void)state;
    struct cgm_page_table_config c = { .page_bits = 12, .frames = 100000, .frame_base = 256 };
    struct cgm_page_table *pt = cgm_page_table_create(&c);
    uint64_t f;
    assert_true(cgm_page_table_map(pt, 1, 100, &f));
    assert_int_equal(f, 256);
    assert_true(cgm_page_table_map(pt, 1, 5, &f));
    assert_int_equal(f, 257);
    assert_true(cgm_page_table_map(pt, 1, 100, &f));
    assert_int_equal(f, 256);
    assert_true(cgm_page_table_map(pt, 2, 100, &f)); /* another address space */
    assert_int_equal(f, 258);
    /* Many pages: frames are exactly base + first-touch rank. */
    uint64_t rng = 7;
    uint64_t *vpn = malloc(50000 * sizeof *vpn);
    unsigned n = 0;
    for (unsigned i = 0; i < 50000; i++) {
        rng = rng * 6364136223846793005ull + 1;
        uint64_t v = (rng >> 20) % 40000 + 1000;
        uint64_t before = cgm_page_table_mapped(pt);
        assert_true(cgm_page_table_map(pt, 3, v, &f));
        if (cgm_page_table_mapped(pt) != before) {
            assert_int_equal(f, 256 + before);
            vpn[n++] = v;
        }
    }
    unsigned char *seen = calloc(200000, 1);
    for (unsigned i = 0; i < n; i++) {
        assert_true(cgm_page_table_lookup(pt, 3, vpn[i], &f));
        assert_int_equal(seen[f], 0);
        seen[f] = 1;
    }
    assert_false(cgm_page_table_lookup(pt, 4, vpn[0], &f));
    free(seen);
    free(vpn);
    cgm_page_table_destroy(pt);

    struct cgm_page_table_config small = { .page_bits = 12, .frames = 3 };
    pt = cgm_page_table_create(&small);
    for (uint64_t v = 0; v < 3; v++)
        assert_true(cgm_page_table_map(pt, 0, v, &f));
    assert_false(cgm_page_table_map(pt, 0, 9, &f));
    cgm_page_table_destroy(pt);
}

static const struct cgm_mmu_config mc = { .tlb_sets = 16, .tlb_ways = 4, .tlb_latency = 1,
                                          .walk_latency = 100, .soft_fault_latency = 50,
                                          .hard_fault_latency = 5000 };

static void test_translation_latency_and_faults(void **state)
{
    (void)state;
    struct cgm_page_table_config c = { .page_bits = 12, .frames = 1 << 20, .frame_base = 16 };
    struct cgm_page_table *pt = cgm_page_table_create(&c);
    struct cgm_mmu a, b;
    assert_int_equal(cgm_mmu_init(&a, &mc, pt), 0);
    assert_int_equal(cgm_mmu_init(&b, &mc, pt), 0);
    uint64_t pa;
    assert_int_equal(cgm_mmu_translate(&a, 1, 0x7fff1234, &pa), 1 + 100 + 5000);
    assert_int_equal(pa, (16ull << 12) | 0x234);
    assert_int_equal(cgm_mmu_translate(&a, 1, 0x7fff1ff8, &pa), 1);
    assert_int_equal(pa, (16ull << 12) | 0xff8);
    /* The other core's TLB misses, but the page exists: a soft fault. */
    assert_int_equal(cgm_mmu_translate(&b, 1, 0x7fff1000, &pa), 1 + 100 + 50);
    assert_int_equal(pa, 16ull << 12);
    cgm_mmu_flush(&a, 1);
    assert_int_equal(cgm_mmu_translate(&a, 1, 0x7fff1000, &pa), 1 + 100 + 50);
    assert_int_equal(a.st.hard_faults, 1);
    assert_int_equal(a.st.soft_faults, 1);
    assert_int_equal(a.st.hits, 1);
    assert_int_equal(b.st.soft_faults, 1);
    cgm_mmu_free(&a);
    cgm_mmu_free(&b);
    cgm_page_table_destroy(pt);
}

static void test_tlb_hits_match_lru_model(void **state)
{
    (void)state;
    struct cgm_page_table_config c = { .page_bits = 12, .frames = 1 << 20 };
    struct cgm_page_table *pt = cgm_page_table_create(&c);
    struct cgm_mmu m;
    assert_int_equal(cgm_mmu_init(&m, &mc, pt), 0);
    /* Reference: per set, pages from most to least recently used. */
    uint64_t ref[16][4];
    unsigned n[16] = { 0 };
    uint64_t rng = 99, hits = 0;
    for (int i = 0; i < 100000; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t vpn = (rng >> 33) % 150;
        unsigned s = (unsigned)(vpn % 16);
        int pos = -1;
        for (unsigned k = 0; k < n[s]; k++)
            if (ref[s][k] == vpn)
                pos = (int)k;
        if (pos >= 0) {
            hits++;
            memmove(&ref[s][1], &ref[s][0], (size_t)pos * sizeof ref[s][0]);
        } else {
            if (n[s] < 4)
                n[s]++;
            memmove(&ref[s][1], &ref[s][0], (n[s] - 1) * sizeof ref[s][0]);
        }
        ref[s][0] = vpn;
        uint64_t pa;
        long lat = cgm_mmu_translate(&m, 0, vpn << 12, &pa);
        assert_int_equal(lat == 1, pos >= 0);
    }
    assert_int_equal(m.st.hits, hits);
    assert_true(hits > 10000 && m.st.misses > 10000);
    assert_int_equal(m.st.hard_faults, 150);
    cgm_mmu_free(&m);
    cgm_page_table_destroy(pt);
}

static void test_bad_configurations(void **state)
{
    (void)state;
    struct cgm_page_table_config bad = { .page_bits = 3, .frames = 10 };
    assert_null(cgm_page_table_create(&bad));
    struct cgm_page_table_config c = { .page_bits = 12, .frames = 10 };
    struct cgm_page_table *pt = cgm_page_table_create(&c);
    struct cgm_mmu m;
    struct cgm_mmu_config x = mc;
    x.tlb_sets = 3;
    assert_int_equal(cgm_mmu_init(&m, &x, pt), -1);
    assert_int_equal(cgm_mmu_init(&m, &mc, NULL), -1);
    cgm_page_table_destroy(pt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocator_first_touch_and_injective),
        cmocka_unit_test(test_translation_latency_and_faults),
        cmocka_unit_test(test_tlb_hits_match_lru_model),
        cmocka_unit_test(test_bad_configurations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
