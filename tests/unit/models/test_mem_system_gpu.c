/* The timed memory system with compute units: a vector L1 hit takes the
 * configured L1 latency and a first touch more than the L1 and L2 bank
 * latencies together; a crossing of the crossbar takes its bytes over the
 * port width; the hub's latency counts once each way of a miss and
 * its link bounds a streaming load at its configured bandwidth; in each of the four CPU-GPU organisations random GPU
 * traffic beside CPU traffic completes every request, reads only values
 * stored to the same block, keeps DRAM free of timing violations, counts
 * every request at a vector L1, and repeats exactly; and does so (NC-MC,
 * C-L3) when the CUs saturate the GPU's caches, with one bank and two; a
 * vector L1 announces room in its queue; the CU-to-L2 latency counts the
 * misses only, each as long as the CU waited for it. */
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

enum { CORES = 2, CUS = 8, PER_AGENT = 3000, SPAN = 96 /* blocks */ };

struct agent {
    struct world *w;
    int id;                    /* core, or CU */
    bool gpu;
    unsigned issued, done, outstanding;
    uint64_t rng;
};

/* How the compute units load the system: requests in flight per CU, the
 * most cycles between two issues, blocks spanned, and whether half the
 * requests walk the same blocks in the same order on every CU. The cores
 * always load it lightly (8 in flight, 1 to 3 cycles apart, the first SPAN
 * blocks). */
struct load {
    unsigned window, max_gap, span;
    bool walk;
};
static const struct load light = { 8, 3, SPAN, false };
/* As a kernel that streams and shares drives them: each CU keeps its vector
 * L1's request queue full (gpu_queue, 64), one request a cycle, over more
 * blocks than the GPU's caches hold, a quarter stores; half the requests
 * walk blocks the other CUs walk too (lud's rows), so blocks a CU holds are
 * recalled while it is busy. The banks' write-back entries and lines wait
 * for the CUs' flush and recall answers, which share the crossbar with the
 * CUs' requests: the load under which lud (4 CUs, one bank) and hotspot
 * (8 CUs) stopped progressing when a full bank's input queue turned
 * senders away and a CU's answer waited behind its own refused request. */
static const struct load saturating = { 64, 1, 1024, true };

