/* The timed memory system with compute units: a vector L1 hit takes the
 * configured L1 latency and a first touch more than the L1 and L2 bank
 * latencies together; in each of the four CPU-GPU organisations random GPU
 * traffic beside CPU traffic completes every request, reads only values
 * stored to the same block, keeps DRAM free of timing violations, counts
 * every request at a vector L1, and repeats exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/memsys.h"
#include "cgm/stats.h"

enum { CORES = 2, CUS = 8, PER_AGENT = 3000, SPAN = 96 /* blocks */ };

struct agent {
    struct world *w;
    int id;                    /* core, or CU */
    bool gpu;
    unsigned issued, done, outstanding;
    uint64_t rng;
};

struct world {
    struct cgm_memsys *ms;
    struct cgm_gpu_mem_port port;
    struct agent a[CORES + CUS];
    uint64_t issue_cycle[CUS][64];
    uint64_t last_latency;
    unsigned bad_values;
    uint64_t end_cycle;
};

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Stored values carry their block number in the upper half. */
static void check_value(struct world *w, uint64_t addr, uint64_t value)
{
    if (value && (value >> 32) != addr / 64)
        w->bad_values++;
}

static void cpu_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value, uint64_t cycle)
{
    struct world *w = ctx;
    (void)tag;
    (void)cycle;
    w->a[core].done++;
    w->a[core].outstanding--;
    if (op == CGM_OP_LOAD)
        check_value(w, addr, value);
}

static void gpu_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    struct world *w = ctx;
    struct agent *a = &w->a[CORES + r->cu];
    a->done++;
    a->outstanding--;
    w->last_latency = gpu_cycle - w->issue_cycle[r->cu][r->tag % 64];
    if (r->op == CGM_GPU_LOAD)
        check_value(w, r->vaddr, value);
}

static void agent_main(void *arg)
{
    struct agent *a = arg;
    struct world *w = a->w;
    while (a->issued < PER_AGENT) {
        if (a->outstanding < 8) {
            uint64_t r = rnd(&a->rng);
            uint64_t addr = (r >> 16) % SPAN * 64 + (r >> 8) % 8 * 8;
            bool store = r % 4 == 0;
            uint64_t value = ((addr / 64) << 32) | (a->issued + 1);
            bool taken;
            if (a->gpu) {
                struct cgm_gpu_request q = { .vaddr = addr, .tag = a->issued, .value = store ? value : 0,
                                             .cu = (uint16_t)a->id, .bytes = 8,
                                             .op = store ? CGM_GPU_STORE : CGM_GPU_LOAD };
                w->issue_cycle[a->id][a->issued % 64] = ks_cycle();
                a->outstanding++; /* completion may come inside the call */
                taken = w->port.access(w->port.ctx, &q);
                if (!taken)
                    a->outstanding--;
            } else {
                a->outstanding++;
                taken = cgm_memsys_access(w->ms, a->id, store ? CGM_OP_STORE : CGM_OP_LOAD, addr, a->issued,
                                          value);
                if (!taken)
                    a->outstanding--;
            }
            if (taken)
                a->issued++;
        }
        ks_pause(1 + rnd(&a->rng) % 3);
    }
}

static struct cgm_memsys_config gpu_cfg(bool coherent, bool shared_llc)
{
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.cores = CORES;
    c.slices = 2;
    c.coh.l1_sets = 2;
    c.coh.l2_sets = 4;
    c.coh.l3_sets = 16;
    c.mem_bytes = 1 << 20;
    c.check_dram = true;
    cgm_memsys_default_gpu(&c, CUS, coherent, shared_llc);
    c.coh.gpu.l1_sets = 2; /* small caches: evictions, recalls, write-backs */
    c.coh.gpu.l2_sets = 4;
    return c;
}

struct run {
    uint64_t cycles, gpu_l1_accesses, gpu_l1_misses, gpu_l2_accesses;
    unsigned bad_values, completed;
};

static uint64_t sum_kind(struct cgm_stats *reg, const uint64_t *values, const char *kind, const char *what)
{
    cgm_stat caches = cgm_stats_find(reg, CGM_STATS_ROOT, "caches");
    uint64_t sum = 0;
    for (unsigned i = 0; i < cgm_stats_count(reg, caches); i++) {
        cgm_stat c = cgm_stats_member(reg, caches, i);
        if (strcmp(cgm_stats_label_of(reg, cgm_stats_find(reg, c, "kind")), kind) == 0)
            sum += (uint64_t)cgm_stats_value(reg, values, cgm_stats_find(reg, c, what));
    }
    return sum;
}

