/* The timed memory system: an L1 hit takes the configured L1 latency, a
 * miss costs more and a DRAM miss more still; multi-core random traffic
 * over a small hierarchy completes every request, returns only values
 * stored to the same address, drives DRAM without a timing violation, and
 * repeats exactly with the same seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cJSON.h>

#include "cgm/memsys.h"
#include "tests/unit/memsys_small.h"

struct drv {
    struct cgm_memsys *ms;
    int core;
    unsigned n, issued, done, outstanding, k;
    uint64_t rng, span;
    uint64_t last_latency;
    unsigned bad_values;
};

struct world {
    struct drv d[8];
    uint64_t issue_cycle[8][64];
};

static struct world *W;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void on_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                    uint64_t cycle)
{
    struct world *w = ctx;
    struct drv *d = &w->d[core];
    d->done++;
    d->outstanding--;
    d->last_latency = cycle - w->issue_cycle[core][tag % 64];
    /* Stored values carry their block number in the upper half. */
    if (op != CGM_OP_STORE && value && (value >> 32) != addr / 64)
        d->bad_values++;
}

static void driver(void *arg)
{
    struct drv *d = arg;
    while (d->issued < d->n) {
        if (d->outstanding < d->k) {
            uint64_t r = rnd(&d->rng);
            uint64_t addr = (r >> 16) % d->span * 64;
            uint8_t op = r % 4 == 0 ? CGM_OP_STORE : CGM_OP_LOAD;
            uint64_t value = ((addr / 64) << 32) | (d->issued + 1);
            uint64_t tag = d->issued;
            W->issue_cycle[d->core][tag % 64] = ks_cycle();
            if (cgm_memsys_access(d->ms, d->core, op, addr, tag, value)) {
                d->issued++;
                d->outstanding++;
            }
        }
        ks_pause(1 + rnd(&d->rng) % 3);
    }
}

/* The memory system in the built-in clock domains. */
static struct cgm_memsys *create_ms(ks_engine *eng, const struct cgm_memsys_config *c, cgm_memsys_done_fn done,
                                    void *ctx, char *err, size_t errlen)
{
    struct cgm_memsys_domains d;
    if (cgm_memsys_default_domains(eng, &c->dram, &d, err, errlen))
        return NULL;
    return cgm_memsys_create(eng, &d, c, done, ctx, err, errlen);
}

static struct cgm_memsys_config small_cfg(void) { return memsys_small_config(); }

/* One request at a time from core 0; returns its latency in CPU cycles. */
struct single {
    struct cgm_memsys *ms;
    uint64_t addr;
    uint8_t op;
    uint64_t latency;
    bool done;
};

static void single_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                        uint64_t cycle)
{
    (void)core;
    (void)op;
    (void)addr;
    (void)value;
    struct single *s = ctx;
    s->latency = cycle - tag;
    s->done = true;
}

static void single_main(void *arg)
{
    struct single *s = arg;
    s->done = false;
    assert_true(cgm_memsys_access(s->ms, 0, s->op, s->addr, ks_cycle(), 7));
}

static uint64_t one_access(ks_engine *eng, struct single *s, uint64_t addr, uint8_t op)
{
    s->addr = addr;
    s->op = op;
    ks_context_opts o = { .name = "cpu", .domain = cgm_memsys_cpu_domain(s->ms) };
    assert_non_null(ks_context_create_opts(eng, single_main, s, &o));
    assert_int_equal(ks_run(eng), KS_STOP_IDLE);
    assert_true(s->done);
    return s->latency;
}

