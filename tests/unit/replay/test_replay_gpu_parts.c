/* The GPU model's parts on their own: the coalescer against an independent
 * count of distinct lines (formats/sistats.c), LDS bank cycles from the
 * banks' arithmetic, the ideal memory's arithmetic, the kernel-description
 * codec, and each wavefront's reader against a whole-record decode of the
 * same stream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/sistats.h"
#include "replay/gpu/coalesce.h"
#include "replay/gpu/ideal_mem.h"
#include "replay/gpu/program.h"
#include "replay/gpu/wave_reader.h"
#include "tests/unit/gpu_recording.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random lanes: strided, clustered or scattered, some inactive. */
static void random_lanes(struct cgm_si_dyn *d, unsigned size)
{
    uint64_t base = (next_rand() % (1u << 20)) & ~(uint64_t)(size - 1);
    unsigned mode = (unsigned)(next_rand() % 3);
    d->exec = next_rand() % 4 ? ~0ull : next_rand();
    for (unsigned l = 0; l < CGM_SI_LANES; l++)
        d->addr[l] = mode == 0 ? base + (uint64_t)l * size
                   : mode == 1 ? base + (next_rand() % 256) * size
                               : base + (next_rand() % 65536) * size;
}

static void test_coalescer(void **state)
{
    (void)state;
    static const unsigned sizes[] = { 1, 2, 4, 8, 12, 16 };
    struct rp_mreq req[RP_MREQ_MAX];
    for (int i = 0; i < 20000; i++) {
        struct cgm_si_dyn d;
        unsigned size = sizes[i % 6];
        random_lanes(&d, size);
        unsigned n = rp_coalesce(&d, size, RP_PER_INSTRUCTION, req);
        assert_int_equal(n, cgm_si_distinct_lines(&d, size));
        /* every lane's bytes are covered, each request within one block */
        for (unsigned r = 0; r < n; r++)
            assert_int_equal(req[r].vaddr / RP_BLOCK_BYTES, (req[r].vaddr + req[r].bytes - 1) / RP_BLOCK_BYTES);
        for (uint64_t m = d.exec; m; m &= m - 1) {
            uint64_t a = d.addr[__builtin_ctzll(m)];
            for (uint64_t b = a; b < a + size; b++) {
                unsigned hit = 0;
                for (unsigned r = 0; r < n; r++)
                    hit += b >= req[r].vaddr && b < req[r].vaddr + req[r].bytes;
                assert_int_equal(hit, 1);
            }
        }
        /* per lane: one request per lane, two where a lane straddles a block */
        unsigned want = 0;
        for (uint64_t m = d.exec; m; m &= m - 1) {
            uint64_t a = d.addr[__builtin_ctzll(m)];
            want += 1 + (a / RP_BLOCK_BYTES != (a + size - 1) / RP_BLOCK_BYTES);
        }
        assert_int_equal(rp_coalesce(&d, size, RP_PER_LANE, req), want);
    }
}

static void test_lds_bank_cycles(void **state)
{
    (void)state;
    struct cgm_si_dyn d;
    d.exec = ~0ull;
    for (unsigned stride = 1; stride <= 64; stride *= 2)
        for (unsigned banks = 4; banks <= 64; banks *= 2) {
            for (unsigned l = 0; l < 64; l++)
                d.addr[l] = 4ull * l * stride;
            /* 32 lanes' words at STRIDE fall in banks / gcd(banks, stride) banks */
            unsigned used = banks / (stride < banks ? stride : banks);
            unsigned per_half = (32 + used - 1) / used;
            assert_int_equal(cgm_si_lds_bank_cycles(&d, 4, banks), 2 * per_half);
        }
    for (unsigned l = 0; l < 64; l++)
        d.addr[l] = 128; /* one word: a broadcast */
    assert_int_equal(cgm_si_lds_bank_cycles(&d, 4, 32), 2);
    for (unsigned l = 0; l < 64; l++)
        d.addr[l] = 8ull * l; /* 64-bit accesses: two words per lane, 64 words per half over 32 banks */
    assert_int_equal(cgm_si_lds_bank_cycles(&d, 8, 32), 4);
    d.exec = 1;
    assert_int_equal(cgm_si_lds_bank_cycles(&d, 4, 32), 1);
}