struct world {
    const struct load *gpu_load;
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
    const struct load *load = a->gpu ? w->gpu_load : &light;
    while (a->issued < PER_AGENT) {
        if (a->outstanding < load->window) {
            uint64_t r = rnd(&a->rng);
            uint64_t block = (r >> 16) % load->span;
            if (load->walk && (r >> 40) % 2)
                block = (uint64_t)a->issued * 3 / 2 % load->span;
            uint64_t addr = block * 64 + (r >> 8) % 8 * 8;
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
        ks_pause(1 + rnd(&a->rng) % load->max_gap);
    }
}

static struct cgm_memsys_config gpu_cfg_of(bool coherent, bool shared_llc, unsigned cus)
{
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.cores = CORES;
    c.slices = 2;
    c.coh.l1_sets = 2;
    c.coh.l2_sets = 4;
    c.coh.l3_sets = 16;
    c.mem_bytes = 1 << 20; /* 16384 blocks */
    c.check_dram = true;
    cgm_memsys_default_gpu(&c, cus, coherent, shared_llc);
    c.coh.gpu.l1_sets = 2; /* small caches: evictions, recalls, write-backs */
    c.coh.gpu.l2_sets = 4;
    return c;
}

static struct cgm_memsys_config gpu_cfg(bool coherent, bool shared_llc)
{
    return gpu_cfg_of(coherent, shared_llc, CUS);
}

/* A memory system of configuration c on an engine of its own, in the
 * default clock domains; done(ctx) hears of the cores' requests. */
struct system {
    ks_engine *eng;
    struct cgm_memsys_domains d;
    struct cgm_memsys *ms;
};

static struct system system_create(const struct cgm_memsys_config *c, cgm_memsys_done_fn done, void *ctx)
{
    struct system sys = { .eng = ks_engine_create(NULL) };
    assert_non_null(sys.eng);
    char err[256] = "";
    assert_int_equal(cgm_memsys_default_domains(sys.eng, &c->dram, &sys.d, err, sizeof err), 0);
    sys.ms = cgm_memsys_create(sys.eng, &sys.d, c, done, ctx, err, sizeof err);
    if (!sys.ms)
        fail_msg("%s", err);
    return sys;
}

static void system_destroy(struct system *sys)
{
    cgm_memsys_stop(sys->ms);
    cgm_memsys_destroy(sys->ms);
    ks_engine_destroy(sys->eng);
}

/* Switches run_mixed applies to its configuration. */
static bool nack_when_full;
static unsigned interleave_bits, l2_mshr; /* l2_mshr 0: the default */

struct run {
    uint64_t cycles, gpu_l1_accesses, gpu_l1_misses, gpu_l2_accesses, gpu_l2_full_stalls;
    uint64_t gpu_l2_mshr_nacks, gpu_l2_entry_wait_cycles, gpu_l2_fetches, gpu_l2_parent_requests;
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

/* Cores and cus compute units (at most CUS) load the system; a run that
 * has not ended after 100 GPU cycles per request (far beyond any that
 * progresses) fails. */
static struct run run_mixed(bool coherent, bool shared_llc, const struct load *gpu_load, unsigned cus)
{
    struct cgm_memsys_config c = gpu_cfg_of(coherent, shared_llc, cus);
    c.gpu_l2_nack_when_full = nack_when_full;
    c.coh.gpu.interleave_bits = interleave_bits;
    if (l2_mshr)
        c.coh.gpu.l2_mshr = l2_mshr;
    struct world *w = calloc(1, sizeof *w);
    w->gpu_load = gpu_load;
    struct system sys = system_create(&c, cpu_done, w);
    ks_engine *eng = sys.eng;
    const struct cgm_memsys_domains d = sys.d;
    w->ms = sys.ms;
    w->port = cgm_memsys_gpu_port(w->ms, NULL, gpu_done, w);
    for (int i = 0; i < CORES + (int)cus; i++) {
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
    ks_stop stop = ks_run_cycles(eng, d.gpu, (uint64_t)(CORES + cus) * PER_AGENT * 100);
    struct run r = { .cycles = ks_domain_cycle(d.gpu), .bad_values = w->bad_values };
    for (int i = 0; i < CORES + (int)cus; i++)
        r.completed += w->a[i].done;
    if (stop != KS_STOP_IDLE)
        fail_msg("%u CUs, %s: %u of %u requests done in %llu GPU cycles", cus,
                 coherent ? shared_llc ? "C-L3" : "C-MC" : shared_llc ? "NC-L3" : "NC-MC", r.completed,
                 (CORES + cus) * PER_AGENT, (unsigned long long)r.cycles);
    struct cgm_stats *reg = cgm_stats_create();
    assert_int_equal(cgm_memsys_stats_register(w->ms, reg, CGM_STATS_ROOT), 0);
    uint64_t *values = calloc(cgm_stats_slots(reg), sizeof *values);
    cgm_stats_read(reg, values);
    r.gpu_l1_accesses = sum_kind(reg, values, "gpu_l1v", "accesses");
    r.gpu_l1_misses = sum_kind(reg, values, "gpu_l1v", "misses");
    r.gpu_l2_accesses = sum_kind(reg, values, "gpu_l2", "accesses");
    r.gpu_l2_full_stalls = sum_kind(reg, values, "gpu_l2", "full_stalls");
    r.gpu_l2_mshr_nacks = sum_kind(reg, values, "gpu_l2", "mshr_nacks");
    r.gpu_l2_entry_wait_cycles = sum_kind(reg, values, "gpu_l2", "miss_latency.entry_wait_cycles");
    r.gpu_l2_fetches = sum_kind(reg, values, "gpu_l2", "miss_latency.fetches");
    r.gpu_l2_parent_requests = sum_kind(reg, values, "gpu_l2", "parent_requests");
    assert_string_equal(cgm_memsys_dram_check_error(w->ms), "");
    assert_string_equal(cgm_memsys_gpu_error(w->ms), "");
    free(values);
    cgm_stats_destroy(reg);
    system_destroy(&sys);
    free(w);
    return r;
}

/* What every mixed run must show: every request done, every load saw a
 * value stored to its block, and every GPU request performed at its
 * vector L1 once. */
static void check_run(const struct run *r, unsigned cus)
{
    assert_int_equal(r->completed, (CORES + cus) * PER_AGENT);
    assert_int_equal(r->bad_values, 0);
    assert_int_equal(r->gpu_l1_accesses, (uint64_t)cus * PER_AGENT);
}

static void test_four_organisations(void **state)
{
    (void)state;
    static const struct { const char *name; bool coherent, shared_llc; } modes[] = {
        { "NC-MC", false, false }, { "NC-L3", false, true }, { "C-MC", true, false }, { "C-L3", true, true },
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        struct run r = run_mixed(modes[i].coherent, modes[i].shared_llc, &light, CUS);
        printf("%s: %u requests in %llu GPU cycles, GPU L1 accesses %llu, L2 %llu\n", modes[i].name, r.completed,
               (unsigned long long)r.cycles, (unsigned long long)r.gpu_l1_accesses,
               (unsigned long long)r.gpu_l2_accesses);
        check_run(&r, CUS);
        /* each miss at a vector L1 asks an L2 bank (which also takes
         * write-backs and retries) */
        assert_true(r.gpu_l1_misses > 0 && r.gpu_l2_accesses >= r.gpu_l1_misses);
        struct run again = run_mixed(modes[i].coherent, modes[i].shared_llc, &light, CUS);
        assert_int_equal(again.cycles, r.cycles);
        assert_int_equal(again.gpu_l2_accesses, r.gpu_l2_accesses);
    }
}

/* The same checks under a saturating GPU load, with one bank (4 CUs) and
 * two (8 CUs), the bank's parent memory or the L3 directory. */
static void test_saturating_load(void **state)
{
    (void)state;
    static const unsigned cus[] = { 4, CUS };
    uint64_t full_stalls = 0;
    for (int k = 0; k < 2; k++) {
        for (int llc = 0; llc < 2; llc++) {
            struct run r = run_mixed(llc, llc, &saturating, cus[k]);
            printf("%u CUs, %s, saturating: %u requests in %llu GPU cycles, %llu times a bank was full\n", cus[k],
                   llc ? "C-L3" : "NC-MC", r.completed, (unsigned long long)r.cycles,
                   (unsigned long long)r.gpu_l2_full_stalls);
            check_run(&r, cus[k]);
            full_stalls += r.gpu_l2_full_stalls;
        }
    }
    assert_true(full_stalls > 0); /* requests waited for the banks' entries: the case this load is for */
}

/* A full bank NACKs instead of leaving the request at its door: the same
 * values and completions, more NACKs for want of an MSHR entry, no request
 * ever waits at a door; in the default mode they wait. Every fetch from below is timed once: as many as the banks asked
 * their parents for (C-L3, banks of two MSHR entries). */
static void test_full_bank_nacks_or_waits(void **state)
{
    (void)state;
    uint64_t waited_nacks = 0;
    for (int nack = 0; nack < 2; nack++) {
        nack_when_full = nack;
        l2_mshr = 2;
        struct run r = run_mixed(true, true, &saturating, CUS);
        nack_when_full = false;
        l2_mshr = 0;
        printf("%s: %u requests in %llu GPU cycles, %llu MSHR NACKs, %llu cycles at the banks' doors\n",
               nack ? "nack" : "wait", r.completed, (unsigned long long)r.cycles,
               (unsigned long long)r.gpu_l2_mshr_nacks, (unsigned long long)r.gpu_l2_entry_wait_cycles);
        check_run(&r, CUS);
        assert_int_equal(r.gpu_l2_fetches, r.gpu_l2_parent_requests);
        if (nack) {
            assert_true(r.gpu_l2_mshr_nacks > waited_nacks);
            assert_int_equal(r.gpu_l2_full_stalls, 0);
            assert_int_equal(r.gpu_l2_entry_wait_cycles, 0);
        } else {
            /* (a store to a block shared at the parent still takes its
             * entry inside the bank, and may be NACKed) */
            waited_nacks = r.gpu_l2_mshr_nacks;
            assert_true(r.gpu_l2_full_stalls > 0 && r.gpu_l2_entry_wait_cycles >= r.gpu_l2_full_stalls);
        }
    }
}

/* Banks striped in runs of 2^bits blocks: block b is bank (b >> bits) mod
 * banks; the mixed load still completes with the right values. */
static void test_bank_interleave(void **state)
{
    (void)state;
    for (unsigned bits = 0; bits <= 2; bits += 2) {
        struct cgm_memsys_config c = gpu_cfg(false, false);
        c.coh.gpu.interleave_bits = bits;
        struct system sys = system_create(&c, NULL, NULL);
        unsigned banks = c.coh.gpu.banks;
        assert_int_equal(banks, 2);
        for (uint64_t b = 0; b < 64; b++)
            assert_int_equal(cgm_coh_gpu_bank_of(cgm_memsys_coh(sys.ms), b), (int)((b >> bits) % banks));
        system_destroy(&sys);
        interleave_bits = bits;
        struct run r = run_mixed(false, false, &light, CUS);
        interleave_bits = 0;
        check_run(&r, CUS);
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
        struct cgm_memsys_config c = gpu_cfg(llc[k], llc[k]);
        struct system sys = system_create(&c, NULL, NULL);
        struct single s = { .port = cgm_memsys_gpu_port(sys.ms, NULL, single_done, &s) };
        ks_context_opts o = { .name = "cu", .domain = sys.d.gpu };
        assert_non_null(ks_context_create_opts(sys.eng, single_main, &s, &o));
        assert_int_equal(ks_run(sys.eng), KS_STOP_IDLE);
        assert_int_equal(s.done, 1);
        uint64_t miss = s.latency;
        assert_non_null(ks_context_create_opts(sys.eng, single_main, &s, &o));
        assert_int_equal(ks_run(sys.eng), KS_STOP_IDLE);
        assert_int_equal(s.done, 2);
        assert_int_equal(s.latency, c.gpu_l1_latency);
        /* the miss crossed the crossbar twice, the bank, and the ring to
         * the L3 or the memory controller and back */
        assert_true(miss > c.gpu_l1_latency + c.gpu_l2_latency + 2);
        /* the CU-to-L2 latency counts the miss alone, as long as the CU
         * saw it take (the L1 took it the cycle it was asked) */
        const struct cgm_memsys_gpu_l1_timing *t = cgm_memsys_gpu_l1_timing(sys.ms, 0);
        assert_int_equal(t->requests, 1);
        assert_int_equal(t->cycles, miss);
        assert_int_equal(t->max, miss);
        system_destroy(&sys);
    }
}

/* CU 0 fills its vector L1's queue in one cycle, then retries each cycle
 * with the eventcount given to cgm_memsys_gpu_watch_room watching: a retry
 * is taken exactly when the eventcount has moved since the refusal. */
struct room {
    struct cgm_gpu_mem_port port;
    struct cgm_memsys *ms;
    ks_eventcount ec;
    unsigned queued, done, retries, taken_after_advance;
    bool taken_without_advance, refused_after_advance;
};

static void room_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)r;
    (void)value;
    (void)gpu_cycle;
    ((struct room *)ctx)->done++;
}

static void room_main(void *arg)
{
    struct room *m = arg;
    uint64_t block = 0;
    struct cgm_gpu_request q = { .bytes = 4, .op = CGM_GPU_LOAD };
    for (q.vaddr = block++ * 64; m->port.access(m->port.ctx, &q); q.vaddr = block++ * 64)
        m->queued++;
    cgm_memsys_gpu_watch_room(m->ms, 0, &m->ec);
    for (unsigned round = 0; round < 4; round++) {
        uint64_t seen = ks_ec_count(&m->ec);
        for (;;) {
            ks_pause(1);
            m->retries++;
            bool moved = ks_ec_count(&m->ec) > seen;
            bool taken = m->port.access(m->port.ctx, &q);
            m->taken_without_advance |= taken && !moved;
            m->refused_after_advance |= !taken && moved;
            if (taken)
                break;
        }
        m->taken_after_advance++;
        q.vaddr = block++ * 64;
        /* full again at once: refuse the next */
        if (m->port.access(m->port.ctx, &q))
            m->queued++;
    }
    cgm_memsys_gpu_watch_room(m->ms, 0, NULL);
}

static void test_port_announces_room(void **state)
{
    (void)state;
    struct cgm_memsys_config c = gpu_cfg(true, true);
    c.gpu_queue = 2;
    struct system sys = system_create(&c, NULL, NULL);
    struct room m = { .ms = sys.ms };
    ks_ec_init(&m.ec, "room", 0);
    m.port = cgm_memsys_gpu_port(sys.ms, NULL, room_done, &m);
    ks_context_opts o = { .name = "cu", .domain = sys.d.gpu };
    assert_non_null(ks_context_create_opts(sys.eng, room_main, &m, &o));
    assert_int_equal(ks_run(sys.eng), KS_STOP_IDLE);
    assert_true(m.queued >= c.gpu_queue);  /* the queue did fill */
    assert_int_equal(m.taken_after_advance, 4);
    assert_true(m.retries > 4);            /* some waited more than a cycle */
    assert_false(m.taken_without_advance);
    assert_false(m.refused_after_advance);
    assert_int_equal(m.done, m.queued + 4);
    system_destroy(&sys);
}

/* One first touch by CU 0 in a fresh system: its latency in GPU cycles. */
static uint64_t first_touch_latency(const struct cgm_memsys_config *c)
{
    struct system sys = system_create(c, NULL, NULL);
    struct single s = { .port = cgm_memsys_gpu_port(sys.ms, NULL, single_done, &s) };
    ks_context_opts o = { .name = "cu", .domain = sys.d.gpu };
    assert_non_null(ks_context_create_opts(sys.eng, single_main, &s, &o));
    assert_int_equal(ks_run(sys.eng), KS_STOP_IDLE);
    assert_int_equal(s.done, 1);
    system_destroy(&sys);
    return s.latency;
}

/* A miss crosses the hub twice (its request down, the block up): each
 * GPU cycle of hub latency more makes it two cycles longer, the rest of
 * the system being idle and its clocks whole multiples of a nanosecond. */
static void test_hub_latency(void **state)
{
    (void)state;
    for (int llc = 0; llc < 2; llc++) {
        struct cgm_memsys_config c = gpu_cfg(llc, llc);
        c.hub_latency = 1;
        uint64_t near = first_touch_latency(&c);
        c.hub_latency = 11;
        uint64_t far = first_touch_latency(&c);
        assert_int_equal(far - near, 2 * 10);
    }
}

/* A first touch crosses the crossbar twice: its request (a header) down to
 * the bank, the block with its header up to the L1. A packet on idle ports
 * takes its bytes over the port width, rounded up, in GPU cycles: with
 * ports at least a header wide the request takes one cycle either way (so
 * the rest of the system sees the same times), and the answer
 * ceil((header + block) / width) cycles. */
static void test_crossbar_width(void **state)
{
    (void)state;
    for (int llc = 0; llc < 2; llc++) {
        struct cgm_memsys_config c = gpu_cfg(llc, llc);
        unsigned packet = c.header_bytes + c.block_bytes;
        c.gpu_xbar_bytes = packet;
        uint64_t wide = first_touch_latency(&c);
        c.gpu_xbar_bytes = c.header_bytes;
        uint64_t narrow = first_touch_latency(&c);
        assert_int_equal(narrow - wide, (packet + c.header_bytes - 1) / c.header_bytes - 1);
        c.gpu_xbar_bytes = 32; /* the default: a block crosses in 3 cycles, 2 more than on the widest */
        assert_int_equal(first_touch_latency(&c) - wide, (packet + 31) / 32 - 1);
    }
}

/* Every CU streams loads over blocks of its own, as many in flight as the
 * banks' MSHRs hold (more would only be refused and retried): the blocks
 * come up through the hub, each in a packet of a header and a block. They
 * fill the GPU's L2 banks exactly (no eviction sends anything more across
 * the hub). */
enum { STREAM_BLOCKS = 2048 };

struct stream {
    struct cgm_gpu_mem_port port;
    uint64_t first_issue, last_done;
    unsigned done, next[CUS], in_flight[CUS], window;
};

static void stream_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)value;
    struct stream *s = ctx;
    s->done++;
    s->in_flight[r->cu]--;
    if (gpu_cycle > s->last_done)
        s->last_done = gpu_cycle;
}

