/* The compute units' scalar caches and address translation in the timed
 * memory system: a scalar load takes the scalar cache's latency and the
 * cache is busy that long with each access (CUs sharing one queue); a
 * vector request is translated by its CU's TLB, a miss by one of the
 * IOMMU's walkers, whose walk and fault latencies add to the request's; a
 * miss on a page being walked joins that walk; with virtual vector L1s
 * only their misses are translated, by one TLB the CUs share. Every
 * expected cycle is derived from the configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/coh.h"
#include "cgm/memsys.h"
#include "cgm/stats.h"

enum { CUS = 8, MAX_REQS = 8 };

/* Requests issued by one context in the same GPU cycle; each answer's
 * latency by tag. */
struct batch {
    struct cgm_gpu_mem_port port;
    struct cgm_gpu_request req[MAX_REQS];
    unsigned n, done;
    uint64_t issued, latency[MAX_REQS];
};

static void batch_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)value;
    struct batch *b = ctx;
    b->latency[r->tag] = gpu_cycle - b->issued;
    b->done++;
}

static void batch_main(void *arg)
{
    struct batch *b = arg;
    b->issued = ks_cycle();
    for (unsigned i = 0; i < b->n; i++)
        assert_true(b->port.access(b->port.ctx, &b->req[i]));
}

struct rig {
    ks_engine *eng;
    struct cgm_memsys_domains d;
    struct cgm_memsys *ms;
    struct cgm_page_table *pt;
    struct batch b;
};

static void rig_up(struct rig *g, const struct cgm_memsys_config *c, bool paged)
{
    memset(g, 0, sizeof *g);
    g->eng = ks_engine_create(NULL);
    char err[256] = "";
    assert_int_equal(cgm_memsys_default_domains(g->eng, &c->dram, &g->d, err, sizeof err), 0);
    g->ms = cgm_memsys_create(g->eng, &g->d, c, NULL, NULL, err, sizeof err);
    if (!g->ms)
        fail_msg("%s", err);
    struct cgm_page_table_config ptc = { .page_bits = 12, .frames = c->mem_bytes >> 12 };
    g->pt = paged ? cgm_page_table_create(&ptc) : NULL;
    g->b.port = cgm_memsys_gpu_port(g->ms, g->pt, batch_done, &g->b);
}

/* Issues the requests in one cycle and runs until they are answered. */
static void rig_run(struct rig *g, const struct cgm_gpu_request *reqs, unsigned n)
{
    memcpy(g->b.req, reqs, n * sizeof *reqs);
    for (unsigned i = 0; i < n; i++)
        g->b.req[i].tag = i;
    g->b.n = n;
    g->b.done = 0;
    ks_context_opts o = { .name = "cus", .domain = g->d.gpu };
    assert_non_null(ks_context_create_opts(g->eng, batch_main, &g->b, &o));
    assert_int_equal(ks_run(g->eng), KS_STOP_IDLE);
    assert_int_equal(g->b.done, n);
}

static void rig_down(struct rig *g)
{
    cgm_memsys_stop(g->ms);
    cgm_memsys_destroy(g->ms);
    cgm_page_table_destroy(g->pt);
    ks_engine_destroy(g->eng);
}

static struct cgm_memsys_config config(bool coherent)
{
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.mem_bytes = 16u << 20;
    cgm_memsys_default_gpu(&c, CUS, coherent, coherent);
    return c;
}

static struct cgm_gpu_request load(unsigned cu, uint64_t vaddr, uint8_t op)
{
    return (struct cgm_gpu_request){ .vaddr = vaddr, .bytes = 4, .cu = (uint16_t)cu, .op = op };
}

