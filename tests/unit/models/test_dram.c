/* DRAM model: presets against the JEDEC figures, address mapping by brute
 * force, idle latencies and peak bandwidth against the standard's
 * arithmetic, the timing checker on random traffic (and on hand-made
 * illegal sequences, to show it can fail), FR-FCFS order, closed page,
 * refresh rate, determinism and the trace driver's errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "cgm/dram.h"
#include "tests/unit/temp_file.h"

/* ---- the standard's figures, written out here independently ------------- */
struct jedec {
    const char *name;
    double tck, cl, cwl, rcd, rp, ras, rc, wr, rtp, faw, rfc, refi; /* cycles or ns */
    double mts;       /* transfers per second / 1e6 */
    unsigned bus_bytes, bl;
    unsigned gbit, banks, row_bits, col_bits; /* x8 device: density, banks, address bits */
};

/* ns values unless < 1 cycle granularity given in clocks (cl, cwl). DDR3:
 * 4 Gb x8 (JESD79-3F: 8 banks, rows A0-A15, columns A0-A9, tRFC 260 ns);
 * DDR4: 8 Gb x8 (JESD79-4: 16 banks in 4 groups, rows A0-A15, columns
 * A0-A9, tRFC1 350 ns). */
static const struct jedec ddr3 = { "DDR3-1600", 1.25, 11, 8, 13.75, 13.75, 35, 48.75, 15, 7.5, 30,
                                   260, 7800, 1600, 8, 8, 4, 8, 16, 10 };
static const struct jedec ddr4 = { "DDR4-2400", 1.0 / 1.2, 16, 12, 13.32, 13.32, 32, 45.32, 15, 7.5,
                                   21, 350, 7800, 2400, 8, 8, 8, 16, 16, 10 };

static unsigned clocks(double ns, double tck)
{
    /* JEDEC rounds up, tolerating a small guard band. */
    return (unsigned)ceil(ns / tck - 0.01);
}

static void check_preset(const struct jedec *j)
{
    struct cgm_dram_config c;
    assert_int_equal(cgm_dram_preset(j->name, &c), 0);
    assert_true(fabs(c.t.tck_ns - j->tck) < 1e-9);
    assert_int_equal(c.t.cl, (unsigned)j->cl);
    assert_int_equal(c.t.cwl, (unsigned)j->cwl);
    assert_int_equal(c.t.rcd, clocks(j->rcd, j->tck));
    assert_int_equal(c.t.rp, clocks(j->rp, j->tck));
    assert_int_equal(c.t.ras, clocks(j->ras, j->tck));
    assert_int_equal(c.t.wr, clocks(j->wr, j->tck));
    assert_int_equal(c.t.rtp, clocks(j->rtp, j->tck) < 4 ? 4 : clocks(j->rtp, j->tck));
    assert_int_equal(c.t.faw, clocks(j->faw, j->tck));
    assert_int_equal(c.t.rfc, clocks(j->rfc, j->tck));
    assert_int_equal(c.t.refi, (unsigned)(j->refi / j->tck));
    assert_true(c.t.rc >= c.t.ras + c.t.rp);
    assert_true(c.t.rc <= clocks(j->rc, j->tck) + 1);
    /* The geometry is the device the timings (tRFC above all) belong to:
     * x8 devices, eight of them on the 64-bit bus. */
    assert_int_equal(c.bank_groups * c.banks_per_group, j->banks);
    assert_int_equal(c.rows, 1u << j->row_bits);
    assert_int_equal(c.columns, 1u << j->col_bits);
    assert_int_equal(c.bus_bits, 64);
    uint64_t device_bits = (uint64_t)c.rows * c.columns * j->banks * 8;
    assert_true(device_bits == (uint64_t)j->gbit << 30);
    char err[200];
    assert_int_equal(cgm_dram_config_validate(&c, err, sizeof err), 0);
}

static void test_presets_match_jedec(void **state)
{
    (void)state;
    check_preset(&ddr3);
    check_preset(&ddr4);
    /* GDDR5: seed 001 Table 4.2 (DRAMSim2 timings in cycles, tCK = 0.667,
     * which is 1.5 GHz rounded: the preset states 2/3 ns exactly). */
    struct cgm_dram_config g;
    assert_int_equal(cgm_dram_preset("GDDR5", &g), 0);
    assert_int_equal(g.t.cl, 18);
    assert_int_equal(g.t.al, 17);
    assert_int_equal(g.t.bl, 16);
    assert_int_equal(g.t.ras, 42);
    assert_int_equal(g.t.rcd, 18);
    assert_int_equal(g.t.rrd_s, 9);
    assert_int_equal(g.t.rc, 60);
    assert_int_equal(g.t.rp, 18);
    assert_int_equal(g.t.ccd_s, 3);
    assert_int_equal(g.t.rtp, 3);
    assert_int_equal(g.t.wtr_s, 8);
    assert_int_equal(g.t.wr, 4);
    assert_int_equal(g.t.rtrs, 1);
    assert_int_equal(g.t.rfc, 278);
    assert_int_equal(g.t.faw, 35);
    assert_true(fabs(g.t.tck_ns * 1.5 - 1.0) < 1e-15);
    assert_int_equal(cgm_dram_preset("DDR9", &g), -1);
}

/* ---- mapping ------------------------------------------------------------- */
static void test_mapping_is_a_bijection(void **state)
{
    (void)state;
    struct cgm_dram_config c;
    cgm_dram_preset("DDR4-2400", &c);
    c.channels = 2;
    c.ranks = 2;
    c.bank_groups = 2;
    c.banks_per_group = 2;
    c.rows = 8;
    c.columns = 32; /* 4 bursts */
    const char *maps[] = { "row:bank:rank:col:bg:chan", "chan:rank:bg:bank:row:col",
                           "col:row:chan:bank:bg:rank" };
    for (size_t m = 0; m < 3; m++) {
        snprintf(c.mapping, sizeof c.mapping, "%s", maps[m]);
        struct cgm_dram_map map;
        char err[200];
        assert_int_equal(cgm_dram_map_init(&map, &c, err, sizeof err), 0);
        size_t n = 2 * 2 * 2 * 2 * 8 * 4;
        unsigned char *seen = calloc(n, 1);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t addr = i * 64 + (i % 7); /* the offset within a burst is ignored */
            struct cgm_dram_addr a = cgm_dram_map_decode(&map, addr);
            assert_true(a.chan < 2 && a.rank < 2 && a.bg < 2 && a.bank < 2 && a.row < 8 && a.col < 4);
            size_t key = ((((a.chan * 2 + a.rank) * 2 + a.bg) * 2 + a.bank) * 8 + a.row) * 4 + a.col;
            assert_int_equal(seen[key], 0);
            seen[key] = 1;
            assert_int_equal(cgm_dram_map_encode(&map, &a), i * 64);
        }
        free(seen);
    }
    /* Default order: consecutive bursts alternate channels first. */
    snprintf(c.mapping, sizeof c.mapping, "row:bank:rank:col:bg:chan");
    struct cgm_dram_map map;
    char err[200];
    cgm_dram_map_init(&map, &c, err, sizeof err);
    assert_int_equal(cgm_dram_map_decode(&map, 64).chan, 1);
    assert_int_equal(cgm_dram_map_decode(&map, 128).bg, 1);
    /* Bad mappings are refused with a reason. */
    snprintf(c.mapping, sizeof c.mapping, "row:bank:rank:col:chan");
    assert_int_equal(cgm_dram_map_init(&map, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "bg"));
    snprintf(c.mapping, sizeof c.mapping, "row:bank:rank:col:bg:chan:row");
    assert_int_equal(cgm_dram_map_init(&map, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "twice"));
    c.rows = 6;
    snprintf(c.mapping, sizeof c.mapping, "row:bank:rank:col:bg:chan");
    assert_int_equal(cgm_dram_map_init(&map, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "power of two"));
}