static void stream_main(void *arg)
{
    struct stream *s = arg;
    s->first_issue = ks_cycle();
    for (;;) {
        bool left = false;
        for (unsigned cu = 0; cu < CUS; cu++) {
            if (s->next[cu] >= STREAM_BLOCKS / CUS)
                continue;
            left = true;
            if (s->in_flight[cu] >= s->window)
                continue;
            struct cgm_gpu_request q = { .vaddr = ((uint64_t)s->next[cu] * CUS + cu) * 64, .bytes = 4,
                                         .cu = (uint16_t)cu, .op = CGM_GPU_LOAD };
            s->in_flight[cu]++; /* the answer may come inside the call */
            if (s->port.access(s->port.ctx, &q))
                s->next[cu]++;
            else
                s->in_flight[cu]--;
        }
        if (!left)
            return;
        ks_pause(1);
    }
}

static void test_hub_bandwidth_bounds_a_stream(void **state)
{
    (void)state;
    static const unsigned widths[] = { 8, 12 };
    for (int llc = 0; llc < 2; llc++) {
        for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
            struct cgm_memsys_config c;
            cgm_memsys_default_config(&c);
            cgm_memsys_default_gpu(&c, CUS, llc, llc);
            c.gpu_link_bytes = widths[i];
            assert_int_equal(STREAM_BLOCKS, c.coh.gpu.banks * c.coh.gpu.l2_sets * c.coh.gpu.l2_ways);
            struct system sys = system_create(&c, NULL, NULL);
            ks_engine *eng = sys.eng;
            const struct cgm_memsys_domains d = sys.d;
            struct cgm_memsys *ms = sys.ms;
            struct stream *s = calloc(1, sizeof *s);
            s->port = cgm_memsys_gpu_port(ms, NULL, stream_done, s);
            s->window = c.coh.gpu.banks * c.coh.gpu.l2_mshr / CUS;
            ks_context_opts o = { .name = "cus", .domain = d.gpu };
            assert_non_null(ks_context_create_opts(eng, stream_main, s, &o));
            assert_int_equal(ks_run(eng), KS_STOP_IDLE);
            assert_int_equal(s->done, STREAM_BLOCKS);
            /* the configured bandwidth is never exceeded, and a stream
             * with enough in flight reaches it within 5% */
            uint64_t cycles = s->last_done - s->first_issue;
            uint64_t bytes = (uint64_t)STREAM_BLOCKS * (c.block_bytes + c.header_bytes);
            printf("%s hub %u B/cycle: %u blocks in %llu GPU cycles (%.3f of the link)\n", llc ? "C-L3" : "NC-MC",
                   c.gpu_link_bytes, STREAM_BLOCKS, (unsigned long long)cycles, (double)bytes / cycles / c.gpu_link_bytes);
            assert_true(cycles * c.gpu_link_bytes >= bytes);
            assert_true(bytes * 100 >= cycles * c.gpu_link_bytes * 95);
            const struct cgm_memsys_hub_stats *up = cgm_memsys_hub_stats(ms, true);
            assert_int_equal(up->bytes, bytes);
            assert_int_equal(up->packets, STREAM_BLOCKS);
            assert_true(up->link_full_cycles > 0);
            /* and the statistics registry shows the same */
            struct cgm_stats *reg = cgm_stats_create();
            assert_int_equal(cgm_memsys_stats_register(ms, reg, CGM_STATS_ROOT), 0);
            uint64_t *values = calloc(cgm_stats_slots(reg), sizeof *values);
            cgm_stats_read(reg, values);
            cgm_stat hub = cgm_stats_find(reg, CGM_STATS_ROOT, "gpu_hub");
            cgm_stat to_gpu = cgm_stats_find(reg, hub, "to_gpu");
            assert_true(to_gpu >= 0);
            assert_true(cgm_stats_value(reg, values, cgm_stats_find(reg, to_gpu, "bytes")) == (double)bytes);
            free(values);
            cgm_stats_destroy(reg);
            system_destroy(&sys);
            free(s);
        }
    }
}