static void test_hit_and_miss_latency(void **state)
{
    (void)state;
    ks_engine *eng = ks_engine_create(NULL);
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.check_dram = true;
    struct single s = { 0 };
    char err[200];
    s.ms = create_ms(eng, &c, single_done, &s, err, sizeof err);
    assert_non_null(s.ms);
    uint64_t cold = one_access(eng, &s, 4096, CGM_OP_LOAD);
    uint64_t hit = one_access(eng, &s, 4096 + 8, CGM_OP_LOAD);
    uint64_t store_hit = one_access(eng, &s, 4096, CGM_OP_STORE); /* E -> M, silently */
    assert_int_equal(hit, c.l1_latency);
    assert_int_equal(store_hit, c.l1_latency);
    /* Eight more blocks in the same L1 set (64 sets of 64 B: 4 KB apart)
     * push the first out of the 8-way L1, not out of the 512-set L2: it
     * comes back at the L1 plus the L2 latency. */
    for (uint64_t k = 1; k <= 8; k++)
        one_access(eng, &s, 4096 + k * 4096, CGM_OP_LOAD);
    uint64_t l2_hit = one_access(eng, &s, 4096, CGM_OP_LOAD);
    assert_int_equal(l2_hit, c.l1_latency + c.l2_latency);
    /* A miss crosses the ring to the slice and DRAM and back: more than
     * both cache latencies and the DRAM's idle closed-row read time
     * (tRCD + CL + BL/2 at 1.25 ns = 32.5 ns = 130 CPU cycles at 4 GHz). */
    assert_true(cold > c.l1_latency + c.l2_latency + c.l3_latency + 130);
    assert_int_equal(cgm_memsys_stats(s.ms)->dram_violations, 0);
    assert_int_equal(cgm_memsys_stats(s.ms)->mem_reads, 9);
    printf("latency: L1 hit %llu, L2 hit %llu, cold miss %llu CPU cycles\n", (unsigned long long)hit,
           (unsigned long long)l2_hit, (unsigned long long)cold);
    cgm_memsys_stop(s.ms);
    cgm_memsys_destroy(s.ms);
    ks_engine_destroy(eng);
}

static uint64_t random_run(const struct cgm_memsys_config *c, unsigned cores, unsigned n,
                           uint64_t seed, uint64_t span, struct cgm_memsys_stats *out, bool print)
{
    ks_engine *eng = ks_engine_create(NULL);
    struct world *w = calloc(1, sizeof *w);
    W = w;
    char err[200];
    struct cgm_memsys_config cc = *c;
    cc.cores = cores;
    struct cgm_memsys *ms = create_ms(eng, &cc, on_done, w, err, sizeof err);
    if (!ms)
        fail_msg("%s", err);
    for (unsigned i = 0; i < cores; i++) {
        w->d[i] = (struct drv){ .ms = ms, .core = (int)i, .n = n, .k = 6, .rng = seed * 977 + i + 1,
                                .span = span };
        ks_context_opts o = { .name = "driver", .domain = cgm_memsys_cpu_domain(ms) };
        assert_non_null(ks_context_create_opts(eng, driver, &w->d[i], &o));
    }
    assert_int_equal(ks_run(eng), KS_STOP_IDLE);
    for (unsigned i = 0; i < cores; i++) {
        assert_int_equal(w->d[i].done, n);
        assert_int_equal(w->d[i].bad_values, 0);
    }
    const struct cgm_memsys_stats *st = cgm_memsys_stats(ms);
    if (st->dram_violations)
        fail_msg("DRAM timing: %s", cgm_memsys_dram_check_error(ms));
    assert_int_equal(st->completed, (uint64_t)n * cores);
    *out = *st;
    uint64_t now = ks_now(eng);
    if (print) {
        /* The statistics parse as JSON and agree with the counts above. */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_int_equal(cgm_memsys_write_json(ms, f), 0);
        fclose(f);
        cJSON *j = cJSON_Parse(buf);
        assert_non_null(j);
        cJSON *req = cJSON_GetObjectItem(j, "memory_requests");
        assert_non_null(req);
        assert_int_equal((uint64_t)cJSON_GetObjectItem(req, "completed")->valuedouble, st->completed);
        assert_int_equal((uint64_t)cJSON_GetObjectItem(req, "memory_reads")->valuedouble, st->mem_reads);
        cJSON *dram = cJSON_GetObjectItem(j, "dram");
        assert_non_null(dram);
        assert_int_equal((uint64_t)cJSON_GetObjectItem(dram, "reads")->valuedouble, st->mem_reads);
        /* an L1I, L1D and L2 per core, then the L3 slices */
        cJSON *caches = cJSON_GetObjectItem(j, "caches");
        assert_int_equal(cJSON_GetArraySize(caches), (int)(3 * cores + cgm_memsys_config_of(ms)->slices));
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(caches, 1), "kind")->valuestring, "l1d");
        assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "network"), "switches"));
        assert_non_null(cJSON_GetObjectItem(j, "coherence_messages"));
        cJSON_Delete(j);
        free(buf);
    }
    cgm_memsys_stop(ms);
    cgm_memsys_destroy(ms);
    ks_engine_destroy(eng);
    free(w);
    return now;
}

