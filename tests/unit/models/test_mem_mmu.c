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

/* Random map/unmap against a reference: the live pages with their frames,
 * and the freed frames with the order the header promises (most recently
 * freed first) while that order is known; after an unmap of a range larger
 * than what is mapped (the table is walked in its own order) the reference
 * only knows the set of freed frames until it has been used up. Every page
 * is looked up after every step, so a removal that loses another key of its
 * probe run fails; frames of live pages must be distinct and no frame
 * beyond the peak of live pages is ever handed out. */
static uint64_t unmapped_count;
static void count_unmapped(void *ctx, uint32_t asid, uint64_t vpn, uint64_t pfn)
{
    (void)ctx;
    (void)asid;
    (void)vpn;
    (void)pfn;
    unmapped_count++;
}

static void test_unmap_frees_and_reuses_frames(void **state)
{
    (void)state;
    enum { PAGES = 3000, FRAMES = 600, BASE = 100 };
    struct cgm_page_table_config c = { .page_bits = 12, .frames = FRAMES, .frame_base = BASE };
    struct cgm_page_table *pt = cgm_page_table_create(&c);
    assert_non_null(pt);
    static uint64_t ref[PAGES];    /* frame + 1, 0: not mapped */
    static bool is_free[FRAMES];   /* frame - BASE given up and not reused */
    static uint64_t stack[FRAMES]; /* freed frames, top last */
    static bool in_use[FRAMES];
    size_t nstack = 0, nfree = 0, live = 0, peak = 0;
    bool order_known = true;
    uint64_t next = BASE, rng = 99, walks = 0;
    for (int step = 0; step < 20000; step++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = (rng >> 33) % PAGES;
        if ((rng >> 20) % 3 && live < FRAMES) {
            uint64_t pfn;
            assert_true(cgm_page_table_map(pt, 1, v, &pfn));
            if (ref[v]) {
                assert_int_equal(pfn + 1, ref[v]);
                continue;
            }
            if (!nfree) {
                assert_int_equal(pfn, next++);
            } else {
                assert_true(pfn >= BASE && pfn < BASE + FRAMES && is_free[pfn - BASE]);
                if (order_known)
                    assert_int_equal(pfn, stack[--nstack]);
                is_free[pfn - BASE] = false;
                if (!--nfree) {
                    order_known = true; /* nothing of the unknown order is left */
                    nstack = 0;
                }
            }
            assert_false(in_use[pfn - BASE]);
            in_use[pfn - BASE] = true;
            ref[v] = pfn + 1;
            if (++live > peak)
                peak = live;
        } else {
            uint64_t len = 1 + (rng >> 40) % 8;
            if ((rng >> 50) % 16 == 0)
                len = 1000000; /* a released reservation */
            unmapped_count = 0;
            int n = cgm_page_table_unmap_range(pt, 1, v, len, count_unmapped, NULL);
            bool walked = len > 2 * (uint64_t)live;
            int want = 0;
            for (uint64_t u = v; u < v + len && u < PAGES; u++) {
                if (!ref[u])
                    continue;
                uint64_t f = ref[u] - 1;
                ref[u] = 0;
                in_use[f - BASE] = false;
                is_free[f - BASE] = true;
                nfree++;
                if (order_known)
                    stack[nstack++] = f;
                live--;
                want++;
            }
            assert_int_equal(n, want);
            assert_int_equal(unmapped_count, (uint64_t)n);
            if (walked && n > 1) {
                order_known = false;
                nstack = 0;
                walks++;
            }
        }
        for (uint64_t u = 0; u < PAGES; u++) {
            uint64_t pfn;
            bool mapped = cgm_page_table_lookup(pt, 1, u, &pfn);
            assert_int_equal(mapped, ref[u] != 0);
            if (mapped)
                assert_int_equal(pfn + 1, ref[u]);
        }
        assert_int_equal(cgm_page_table_mapped(pt), live);
        assert_true(next <= BASE + peak);
    }
    assert_true(walks > 0); /* the table walk was exercised */
    cgm_page_table_destroy(pt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocator_first_touch_and_injective),
        cmocka_unit_test(test_translation_latency_and_faults),
        cmocka_unit_test(test_tlb_hits_match_lru_model),
        cmocka_unit_test(test_bad_configurations),
        cmocka_unit_test(test_unmap_frees_and_reuses_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