/* Every CU keeps 16 requests in flight (its L1's MSHR) over more blocks
 * than the L1s and banks hold, so the banks run out of MSHRs and
 * write-back entries and refuse requests, which the CUs retry. A bank's
 * write-back entry waits for the flushed CU's acknowledgement: the
 * crossbar must serve every CU in turn, or a CU whose messages always come
 * second would hold its acknowledgement for ever while the others' retries
 * take every free place. */
enum { FLOOD_PER_CU = 1000, FLOOD_IN_FLIGHT = 16 };

struct flood {
    struct cgm_gpu_mem_port port;
    unsigned issued[CUS], in_flight[CUS], done;
    uint64_t rng;
};

static void flood_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)value;
    (void)gpu_cycle;
    struct flood *f = ctx;
    f->in_flight[r->cu]--;
    f->done++;
}

static void flood_main(void *arg)
{
    struct flood *f = arg;
    for (bool left = true; left; ks_pause(1)) {
        left = false;
        for (unsigned cu = 0; cu < CUS; cu++) {
            if (f->issued[cu] >= FLOOD_PER_CU)
                continue;
            left = true;
            if (f->in_flight[cu] >= FLOOD_IN_FLIGHT)
                continue;
            uint64_t r = rnd(&f->rng);
            bool gather = r % 10 < 3;
            uint64_t addr = gather ? (1u << 20) + (r >> 8) % (1u << 20) / 4 * 4
                                   : (2u << 20) + ((uint64_t)cu << 21) + (uint64_t)f->issued[cu] * 64;
            struct cgm_gpu_request q = { .vaddr = addr, .bytes = 4, .cu = (uint16_t)cu,
                                         .value = (addr / 64) << 32 | 1,
                                         .op = !gather && r % 10 == 9 ? CGM_GPU_STORE : CGM_GPU_LOAD };
            f->in_flight[cu]++;
            if (f->port.access(f->port.ctx, &q))
                f->issued[cu]++;
            else
                f->in_flight[cu]--;
        }
    }
}