/* ---- a small harness --------------------------------------------------- */
struct run {
    struct cgm_dram *d;
    struct cgm_dram_checker *k;
    uint64_t done_count;
    uint64_t last_latency;
    uintptr_t order[16];
    unsigned norder;
};

static void on_done(void *ctx, const struct cgm_dram_request *r, uint64_t done)
{
    struct run *run = ctx;
    run->done_count++;
    run->last_latency = done - r->arrival;
    if (run->norder < 16)
        run->order[run->norder++] = (uintptr_t)r->tag;
}

static void run_open(struct run *run, const struct cgm_dram_config *c)
{
    memset(run, 0, sizeof *run);
    char err[200];
    run->d = cgm_dram_create(c, err, sizeof err);
    assert_non_null(run->d);
    run->k = cgm_dram_checker_create(c);
    assert_non_null(run->k);
    cgm_dram_set_done(run->d, on_done, run);
    cgm_dram_set_observer(run->d, cgm_dram_checker_observe, run->k);
}

static void run_close(struct run *run)
{
    cgm_dram_checker_finish(run->k, cgm_dram_now(run->d));
    if (cgm_dram_checker_violations(run->k))
        fail_msg("timing violation: %s", cgm_dram_checker_first_error(run->k));
    cgm_dram_checker_destroy(run->k);
    cgm_dram_destroy(run->d);
}

/* One request at `at` on an otherwise idle controller; returns its latency. */
static uint64_t one(struct run *run, uint64_t addr, bool write, uint64_t at)
{
    cgm_dram_skip_idle(run->d, at);
    uint64_t before = run->done_count;
    struct cgm_dram_request r = { .addr = addr, .write = write, .arrival = at };
    assert_int_equal(cgm_dram_enqueue(run->d, &r), 0);
    while (cgm_dram_pending(run->d))
        cgm_dram_tick(run->d);
    assert_int_equal(run->done_count, before + 1);
    return run->last_latency;
}

/* Idle latency: hit = RL + BL/2, closed = tRCD + CL + BL/2,
 * conflict = tRP + tRCD + CL + BL/2 (RL = AL + CL; with AL the column
 * command goes out tRCD - AL after the activate). */
/* A write is done when acknowledged: with a write queue, a cycle after it
 * is queued; through one shared queue, when its last beat is written. With
 * bank queues a request moves to its bank's queue after the cycle's
 * command, so its first command goes a cycle later. */
static void check_idle_latency(const char *preset, bool one_queue, bool bank_queues, unsigned cl,
                               unsigned al, unsigned cwl, unsigned rcd, unsigned rp, unsigned bl)
{
    struct cgm_dram_config c;
    cgm_dram_preset(preset, &c);
    if (one_queue)
        c.write_queue_size = 0;
    c.bank_queue_size = bank_queues ? 8 : 0;
    unsigned move = bank_queues;
    struct run run;
    run_open(&run, &c);
    const struct cgm_dram_map *m = cgm_dram_map_of(run.d);
    struct cgm_dram_addr a = { .bank = 1, .row = 5, .col = 3 };
    uint64_t x = cgm_dram_map_encode(m, &a);
    a.col = 9;
    uint64_t y = cgm_dram_map_encode(m, &a);
    a.row = 6;
    uint64_t z = cgm_dram_map_encode(m, &a);
    assert_int_equal(one(&run, x, false, 10), move + rcd + cl + bl / 2);
    assert_int_equal(one(&run, y, false, 500), move + al + cl + bl / 2);
    assert_int_equal(one(&run, y, true, 1000), c.write_queue_size ? 1 : move + al + cwl + bl / 2);
    assert_int_equal(one(&run, z, false, 1500), move + rp + rcd + cl + bl / 2);
    /* the watermark rule holds one queued write (fewer than write_low + 1) */
    bool written = !c.write_queue_size || c.write_drain == CGM_DRAM_DRAIN_IDLE;
    const struct cgm_dram_stats *s = cgm_dram_stats(run.d);
    assert_int_equal(s->row_hits, 1 + written);
    assert_int_equal(s->row_misses, 2);
    assert_int_equal(s->row_conflicts, 1);
    assert_int_equal(cgm_dram_writes_queued(run.d), !written);
    run_close(&run);
}

static void test_idle_latency(void **state)
{
    (void)state;
    for (int one_queue = 0; one_queue < 2; one_queue++)
        for (int bq = 0; bq < 2; bq++) {
            check_idle_latency("DDR3-1600", one_queue, bq, 11, 0, 8, clocks(13.75, 1.25),
                               clocks(13.75, 1.25), 8);
            check_idle_latency("DDR4-2400", one_queue, bq, 16, 0, 12, clocks(13.32, 1 / 1.2),
                               clocks(13.32, 1 / 1.2), 8);
            check_idle_latency("GDDR5", one_queue, bq, 18, 17, 6, 18, 18, 16);
        }
}

/* Peak: a long sequential read stream, refresh off, reaches the bus limit
 * (transfers/s x bytes per transfer x channels) but never exceeds it. */
static void check_peak(const char *preset, double peak_gbs)
{
    struct cgm_dram_config c;
    cgm_dram_preset(preset, &c);
    c.t.refi = 0;
    struct run run;
    run_open(&run, &c);
    const unsigned n = 40000;
    uint64_t next = 0;
    unsigned sent = 0;
    while (sent < n || cgm_dram_pending(run.d)) {
        while (sent < n) {
            struct cgm_dram_request r = { .addr = next, .arrival = 0 };
            if (cgm_dram_enqueue(run.d, &r))
                break;
            next += cgm_dram_burst_bytes(&c);
            sent++;
        }
        cgm_dram_tick(run.d);
    }
    const struct cgm_dram_stats *s = cgm_dram_stats(run.d);
    assert_int_equal(s->reads, n);
    double bytes = (double)n * cgm_dram_burst_bytes(&c);
    double gbs = bytes / ((double)s->last_done * c.t.tck_ns);
    assert_true(fabs(cgm_dram_peak_gbytes_per_s(&c) - peak_gbs) < 0.01);
    if (!(gbs <= peak_gbs && gbs >= 0.97 * peak_gbs))
        fail_msg("%s: %.3f GB/s against a peak of %.3f", preset, gbs, peak_gbs);
    run_close(&run);
}