static void test_scalar_cache(void **state)
{
    (void)state;
    for (unsigned share = 1; share <= 2; share++) {
        struct cgm_memsys_config c = config(true);
        c.gpu_scalar_share = share;
        struct rig g;
        rig_up(&g, &c, false);
        /* three loads from CU 0, then one from CU 1, in the same cycle */
        struct cgm_gpu_request r[4] = { load(0, 0x100, CGM_GPU_SCALAR_LOAD), load(0, 0x104, CGM_GPU_SCALAR_LOAD),
                                        load(0, 0x2000, CGM_GPU_SCALAR_LOAD),
                                        load(1, 0x100, CGM_GPU_SCALAR_LOAD) };
        rig_run(&g, r, 4);
        uint64_t lat = c.gpu_scalar_latency;
        for (unsigned i = 0; i < 3; i++)
            assert_int_equal(g.b.latency[i], (i + 1) * lat);
        /* CU 1 has a cache of its own, or waits behind CU 0's three */
        assert_int_equal(g.b.latency[3], share == 1 ? lat : 4 * lat);
        assert_int_equal(cgm_memsys_scalar_caches(g.ms), CUS / share);
        assert_int_equal(cgm_memsys_scalar_stats(g.ms, 0)->accesses, share == 1 ? 3 : 4);
        assert_int_equal(cgm_memsys_scalar_stats(g.ms, 0)->wait_cycles, share == 1 ? 3 * lat : 6 * lat);
        /* the registry lists them in the caches array */
        struct cgm_stats *reg = cgm_stats_create();
        assert_int_equal(cgm_memsys_stats_register(g.ms, reg, CGM_STATS_ROOT), 0);
        uint64_t *values = calloc(cgm_stats_slots(reg), sizeof *values);
        cgm_stats_read(reg, values);
        cgm_stat caches = cgm_stats_find(reg, CGM_STATS_ROOT, "caches");
        unsigned scalar = 0;
        double accesses = 0;
        for (unsigned i = 0; i < cgm_stats_count(reg, caches); i++) {
            cgm_stat x = cgm_stats_member(reg, caches, i);
            if (strcmp(cgm_stats_label_of(reg, cgm_stats_find(reg, x, "kind")), "gpu_scalar") == 0) {
                scalar++;
                accesses += cgm_stats_value(reg, values, cgm_stats_find(reg, x, "accesses"));
            }
        }
        assert_int_equal(scalar, CUS / share);
        assert_true(accesses == 4);
        free(values);
        cgm_stats_destroy(reg);
        rig_down(&g);
    }
}

/* A first touch by CU 0 in a fresh system with a page table: its latency. */
static uint64_t first_touch(const struct cgm_memsys_config *c, uint64_t *again)
{
    struct rig g;
    rig_up(&g, c, true);
    struct cgm_gpu_request r = load(0, 0x4000, CGM_GPU_LOAD);
    rig_run(&g, &r, 1);
    uint64_t first = g.b.latency[0];
    rig_run(&g, &r, 1);
    *again = g.b.latency[0];
    const struct cgm_mmu *t = cgm_memsys_gpu_tlb(g.ms, 0);
    assert_int_equal(t->st.translations, 2);
    assert_int_equal(t->st.misses, 1);
    assert_int_equal(t->st.hits, 1);
    assert_int_equal(cgm_memsys_iommu_stats(g.ms)->walks, 1);
    rig_down(&g);
    return first;
}

/* The walk and a first touch's fault add their latencies to the miss; a
 * second access hits the TLB and the vector L1. In the non-coherent
 * organisations the GPU's page is new (a hard fault); in the coherent ones
 * too here, as the CPU has not touched it. */
static void test_translation_latency(void **state)
{
    (void)state;
    for (int coherent = 0; coherent < 2; coherent++) {
        struct cgm_memsys_config c = config(coherent);
        c.gpu_tlb_latency = 1;
        uint64_t again;
        uint64_t base = first_touch(&c, &again);
        assert_int_equal(again, c.gpu_tlb_latency + c.gpu_l1_latency);
        c.iommu_walk_latency += 100;
        assert_int_equal(first_touch(&c, &again) - base, 100);
        c.iommu_walk_latency -= 100;
        c.iommu_hard_fault_latency += 50;
        assert_int_equal(first_touch(&c, &again) - base, 50);
        assert_int_equal(again, c.gpu_tlb_latency + c.gpu_l1_latency);
    }
}

/* Two CUs miss their TLBs in the same cycle on different pages, for blocks
 * their L1s hold: with one walker the second walk starts when the first
 * ends, with two they walk at once. */
static void test_iommu_walkers(void **state)
{
    (void)state;
    for (unsigned walkers = 1; walkers <= 2; walkers++) {
        struct cgm_memsys_config c = config(true);
        c.gpu_tlb_latency = 1;
        c.iommu_soft_fault_latency = 7;
        c.iommu_walkers = walkers;
        struct rig g;
        rig_up(&g, &c, true);
        struct cgm_gpu_request r[2] = { load(0, 0x10000, CGM_GPU_LOAD), load(1, 0x20000, CGM_GPU_LOAD) };
        rig_run(&g, r, 2); /* the pages mapped, the blocks in the CUs' L1s */
        cgm_memsys_gpu_tlb_flush(g.ms);
        uint64_t waited = cgm_memsys_iommu_stats(g.ms)->wait_cycles;
        rig_run(&g, r, 2);
        uint64_t walk = c.iommu_walk_latency + c.iommu_soft_fault_latency;
        assert_int_equal(g.b.latency[0], c.gpu_tlb_latency + walk + c.gpu_l1_latency);
        assert_int_equal(g.b.latency[1], c.gpu_tlb_latency + (walkers == 1 ? 2 : 1) * walk + c.gpu_l1_latency);
        assert_int_equal(cgm_memsys_iommu_stats(g.ms)->wait_cycles - waited, walkers == 1 ? walk : 0);
        assert_int_equal(cgm_memsys_iommu_stats(g.ms)->walks, 4);
        rig_down(&g);
    }
}