static void test_crossbar_serves_every_cu(void **state)
{
    (void)state;
    for (int llc = 0; llc < 2; llc++) {
        struct cgm_memsys_config c;
        cgm_memsys_default_config(&c);
        cgm_memsys_default_gpu(&c, CUS, llc, llc);
        c.mem_bytes = 32u << 20;
        struct system sys = system_create(&c, NULL, NULL);
        ks_engine *eng = sys.eng;
        const struct cgm_memsys_domains d = sys.d;
        struct cgm_memsys *ms = sys.ms;
        struct flood *f = calloc(1, sizeof *f);
        f->rng = 0x2545f4914f6cdd1dull;
        f->port = cgm_memsys_gpu_port(ms, NULL, flood_done, f);
        ks_context_opts o = { .name = "cus", .domain = d.gpu };
        assert_non_null(ks_context_create_opts(eng, flood_main, f, &o));
        /* a watchdog far above the run's length: 100 GPU cycles for each
         * request, as if none overlapped another */
        ks_stop stop = ks_run_cycles(eng, d.gpu, (uint64_t)CUS * FLOOD_PER_CU * 100);
        printf("%s: %u of %u requests done in %llu GPU cycles\n", llc ? "C-L3" : "NC-MC", f->done, CUS * FLOOD_PER_CU,
               (unsigned long long)ks_domain_cycle(d.gpu));
        assert_int_equal(stop, KS_STOP_IDLE);
        assert_int_equal(f->done, CUS * FLOOD_PER_CU);
        const struct cgm_coh_gpu_l2_stats *b0 = cgm_coh_gpu_l2_stats(cgm_memsys_coh(ms), 0);
        /* the case this test is for: victims flushed from the CUs while
         * requests wait for the bank's entries */
        assert_true(b0->back_invalidations > 0 && b0->full_stalls > 0);
        system_destroy(&sys);
        free(f);
    }
}