/* Each half-wave's cycles by brute force: for every bank, its distinct
 * dwords, compared with all the others met before. */
static unsigned lds_by_pairs(const struct cgm_si_dyn *d, unsigned bytes, unsigned banks)
{
    unsigned words = bytes > 4 ? (bytes + 3) / 4 : 1, cycles = 0;
    for (unsigned half = 0; half < 2; half++) {
        uint64_t all[128];
        unsigned n = 0, worst = 0;
        for (unsigned l = 32 * half; l < 32 * half + 32; l++)
            for (unsigned w = 0; d->exec >> l & 1 && w < words; w++)
                all[n++] = d->addr[l] / 4 + w;
        for (unsigned bank = 0; bank < banks; bank++) {
            unsigned distinct = 0;
            for (unsigned i = 0; i < n; i++) {
                bool first = all[i] % banks == bank;
                for (unsigned j = 0; j < i && first; j++)
                    first = all[j] != all[i];
                distinct += first;
            }
            worst = distinct > worst ? distinct : worst;
        }
        cycles += worst;
    }
    return cycles;
}

static void test_lds_bank_cycles_random(void **state)
{
    (void)state;
    struct cgm_si_dyn d;
    uint64_t x = 88172645463325252ull;
    static const unsigned banks[] = { 1, 3, 5, 16, 32, 64 };
    for (unsigned trial = 0; trial < 3000; trial++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        d.exec = trial % 4 ? x : ~0ull;
        unsigned span = (unsigned[]){ 8, 64, 512, 4096 }[trial % 4]; /* few words: broadcasts and conflicts */
        for (unsigned l = 0; l < 64; l++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            d.addr[l] = trial % 3 ? x % span * 4 + x % 3 : 4ull * l * (trial % 7);
        }
        unsigned bytes = (unsigned[]){ 1, 4, 8, 12, 16 }[trial % 5], b = banks[trial % 6];
        assert_int_equal(cgm_si_lds_bank_cycles(&d, bytes, b), lds_by_pairs(&d, bytes, b));
    }
}

struct done_log {
    uint64_t cycle[8];
    unsigned n;
};

static void log_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t cycle)
{
    struct done_log *l = ctx;
    (void)r;
    (void)value;
    l->cycle[l->n++] = cycle;
}

static void test_ideal_memory(void **state)
{
    (void)state;
    ks_engine *eng = ks_engine_create(NULL);
    ks_domain *gpu = ks_domain_create(eng, "gpu", 1000000000);
    struct rp_ideal_mem m;
    struct done_log log = { { 0 }, 0 };
    rp_ideal_mem_init(&m, gpu, 100, 2, 32, log_done, &log);
    struct cgm_gpu_mem_port p = rp_ideal_mem_port(&m);
    struct cgm_gpu_request r = { .bytes = 64, .op = CGM_GPU_LOAD };
    /* at cycle 0: 64 bytes take 2 cycles, the next 64 wait for them */
    assert_true(p.access(p.ctx, &r));
    assert_true(p.access(p.ctx, &r));
    r.bytes = 8;
    assert_true(p.access(p.ctx, &r)); /* 4 + 8 / 32 bytes: cycle 4.25, rounded up */
    r.op = CGM_GPU_SCALAR_LOAD;
    assert_true(p.access(p.ctx, &r));
    assert_int_equal(log.n, 4);
    assert_int_equal(log.cycle[0], 2 + 100);
    assert_int_equal(log.cycle[1], 4 + 100);
    assert_int_equal(log.cycle[2], 5 + 100);
    assert_int_equal(log.cycle[3], 0 + 2);
    assert_int_equal(m.bytes, 136);
    ks_engine_destroy(eng);
}