static struct run run_mixed(bool coherent, bool shared_llc)
{
    ks_engine *eng = ks_engine_create(NULL);
    assert_non_null(eng);
    struct cgm_memsys_config c = gpu_cfg(coherent, shared_llc);
    struct cgm_memsys_domains d;
    char err[256] = "";
    assert_int_equal(cgm_memsys_default_domains(eng, &c.dram, &d, err, sizeof err), 0);
    struct world *w = calloc(1, sizeof *w);
    w->ms = cgm_memsys_create(eng, &d, &c, cpu_done, w, err, sizeof err);
    if (!w->ms)
        fail_msg("%s", err);
    w->port = cgm_memsys_gpu_port(w->ms, NULL, gpu_done, w);
    for (int i = 0; i < CORES + CUS; i++) {
        struct agent *a = &w->a[i];
        a->w = w;
        a->gpu = i >= CORES;
        a->id = a->gpu ? i - CORES : i;
        a->rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
        char name[16];
        snprintf(name, sizeof name, "agent%d", i);
        ks_context_opts o = { .name = name, .domain = a->gpu ? d.gpu : d.cpu };
        assert_non_null(ks_context_create_opts(eng, agent_main, a, &o));
    }
    assert_int_equal(ks_run(eng), KS_STOP_IDLE);
    struct run r = { .cycles = ks_domain_cycle(d.gpu), .bad_values = w->bad_values };
    for (int i = 0; i < CORES + CUS; i++)
        r.completed += w->a[i].done;
    struct cgm_stats *reg = cgm_stats_create();
    assert_int_equal(cgm_memsys_stats_register(w->ms, reg, CGM_STATS_ROOT), 0);
    uint64_t *values = calloc(cgm_stats_slots(reg), sizeof *values);
    cgm_stats_read(reg, values);
    r.gpu_l1_accesses = sum_kind(reg, values, "gpu_l1v", "accesses");
    r.gpu_l1_misses = sum_kind(reg, values, "gpu_l1v", "misses");
    r.gpu_l2_accesses = sum_kind(reg, values, "gpu_l2", "accesses");
    assert_string_equal(cgm_memsys_dram_check_error(w->ms), "");
    assert_string_equal(cgm_memsys_gpu_error(w->ms), "");
    free(values);
    cgm_stats_destroy(reg);
    cgm_memsys_stop(w->ms);
    cgm_memsys_destroy(w->ms);
    free(w);
    ks_engine_destroy(eng);
    return r;
}

static void test_four_organisations(void **state)
{
    (void)state;
    static const struct { const char *name; bool coherent, shared_llc; } modes[] = {
        { "NC-MC", false, false }, { "NC-L3", false, true }, { "C-MC", true, false }, { "C-L3", true, true },
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        struct run r = run_mixed(modes[i].coherent, modes[i].shared_llc);
        printf("%s: %u requests in %llu GPU cycles, GPU L1 accesses %llu, L2 %llu\n", modes[i].name, r.completed,
               (unsigned long long)r.cycles, (unsigned long long)r.gpu_l1_accesses,
               (unsigned long long)r.gpu_l2_accesses);
        assert_int_equal(r.completed, (CORES + CUS) * PER_AGENT);
        assert_int_equal(r.bad_values, 0);
        /* every GPU request is performed at its vector L1 once; each miss
         * there asks an L2 bank (which also takes write-backs and retries) */
        assert_int_equal(r.gpu_l1_accesses, (uint64_t)CUS * PER_AGENT);
        assert_true(r.gpu_l1_misses > 0 && r.gpu_l2_accesses >= r.gpu_l1_misses);
        struct run again = run_mixed(modes[i].coherent, modes[i].shared_llc);
        assert_int_equal(again.cycles, r.cycles);
        assert_int_equal(again.gpu_l2_accesses, r.gpu_l2_accesses);
    }
}

/* CU 0 alone: a first touch, then the same block again. */
struct single {
    struct cgm_gpu_mem_port port;
    uint64_t issued, latency;
    unsigned done;
};