static void test_random_traffic_small_hierarchy(void **state)
{
    (void)state;
    struct cgm_memsys_config c = small_cfg();
    struct cgm_memsys_stats st;
    random_run(&c, 8, 20000, 1, 256, &st, true);
    assert_true(st.mem_reads > 1000 && st.mem_writes > 100);
    printf("small hierarchy: %llu requests, average latency %.1f CPU cycles, %llu DRAM reads, %llu writes\n",
           (unsigned long long)st.completed, (double)st.latency_sum / (double)st.completed,
           (unsigned long long)st.mem_reads, (unsigned long long)st.mem_writes);
    c.slices = 2;
    c.net.queue_size = 2;
    c.rx_queue = 1;
    c.mc_queue = 2;
    c.dram.queue_size = 2;
    random_run(&c, 4, 10000, 2, 64, &st, false);
}

static void test_deterministic(void **state)
{
    (void)state;
    struct cgm_memsys_config c = small_cfg();
    struct cgm_memsys_stats a, b;
    uint64_t ta = random_run(&c, 4, 5000, 9, 128, &a, false);
    uint64_t tb = random_run(&c, 4, 5000, 9, 128, &b, false);
    assert_int_equal(ta, tb);
    assert_memory_equal(&a, &b, sizeof a);
}

/* ---- scripted single-core sweeps ----------------------------------------- */

struct script {
    struct cgm_memsys *ms;
    const uint64_t *addr;     /* bit 0 set: a store */
    unsigned n, next, outstanding, k, done;
};

static void script_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                        uint64_t cycle)
{
    (void)core;
    (void)tag;
    (void)op;
    (void)addr;
    (void)value;
    (void)cycle;
    struct script *s = ctx;
    s->outstanding--;
    s->done++;
}

static void script_main(void *arg)
{
    struct script *s = arg;
    while (s->next < s->n) {
        uint64_t a = s->addr[s->next];
        uint8_t op = a & 1 ? CGM_OP_STORE : CGM_OP_LOAD;
        if (s->outstanding < s->k && cgm_memsys_access(s->ms, 0, op, a & ~1ull, s->next, s->next + 1)) {
            s->next++;
            s->outstanding++;
        }
        ks_pause(1);
    }
}

static struct cgm_memsys *run_script(ks_engine *eng, struct script *s, const struct cgm_memsys_config *c)
{
    char err[200];
    s->ms = create_ms(eng, c, script_done, s, err, sizeof err);
    if (!s->ms)
        fail_msg("%s", err);
    ks_context_opts o = { .name = "cpu", .domain = cgm_memsys_cpu_domain(s->ms) };
    assert_non_null(ks_context_create_opts(eng, script_main, s, &o));
    assert_int_equal(ks_run(eng), KS_STOP_IDLE);
    assert_int_equal(s->done, s->n);
    return s->ms;
}

/* Every node's sent and received messages add up to the system's count of
 * each type (each message has one sender and one receiver). */
static void check_msg_sums(const struct cgm_memsys *ms, unsigned cores, unsigned slices)
{
    const uint64_t *all = cgm_coh_msg_counts(cgm_memsys_coh(ms));
    for (int t = 0; t < COH_NTYPES; t++) {
        uint64_t snt = 0, rcv = 0;
        for (unsigned c = 0; c < cores; c++) {
            snt += cgm_memsys_l2_msgs(ms, (int)c)->sent[t];
            rcv += cgm_memsys_l2_msgs(ms, (int)c)->received[t];
        }
        for (unsigned i = 0; i < slices; i++) {
            snt += cgm_memsys_l3_msgs(ms, (int)i)->sent[t];
            rcv += cgm_memsys_l3_msgs(ms, (int)i)->received[t];
        }
        assert_int_equal(snt, all[t]);
        assert_int_equal(rcv, all[t]);
    }
    assert_null(cgm_memsys_l2_msgs(ms, (int)cores));
    assert_null(cgm_memsys_l3_msgs(ms, -1));
}