/* The non-coherent organisations hand data over by flushes, one request
 * per block from a core (seed 000's driver): after CU 0 stores to a range
 * and core 0 flushes it from the GPU's caches, core 0 reads the stored
 * values; after core 0 stores and flushes from the CPU's caches, CU 0
 * reads them. Each flush is answered like a request. */
enum { HANDOVER_BLOCKS = 8 };

struct handover {
    struct cgm_memsys *ms;
    struct cgm_gpu_mem_port port;
    unsigned cpu_done, gpu_done, bad;
};

static void handover_cpu_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                              uint64_t cycle)
{
    (void)core;
    (void)tag;
    (void)cycle;
    struct handover *h = ctx;
    h->cpu_done++;
    if (op == CGM_OP_LOAD && value != ((addr / 64) << 32 | 7))
        h->bad++;
}

static void handover_gpu_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)gpu_cycle;
    struct handover *h = ctx;
    h->gpu_done++;
    if (r->op == CGM_GPU_LOAD && value != ((r->vaddr / 64) << 32 | 9))
        h->bad++;
}

/* Waits until the counter reaches n. */
static void wait_for(const unsigned *counter, unsigned n)
{
    while (*counter < n)
        ks_pause(1);
}

static void gpu_side(void *arg)
{
    struct handover *h = arg;
    for (unsigned b = 0; b < HANDOVER_BLOCKS; b++) {
        struct cgm_gpu_request q = { .vaddr = 0x8000 + b * 64, .bytes = 8, .value = ((uint64_t)(0x8000 / 64 + b) << 32) | 7,
                                     .op = CGM_GPU_STORE };
        while (!h->port.access(h->port.ctx, &q))
            ks_pause(1);
    }
    wait_for(&h->gpu_done, HANDOVER_BLOCKS);
}