static void test_peak_bandwidth(void **state)
{
    (void)state;
    check_peak("DDR3-1600", 1600e6 * 8 * 2 / 1e9);
    check_peak("DDR4-2400", 2400e6 * 8 * 2 / 1e9);
    /* 1.5 GHz command clock, double data rate on 32 bits, two channels. */
    check_peak("GDDR5", 1.5e9 * 2 * 4 * 2 / 1e9);
}

/* ---- random traffic under the checker ---------------------------------- */
static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static struct cgm_dram_stats random_run(struct cgm_dram_config *c, unsigned n, uint64_t seed,
                                        uint64_t *commands)
{
    struct run run;
    run_open(&run, c);
    uint64_t s = seed, at = 0;
    /* A few hot rows for hits, plus random addresses for conflicts. */
    for (unsigned i = 0; i < n; i++) {
        at += rng(&s) % 5;
        uint64_t addr = rng(&s) % 4 ? (rng(&s) % 64) * 64 + ((rng(&s) % 4) << 24)
                                    : (rng(&s) & 0xffffffc0u);
        if (cgm_dram_now(run.d) < at)
            cgm_dram_skip_idle(run.d, at);
        struct cgm_dram_request r = { .addr = addr, .write = rng(&s) % 3 == 0, .arrival = at };
        while (cgm_dram_enqueue(run.d, &r))
            cgm_dram_tick(run.d);
        if (i % 5000 == 4999) /* idle gaps let refresh meet open rows */
            at += 3000;
    }
    while (cgm_dram_pending(run.d))
        cgm_dram_tick(run.d);
    assert_int_equal(run.done_count, n);
    struct cgm_dram_stats st = *cgm_dram_stats(run.d);
    assert_int_equal(st.reads + st.writes, n);
    /* every request not served from the write queue took a column command,
     * but the writes the watermark policy holds at the end */
    unsigned held = cgm_dram_writes_queued(run.d);
    if (c->write_drain == CGM_DRAM_DRAIN_IDLE)
        assert_int_equal(held, 0);
    else
        assert_true(held <= c->channels * c->write_low);
    assert_int_equal(st.row_hits + st.row_misses, n - st.reads_forwarded - st.writes_merged - held);
    *commands = cgm_dram_checker_commands(run.k);
    run_close(&run);
    return st;
}

static void test_checker_random_traffic(void **state)
{
    (void)state;
    for (int p = 0; cgm_dram_preset_names[p]; p++)
        for (int variant = 0; variant < 8; variant++) {
            struct cgm_dram_config c;
            cgm_dram_preset(cgm_dram_preset_names[p], &c);
            if (variant == 1) {
                c.ranks = 2;
                c.page_policy = CGM_DRAM_CLOSED_PAGE;
            } else if (variant == 2) {
                c.queue_size = 4;
                c.hit_cap = 2;
                c.channels = 1;
            } else if (variant == 3) { /* a small write queue: drains all the time */
                c.write_queue_size = 6;
                c.write_high = 4;
                c.write_low = 1;
                c.channels = 1;
            } else if (variant == 4) { /* one queue for reads and writes */
                c.write_queue_size = 0;
                c.ranks = 2;
            } else if (variant == 5) { /* no bank queues, the drain to write_low */
                c.bank_queue_size = 0;
                c.write_drain = CGM_DRAM_DRAIN_IDLE;
                c.write_high = 24;
            } else if (variant == 6) { /* no bank queues, the watermark drain */
                c.bank_queue_size = 0;
                c.write_drain = CGM_DRAM_DRAIN_WATERMARK;
            } else if (variant == 7) { /* small bank queues feeding a closed page, two ranks */
                c.bank_queue_size = 2;
                c.write_drain = CGM_DRAM_DRAIN_IDLE;
                c.write_high = 24;
                c.ranks = 2;
                c.page_policy = CGM_DRAM_CLOSED_PAGE;
            }
            uint64_t cmds = 0;
            struct cgm_dram_stats st = random_run(&c, 30000, 77 + p, &cmds);
            assert_true(cmds >= 30000);
            if (!(st.row_hits > 0 && st.row_misses > 0 && st.refreshes > 0))
                fail_msg("%s variant %d: hits %llu misses %llu refreshes %llu", c.preset, variant,
                         (unsigned long long)st.row_hits, (unsigned long long)st.row_misses,
                         (unsigned long long)st.refreshes);
            if (c.page_policy == CGM_DRAM_OPEN_PAGE)
                assert_true(st.row_conflicts > 0);
        }
}

static void test_deterministic(void **state)
{
    (void)state;
    struct cgm_dram_config c;
    cgm_dram_preset("DDR4-2400", &c);
    uint64_t a, b;
    struct cgm_dram_stats x = random_run(&c, 20000, 5, &a);
    struct cgm_dram_stats y = random_run(&c, 20000, 5, &b);
    assert_int_equal(a, b);
    assert_memory_equal(&x, &y, sizeof x);
}

/* The checker must catch what it claims to check. */
static uint64_t feed(const struct cgm_dram_config *c, const struct cgm_dram_command *cmds, size_t n)
{
    struct cgm_dram_checker *k = cgm_dram_checker_create(c);
    for (size_t i = 0; i < n; i++)
        cgm_dram_checker_observe(k, &cmds[i]);
    uint64_t v = cgm_dram_checker_violations(k);
    cgm_dram_checker_destroy(k);
    return v;
}