/* One core writes N blocks once, then reads 2N blocks (those and N never
 * written) twice. N is twice the L2, so every block leaves the L2 after
 * its write: exactly N blocks are written back, each once; the rest of
 * the L2's evictions are clean (a notice without data, or silent). The
 * L3 (8 MB) holds all 2N blocks: nothing reaches DRAM as a write, and
 * DRAM reads each block once. */
static void test_read_sweep_writes_back_only_written_blocks(void **state)
{
    (void)state;
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.check_dram = true;
    const unsigned n = 2 * c.coh.l2_sets * c.coh.l2_ways, base = 1 << 20;
    unsigned total = n + 2 * 2 * n;
    uint64_t *addr = malloc(total * sizeof *addr);
    unsigned k = 0;
    for (unsigned b = 0; b < n; b++)
        addr[k++] = base + (uint64_t)b * 64 + 8 + 1;
    for (unsigned r = 0; r < 2; r++)
        for (unsigned b = 0; b < 2 * n; b++)
            addr[k++] = base + (uint64_t)b * 64;
    ks_engine *eng = ks_engine_create(NULL);
    struct script s = { .addr = addr, .n = total, .k = 8 };
    struct cgm_memsys *ms = run_script(eng, &s, &c);

    const struct cgm_coh_core_stats *cs = cgm_coh_core_stats(cgm_memsys_coh(ms), 0);
    assert_int_equal(cs->writebacks, n);
    assert_true(cs->l2_evictions >= cs->writebacks + cs->clean_evictions);
    assert_true(cs->clean_evictions > 0);
    const struct cgm_coh_msg_stats *l2m = cgm_memsys_l2_msgs(ms, 0);
    assert_int_equal(l2m->sent[COH_WB], n);
    assert_int_equal(l2m->sent[COH_EVICT], cs->clean_evictions);
    assert_int_equal(l2m->received[COH_WB_ACK], n + cs->clean_evictions);
    uint64_t wb_at_l3 = 0, mem_writes = 0;
    for (int i = 0; i < (int)c.slices; i++) {
        wb_at_l3 += cgm_memsys_l3_msgs(ms, i)->received[COH_WB];
        mem_writes += cgm_coh_slice_stats(cgm_memsys_coh(ms), i)->mem_writes;
    }
    assert_int_equal(wb_at_l3, n);
    assert_int_equal(mem_writes, 0);
    const struct cgm_memsys_stats *st = cgm_memsys_stats(ms);
    assert_int_equal(st->mem_writes, 0);
    assert_int_equal(cgm_dram_stats(cgm_memsys_dram(ms))->writes, 0);
    assert_int_equal(st->mem_reads, 2 * n);
    assert_int_equal(st->dram_violations, 0);
    check_msg_sums(ms, c.cores, c.slices);
    cgm_memsys_stop(ms);
    cgm_memsys_destroy(ms);
    ks_engine_destroy(eng);
    free(addr);
}

/* Eight loads to each of M new blocks, issued back to back: the first
 * misses, the other seven find its miss in flight (a DRAM miss takes far
 * longer than eight cycles) and join it: 7 M secondary misses, and the
 * fetches of an instruction stream over the same blocks add none. */
static void test_secondary_misses_data_cache_only(void **state)
{
    (void)state;
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    const unsigned m = 40;
    uint64_t addr[40 * 8];
    for (unsigned b = 0; b < m; b++)
        for (unsigned w = 0; w < 8; w++)
            addr[b * 8 + w] = (1u << 22) + (uint64_t)b * 4096 + w * 8;
    ks_engine *eng = ks_engine_create(NULL);
    struct script s = { .addr = addr, .n = m * 8, .k = 8 };
    struct cgm_memsys *ms = run_script(eng, &s, &c);
    const struct cgm_coh_core_stats *cs = cgm_coh_core_stats(cgm_memsys_coh(ms), 0);
    assert_int_equal(cs->l1d_secondary_misses, 7 * m);
    assert_int_equal(cs->l2_misses, m);
    check_msg_sums(ms, c.cores, c.slices);
    cgm_memsys_stop(ms);
    cgm_memsys_destroy(ms);
    ks_engine_destroy(eng);
}

/* A core's L1 with an MSHR file of its own below the L2's: with one entry,
 * eight loads of cold blocks (queued at once) miss one after the other,
 * each taken only when the one before is done, so consecutive answers are
 * at least an L2 and an L3 access apart; with the L2's file alone they
 * overlap. */
