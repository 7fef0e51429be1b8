/* Several memory controllers and GPU hubs: a known address stream splits
 * over the controllers as the interleave's arithmetic says (by block, by
 * page, in ranges), every request completes, the controllers' DRAM counts
 * add up to what one controller sees of the same stream, the statistics
 * keep controller 0's and hub 0's paths, GPU banks reach memory through
 * their own hubs, and bad configurations name the field that is wrong. */
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

/* A small CPU hierarchy over 1 MiB (16384 blocks) with the DRAM checker on:
 * the L3 holds 4 slices x 8 sets x 4 ways = 128 blocks. */
static struct cgm_memsys_config small_cfg(unsigned controllers, uint64_t interleave)
{
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.coh.l1_sets = 2;
    c.coh.l1_ways = 2;
    c.coh.l2_sets = 4;
    c.coh.l2_ways = 2;
    c.coh.l1_wb_entries = 1;
    c.coh.l3_sets = 8;
    c.coh.l3_ways = 4;
    c.coh.mshr = 4;
    c.coh.coalesce = 4;
    c.coh.wb_entries = 2;
    c.coh.l3_wb_entries = 4;
    c.mem_bytes = 1 << 20;
    c.check_dram = true;
    c.mem_controllers = controllers;
    c.mem_interleave = interleave;
    return c;
}

struct system {
    ks_engine *eng;
    struct cgm_memsys_domains d;
    struct cgm_memsys *ms;
};

static struct system system_create(const struct cgm_memsys_config *c, cgm_memsys_done_fn done, void *ctx)
{
    struct system s = { .eng = ks_engine_create(NULL) };
    char err[256] = "";
    assert_non_null(s.eng);
    assert_int_equal(cgm_memsys_default_domains(s.eng, &c->dram, &s.d, err, sizeof err), 0);
    s.ms = cgm_memsys_create(s.eng, &s.d, c, done, ctx, err, sizeof err);
    if (!s.ms)
        fail_msg("%s", err);
    return s;
}

static void system_destroy(struct system *s)
{
    cgm_memsys_stop(s->ms);
    cgm_memsys_destroy(s->ms);
    ks_engine_destroy(s->eng);
}

/* ---- one core, one request at a time, over a list of blocks ------------- */

struct walk {
    struct cgm_memsys *ms;
    const uint64_t *blocks;
    unsigned n, done;
    uint8_t op;
    bool waiting;
};

static void walk_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                      uint64_t cycle)
{
    (void)core;
    (void)op;
    (void)addr;
    (void)value;
    (void)cycle;
    struct walk *w = ctx;
    assert_int_equal(tag, w->done);
    w->done++;
    w->waiting = false;
}

static void walk_main(void *arg)
{
    struct walk *w = arg;
    for (unsigned i = 0; i < w->n; i++) {
        w->waiting = true;
        while (!cgm_memsys_access(w->ms, 0, w->op, w->blocks[i] * 64, i, i + 1))
            ks_pause(1);
        while (w->waiting)
            ks_pause(1);
    }
}

/* Runs the walk over blocks on a system of c; every request completes and
 * no DRAM timing is violated. The caller destroys the system. */
static struct system run_walk(const struct cgm_memsys_config *c, const uint64_t *blocks, unsigned n, uint8_t op)
{
    struct walk *w = calloc(1, sizeof *w);
    struct system s = system_create(c, walk_done, w);
    *w = (struct walk){ .ms = s.ms, .blocks = blocks, .n = n, .op = op };
    ks_context_opts o = { .name = "core", .domain = s.d.cpu };
    assert_non_null(ks_context_create_opts(s.eng, walk_main, w, &o));
    assert_int_equal(ks_run(s.eng), KS_STOP_IDLE);
    assert_int_equal(w->done, n);
    assert_int_equal(cgm_memsys_stats(s.ms)->completed, n);
    assert_int_equal(cgm_memsys_stats(s.ms)->dram_violations, 0);
    assert_string_equal(cgm_memsys_dram_check_error(s.ms), "");
    free(w);
    return s;
}