static void cpu_side(void *arg)
{
    struct handover *h = arg;
    wait_for(&h->gpu_done, HANDOVER_BLOCKS);
    unsigned expect = 0;
    for (int op = 0; op < 4; op++) {
        for (unsigned b = 0; b < HANDOVER_BLOCKS; b++) {
            uint64_t addr = 0x8000 + b * 64;
            static const uint8_t ops[4] = { CGM_OP_FLUSH_GPU, CGM_OP_LOAD, CGM_OP_STORE, CGM_OP_FLUSH_CPU };
            while (!cgm_memsys_access(h->ms, 0, ops[op], addr, b, (addr / 64) << 32 | 9))
                ks_pause(1);
        }
        expect += HANDOVER_BLOCKS;
        wait_for(&h->cpu_done, expect); /* the flushes done before the loads, the stores before theirs */
    }
}

static void gpu_reads(void *arg)
{
    struct handover *h = arg;
    for (unsigned b = 0; b < HANDOVER_BLOCKS; b++) {
        struct cgm_gpu_request q = { .vaddr = 0x8000 + b * 64, .bytes = 8, .cu = 1, .op = CGM_GPU_LOAD };
        while (!h->port.access(h->port.ctx, &q))
            ks_pause(1);
    }
}

static void test_flushed_handover(void **state)
{
    (void)state;
    for (int llc = 0; llc < 2; llc++) {
        struct cgm_memsys_config c = gpu_cfg(false, llc); /* NC-MC and NC-L3 */
        struct handover h = { 0 };
        struct system sys = system_create(&c, handover_cpu_done, &h);
        ks_engine *eng = sys.eng;
        const struct cgm_memsys_domains d = sys.d;
        h.ms = sys.ms;
        h.port = cgm_memsys_gpu_port(h.ms, NULL, handover_gpu_done, &h);
        ks_context_opts og = { .name = "cu", .domain = d.gpu }, oc = { .name = "core", .domain = d.cpu };
        assert_non_null(ks_context_create_opts(eng, gpu_side, &h, &og));
        assert_non_null(ks_context_create_opts(eng, cpu_side, &h, &oc));
        assert_int_equal(ks_run(eng), KS_STOP_IDLE);
        assert_int_equal(h.cpu_done, 4 * HANDOVER_BLOCKS);
        assert_non_null(ks_context_create_opts(eng, gpu_reads, &h, &og));
        assert_int_equal(ks_run(eng), KS_STOP_IDLE);
        assert_int_equal(h.gpu_done, 2 * HANDOVER_BLOCKS);
        assert_int_equal(h.bad, 0);
        system_destroy(&sys);
    }
}

/* Coherent organisations share the process's pages; non-coherent ones put
 * the GPU's data on frames of their own. */
static void test_pages_of_each_organisation(void **state)
{
    (void)state;
    for (int coherent = 0; coherent < 2; coherent++) {
        struct cgm_memsys_config c = gpu_cfg(coherent, true);
        struct system sys = system_create(&c, NULL, NULL);
        ks_engine *eng = sys.eng;
        const struct cgm_memsys_domains d = sys.d;
        struct cgm_memsys *ms = sys.ms;
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
        system_destroy(&sys);
        cgm_page_table_destroy(pt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hit_and_miss_latency),
        cmocka_unit_test(test_port_announces_room),
        cmocka_unit_test(test_pages_of_each_organisation),
        cmocka_unit_test(test_hub_latency),
        cmocka_unit_test(test_crossbar_width),
        cmocka_unit_test(test_hub_bandwidth_bounds_a_stream),
        cmocka_unit_test(test_crossbar_serves_every_cu),
        cmocka_unit_test(test_flushed_handover),
        cmocka_unit_test(test_four_organisations),
        cmocka_unit_test(test_saturating_load),
        cmocka_unit_test(test_full_bank_nacks_or_waits),
        cmocka_unit_test(test_bank_interleave),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