static void test_checker_catches_violations(void **state)
{
    (void)state;
    struct cgm_dram_config c;
    cgm_dram_preset("DDR3-1600", &c); /* tRCD 11, tRAS 28, tRP 11, tRRD 5, tFAW 24 */
#define A CGM_DRAM_ACT
#define P CGM_DRAM_PRE
#define R CGM_DRAM_RD
#define W CGM_DRAM_WR
    const struct cgm_dram_command ok[] = {
        { 10, A, 0, 0, 0, 0, 7, 0, 0 }, { 21, R, 0, 0, 0, 0, 7, 0, 0 }, { 38, P, 0, 0, 0, 0, 7, 0, 0 },
        { 49, A, 0, 0, 0, 0, 8, 0, 0 }, { 60, W, 0, 0, 0, 0, 8, 0, 0 },
    };
    assert_int_equal(feed(&c, ok, 5), 0);
    const struct cgm_dram_command rcd[] = { { 10, A, 0, 0, 0, 0, 7, 0, 0 }, { 20, R, 0, 0, 0, 0, 7, 0, 0 } };
    assert_int_equal(feed(&c, rcd, 2), 1);
    const struct cgm_dram_command ras[] = { { 10, A, 0, 0, 0, 0, 7, 0, 0 }, { 37, P, 0, 0, 0, 0, 7, 0, 0 } };
    assert_int_equal(feed(&c, ras, 2), 1);
    const struct cgm_dram_command rrd[] = { { 10, A, 0, 0, 0, 0, 7, 0, 0 }, { 14, A, 0, 0, 0, 1, 7, 0, 0 } };
    assert_int_equal(feed(&c, rrd, 2), 1);
    const struct cgm_dram_command faw[] = {
        { 10, A, 0, 0, 0, 0, 1, 0, 0 }, { 15, A, 0, 0, 0, 1, 1, 0, 0 }, { 20, A, 0, 0, 0, 2, 1, 0, 0 },
        { 25, A, 0, 0, 0, 3, 1, 0, 0 }, { 33, A, 0, 0, 0, 4, 1, 0, 0 },
    };
    assert_true(feed(&c, faw, 5) >= 1);
    /* WR then RD: needs CWL + BL/2 + tWTR = 8 + 4 + 6 = 18. */
    const struct cgm_dram_command wtr[] = {
        { 10, A, 0, 0, 0, 0, 1, 0, 0 }, { 21, W, 0, 0, 0, 0, 1, 0, 0 }, { 38, R, 0, 0, 0, 0, 1, 0, 0 } };
    assert_int_equal(feed(&c, wtr, 3), 1);
    const struct cgm_dram_command wtr_ok[] = {
        { 10, A, 0, 0, 0, 0, 1, 0, 0 }, { 21, W, 0, 0, 0, 0, 1, 0, 0 }, { 39, R, 0, 0, 0, 0, 1, 0, 0 } };
    assert_int_equal(feed(&c, wtr_ok, 3), 0);
    const struct cgm_dram_command wrong_row[] = { { 10, A, 0, 0, 0, 0, 1, 0, 0 }, { 30, R, 0, 0, 0, 0, 2, 0, 0 } };
    assert_int_equal(feed(&c, wrong_row, 2), 1);
    const struct cgm_dram_command ref_open[] = { { 10, A, 0, 0, 0, 0, 1, 0, 0 }, { 90, CGM_DRAM_REF, 0, 0, 0, 0, 0, 0, 0 } };
    assert_int_equal(feed(&c, ref_open, 2), 1);
    /* A repeated REF (an idle rank's refreshes at once): 1000 of them tREFI
     * apart, then an activate tRFC after the last is fine; an activate
     * within tRFC of the last, refreshes closer than tRFC or further apart
     * than nine intervals, and a train over an open bank are not. */
    const uint64_t refi = c.t.refi, rfc = c.t.rfc, last = 100 + 999 * refi;
    const struct cgm_dram_command train[] = {
        { 100, CGM_DRAM_REF, 0, 0, 0, 0, 0, 1000, refi }, { last + rfc, A, 0, 0, 0, 0, 3, 0, 0 } };
    assert_int_equal(feed(&c, train, 2), 0);
    const struct cgm_dram_command train_rfc[] = {
        { 100, CGM_DRAM_REF, 0, 0, 0, 0, 0, 1000, refi }, { last + rfc - 1, A, 0, 0, 0, 0, 3, 0, 0 } };
    assert_int_equal(feed(&c, train_rfc, 2), 1);
    const struct cgm_dram_command too_close[] = { { 100, CGM_DRAM_REF, 0, 0, 0, 0, 0, 3, rfc - 1 } };
    assert_int_equal(feed(&c, too_close, 1), 1);
    const struct cgm_dram_command too_far[] = { { 100, CGM_DRAM_REF, 0, 0, 0, 0, 0, 3, 9 * refi + 1 } };
    assert_int_equal(feed(&c, too_far, 1), 1);
    const struct cgm_dram_command train_open[] = {
        { 10, A, 0, 0, 0, 0, 1, 0, 0 }, { 90, CGM_DRAM_REF, 0, 0, 0, 0, 0, 5, refi } };
    assert_int_equal(feed(&c, train_open, 2), 1);
}

/* FR-FCFS: a younger row hit goes before an older conflicting request. */
static void test_fr_fcfs_order(void **state)
{
    (void)state;
    struct cgm_dram_config c;
    cgm_dram_preset("DDR3-1600", &c);
    struct run run;
    run_open(&run, &c);
    const struct cgm_dram_map *m = cgm_dram_map_of(run.d);
    struct cgm_dram_addr a = { .row = 1 };
    uint64_t r1 = cgm_dram_map_encode(m, &a);
    a.col = 2;
    uint64_t r1b = cgm_dram_map_encode(m, &a);
    a.row = 2;
    uint64_t r2 = cgm_dram_map_encode(m, &a);
    struct cgm_dram_request q[3] = { { r1, false, 0, (void *)1 }, { r2, false, 0, (void *)2 },
                                     { r1b, false, 0, (void *)3 } };
    for (int i = 0; i < 3; i++)
        assert_int_equal(cgm_dram_enqueue(run.d, &q[i]), 0);
    while (cgm_dram_pending(run.d))
        cgm_dram_tick(run.d);
    assert_int_equal(run.norder, 3);
    assert_int_equal(run.order[0], 1);
    assert_int_equal(run.order[1], 3);
    assert_int_equal(run.order[2], 2);
    run_close(&run);
}

/* ---- the write queue -------------------------------------------------- */

/* Column commands in the order they issued, for the write queue's tests
 * (the timing checker watches the same commands). */
struct cmd_log {
    struct cgm_dram_checker *k;
    char kind[256]; /* 'R' or 'W' per column command */
    unsigned n;
};

static void log_cmd(void *ctx, const struct cgm_dram_command *c)
{
    struct cmd_log *l = ctx;
    cgm_dram_checker_observe(l->k, c);
    if ((c->cmd == CGM_DRAM_RD || c->cmd == CGM_DRAM_WR) && l->n < sizeof l->kind - 1)
        l->kind[l->n++] = c->cmd == CGM_DRAM_RD ? 'R' : 'W';
}

/* The one-level controller (no bank queues) with the idle drain rule and
 * the write queue's size and watermarks given. */
static struct cgm_dram_config wq_config(unsigned size, unsigned high, unsigned low)
{
    struct cgm_dram_config c;
    cgm_dram_preset("DDR4-2400", &c);
    c.bank_queue_size = 0;
    c.write_drain = CGM_DRAM_DRAIN_IDLE;
    c.channels = 1;
    c.t.refi = 0; /* no refresh between the commands looked at */
    c.write_queue_size = size;
    c.write_high = high;
    c.write_low = low;
    return c;
}