/* Controller i took `reads` reads and no write, and its DRAM did them. */
static void expect_reads(const struct cgm_memsys *ms, unsigned i, uint64_t reads)
{
    const struct cgm_memsys_mc_stats *st = cgm_memsys_controller_stats(ms, i);
    const struct cgm_dram_stats *d = cgm_dram_stats(cgm_memsys_controller_dram(ms, i));
    print_message("controller %u: %llu reads (expected %llu)\n", i, (unsigned long long)st->reads,
                  (unsigned long long)reads);
    assert_int_equal(st->reads, reads);
    assert_int_equal(st->writes, 0);
    assert_int_equal(d->reads, reads);
    assert_int_equal(d->writes, 0);
}

/* Loads of distinct blocks, each read from memory once (no block is
 * written, so nothing is written back), split by the hand counts below. */
static void test_streams_split_by_the_arithmetic(void **state)
{
    (void)state;
    uint64_t *b = calloc(400, sizeof *b);
    for (unsigned i = 0; i < 302; i++)
        b[i] = i;
    /* By block over 4: blocks 0..301, controller = block mod 4: 0, 4, ...,
     * 300 (76); 1, ..., 301 (76); 2, ..., 298 (75); 3, ..., 299 (75). */
    struct cgm_memsys_config c = small_cfg(4, 64);
    struct system s = run_walk(&c, b, 302, CGM_OP_LOAD);
    assert_int_equal(cgm_memsys_controllers(s.ms), 4);
    static const uint64_t by_block[4] = { 76, 76, 75, 75 };
    for (unsigned i = 0; i < 4; i++)
        expect_reads(s.ms, i, by_block[i]);
    system_destroy(&s);

    /* By page (4 KiB, 64 blocks) over 2: blocks 0..299 are pages 0-3 and
     * the first 44 blocks of page 4; even pages (0, 2, 4) 64 + 64 + 44 =
     * 172 blocks, odd ones 128. */
    c = small_cfg(2, 4096);
    s = run_walk(&c, b, 300, CGM_OP_LOAD);
    expect_reads(s.ms, 0, 172);
    expect_reads(s.ms, 1, 128);
    system_destroy(&s);

    /* Ranges over 2: 16384 blocks, 8192 each; 100 blocks from 0 and 50
     * from 8192. */
    for (unsigned i = 0; i < 50; i++)
        b[100 + i] = 8192 + i;
    c = small_cfg(2, 0);
    s = run_walk(&c, b, 150, CGM_OP_LOAD);
    expect_reads(s.ms, 0, 100);
    expect_reads(s.ms, 1, 50);
    system_destroy(&s);

    /* Ranges over 3: ceil(16384 / 3) = 5462 blocks each, the last 5460. */
    c = small_cfg(3, 0);
    static const uint64_t edges[][2] = { { 0, 0 }, { 5461, 0 }, { 5462, 1 }, { 10923, 1 }, { 10924, 2 }, { 16383, 2 } };
    const uint64_t at[6] = { 0, 5461, 5462, 10923, 10924, 16383 };
    s = run_walk(&c, at, 6, CGM_OP_LOAD);
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(cgm_memsys_controller_of(s.ms, edges[i][0] * 64 + 63), edges[i][1]);
    for (unsigned i = 0; i < 3; i++)
        expect_reads(s.ms, i, 2);
    system_destroy(&s);
    free(b);
}

/* Stores to 600 distinct blocks, one at a time: each block is read from
 * memory once, and written back when the L3 evicts it. The L3 (inclusive:
 * 4 slices x 8 sets x 4 ways, slice and set the block's low 5 bits) keeps
 * the last 4 blocks of each slice and set, and as 27 is odd, blocks 27 i
 * of any 128 consecutive i fall 4 in each of the 32: 600 - 128 blocks are
 * written back, whatever the memory's timing. Spread over two controllers
 * by block or by page, or three in ranges, the controllers' counts add up
 * to that. */
