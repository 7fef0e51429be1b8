/* replay's front end is pipelined: on a loop of independent 8-byte nops
 * that fits in the L1I, the core keeps several line fetches in flight and
 * runs at its width (4 instructions a cycle: fetch, dispatch and commit
 * are 4 wide), not at one line per L1 hit latency. With one line fetch in
 * flight (cpu.fetch_lines = 1) a line (8 instructions) takes at least the
 * L1 latency, so the loop cannot beat 8 / latency instructions a cycle.
 *
 * Steady-state figures are the difference between a run of 2R and one of
 * R passes, so the cold misses of the first pass cancel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "replay/sim.h"
#include "tests/unit/replay_run.h"
#include "tests/unit/temp_file.h"

#define CODE 0x401000ull
#define NOP_LEN 8                      /* nop dword [rax + rax*1 + 0] */
#define LOOP_INSNS 512                 /* 4 KiB: 64 lines of 8 nops */
#define BLOCK_INSNS 64                 /* the trace format's block limit */

static const uint8_t NOP8[NOP_LEN] = { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 };

/* Writes a trace of PASSES passes over the loop; returns its path. */
static const char *loop_trace(unsigned passes)
{
    const char *p = test_temp_file(NULL);
    char err[256];
    struct cgm_writer *w = cgm_writer_create(p, NULL, err, sizeof err);
    assert_non_null(w);
    uint8_t *table = malloc((size_t)LOOP_INSNS * CGM_X86_STATIC_BYTES_MAX);
    size_t len = 0;
    uint64_t prev = 0;
    for (unsigned i = 0; i < LOOP_INSNS; i++) {
        struct cgm_x86_static s = { .addr = CODE + (uint64_t)i * NOP_LEN, .len = NOP_LEN, .cls = CGM_X86_INT };
        memcpy(s.bytes, NOP8, NOP_LEN);
        len += cgm_x86_static_encode(table + len, &prev, &s);
    }
    assert_int_equal(cgm_writer_add_section(w, 0x7fff0001u, CGM_X86_STATIC_SECTION, table, len), 0);
    free(table);
    struct cgm_stream_info info = { .id = 1, .kind = CGM_STREAM_X86_THREAD, .thread_id = 100 };
    struct cgm_wstream *st = cgm_writer_open_stream(w, &info);
    assert_non_null(st);
    struct cgm_x86_codec codec;
    memset(&codec, 0, sizeof codec);
    uint8_t buf[64];
    for (unsigned r = 0; r < passes; r++)
        for (unsigned b = 0; b < LOOP_INSNS / BLOCK_INSNS; b++) {
            uint64_t start = CODE + (uint64_t)b * BLOCK_INSNS * NOP_LEN;
            size_t n = cgm_x86_block_encode(&codec, buf, CGM_X86_REC_BLOCK, start, BLOCK_INSNS, NULL, 0);
            assert_int_equal(cgm_wstream_append(st, buf, n, BLOCK_INSNS), 0);
        }
    assert_int_equal(cgm_writer_finalize(w, err, sizeof err), 0);
    return p;
}

struct run_result {
    uint64_t cycles, instructions, fetches;
};

static struct run_result replay(const char *trace, unsigned fetch_lines)
{
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 1;
    cfg.fetch_lines = fetch_lines;
    struct rp_sim *s = replay_run_checked(trace, &cfg); /* checks the stall accounting */
    const struct rp_core_stats *st = rp_core_stats(s->cores[0]);
    struct run_result r = { st->cycles, st->instructions, st->fetches };
    rp_sim_destroy(s);
    return r;
}

enum { PASSES = 40 };

static void steady(unsigned fetch_lines, double *ipc, double *fetches_per_pass)
{
    const char *one = loop_trace(PASSES), *two = loop_trace(2 * PASSES);
    struct run_result a = replay(one, fetch_lines), b = replay(two, fetch_lines);
    unlink(one);
    unlink(two);
    assert_int_equal(a.instructions, (uint64_t)PASSES * LOOP_INSNS);
    assert_int_equal(b.instructions, (uint64_t)2 * PASSES * LOOP_INSNS);
    *ipc = (double)(b.instructions - a.instructions) / (double)(b.cycles - a.cycles);
    *fetches_per_pass = (double)(b.fetches - a.fetches) / PASSES;
}

static void test_fetch_runs_at_width(void **state)
{
    (void)state;
    double ipc, fetches;
    steady(4, &ipc, &fetches);
    print_message("fetch_lines=4: steady IPC %.3f, %.1f line fetches per pass\n", ipc, fetches);
    /* Each pass touches its 64 lines once. */
    assert_true(fetches == LOOP_INSNS / 8);
    /* Width 4 is the bound; every L1I hit is overlapped with the next. An
     * unpipelined front end pays the 4-cycle hit per line (about 1.3). */
    assert_true(ipc <= 4.0 + 1e-9);
    assert_true(ipc >= 3.6);
}

static void test_one_line_in_flight(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    double ipc1, ipc4, fetches;
    steady(1, &ipc1, &fetches);
    steady(4, &ipc4, &fetches);
    print_message("fetch_lines=1: steady IPC %.3f\n", ipc1);
    /* A line of 8 instructions per L1 hit latency at most. */
    assert_true(ipc1 <= 8.0 / (double)cfg.l1i.latency + 1e-9);
    assert_true(ipc1 < ipc4);
}

/* Fetch needs room for an access's two micro-ops: a one-entry fetch queue
 * (which would never take one) is a configuration error naming the key;
 * two entries and one line in flight still replay every instruction. */
static void test_smallest_front_end(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    char err[512];
    assert_int_equal(rp_config_set(&cfg, "cpu.fetch_queue=1", err, sizeof err), -1);
    assert_non_null(strstr(err, "fetch_queue"));
    assert_int_equal(rp_config_set(&cfg, "cpu.fetch_lines=0", err, sizeof err), -1);
    assert_non_null(strstr(err, "fetch_lines"));
    cfg.cores = 1;
    cfg.fetch_queue = 2;
    cfg.fetch_lines = 1;
    const char *trace = loop_trace(2);
    char why[600];
    struct rp_sim *s = rp_sim_create(&cfg, trace, why, sizeof why);
    assert_non_null(s);
    assert_int_equal(rp_sim_run(s, false), 0);
    assert_int_equal(rp_core_stats(s->cores[0])->instructions, 2 * LOOP_INSNS);
    rp_sim_destroy(s);
    unlink(trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_runs_at_width),
        cmocka_unit_test(test_one_line_in_flight),
        cmocka_unit_test(test_smallest_front_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