/* Bursts of one bank's row: block i of row `row` of bank `bank`. */
static uint64_t block_addr(const struct cgm_dram *d, unsigned bank, uint32_t row, uint32_t i)
{
    struct cgm_dram_addr a = { .bank = bank, .row = row, .col = i };
    return cgm_dram_map_encode(cgm_dram_map_of(d), &a);
}

static void run_wq(struct run *run, struct cmd_log *log, const struct cgm_dram_config *c)
{
    run_open(run, c);
    memset(log, 0, sizeof *log);
    log->k = run->k;
    cgm_dram_set_observer(run->d, log_cmd, log);
}

static void drain_all(struct run *run)
{
    while (cgm_dram_pending(run->d))
        cgm_dram_tick(run->d);
}

/* Writes queued first, below the high watermark, then a read of another
 * bank: the read goes first and takes the latency of an idle closed bank
 * (tRCD + CL + BL/2); the writes follow once no read waits. Through one
 * shared queue the older writes go first and the read waits longer. */
static void test_reads_pass_queued_writes(void **state)
{
    (void)state;
    struct cgm_dram_config c = wq_config(16, 12, 4);
    struct run run;
    struct cmd_log log;
    run_wq(&run, &log, &c);
    for (uint32_t i = 0; i < c.write_high - 1; i++) {
        struct cgm_dram_request w = { .addr = block_addr(run.d, 0, 3, i), .write = true };
        assert_int_equal(cgm_dram_enqueue(run.d, &w), 0);
    }
    struct cgm_dram_request r = { .addr = block_addr(run.d, 1, 9, 0), .tag = (void *)7 };
    assert_int_equal(cgm_dram_enqueue(run.d, &r), 0);
    uint64_t read_latency = 0;
    while (cgm_dram_pending(run.d)) {
        cgm_dram_tick(run.d);
        for (unsigned i = 0; i < run.norder; i++)
            if (run.order[i] == 7 && !read_latency)
                read_latency = run.last_latency;
    }
    assert_int_equal(log.n, c.write_high);
    assert_int_equal(log.kind[0], 'R');
    for (unsigned i = 1; i < log.n; i++)
        assert_int_equal(log.kind[i], 'W');
    assert_int_equal(read_latency, c.t.rcd + c.t.cl + c.t.bl / 2);
    run_close(&run);

    c.write_queue_size = 0; /* one queue for both */
    run_wq(&run, &log, &c);
    for (uint32_t i = 0; i < c.write_high - 1; i++) {
        struct cgm_dram_request w = { .addr = block_addr(run.d, 0, 3, i), .write = true };
        assert_int_equal(cgm_dram_enqueue(run.d, &w), 0);
    }
    assert_int_equal(cgm_dram_enqueue(run.d, &r), 0);
    drain_all(&run);
    assert_int_equal(log.kind[0], 'W');
    assert_true(run.last_latency > c.t.rcd + c.t.cl + c.t.bl / 2);
    run_close(&run);
}

/* A read of a block whose write is still queued is served from the write
 * queue a cycle later, without a read command; a second write to the block
 * merges into the first; each write is acknowledged a cycle after it is
 * queued. */
static void test_read_of_a_queued_write(void **state)
{
    (void)state;
    struct cgm_dram_config c = wq_config(16, 12, 4);
    struct run run;
    struct cmd_log log;
    run_wq(&run, &log, &c);
    uint64_t x = block_addr(run.d, 2, 5, 1);
    struct cgm_dram_request w = { .addr = x, .write = true, .arrival = 0 };
    struct cgm_dram_request r = { .addr = x + 8, .arrival = 0 }; /* same burst */
    assert_int_equal(cgm_dram_enqueue(run.d, &w), 0);
    assert_int_equal(cgm_dram_enqueue(run.d, &w), 0);
    assert_int_equal(cgm_dram_enqueue(run.d, &r), 0);
    cgm_dram_tick(run.d);
    cgm_dram_tick(run.d);
    /* all three done after one cycle: two acknowledgements and the read */
    assert_int_equal(run.done_count, 3);
    assert_int_equal(run.last_latency, 1);
    drain_all(&run);
    const struct cgm_dram_stats *s = cgm_dram_stats(run.d);
    assert_int_equal(s->reads, 1);
    assert_int_equal(s->writes, 2);
    assert_int_equal(s->reads_forwarded, 1);
    assert_int_equal(s->writes_merged, 1);
    assert_int_equal(s->read_latency_sum, 1);
    assert_int_equal(log.n, 1);
    assert_int_equal(log.kind[0], 'W');
    run_close(&run);
}

/* With reads waiting, `write_high` queued writes start a drain at once. By
 * the idle policy it writes until `write_low` are left, then the reads go,
 * then (no read waiting) the last writes. By the watermark policy it writes
 * all of them, the reads waiting meanwhile. */
static void test_drain_between_the_watermarks(void **state)
{
    (void)state;
    for (int policy = CGM_DRAM_DRAIN_IDLE; policy <= CGM_DRAM_DRAIN_WATERMARK; policy++) {
        struct cgm_dram_config c = wq_config(16, 12, 4);
        c.write_drain = (enum cgm_dram_write_drain)policy;
        bool idle = policy == CGM_DRAM_DRAIN_IDLE;
        struct run run;
        struct cmd_log log;
        run_wq(&run, &log, &c);
        for (uint32_t i = 0; i < c.write_high; i++) {
            struct cgm_dram_request w = { .addr = block_addr(run.d, i % 4, 3, i), .write = true };
            assert_int_equal(cgm_dram_enqueue(run.d, &w), 0);
        }
        for (uint32_t i = 0; i < c.queue_size; i++) {
            struct cgm_dram_request r = { .addr = block_addr(run.d, 4 + i % 4, 7, i) };
            assert_int_equal(cgm_dram_enqueue(run.d, &r), 0);
        }
        drain_all(&run);
        unsigned first = idle ? c.write_high - c.write_low : c.write_high;
        assert_int_equal(log.n, c.write_high + c.queue_size);
        for (unsigned i = 0; i < log.n; i++) {
            char want = i < first || i >= first + c.queue_size ? 'W' : 'R';
            if (log.kind[i] != want)
                fail_msg("policy %d: column command %u is %c, want %c (%s)", policy, i,
                         log.kind[i], want, log.kind);
        }
        assert_int_equal(cgm_dram_stats(run.d)->write_drains, idle ? 2 : 1);
        assert_int_equal(cgm_dram_writes_queued(run.d), 0);
        assert_int_equal(cgm_dram_pending(run.d), 0);
        run_close(&run);
    }
}

/* The watermark policy with no read queued: write_low writes wait without a
 * command (not even after a long idle stretch, which the controller skips);
 * one more starts a drain that writes them all (no read waits, so it stops
 * at 0). A read queued behind held writes goes first; they follow only
 * once they exceed write_low. The idle policy writes the first write at
 * once. */