static void test_controllers_add_up_to_one(void **state)
{
    (void)state;
    enum { N = 600 };
    uint64_t b[N];
    for (unsigned i = 0; i < N; i++)
        b[i] = (uint64_t)i * 27; /* distinct, spread over all 16384 blocks */
    struct cgm_memsys_config c = small_cfg(1, 64);
    struct system one = run_walk(&c, b, N, CGM_OP_STORE);
    const struct cgm_dram_stats *d1 = cgm_dram_stats(cgm_memsys_dram(one.ms));
    assert_int_equal(d1->reads, N);
    assert_int_equal(d1->writes, N - 128);
    static const struct { unsigned n; uint64_t interleave; } split[] = { { 2, 64 }, { 2, 4096 }, { 3, 0 } };
    for (size_t k = 0; k < sizeof split / sizeof split[0]; k++) {
        c = small_cfg(split[k].n, split[k].interleave);
        struct system s = run_walk(&c, b, N, CGM_OP_STORE);
        uint64_t reads = 0, writes = 0;
        for (unsigned i = 0; i < split[k].n; i++) {
            const struct cgm_dram_stats *d = cgm_dram_stats(cgm_memsys_controller_dram(s.ms, i));
            const struct cgm_memsys_mc_stats *st = cgm_memsys_controller_stats(s.ms, i);
            assert_int_equal(st->reads, d->reads);
            assert_int_equal(st->writes, d->writes);
            assert_true(d->reads > 0);
            reads += d->reads;
            writes += d->writes;
        }
        print_message("%u controllers, interleave %llu: %llu reads, %llu writes (one: %llu, %llu)\n", split[k].n,
                      (unsigned long long)split[k].interleave, (unsigned long long)reads,
                      (unsigned long long)writes, (unsigned long long)d1->reads, (unsigned long long)d1->writes);
        assert_int_equal(reads, d1->reads);
        assert_int_equal(writes, d1->writes);
        assert_int_equal(cgm_memsys_stats(s.ms)->mem_reads, reads);
        assert_int_equal(cgm_memsys_stats(s.ms)->mem_writes, writes);
        system_destroy(&s);
    }
    system_destroy(&one);
}

/* ---- the statistics' paths --------------------------------------------- */

static double value_at(struct cgm_stats *reg, const uint64_t *values, const char *path)
{
    cgm_stat x = cgm_stats_find(reg, CGM_STATS_ROOT, path);
    if (x < 0)
        fail_msg("no statistic %s", path);
    return cgm_stats_value(reg, values, x);
}

/* One controller: today's paths only. Two: "dram" is controller 0's, and
 * "memory_controllers" holds both, the first pointing at "dram". */
static void test_statistics_paths(void **state)
{
    (void)state;
    uint64_t b[10];
    for (unsigned i = 0; i < 10; i++)
        b[i] = i * 3; /* controller (by block over 2) 0, 1, 0, 1, ...: 5 each */
    for (unsigned n = 1; n <= 2; n++) {
        struct cgm_memsys_config c = small_cfg(n, 64);
        struct system s = run_walk(&c, b, 10, CGM_OP_LOAD);
        struct cgm_stats *reg = cgm_stats_create();
        assert_int_equal(cgm_memsys_stats_register(s.ms, reg, CGM_STATS_ROOT), 0);
        uint64_t *v = calloc(cgm_stats_slots(reg), sizeof *v);
        cgm_stats_read(reg, v);
        assert_true(value_at(reg, v, "memory_requests.memory_reads") == 10);
        assert_true(value_at(reg, v, "dram.reads") == (n == 1 ? 10 : 5));
        assert_true(value_at(reg, v, "dram.timing_violations") == 0);
        if (n == 1) {
            assert_true(cgm_stats_find(reg, CGM_STATS_ROOT, "memory_controllers") < 0);
        } else {
            assert_true(value_at(reg, v, "memory_controllers.0.id") == 0);
            assert_true(value_at(reg, v, "memory_controllers.0.memory_reads") == 5);
            assert_string_equal(cgm_stats_label_of(reg, cgm_stats_find(reg, CGM_STATS_ROOT,
                                                                       "memory_controllers.0.dram_in")),
                                "dram");
            assert_true(cgm_stats_find(reg, CGM_STATS_ROOT, "memory_controllers.0.dram") < 0);
            assert_true(value_at(reg, v, "memory_controllers.1.id") == 1);
            assert_true(value_at(reg, v, "memory_controllers.1.memory_reads") == 5);
            assert_true(value_at(reg, v, "memory_controllers.1.dram.reads") == 5);
            assert_true(value_at(reg, v, "memory_controllers.1.dram.timing_violations") == 0);
            assert_true(cgm_stats_find(reg, CGM_STATS_ROOT, "memory_controllers.2") < 0);
        }
        free(v);
        cgm_stats_destroy(reg);
        system_destroy(&s);
    }
}