static void single_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)r;
    (void)value;
    struct single *s = ctx;
    s->latency = gpu_cycle - s->issued;
    s->done++;
}

static void single_main(void *arg)
{
    struct single *s = arg;
    struct cgm_gpu_request q = { .vaddr = 0x4000, .bytes = 4, .op = CGM_GPU_LOAD };
    s->issued = ks_cycle();
    assert_true(s->port.access(s->port.ctx, &q));
}

static void test_hit_and_miss_latency(void **state)
{
    (void)state;
    static const bool llc[] = { false, true };
    for (int k = 0; k < 2; k++) {
        ks_engine *eng = ks_engine_create(NULL);
        struct cgm_memsys_config c = gpu_cfg(llc[k], llc[k]);
        struct cgm_memsys_domains d;
        char err[256] = "";
        assert_int_equal(cgm_memsys_default_domains(eng, &c.dram, &d, err, sizeof err), 0);
        struct cgm_memsys *ms = cgm_memsys_create(eng, &d, &c, NULL, NULL, err, sizeof err);
        if (!ms)
            fail_msg("%s", err);
        struct single s = { .port = cgm_memsys_gpu_port(ms, NULL, single_done, &s) };
        ks_context_opts o = { .name = "cu", .domain = d.gpu };
        assert_non_null(ks_context_create_opts(eng, single_main, &s, &o));
        assert_int_equal(ks_run(eng), KS_STOP_IDLE);
        assert_int_equal(s.done, 1);
        uint64_t miss = s.latency;
        assert_non_null(ks_context_create_opts(eng, single_main, &s, &o));
        assert_int_equal(ks_run(eng), KS_STOP_IDLE);
        assert_int_equal(s.done, 2);
        assert_int_equal(s.latency, c.gpu_l1_latency);
        /* the miss crossed the crossbar twice, the bank, and the ring to
         * the L3 or the memory controller and back */
        assert_true(miss > c.gpu_l1_latency + c.gpu_l2_latency + 2);
        cgm_memsys_stop(ms);
        cgm_memsys_destroy(ms);
        ks_engine_destroy(eng);
    }
}

/* Coherent organisations share the process's pages; non-coherent ones put
 * the GPU's data on frames of their own. */
static void test_pages_of_each_organisation(void **state)
{
    (void)state;
    for (int coherent = 0; coherent < 2; coherent++) {
        ks_engine *eng = ks_engine_create(NULL);
        struct cgm_memsys_config c = gpu_cfg(coherent, true);
        struct cgm_memsys_domains d;
        char err[256] = "";
        assert_int_equal(cgm_memsys_default_domains(eng, &c.dram, &d, err, sizeof err), 0);
        struct cgm_memsys *ms = cgm_memsys_create(eng, &d, &c, NULL, NULL, err, sizeof err);
        if (!ms)
            fail_msg("%s", err);
        struct cgm_page_table_config ptc = { .page_bits = 12, .frames = c.mem_bytes >> 12 };
        struct cgm_page_table *pt = cgm_page_table_create(&ptc);
        uint64_t cpu_pfn, gpu_pfn;
        assert_true(cgm_page_table_map(pt, 0, 0x4000 >> 12, &cpu_pfn)); /* the CPU touched it first */
        struct single s = { .port = cgm_memsys_gpu_port(ms, pt, single_done, &s) };
        ks_context_opts o = { .name = "cu", .domain = d.gpu };
        assert_non_null(ks_context_create_opts(eng, single_main, &s, &o));
        assert_int_equal(ks_run(eng), KS_STOP_IDLE);
        assert_int_equal(s.done, 1);
        assert_string_equal(cgm_memsys_gpu_error(ms), "");
        if (coherent) {
            assert_int_equal(cgm_page_table_mapped(pt), 1);
        } else {
            assert_int_equal(cgm_page_table_mapped(pt), 2);
            assert_true(cgm_page_table_lookup(pt, 1, 0x4000 >> 12, &gpu_pfn));
            assert_true(gpu_pfn != cpu_pfn);
        }
        cgm_memsys_stop(ms);
        cgm_memsys_destroy(ms);
        cgm_page_table_destroy(pt);
        ks_engine_destroy(eng);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hit_and_miss_latency),
        cmocka_unit_test(test_pages_of_each_organisation),
        cmocka_unit_test(test_four_organisations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