/* Two CUs miss their TLBs in the same cycle on the same page: one walk,
 * which the second miss joins, so both take one walk's time. */
static void test_iommu_joins_walks_of_a_page(void **state)
{
    (void)state;
    struct cgm_memsys_config c = config(true);
    c.gpu_tlb_latency = 1;
    c.iommu_soft_fault_latency = 7;
    c.iommu_walkers = 1;
    struct rig g;
    rig_up(&g, &c, true);
    struct cgm_gpu_request r[2] = { load(0, 0x10000, CGM_GPU_LOAD), load(1, 0x10040, CGM_GPU_LOAD) };
    rig_run(&g, r, 2);
    cgm_memsys_gpu_tlb_flush(g.ms);
    struct cgm_memsys_iommu_stats before = *cgm_memsys_iommu_stats(g.ms);
    rig_run(&g, r, 2);
    uint64_t walk = c.iommu_walk_latency + c.iommu_soft_fault_latency;
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(g.b.latency[i], c.gpu_tlb_latency + walk + c.gpu_l1_latency);
    const struct cgm_memsys_iommu_stats *after = cgm_memsys_iommu_stats(g.ms);
    assert_int_equal(after->walks - before.walks, 1);
    assert_int_equal(after->joined - before.joined, 1);
    assert_int_equal(after->wait_cycles, before.wait_cycles);
    rig_down(&g);
}

/* Virtual vector L1s (gpu.l1.virtual): CU 0 loads block A, A again, block
 * B of A's page, A again; then CU 1 loads A; one at a time. By the L1s:
 * CU 0 misses A and B and hits A twice, CU 1 misses A, so 3 misses and 2
 * hits. Only the misses are translated, by the shared TLB: 3 lookups, of
 * which only the first misses (one page, one walk, for both CUs); the
 * CUs' own TLBs are never asked. A hit costs the L1's latency alone, the
 * TLB's latency not added. Per-CU TLBs translate all 5 and CU 1 walks the
 * page again. */
static void test_virtual_l1_translates_misses(void **state)
{
    (void)state;
    for (int virt = 0; virt < 2; virt++) {
        struct cgm_memsys_config c = config(false);
        c.gpu_tlb_latency = 1;
        c.gpu_l1_virtual = virt;
        c.gpu_tlb_shared_entries = 64;
        struct rig g;
        rig_up(&g, &c, true);
        static const struct { unsigned cu; uint64_t vaddr; bool hit; } seq[] = {
            { 0, 0x4000, false }, { 0, 0x4000, true }, { 0, 0x4040, false }, { 0, 0x4004, true }, { 1, 0x4000, false },
        };
        for (unsigned i = 0; i < sizeof seq / sizeof seq[0]; i++) {
            struct cgm_gpu_request r = load(seq[i].cu, seq[i].vaddr, CGM_GPU_LOAD);
            rig_run(&g, &r, 1);
            if (seq[i].hit)
                assert_int_equal(g.b.latency[0], c.gpu_l1_latency + (virt ? 0 : c.gpu_tlb_latency));
        }
        const struct cgm_coh_sys *coh = cgm_memsys_coh(g.ms);
        uint64_t misses = cgm_coh_gpu_l1_stats(coh, 0)->misses + cgm_coh_gpu_l1_stats(coh, 1)->misses;
        uint64_t hits = cgm_coh_gpu_l1_stats(coh, 0)->hits + cgm_coh_gpu_l1_stats(coh, 1)->hits;
        assert_int_equal(misses, 3);
        assert_int_equal(hits, 2);
        const struct cgm_mmu *own0 = cgm_memsys_gpu_tlb(g.ms, 0), *own1 = cgm_memsys_gpu_tlb(g.ms, 1);
        const struct cgm_mmu *shared = cgm_memsys_gpu_tlb(g.ms, CUS);
        if (virt) {
            assert_non_null(shared);
            assert_int_equal(shared->st.translations, misses);
            assert_int_equal(shared->st.misses, 1);
            assert_int_equal(own0->st.translations + own1->st.translations, 0);
            assert_int_equal(cgm_memsys_iommu_stats(g.ms)->walks, 1);
        } else {
            assert_null(shared);
            assert_int_equal(own0->st.translations + own1->st.translations, misses + hits);
            assert_int_equal(cgm_memsys_iommu_stats(g.ms)->walks, 2);
        }
        rig_down(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_cache),
        cmocka_unit_test(test_translation_latency),
        cmocka_unit_test(test_iommu_walkers),
        cmocka_unit_test(test_iommu_joins_walks_of_a_page),
        cmocka_unit_test(test_virtual_l1_translates_misses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