static void test_kernel_description_codec(void **state)
{
    (void)state;
    struct cgm_si_kernel_info k = { .kernel = 3, .program = 2, .entry = 4352, .vgprs = 24, .sgprs = 40,
                                    .lds_bytes = 4096, .private_bytes = 16 };
    snprintf(k.name, sizeof k.name, "layer\nforward");
    char text[CGM_SI_KERNEL_TEXT_MAX];
    size_t n = cgm_si_kernel_info_encode(text, &k);
    struct cgm_si_kernel_info back;
    assert_int_equal(cgm_si_kernel_info_decode((const uint8_t *)text, n, &back), 0);
    assert_string_equal(back.name, "layer?forward"); /* a line per key */
    assert_int_equal(back.vgprs, 24);
    assert_int_equal(back.sgprs, 40);
    assert_int_equal(back.entry, 4352);
    assert_int_equal(back.lds_bytes, 4096);
    assert_int_equal(back.private_bytes, 16);
    static const char *const bad[] = { "vgprs=x\n", "sgprs=4294967296\n", "no equals sign\n", "vgprs=\n" };
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(cgm_si_kernel_info_decode((const uint8_t *)bad[i], strlen(bad[i]), &back), -1);
    static const char later[] = "vgprs=8\nsomething_new=5\n";
    assert_int_equal(cgm_si_kernel_info_decode((const uint8_t *)later, strlen(later), &back), 0);
    assert_int_equal(back.vgprs, 8);
}

/* Wavefront WAVE's next instruction from S matches REF (decoded record by
 * record from the stream). */
static void check_next(struct rp_wg_stream *s, unsigned wave, const struct rp_si_program *p,
                       const struct cgm_si_dyn *ref)
{
    static struct cgm_si_dyn got;
    char err[600];
    long idx = rp_wg_stream_next(s, wave, &got, err, sizeof err);
    assert_true(idx >= 0);
    assert_int_equal(p->table[idx].offset, ref->offset);
    assert_int_equal(got.exec, ref->exec);
    if (p->table[idx].access != CGM_SI_NONE)
        for (uint64_t m = p->table[idx].unit == CGM_SI_SMEM ? 1 : got.exec; m; m &= m - 1)
            assert_int_equal(got.addr[__builtin_ctzll(m)], ref->addr[__builtin_ctzll(m)]);
}

/* Calls FN on every instruction of stream I, record by record. */
static void each_instruction(struct cgm_reader *r, size_t i, const struct rp_si_program *p,
                             void (*fn)(void *ctx, unsigned wave, const struct cgm_si_dyn *d), void *ctx)
{
    static struct cgm_si_dyn run[CGM_SI_RUN_MAX];
    struct cgm_si_codec c;
    assert_int_equal(cgm_si_codec_init(&c, p->table, p->n), 0);
    struct cgm_riter *it = cgm_riter_open(r, i);
    const uint8_t *rec;
    size_t len;
    while (cgm_riter_next(it, &rec, &len) == 1) {
        uint8_t type;
        unsigned wave, n;
        assert_int_equal(cgm_si_record_decode(&c, rec, len, &type, &wave, run, &n), 0);
        for (unsigned k = 0; k < n; k++)
            fn(ctx, wave, &run[k]);
    }
    cgm_riter_close(it);
    cgm_si_codec_free(&c);
}

struct order_check {
    struct rp_wg_stream *s;
    const struct rp_si_program *p;
    unsigned only;       /* the wavefront read, or CGM_SI_WAVES_MAX: each as its record comes */
    bool lag;            /* wavefront 0 reads one instruction for every two of its that come */
    struct cgm_si_dyn *behind;  /* wavefront 0's instructions not read yet, from `first` on */
    size_t first, n, cap, seen;
};