static void test_watermark_drain_holds_a_few_writes(void **state)
{
    (void)state;
    struct cgm_dram_config c = wq_config(16, 12, 4);
    struct run run;
    struct cmd_log log;
    /* the same with bank queues, where "no read queued" is "bank queues empty" */
    for (unsigned bq = 0; bq <= 8; bq += 8) {
        c.write_drain = CGM_DRAM_DRAIN_WATERMARK;
        c.bank_queue_size = bq;
        run_wq(&run, &log, &c);
        for (uint32_t i = 0; i < c.write_low; i++) {
            struct cgm_dram_request w = { .addr = block_addr(run.d, i % 4, 3, i), .write = true };
            assert_int_equal(cgm_dram_enqueue(run.d, &w), 0);
        }
        cgm_dram_skip_idle(run.d, 100000);
        assert_int_equal(log.n, 0);
        assert_int_equal(cgm_dram_pending(run.d), 0);
        assert_int_equal(cgm_dram_stats(run.d)->write_drains, 0);
        /* every write was acknowledged a cycle after it was queued */
        assert_int_equal(run.done_count, c.write_low);
        /* a read passes them */
        struct cgm_dram_request r = { .addr = block_addr(run.d, 5, 9, 0),
                                      .arrival = cgm_dram_now(run.d) };
        assert_int_equal(cgm_dram_enqueue(run.d, &r), 0);
        drain_all(&run);
        assert_int_equal(log.n, 1);
        assert_int_equal(log.kind[0], 'R');
        /* one more write than write_low: all of them go, in one drain */
        struct cgm_dram_request w = { .addr = block_addr(run.d, 6, 3, 0), .write = true,
                                      .arrival = cgm_dram_now(run.d) };
        assert_int_equal(cgm_dram_enqueue(run.d, &w), 0);
        drain_all(&run);
        assert_int_equal(log.n, 1 + c.write_low + 1);
        for (unsigned i = 1; i < log.n; i++)
            assert_int_equal(log.kind[i], 'W');
        assert_int_equal(cgm_dram_stats(run.d)->write_drains, 1);
        assert_int_equal(cgm_dram_writes_queued(run.d), 0);
        run_close(&run);
    }
    c.write_drain = CGM_DRAM_DRAIN_IDLE;
    c.bank_queue_size = 0;
    run_wq(&run, &log, &c);
    struct cgm_dram_request one_write = { .addr = block_addr(run.d, 0, 3, 0), .write = true };
    assert_int_equal(cgm_dram_enqueue(run.d, &one_write), 0);
    assert_true(cgm_dram_pending(run.d) > 0);
    drain_all(&run);
    assert_int_equal(log.n, 1);
    assert_int_equal(log.kind[0], 'W');
    run_close(&run);
}

/* ---- bank queues ------------------------------------------------------- */

/* Reads of one bank, each of its own row, offered at cycle 0: the
 * transaction queue takes queue_size of them; one a cycle moves to the bank
 * queue (cycles 0..7 for a bank queue of 8), where the first stays until its
 * column command at 1 + tRCD; so after 10 cycles exactly 8 more fit. */
static void test_bank_queue_capacity(void **state)
{
    (void)state;
    struct cgm_dram_config c;
    cgm_dram_preset("DDR3-1600", &c);
    c.channels = 1;
    c.t.refi = 0;
    assert_int_equal(c.bank_queue_size, 8);
    struct run run;
    run_open(&run, &c);
    uint32_t row = 0;
    unsigned taken = 0;
    for (;; row++) {
        struct cgm_dram_request r = { .addr = block_addr(run.d, 0, row, 0) };
        if (cgm_dram_enqueue(run.d, &r))
            break;
        taken++;
    }
    assert_int_equal(taken, c.queue_size);
    for (int i = 0; i < 10; i++)
        cgm_dram_tick(run.d);
    assert_true(1 + c.t.rcd > 10);
    taken = 0;
    for (;; row++) {
        struct cgm_dram_request r = { .addr = block_addr(run.d, 0, row, 0), .arrival = 10 };
        if (cgm_dram_enqueue(run.d, &r))
            break;
        taken++;
    }
    assert_int_equal(taken, c.bank_queue_size);
    drain_all(&run);
    assert_int_equal(run.done_count, c.queue_size + c.bank_queue_size);
    run_close(&run);
}

/* Two open rows, three hits queued for each, bank 0's first: FR-FCFS over
 * one queue serves the oldest hit each time (bank 0's three, then bank
 * 1's); bank queues are served in turn, so the banks alternate once both
 * have a request moved. */
static void test_bank_queues_take_turns(void **state)
{
    (void)state;
    for (unsigned bq = 0; bq <= 8; bq += 8) {
        struct cgm_dram_config c;
        cgm_dram_preset("DDR3-1600", &c);
        c.channels = 1;
        c.t.refi = 0;
        c.bank_queue_size = bq;
        struct run run;
        run_open(&run, &c);
        for (unsigned b = 0; b < 2; b++) { /* open row 1 of banks 0 and 1 */
            struct cgm_dram_request r = { .addr = block_addr(run.d, b, 1, 0) };
            assert_int_equal(cgm_dram_enqueue(run.d, &r), 0);
        }
        drain_all(&run);
        run.norder = 0;
        uint64_t now = cgm_dram_now(run.d);
        for (unsigned b = 0; b < 2; b++)
            for (uint32_t i = 1; i <= 3; i++) {
                struct cgm_dram_request r = { .addr = block_addr(run.d, b, 1, i), .arrival = now,
                                              .tag = (void *)(uintptr_t)(10 * b + i) };
                assert_int_equal(cgm_dram_enqueue(run.d, &r), 0);
            }
        drain_all(&run);
        static const uintptr_t fcfs[6] = { 1, 2, 3, 11, 12, 13 }, turns[6] = { 1, 11, 2, 12, 3, 13 };
        const uintptr_t *want = bq ? turns : fcfs;
        assert_int_equal(run.norder, 6);
        for (unsigned i = 0; i < 6; i++)
            if (run.order[i] != want[i])
                fail_msg("bank_queue_size %u: read %u done is %lu, want %lu", bq, i,
                         (unsigned long)run.order[i], (unsigned long)want[i]);
        assert_int_equal(cgm_dram_stats(run.d)->row_hits, 6);
        run_close(&run);
    }
}