/* ---- the GPU's banks through their hubs -------------------------------- */

enum { CUS = 8, STREAM = 320 };

struct stream {
    struct cgm_gpu_mem_port port;
    unsigned next, done, in_flight;
};

static void stream_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)r;
    (void)value;
    (void)gpu_cycle;
    struct stream *s = ctx;
    s->done++;
    s->in_flight--;
}

/* Blocks 0..STREAM-1, block i from CU i mod CUS, 8 in flight. */
static void stream_main(void *arg)
{
    struct stream *s = arg;
    while (s->next < STREAM) {
        if (s->in_flight < 8) {
            struct cgm_gpu_request q = { .vaddr = (uint64_t)s->next * 64, .bytes = 4,
                                         .cu = (uint16_t)(s->next % CUS), .op = CGM_GPU_LOAD };
            s->in_flight++; /* the answer may come inside the call */
            if (s->port.access(s->port.ctx, &q))
                s->next++;
            else
                s->in_flight--;
        }
        ks_pause(1);
    }
}

/* NC-MC with 8 CUs (2 banks: bank = block mod 2), 2 hubs (bank b through
 * hub b) and 2 controllers by page: every load misses the L1 and the L2
 * (320 blocks fit the 2048 the banks hold, so nothing is evicted) and is
 * one read from memory. Each hub carries its bank's 160 requests down (a
 * header each) and their blocks up; the controllers read 192 blocks
 * (pages 0, 2, 4: 64 + 64 + 64) and 128 (pages 1, 3). */
static void test_banks_reach_memory_through_their_hubs(void **state)
{
    (void)state;
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    cgm_memsys_default_gpu(&c, CUS, false, false);
    c.gpu_hubs = 2;
    c.mem_controllers = 2;
    c.mem_interleave = 4096;
    c.check_dram = true;
    assert_int_equal(c.coh.gpu.banks, 2);
    struct stream *s = calloc(1, sizeof *s);
    struct system sys = system_create(&c, NULL, NULL);
    s->port = cgm_memsys_gpu_port(sys.ms, NULL, stream_done, s);
    ks_context_opts o = { .name = "cus", .domain = sys.d.gpu };
    assert_non_null(ks_context_create_opts(sys.eng, stream_main, s, &o));
    assert_int_equal(ks_run(sys.eng), KS_STOP_IDLE);
    assert_int_equal(s->done, STREAM);
    assert_int_equal(cgm_memsys_hubs(sys.ms), 2);
    for (unsigned h = 0; h < 2; h++) {
        const struct cgm_memsys_hub_stats *down = cgm_memsys_hub_link_stats(sys.ms, h, false);
        const struct cgm_memsys_hub_stats *up = cgm_memsys_hub_link_stats(sys.ms, h, true);
        assert_int_equal(down->packets, STREAM / 2);
        assert_int_equal(down->bytes, STREAM / 2 * c.header_bytes);
        assert_int_equal(up->packets, STREAM / 2);
        assert_int_equal(up->bytes, STREAM / 2 * (c.header_bytes + c.block_bytes));
    }
    assert_null(cgm_memsys_hub_link_stats(sys.ms, 2, true));
    expect_reads(sys.ms, 0, 192);
    expect_reads(sys.ms, 1, 128);
    assert_int_equal(cgm_memsys_stats(sys.ms)->dram_violations, 0);
    /* hub 0 keeps its path; both hubs in "gpu_hubs" */
    struct cgm_stats *reg = cgm_stats_create();
    assert_int_equal(cgm_memsys_stats_register(sys.ms, reg, CGM_STATS_ROOT), 0);
    uint64_t *v = calloc(cgm_stats_slots(reg), sizeof *v);
    cgm_stats_read(reg, v);
    assert_true(value_at(reg, v, "gpu_hub.to_memory.packets") == STREAM / 2);
    assert_string_equal(cgm_stats_label_of(reg, cgm_stats_find(reg, CGM_STATS_ROOT, "gpu_hubs.0.counts_in")),
                        "gpu_hub");
    assert_true(value_at(reg, v, "gpu_hubs.1.to_gpu.packets") == STREAM / 2);
    free(v);
    cgm_stats_destroy(reg);
    system_destroy(&sys);
    free(s);
}