static void take(void *ctx, unsigned wave, const struct cgm_si_dyn *d)
{
    struct order_check *o = ctx;
    if (o->lag && wave == 0) {
        if (o->n == o->cap) {
            o->cap = o->cap ? 2 * o->cap : 64;
            o->behind = realloc(o->behind, o->cap * sizeof *o->behind);
            assert_non_null(o->behind);
        }
        o->behind[o->n++] = *d;
        if (++o->seen % 2 == 0)
            check_next(o->s, 0, o->p, &o->behind[o->first++]);
        return;
    }
    if (o->only == CGM_SI_WAVES_MAX || o->only == wave)
        check_next(o->s, wave, o->p, d);
}

/* Reads stream I of R through a work-group stream whose queues hold LIMIT
 * words: in the stream's order, or one wavefront after another from the
 * last (each reading to its end while the others wait), or in the
 * stream's order with wavefront 0 falling behind (LAG: its queue is read
 * from while it grows, so it wraps round before it grows again). */
static void check_stream(struct cgm_reader *r, size_t i, const struct rp_si_program *p, const char *path,
                         size_t limit, bool by_wave, bool lag)
{
    char err[600];
    static struct cgm_si_dyn got;
    struct rp_wg_stream s;
    assert_int_equal(rp_wg_stream_open(&s, r, i, p, CGM_SI_WAVES_MAX, limit, path, err, sizeof err), 0);
    struct order_check o = { &s, p, CGM_SI_WAVES_MAX, lag, NULL, 0, 0, 0, 0 };
    if (!by_wave)
        each_instruction(r, i, p, take, &o);
    while (o.first < o.n)
        check_next(&s, 0, p, &o.behind[o.first++]);
    free(o.behind);
    for (unsigned x = CGM_SI_WAVES_MAX; by_wave && x-- > 0;) {
        o.only = x;
        each_instruction(r, i, p, take, &o);
    }
    for (unsigned x = 0; x < CGM_SI_WAVES_MAX; x++) {
        assert_int_equal(rp_wg_stream_next(&s, x, &got, err, sizeof err), -1);
        rp_wg_stream_close_wave(&s, x);
    }
    if (by_wave && limit < RP_WAVE_QUEUE_WORDS)
        assert_true(s.detached != 0); /* the small queues overflowed */
    rp_wg_stream_close(&s);
}

/* Each wavefront gets what decoding the stream record by record and
 * sorting the instructions by wavefront gives, whatever order the
 * wavefronts read in and whether their queues overflow (the wavefront then
 * reads on alone). */
static void test_wave_readers(void **state)
{
    (void)state;
    char path[64], err[600];
    gpu_record(path, "kernels", "backprop");
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    struct rp_gpu_trace t;
    assert_int_equal(rp_gpu_trace_init(&t, r, path, err, sizeof err), 0);
    size_t streams = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        const struct cgm_reader_stream *rs = cgm_reader_stream(r, i);
        if (rs->info.kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        const struct rp_si_program *p = rp_gpu_trace_program(&t, rs->info.name, err, sizeof err);
        assert_non_null(p);
        check_stream(r, i, p, path, RP_WAVE_QUEUE_WORDS, false, false);
        check_stream(r, i, p, path, RP_WAVE_QUEUE_WORDS, true, false);
        check_stream(r, i, p, path, 70, true, false);
        check_stream(r, i, p, path, RP_WAVE_QUEUE_WORDS, false, true);
        streams++;
    }
    assert_true(streams > 0);
    rp_gpu_trace_free(&t);
    cgm_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coalescer),
        cmocka_unit_test(test_lds_bank_cycles),
        cmocka_unit_test(test_lds_bank_cycles_random),
        cmocka_unit_test(test_ideal_memory),
        cmocka_unit_test(test_kernel_description_codec),
        cmocka_unit_test(test_wave_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
