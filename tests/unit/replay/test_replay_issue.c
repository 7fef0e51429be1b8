/* The core's issue logic on synthetic traces of register-only code: a
 * chain of dependent additions (add rax, rax) issues one per int latency,
 * so raising the latency from 1 to 4 cycles adds 3 cycles per instruction;
 * independent moves (mov eax, 1) issue several per cycle whatever the
 * latency. Sizes of the reorder buffer below and above one bitmap word of
 * issue candidates (64 slots) are both run. */
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

#define CODE  0x401000ull
#define BLOCK 16u    /* instructions per block record */
#define REPS  400u   /* block records: the loop body runs this often */

/* An instruction with the registers the recorder lists for it. */
struct insn {
    uint8_t len, bytes[15];
    uint8_t nsrc, src[2], ndst, dst[2];
};
/* add rax, rax: reads rax, writes rax and the flags */
static const struct insn ADD_RAX_RAX = { 3, { 0x48, 0x01, 0xc0 }, 1, { CGM_X86_REG_RAX }, 2,
                                         { CGM_X86_REG_RAX, CGM_X86_REG_FLAGS } };
/* mov eax, 1: reads nothing */
static const struct insn MOV_EAX_1 = { 5, { 0xb8, 0x01, 0x00, 0x00, 0x00 }, 0, { 0 }, 1,
                                       { CGM_X86_REG_RAX } };

/* A one-thread trace whose loop body is BLOCK copies of INSN. */
static void write_trace(const char *path, const struct insn *insn)
{
    const uint8_t len = insn->len;
    char err[256];
    struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
    assert_non_null(w);
    uint8_t table[BLOCK * CGM_X86_STATIC_BYTES_MAX];
    size_t n = 0;
    uint64_t prev = 0;
    for (unsigned i = 0; i < BLOCK; i++) {
        struct cgm_x86_static s = { .addr = CODE + i * len, .len = len, .cls = CGM_X86_INT,
                                    .nsrc = insn->nsrc, .ndst = insn->ndst };
        memcpy(s.bytes, insn->bytes, len);
        memcpy(s.src, insn->src, insn->nsrc);
        memcpy(s.dst, insn->dst, insn->ndst);
        n += cgm_x86_static_encode(table + n, &prev, &s);
    }
    assert_int_equal(cgm_writer_add_section(w, 0x7fff0001u, CGM_X86_STATIC_SECTION, table, n), 0);
    struct cgm_stream_info info = { .id = 1, .kind = CGM_STREAM_X86_THREAD, .thread_id = 100 };
    struct cgm_wstream *st = cgm_writer_open_stream(w, &info);
    assert_non_null(st);
    struct cgm_x86_codec *codec = calloc(1, sizeof *codec);
    assert_non_null(codec);
    static uint8_t rec[CGM_X86_RECORD_BYTES_MAX];
    for (unsigned r = 0; r < REPS; r++) {
        size_t m = cgm_x86_block_encode(codec, rec, CGM_X86_REC_BLOCK, CODE, BLOCK, NULL, 0);
        assert_int_equal(cgm_wstream_append(st, rec, m, BLOCK), 0);
    }
    free(codec);
    assert_int_equal(cgm_writer_finalize(w, err, sizeof err), 0);
}

static const char *temp_trace(const struct insn *insn)
{
    const char *p = test_temp_file(NULL);
    write_trace(p, insn);
    return p;
}

/* Cycles of one core running TRACE with int latency LAT. */
static uint64_t cycles(const char *trace, unsigned lat, unsigned rob)
{
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 1;
    cfg.lat_int = lat;
    cfg.rob_size = rob;
    if (cfg.iq_size > rob)
        cfg.iq_size = rob;
    struct rp_sim *s = replay_run_checked(trace, &cfg);
    assert_int_equal(rp_core_stats(s->cores[0])->instructions, BLOCK * REPS);
    uint64_t n = rp_core_stats(s->cores[0])->cycles;
    rp_sim_destroy(s);
    return n;
}

static void test_dependent_chain(void **state)
{
    (void)state;
    const char *chain = temp_trace(&ADD_RAX_RAX);
    const uint64_t n = BLOCK * REPS;
    unsigned robs[] = { 8, 128 };
    for (unsigned i = 0; i < 2; i++) {
        uint64_t fast = cycles(chain, 1, robs[i]), slow = cycles(chain, 4, robs[i]);
        /* One addition per latency: never faster than that. */
        assert_true(fast >= n);
        assert_true(slow >= 4 * n);
        /* The start (first line fetch) and the end cost the same at both
         * latencies; only the chain's 3 extra cycles per instruction differ. */
        uint64_t extra = slow - fast;
        if (extra + 16 < 3 * n || extra > 3 * n + 16)
            print_error("rob %u: %llu cycles at latency 1, %llu at 4\n", robs[i],
                        (unsigned long long)fast, (unsigned long long)slow);
        assert_true(extra + 16 >= 3 * n && extra <= 3 * n + 16);
    }
    unlink(chain);
}

static void test_independent_moves(void **state)
{
    (void)state;
    const char *moves = temp_trace(&MOV_EAX_1);
    const uint64_t n = BLOCK * REPS;
    /* Several issue per cycle: the default core fetches and commits 4 per
     * cycle, so half the instruction count is a loose upper bound. */
    uint64_t c = cycles(moves, 4, 128);
    assert_true(c < n / 2);
    unlink(moves);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_chain),
        cmocka_unit_test(test_independent_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