/* ---- random CPU and GPU traffic over several controllers and hubs -------- */

enum { CORES = 2, PER_AGENT = 2000, SPAN = 4096 /* blocks */ };

struct agent {
    struct mix *w;
    int id;
    bool gpu;
    unsigned issued, done, outstanding;
    uint64_t rng;
};

struct mix {
    struct cgm_memsys *ms;
    struct cgm_gpu_mem_port port;
    struct agent a[CORES + CUS];
    unsigned bad_values;
};

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Stored values carry their block number in the upper half. */
static void check_value(struct mix *w, uint64_t addr, uint64_t value)
{
    if (value && (value >> 32) != addr / 64)
        w->bad_values++;
}

static void mix_cpu_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                         uint64_t cycle)
{
    (void)tag;
    (void)cycle;
    struct mix *w = ctx;
    w->a[core].done++;
    w->a[core].outstanding--;
    if (op == CGM_OP_LOAD)
        check_value(w, addr, value);
}

static void mix_gpu_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)gpu_cycle;
    struct mix *w = ctx;
    struct agent *a = &w->a[CORES + r->cu];
    a->done++;
    a->outstanding--;
    if (r->op == CGM_GPU_LOAD)
        check_value(w, r->vaddr, value);
}

/* 8 requests in flight, a quarter stores, over SPAN blocks (more than the
 * caches hold, so blocks are written back and read again). */
static void agent_main(void *arg)
{
    struct agent *a = arg;
    struct mix *w = a->w;
    while (a->issued < PER_AGENT) {
        if (a->outstanding < 8) {
            uint64_t r = rnd(&a->rng);
            uint64_t addr = (r >> 16) % SPAN * 64 + (r >> 8) % 8 * 8;
            bool store = r % 4 == 0;
            uint64_t value = ((addr / 64) << 32) | (a->issued + 1);
            bool taken;
            a->outstanding++; /* the answer may come inside the call */
            if (a->gpu) {
                struct cgm_gpu_request q = { .vaddr = addr, .tag = a->issued, .value = store ? value : 0,
                                             .cu = (uint16_t)a->id, .bytes = 8,
                                             .op = store ? CGM_GPU_STORE : CGM_GPU_LOAD };
                taken = w->port.access(w->port.ctx, &q);
            } else {
                taken = cgm_memsys_access(w->ms, a->id, store ? CGM_OP_STORE : CGM_OP_LOAD, addr, a->issued,
                                          value);
            }
            if (taken)
                a->issued++;
            else
                a->outstanding--;
        }
        ks_pause(1 + rnd(&a->rng) % 3);
    }
}

/* In each of the four organisations, with 3 controllers by page and 2
 * hubs: every request completes, loads read only values stored to their
 * block, DRAM keeps its timing, and the controllers' counts add up to the
 * system's. (Without a page table NC-MC and C-MC differ only in the pages
 * they would use, so they run alike.) */