static void test_closed_page(void **state)
{
    (void)state;
    for (unsigned bq = 0; bq <= 8; bq += 8) {
        struct cgm_dram_config c;
        cgm_dram_preset("DDR3-1600", &c);
        c.page_policy = CGM_DRAM_CLOSED_PAGE;
        c.bank_queue_size = bq;
        unsigned move = bq != 0; /* the cycle to its bank queue */
        struct run run;
        run_open(&run, &c);
        /* Under a closed page every isolated access pays tRCD + CL + BL/2,
         * and never a conflict. */
        assert_int_equal(one(&run, 0, false, 0), move + 11 + 11 + 4);
        assert_int_equal(one(&run, 0, false, 200), move + 11 + 11 + 4);
        assert_int_equal(one(&run, 1 << 20, false, 400), move + 11 + 11 + 4);
        cgm_dram_skip_idle(run.d, 1000);
        const struct cgm_dram_stats *s = cgm_dram_stats(run.d);
        assert_int_equal(s->row_hits, 0);
        assert_int_equal(s->row_conflicts, 0);
        assert_int_equal(s->precharges, 3);
        run_close(&run);
    }
}

static void test_refresh_rate(void **state)
{
    (void)state;
    struct cgm_dram_config c;
    cgm_dram_preset("DDR4-2400", &c);
    c.ranks = 2;
    struct run run;
    run_open(&run, &c);
    cgm_dram_skip_idle(run.d, 100ull * c.t.refi + 1);
    /* One refresh per rank per interval, on every channel. */
    assert_int_equal(cgm_dram_stats(run.d)->refreshes, 100ull * c.ranks * c.channels);
    run_close(&run);
}

/* ---- the trace driver and configuration errors -------------------------- */
static int trace_err(const char *text, char *err, size_t len)
{
    struct cgm_dram_config c;
    cgm_dram_preset("DDR3-1600", &c);
    struct cgm_dram *d = cgm_dram_create(&c, err, len);
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int rc = cgm_dram_run_trace(d, f, "t.trace", err, len);
    fclose(f);
    cgm_dram_destroy(d);
    return rc;
}

/* Long idle stretches: the controller takes a run of refreshes at once
 * (cgm_dram_skip_idle); ticking through every cycle must end in the same
 * state, for open and closed pages; the checker, which sees such a run as one
 * repeated REF, must find nothing wrong in either; and an idle gap of 10^14
 * cycles must not take long, checked or not (it once took hours). */
enum gaps_mode { TICKED, SKIPPED, SKIPPED_UNCHECKED };

static struct cgm_dram_stats run_with_gaps(const char *preset, bool closed, enum gaps_mode mode,
                                           uint64_t gap, uint64_t *violations)
{
    struct cgm_dram_config c;
    assert_int_equal(cgm_dram_preset(preset, &c), 0);
    if (closed)
        c.page_policy = CGM_DRAM_CLOSED_PAGE;
    char err[300];
    struct cgm_dram *d = cgm_dram_create(&c, err, sizeof err);
    assert_non_null(d);
    struct cgm_dram_checker *k = NULL;
    if (mode != SKIPPED_UNCHECKED) {
        k = cgm_dram_checker_create(&c);
        cgm_dram_set_observer(d, cgm_dram_checker_observe, k);
    }
    const struct cgm_dram_request reqs[] = {
        { 0x0, false, 0, NULL }, { 0x40, true, 2, NULL }, { 0x12340, false, 3, NULL },
        { 0x80, false, gap, NULL }, { 0x999940, true, gap + 1, NULL }, { 0xc0, false, 2 * gap + 7, NULL },
    };
    if (mode == TICKED) {
        for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
            while (cgm_dram_now(d) < reqs[i].arrival)
                cgm_dram_tick(d);
            while (cgm_dram_enqueue(d, &reqs[i]))
                cgm_dram_tick(d);
        }
        while (cgm_dram_pending(d))
            cgm_dram_tick(d);
    } else {
        char text[512] = "";
        for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%#llx %s %llu\n",
                     (unsigned long long)reqs[i].addr, reqs[i].write ? "WRITE" : "READ",
                     (unsigned long long)reqs[i].arrival);
        FILE *in = fmemopen(text, strlen(text), "r");
        assert_int_equal(cgm_dram_run_trace(d, in, "gaps.trace", err, sizeof err), 0);
        fclose(in);
    }
    struct cgm_dram_stats st = *cgm_dram_stats(d);
    *violations = 0;
    if (k) {
        cgm_dram_checker_finish(k, cgm_dram_now(d));
        *violations = cgm_dram_checker_violations(k);
        cgm_dram_checker_destroy(k);
    }
    cgm_dram_destroy(d);
    return st;
}

static void test_idle_refreshes_in_bulk(void **state)
{
    (void)state;
    static const char *const presets[] = { "DDR3-1600", "DDR4-2400", "GDDR5" };
    for (int p = 0; p < 3; p++)
        for (int closed = 0; closed < 2; closed++) {
            uint64_t v1, v2, v3;
            struct cgm_dram_stats a = run_with_gaps(presets[p], closed, TICKED, 3000000, &v1);
            struct cgm_dram_stats b = run_with_gaps(presets[p], closed, SKIPPED, 3000000, &v2);
            struct cgm_dram_stats u = run_with_gaps(presets[p], closed, SKIPPED_UNCHECKED, 3000000, &v3);
            assert_int_equal(v1, 0);
            assert_int_equal(v2, 0);
            assert_memory_equal(&a, &b, sizeof a);
            assert_memory_equal(&a, &u, sizeof a);
            struct cgm_dram_config c;
            cgm_dram_preset(presets[p], &c);
            /* Every rank refreshes once per tREFI: 2 gaps of 3e6 cycles. */
            uint64_t per_rank = 6000000 / c.t.refi;
            assert_true(a.refreshes + 2 * c.channels * c.ranks >= per_rank * c.channels * c.ranks);
            assert_true(a.refreshes <= (per_rank + 2) * c.channels * c.ranks);
        }
    for (int checked = 0; checked < 2; checked++) {
        uint64_t v, far_gap = 100000000000000ull;
        struct cgm_dram_stats far =
            run_with_gaps("DDR3-1600", false, checked ? SKIPPED : SKIPPED_UNCHECKED, far_gap, &v);
        assert_int_equal(v, 0);
        assert_int_equal(far.reads, 4);
        assert_int_equal(far.writes, 2);
        struct cgm_dram_config c;
        cgm_dram_preset("DDR3-1600", &c);
        uint64_t per_rank = 2 * far_gap / c.t.refi;
        assert_true(far.refreshes + 2 * c.channels * c.ranks >= per_rank * c.channels * c.ranks);
        assert_true(far.refreshes <= (per_rank + 2) * c.channels * c.ranks);
    }
}