struct burst {
    struct cgm_memsys *ms;
    uint64_t done_at[8];
    unsigned done;
};

static void burst_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                       uint64_t cycle)
{
    (void)core;
    (void)op;
    (void)addr;
    (void)value;
    struct burst *b = ctx;
    b->done_at[tag] = cycle;
    b->done++;
}

static void burst_main(void *arg)
{
    struct burst *b = arg;
    for (uint64_t i = 0; i < 8; i++)
        assert_true(cgm_memsys_access(b->ms, 0, CGM_OP_LOAD, (i + 1) * 8192, i, 0));
}

static void test_l1_mshr_of_its_own(void **state)
{
    (void)state;
    for (unsigned cap = 0; cap <= 1; cap++) {
        ks_engine *eng = ks_engine_create(NULL);
        struct cgm_memsys_config c;
        cgm_memsys_default_config(&c);
        c.l1d_mshr = cap;
        struct burst b = { 0 };
        char err[200];
        b.ms = create_ms(eng, &c, burst_done, &b, err, sizeof err);
        if (!b.ms)
            fail_msg("%s", err);
        ks_context_opts o = { .name = "cpu", .domain = cgm_memsys_cpu_domain(b.ms) };
        assert_non_null(ks_context_create_opts(eng, burst_main, &b, &o));
        assert_int_equal(ks_run(eng), KS_STOP_IDLE);
        assert_int_equal(b.done, 8);
        uint64_t min_gap = UINT64_MAX;
        for (unsigned i = 1; i < 8; i++) {
            uint64_t gap = b.done_at[i] > b.done_at[i - 1] ? b.done_at[i] - b.done_at[i - 1] : 0;
            min_gap = gap < min_gap ? gap : min_gap;
        }
        printf("L1 MSHR %s: answers at least %llu cycles apart\n", cap ? "1" : "the L2's",
               (unsigned long long)min_gap);
        if (cap)
            assert_true(min_gap >= c.l2_latency + c.l3_latency);
        else
            assert_true(min_gap < c.l2_latency + c.l3_latency);
        cgm_memsys_stop(b.ms);
        cgm_memsys_destroy(b.ms);
        ks_engine_destroy(eng);
    }
}

/* A burst of misses from every core, cut off while packets are still in the
 * ring: destroying the system then must free them (AddressSanitizer's leak
 * check in `make check-asan` fails otherwise). */
static void burst(void *arg)
{
    struct drv *d = arg;
    for (unsigned i = 0; i < d->k; i++)
        d->issued += cgm_memsys_access(d->ms, d->core, CGM_OP_LOAD, (uint64_t)(d->core * 64 + i) * 4096,
                                       i, 0);
}

static void test_destroy_with_requests_in_flight(void **state)
{
    (void)state;
    ks_engine *eng = ks_engine_create(NULL);
    struct world *w = calloc(1, sizeof *w);
    W = w;
    char err[200];
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    struct cgm_memsys *ms = create_ms(eng, &c, on_done, w, err, sizeof err);
    assert_non_null(ms);
    for (unsigned i = 0; i < c.cores; i++) {
        w->d[i] = (struct drv){ .ms = ms, .core = (int)i, .k = 8 };
        ks_context_opts o = { .name = "burst", .domain = cgm_memsys_cpu_domain(ms) };
        assert_non_null(ks_context_create_opts(eng, burst, &w->d[i], &o));
    }
    /* 30 CPU cycles: past the L1 and L2 latencies, long before DRAM answers. */
    assert_int_equal(ks_run_cycles(eng, cgm_memsys_cpu_domain(ms), 30), KS_STOP_LIMIT);
    assert_true(cgm_net_packets_in_flight(cgm_memsys_net(ms)) > 0);
    assert_int_equal(cgm_memsys_stats(ms)->completed, 0);
    cgm_memsys_stop(ms);
    cgm_memsys_destroy(ms);
    ks_engine_destroy(eng);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hit_and_miss_latency),
        cmocka_unit_test(test_random_traffic_small_hierarchy),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_read_sweep_writes_back_only_written_blocks),
        cmocka_unit_test(test_secondary_misses_data_cache_only),
        cmocka_unit_test(test_l1_mshr_of_its_own),
        cmocka_unit_test(test_destroy_with_requests_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