static void test_random_traffic_in_every_organisation(void **state)
{
    (void)state;
    for (int org = 0; org < 4; org++) {
        bool coherent = org & 1, llc = org & 2;
        struct cgm_memsys_config c;
        cgm_memsys_default_config(&c);
        c.cores = CORES;
        c.slices = 2;
        c.coh.l3_sets = 64; /* 2 x 64 x 16 blocks: fewer than SPAN */
        c.mem_bytes = 1 << 20;
        c.check_dram = true;
        cgm_memsys_default_gpu(&c, CUS, coherent, llc);
        c.gpu_hubs = 2;
        c.mem_controllers = 3;
        c.mem_interleave = 4096;
        struct mix *w = calloc(1, sizeof *w);
        struct system s = system_create(&c, mix_cpu_done, w);
        w->ms = s.ms;
        w->port = cgm_memsys_gpu_port(s.ms, NULL, mix_gpu_done, w);
        for (int i = 0; i < CORES + CUS; i++) {
            struct agent *a = &w->a[i];
            *a = (struct agent){ .w = w, .gpu = i >= CORES, .id = i >= CORES ? i - CORES : i,
                                 .rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1) };
            ks_context_opts o = { .name = a->gpu ? "cu" : "core", .domain = a->gpu ? s.d.gpu : s.d.cpu };
            assert_non_null(ks_context_create_opts(s.eng, agent_main, a, &o));
        }
        assert_int_equal(ks_run(s.eng), KS_STOP_IDLE);
        for (int i = 0; i < CORES + CUS; i++)
            assert_int_equal(w->a[i].done, PER_AGENT);
        assert_int_equal(w->bad_values, 0);
        const struct cgm_memsys_stats *st = cgm_memsys_stats(s.ms);
        assert_int_equal(st->dram_violations, 0);
        uint64_t reads = 0, writes = 0;
        for (unsigned i = 0; i < 3; i++) {
            const struct cgm_dram_stats *d = cgm_dram_stats(cgm_memsys_controller_dram(s.ms, i));
            assert_true(d->reads > 0);
            reads += d->reads;
            writes += d->writes;
        }
        print_message("organisation %d: %llu reads, %llu writes\n", org, (unsigned long long)reads,
                      (unsigned long long)writes);
        assert_int_equal(reads, st->mem_reads);
        assert_int_equal(writes, st->mem_writes);
        assert_true(writes > 0);
        for (unsigned h = 0; h < 2; h++)
            assert_true(cgm_memsys_hub_link_stats(s.ms, h, false)->packets > 0);
        system_destroy(&s);
        free(w);
    }
}

/* ---- bad configurations -------------------------------------------------- */

static void expect_refused(const struct cgm_memsys_config *c, const char *field)
{
    ks_engine *eng = ks_engine_create(NULL);
    struct cgm_memsys_domains d;
    char err[256] = "";
    assert_int_equal(cgm_memsys_default_domains(eng, &c->dram, &d, err, sizeof err), 0);
    assert_null(cgm_memsys_create(eng, &d, c, NULL, NULL, err, sizeof err));
    print_message("%s\n", err);
    if (!strstr(err, field))
        fail_msg("'%s' does not name %s", err, field);
    ks_engine_destroy(eng);
}

static void test_bad_configurations_name_the_field(void **state)
{
    (void)state;
    static const struct { unsigned n; uint64_t interleave; } bad[] = {
        { 0, 64 },              /* no controller */
        { 65, 64 },             /* too many */
        { 2, 96 },              /* not a power of two */
        { 2, 32 },              /* less than a block */
        { 2, 1 << 20 },         /* 2 x 1 MiB runs over 1 MiB: controller 1 would own nothing */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cgm_memsys_config c = small_cfg(bad[i].n, bad[i].interleave);
        expect_refused(&c, bad[i].n == 0 || bad[i].n > 64 ? "mem_controllers" : "mem_interleave");
    }
    /* 64 blocks in 63 ranges: ranges of 2 leave the last controllers none */
    struct cgm_memsys_config c = small_cfg(63, 0);
    c.mem_bytes = 64 * 64;
    expect_refused(&c, "mem_controllers");
    /* 64 ranges of 256 blocks are fine, and so are 512 KiB runs over 2 */
    c = small_cfg(64, 0);
    struct system s = system_create(&c, NULL, NULL);
    assert_int_equal(cgm_memsys_controllers(s.ms), 64);
    assert_int_equal(cgm_memsys_controller_of(s.ms, 256 * 64), 1);
    system_destroy(&s);
    c = small_cfg(2, 1 << 19);
    s = system_create(&c, NULL, NULL);
    assert_int_equal(cgm_memsys_controller_of(s.ms, (1 << 19) - 1), 0);
    assert_int_equal(cgm_memsys_controller_of(s.ms, 1 << 19), 1);
    system_destroy(&s);
    c = small_cfg(1, 64);
    cgm_memsys_default_gpu(&c, 4, true, true);
    c.gpu_hubs = 0;
    expect_refused(&c, "gpu_hubs");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streams_split_by_the_arithmetic),
        cmocka_unit_test(test_controllers_add_up_to_one),
        cmocka_unit_test(test_statistics_paths),
        cmocka_unit_test(test_banks_reach_memory_through_their_hubs),
        cmocka_unit_test(test_random_traffic_in_every_organisation),
        cmocka_unit_test(test_bad_configurations_name_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