static void test_trace_driver(void **state)
{
    (void)state;
    char err[300];
    assert_int_equal(trace_err("# comment\n0x40 READ 0\n0x80 WRITE 3\n\n1c0 READ 9\n", err, sizeof err), 0);
    assert_int_equal(trace_err("0x40 READ 0\n0x80 FETCH 3\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "t.trace:2:"));
    assert_non_null(strstr(err, "FETCH"));
    assert_int_equal(trace_err("0x40 READ 10\n0x80 READ 3\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "t.trace:2:"));
    assert_int_equal(trace_err("zz READ 10\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "t.trace:1:"));
    assert_int_equal(trace_err("0x40 READ\n", err, sizeof err), -1);
    assert_int_equal(trace_err("0x40 READ -5\n", err, sizeof err), -1);

}

/* ---- the [dram] keys ----------------------------------------------------- */
static void test_config_keys(void **state)
{
    (void)state;
    struct cgm_dram_config c, d;
    char err[300];
    cgm_dram_preset("DDR3-1600", &c);
    assert_int_equal(cgm_dram_config_set(&c, "queue_size", "8", err, sizeof err), 0);
    assert_int_equal(c.queue_size, 8);
    assert_int_equal(cgm_dram_config_set(&c, "tWTR", "7", err, sizeof err), 0);
    assert_int_equal(c.t.wtr_l, 7);
    assert_int_equal(c.t.wtr_s, 7);
    assert_int_equal(cgm_dram_config_set(&c, "page_policy", "closed", err, sizeof err), 0);
    assert_int_equal(c.page_policy, CGM_DRAM_CLOSED_PAGE);
    /* A preset replaces what came from the previous preset, not what was set. */
    assert_int_equal(cgm_dram_config_set(&c, "preset", "DDR4-2400", err, sizeof err), 0);
    cgm_dram_preset("DDR4-2400", &d);
    assert_string_equal(c.preset, "DDR4-2400");
    assert_int_equal(c.queue_size, 8);
    assert_int_equal(c.t.wtr_l, 7);
    assert_int_equal(c.page_policy, CGM_DRAM_CLOSED_PAGE);
    assert_int_equal(c.t.cl, d.t.cl);
    assert_int_equal(c.bank_groups, d.bank_groups);
    assert_true(c.t.tck_ns == d.t.tck_ns);
    /* Errors name the key and say what is wrong. */
    assert_int_equal(cgm_dram_config_set(&c, "tRCDX", "3", err, sizeof err), -1);
    assert_non_null(strstr(err, "tRCDX"));
    assert_int_equal(cgm_dram_config_set(&c, "CL", "-3", err, sizeof err), -1);
    assert_non_null(strstr(err, "dram.CL"));
    assert_int_equal(cgm_dram_config_set(&c, "CL", "eleven", err, sizeof err), -1);
    assert_int_equal(cgm_dram_config_set(&c, "preset", "DDR9", err, sizeof err), -1);
    assert_non_null(strstr(err, "DDR9"));
    assert_int_equal(cgm_dram_config_set(&c, "page_policy", "ajar", err, sizeof err), -1);
    assert_int_equal(c.write_drain, CGM_DRAM_DRAIN_WATERMARK);
    assert_int_equal(cgm_dram_config_set(&c, "write_drain", "idle", err, sizeof err), 0);
    assert_int_equal(c.write_drain, CGM_DRAM_DRAIN_IDLE);
    assert_int_equal(cgm_dram_config_set(&c, "write_drain", "watermark", err, sizeof err), 0);
    assert_int_equal(c.write_drain, CGM_DRAM_DRAIN_WATERMARK);
    assert_int_equal(cgm_dram_config_set(&c, "bank_queue_size", "0", err, sizeof err), 0);
    assert_int_equal(c.bank_queue_size, 0);
    assert_int_equal(cgm_dram_config_set(&c, "bank_queue_size", "257", err, sizeof err), -1);
    assert_non_null(strstr(err, "dram.bank_queue_size"));
    assert_int_equal(cgm_dram_config_set(&c, "write_drain", "full", err, sizeof err), -1);
    assert_non_null(strstr(err, "dram.write_drain"));
    assert_non_null(strstr(err, "idle or watermark"));
    assert_int_equal(cgm_dram_config_set(&c, "tCK_ns", "0", err, sizeof err), -1);
    /* Cross-key checks: geometry and watermarks. */
    cgm_dram_preset("DDR3-1600", &c);
    c.rows = 1000;
    assert_int_equal(cgm_dram_config_validate(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "power of two"));
    cgm_dram_preset("DDR3-1600", &c);
    c.write_queue_size = 16;
    c.write_high = 8;
    c.write_low = 8;
    assert_int_equal(cgm_dram_config_validate(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "write_low"));
    c.write_low = 2;
    assert_int_equal(cgm_dram_config_validate(&c, err, sizeof err), 0);
    c.write_high = 17;
    assert_int_equal(cgm_dram_config_validate(&c, err, sizeof err), -1);
}

/* Printing every key and setting them back gives the same configuration,
 * whichever preset it started from. */
static void test_config_print_reads_back(void **state)
{
    (void)state;
    for (int p = 0; cgm_dram_preset_names[p]; p++) {
        struct cgm_dram_config a, b;
        char err[300];
        cgm_dram_preset(cgm_dram_preset_names[p], &a);
        assert_int_equal(cgm_dram_config_set(&a, "hit_cap", "5", err, sizeof err), 0);
        assert_int_equal(cgm_dram_config_set(&a, "write_drain", "watermark", err, sizeof err), 0);
        assert_int_equal(cgm_dram_config_set(&a, "mapping", "chan:row:bank:rank:col:bg", err, sizeof err), 0);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cgm_dram_config_print(&a, f);
        fclose(f);
        cgm_dram_preset("GDDR5", &b);
        unsigned lines = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            if (line[0] == ';')
                continue;
            char *eq = strstr(line, " = ");
            assert_non_null(eq);
            *eq = 0;
            if (cgm_dram_config_set(&b, line, eq + 3, err, sizeof err))
                fail_msg("%s: %s", cgm_dram_preset_names[p], err);
            lines++;
        }
        free(text);
        assert_true(lines > 30);
        assert_memory_equal(&a, &b, sizeof a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets_match_jedec),
        cmocka_unit_test(test_mapping_is_a_bijection),
        cmocka_unit_test(test_idle_latency),
        cmocka_unit_test(test_peak_bandwidth),
        cmocka_unit_test(test_checker_random_traffic),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_checker_catches_violations),
        cmocka_unit_test(test_fr_fcfs_order),
        cmocka_unit_test(test_reads_pass_queued_writes),
        cmocka_unit_test(test_read_of_a_queued_write),
        cmocka_unit_test(test_drain_between_the_watermarks),
        cmocka_unit_test(test_watermark_drain_holds_a_few_writes),
        cmocka_unit_test(test_bank_queue_capacity),
        cmocka_unit_test(test_bank_queues_take_turns),
        cmocka_unit_test(test_closed_page),
        cmocka_unit_test(test_refresh_rate),
        cmocka_unit_test(test_trace_driver),
        cmocka_unit_test(test_idle_refreshes_in_bulk),
        cmocka_unit_test(test_config_keys),
        cmocka_unit_test(test_config_print_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
