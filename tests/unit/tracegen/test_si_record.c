/* SI records: the codec round-trips what it is given (synthetic tables and
 * address patterns built here), refuses damaged records, and a recorded run
 * of a compiled kernel decodes back to the emulator's own count of
 * instructions and to the addresses the kernel must touch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracegen/si/si_record.h"
#include "cgm/sirec.h"
#include "cgm/sistats.h"
#include "cgm/trace.h"
#include "tests/unit/si_harness.h"

static uint64_t rs = 0x1234567;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

/* A table of 200 instructions of sizes 4/8 with every unit and access. */
static size_t make_table(struct cgm_si_static *t)
{
    uint32_t off = 0x1000;
    size_t n = 200;
    for (size_t i = 0; i < n; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].offset = off;
        t[i].size = (rnd() % 3 == 0) ? 8 : 4;
        t[i].unit = (uint8_t)(rnd() % CGM_SI_UNIT_COUNT);
        if (t[i].unit == CGM_SI_VMEM || t[i].unit == CGM_SI_LDS || t[i].unit == CGM_SI_SMEM) {
            t[i].access = (uint8_t)(1 + rnd() % 3);
            t[i].access_size = 4;
            t[i].flags = (uint8_t)(rnd() % 4);
        }
        if (t[i].unit == CGM_SI_WAITCNT) {
            t[i].vmcnt = 3;
            t[i].expcnt = 7;
            t[i].lgkmcnt = 0;
        }
        for (int b = 0; b < t[i].size; b++)
            t[i].bytes[b] = (uint8_t)rnd();
        off += t[i].size;
    }
    return n;
}

static void fill_dyn(const struct cgm_si_static *t, size_t n, size_t *pos, struct cgm_si_dyn *d)
{
    if (rnd() % 5 == 0)
        *pos = rnd() % n;                          /* a jump */
    const struct cgm_si_static *s = &t[*pos];
    memset(d, 0, sizeof *d);
    d->offset = s->offset;
    switch (rnd() % 4) {
    case 0: d->exec = ~0ull; break;
    case 1: d->exec = rnd(); break;
    case 2: d->exec = 0; break;
    default: d->exec = 0xffffull; break;
    }
    if (s->access) {
        uint64_t base = rnd() >> (rnd() % 40);
        int64_t stride = (int64_t)(rnd() % 64) - 16;
        int random = rnd() % 3 == 0;
        if (s->unit == CGM_SI_SMEM)
            d->addr[0] = base;
        else
            for (int l = 0; l < 64; l++)
                if (d->exec >> l & 1)
                    d->addr[l] = random ? rnd() : base + (uint64_t)(stride * l);
    }
    *pos = (*pos + 1) % n;
}

static void codec_round_trip(void **state)
{
    (void)state;
    static struct cgm_si_static t[200];
    size_t n = make_table(t);
    /* static entries */
    static uint8_t sbuf[200 * CGM_SI_STATIC_BYTES_MAX];
    size_t len = 0;
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++)
        len += cgm_si_static_encode(sbuf + len, &prev, &t[i]);
    const uint8_t *p = sbuf;
    prev = 0;
    for (size_t i = 0; i < n; i++) {
        struct cgm_si_static s;
        assert_int_equal(cgm_si_static_decode(&p, sbuf + len, &prev, &s), 0);
        assert_memory_equal(&s, &t[i], sizeof s);
    }
    assert_ptr_equal(p, sbuf + len);

    /* dynamic records, several waves interleaved */
    struct cgm_si_codec enc, dec;
    assert_int_equal(cgm_si_codec_init(&enc, t, n), 0);
    assert_int_equal(cgm_si_codec_init(&dec, t, n), 0);
    static struct cgm_si_dyn in[CGM_SI_RUN_MAX], out[CGM_SI_RUN_MAX];
    static uint8_t rec[CGM_SI_RECORD_BYTES_MAX];
    size_t pos[4] = { 0, 10, 20, 30 };
    for (int round = 0; round < 300; round++) {
        unsigned wave = (unsigned)(rnd() % 4), count = 1 + (unsigned)(rnd() % CGM_SI_RUN_MAX);
        for (unsigned i = 0; i < count; i++)
            fill_dyn(t, n, &pos[wave], &in[i]);
        size_t rl = cgm_si_wave_encode(&enc, rec, wave, in, count);
        assert_true(rl > 0 && rl <= CGM_SI_RECORD_BYTES_MAX);
        uint8_t type;
        unsigned w, got;
        assert_int_equal(cgm_si_record_decode(&dec, rec, rl, &type, &w, out, &got), 0);
        assert_int_equal(type, CGM_SI_REC_WAVE);
        assert_int_equal(w, wave);
        assert_int_equal(got, count);
        for (unsigned i = 0; i < count; i++) {
            assert_int_equal(out[i].offset, in[i].offset);
            assert_int_equal(out[i].exec, in[i].exec);
            long k = cgm_si_static_find(&dec, in[i].offset);
            if (t[k].unit == CGM_SI_SMEM && t[k].access)
                assert_int_equal(out[i].addr[0], in[i].addr[0]);
            else if (t[k].access)
                for (int l = 0; l < 64; l++)
                    if (in[i].exec >> l & 1)
                        assert_int_equal(out[i].addr[l], in[i].addr[l]);
        }
    }
    uint8_t mark[4];
    size_t ml = cgm_si_mark_encode(mark, CGM_SI_REC_BARRIER, 3);
    uint8_t type;
    unsigned w, got;
    assert_int_equal(cgm_si_record_decode(&dec, mark, ml, &type, &w, out, &got), 0);
    assert_int_equal(type, CGM_SI_REC_BARRIER);
    assert_int_equal(w, 3);
    cgm_si_codec_free(&enc);
    cgm_si_codec_free(&dec);
}

/* Evenly spaced lanes cost a base and a stride, not 64 addresses. */
static void strided_addresses_are_compact(void **state)
{
    (void)state;
    struct cgm_si_static t[1];
    memset(t, 0, sizeof t);
    t[0].offset = 0;
    t[0].size = 8;
    t[0].unit = CGM_SI_VMEM;
    t[0].access = CGM_SI_LOAD;
    t[0].access_size = 4;
    struct cgm_si_codec c;
    assert_int_equal(cgm_si_codec_init(&c, t, 1), 0);
    static struct cgm_si_dyn d;
    d.offset = 0;
    d.exec = ~0ull;
    for (int l = 0; l < 64; l++)
        d.addr[l] = 0x7f0000001000ull + 4u * (unsigned)l;
    uint8_t rec[256];
    size_t len = cgm_si_wave_encode(&c, rec, 0, &d, 1);
    /* type, wave, count, header, base (<= 7 bytes for 47 bits), stride */
    assert_true(len <= 1 + 1 + 1 + 1 + 7 + 1);
    cgm_si_codec_free(&c);
}

static void damaged_records_are_refused(void **state)
{
    (void)state;
    static struct cgm_si_static t[200];
    size_t n = make_table(t);
    struct cgm_si_codec enc, dec;
    assert_int_equal(cgm_si_codec_init(&enc, t, n), 0);
    static struct cgm_si_dyn in[64], out[CGM_SI_RUN_MAX];
    static uint8_t rec[CGM_SI_RECORD_BYTES_MAX];
    size_t pos = 0;
    for (unsigned i = 0; i < 64; i++)
        fill_dyn(t, n, &pos, &in[i]);
    size_t len = cgm_si_wave_encode(&enc, rec, 1, in, 64);
    for (size_t cut = 1; cut < len; cut++) {
        assert_int_equal(cgm_si_codec_init(&dec, t, n), 0);
        uint8_t type;
        unsigned w, got;
        assert_int_equal(cgm_si_record_decode(&dec, rec, cut, &type, &w, out, &got), -1);
        cgm_si_codec_free(&dec);
    }
    for (int trial = 0; trial < 2000; trial++) {
        static uint8_t bad[CGM_SI_RECORD_BYTES_MAX];
        memcpy(bad, rec, len);
        bad[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
        assert_int_equal(cgm_si_codec_init(&dec, t, n), 0);
        uint8_t type;
        unsigned w, got;
        (void)cgm_si_record_decode(&dec, bad, len, &type, &w, out, &got);   /* no crash */
        assert_true(got <= CGM_SI_RUN_MAX);
        cgm_si_codec_free(&dec);
    }
    cgm_si_codec_free(&enc);
}

/* ---- statistics against brute-force models ------------------------------------ */

static unsigned lines_model(const struct cgm_si_dyn *d, unsigned size)
{
    static uint64_t seen[64 * 128];
    unsigned n = 0;
    for (int l = 0; l < 64; l++) {
        if (!(d->exec >> l & 1))
            continue;
        for (unsigned b = 0; b < size; b++) {
            uint64_t line = (d->addr[l] + b) / 64;
            int dup = 0;
            for (unsigned i = 0; i < n && !dup; i++)
                dup = seen[i] == line;
            if (!dup)
                seen[n++] = line;
        }
    }
    return n;
}

static unsigned lds_model(const struct cgm_si_dyn *d)
{
    unsigned cycles = 0;
    for (int half = 0; half < 2; half++) {
        unsigned worst = 0, any = 0;
        for (unsigned bank = 0; bank < 32; bank++) {
            uint64_t dw[32];
            unsigned n = 0;
            for (int l = 32 * half; l < 32 * half + 32; l++) {
                if (!(d->exec >> l & 1))
                    continue;
                any = 1;
                uint64_t w = d->addr[l] / 4;
                if (w % 32 != bank)
                    continue;
                int dup = 0;
                for (unsigned i = 0; i < n && !dup; i++)
                    dup = dw[i] == w;
                if (!dup)
                    dw[n++] = w;
            }
            if (n > worst)
                worst = n;
        }
        cycles += any ? worst : 0;
    }
    return cycles;
}

static void stats_match_models(void **state)
{
    (void)state;
    static struct cgm_si_dyn d;
    /* known patterns */
    d.exec = ~0ull;
    for (int l = 0; l < 64; l++) d.addr[l] = 0x1000 + 4u * (unsigned)l;
    assert_int_equal(cgm_si_distinct_lines(&d, 4), 4);      /* 256 bytes, aligned */
    assert_int_equal(cgm_si_lds_cycles(&d), 2);             /* one cycle per half */
    for (int l = 0; l < 64; l++) d.addr[l] = 0x1000 + 128u * (unsigned)l;
    assert_int_equal(cgm_si_distinct_lines(&d, 4), 64);
    assert_int_equal(cgm_si_lds_cycles(&d), 64);            /* one bank, 32 dwords per half */
    for (int l = 0; l < 64; l++) d.addr[l] = 0x40;
    assert_int_equal(cgm_si_lds_cycles(&d), 2);             /* broadcast */
    /* random patterns */
    for (int trial = 0; trial < 500; trial++) {
        d.exec = trial % 3 ? rnd() : ~0ull;
        uint64_t base = rnd() % 100000;
        unsigned size = (unsigned[]){ 1, 2, 4, 8, 16 }[rnd() % 5];
        for (int l = 0; l < 64; l++)
            d.addr[l] = trial % 2 ? base + (rnd() % 512) : base + (uint64_t)l * (rnd() % 3) * 4;
        assert_int_equal(cgm_si_distinct_lines(&d, size), lines_model(&d, size));
        assert_int_equal(cgm_si_lds_cycles(&d), lds_model(&d));
    }
}

/* ---- a recorded run ------------------------------------------------------------- */

enum { ARENA = 8 << 20 };
static const uint64_t BASE = 0x100000000ull;

/* Records vector_add over N items in groups of 128 into PATH. */
static void record_vector_add(const char *path, struct si_run_stats *st, uint64_t *c_out)
{
    char err[512];
    struct si_program prog;
    assert_int_equal(si_test_load_kernels("test/basic", &prog), 0);
    struct si_test_arena ar;
    si_test_arena_init(&ar, BASE, ARENA);
    struct si_memory mem = si_test_memory(&ar);
    enum { N = 1000, GRID = 1024 };
    struct si_launch l;
    si_test_launch_init(&l, &prog, si_program_kernel(&prog, "vector_add"),
                        si_test_place_code(&ar, &prog), 1, (const uint32_t[3]){ GRID },
                        (const uint32_t[3]){ 128 });
    uint64_t a = si_test_alloc(&ar, GRID * 4), bb = si_test_alloc(&ar, GRID * 4),
             c = si_test_alloc(&ar, GRID * 4);
    struct { uint64_t a, b, c; uint32_t n; } args = { a, bb, c, N };
    si_test_launch_place(&l, &ar, &args, 28);

    struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
    if (!w)
        fail_msg("%s", err);
    struct cgm_si_static *table;
    size_t n;
    assert_int_equal(si_static_table(&prog, &table, &n), 0);
    assert_int_equal(si_static_write(w, 1, 1, table, n), 0);
    struct si_recorder *r = si_recorder_create(w, table, n, l.code_address, 1, 100);
    assert_non_null(r);
    if (si_run(&l, &mem, si_recorder_observer(r), st, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(si_recorder_streams(r), GRID / 128);
    if (si_recorder_finish(r, err, sizeof err) || cgm_writer_finalize(w, err, sizeof err))
        fail_msg("%s", err);
    *c_out = c;
    free(table);
    si_test_arena_free(&ar);
    si_program_free(&prog);
}

static void recorded_run_decodes(void **state)
{
    (void)state;
    char path[] = "/tmp/cgm_si_record_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct si_run_stats st;
    uint64_t c;
    record_vector_add(path, &st, &c);
    char err[512];
    if (cgm_trace_verify(path, err, sizeof err))
        fail_msg("%s", err);
    struct cgm_reader *rd = cgm_reader_open(path, err, sizeof err);
    assert_non_null(rd);
    uint8_t *sec;
    size_t slen;
    assert_int_equal(cgm_reader_read_section(rd, CGM_SI_STATIC_PREFIX "1", 1 << 24, &sec, &slen,
                                             err, sizeof err), 0);
    struct cgm_si_static *t = calloc(slen / 5 + 1, sizeof *t);
    size_t n = 0;
    uint32_t prev = 0;
    for (const uint8_t *p = sec; p < sec + slen; n++)
        assert_int_equal(cgm_si_static_decode(&p, sec + slen, &prev, &t[n]), 0);
    uint64_t insts = 0, stores = 0, store_lanes = 0, groups = 0;
    static struct cgm_si_dyn dyn[CGM_SI_RUN_MAX];
    for (size_t s = 0; s < cgm_reader_stream_count(rd); s++) {
        const struct cgm_reader_stream *rs_ = cgm_reader_stream(rd, s);
        if (rs_->info.kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        groups++;
        assert_int_equal(rs_->info.launch_id, 1);
        struct cgm_si_codec codec;
        assert_int_equal(cgm_si_codec_init(&codec, t, n), 0);
        struct cgm_riter *it = cgm_riter_open(rd, s);
        const uint8_t *rec;
        size_t len;
        while (cgm_riter_next(it, &rec, &len) == 1) {
            uint8_t type;
            unsigned wave, cnt;
            assert_int_equal(cgm_si_record_decode(&codec, rec, len, &type, &wave, dyn, &cnt), 0);
            insts += cnt;
            for (unsigned i = 0; i < cnt; i++) {
                long k = cgm_si_static_find(&codec, dyn[i].offset);
                if (t[k].unit != CGM_SI_VMEM || t[k].access != CGM_SI_STORE)
                    continue;
                stores++;
                for (int l = 0; l < 64; l++) {
                    if (!(dyn[i].exec >> l & 1))
                        continue;
                    store_lanes++;
                    uint64_t item = rs_->info.group[0] * 128 + wave * 64 + (unsigned)l;
                    assert_int_equal(dyn[i].addr[l], c + 4 * item);
                }
            }
        }
        cgm_riter_close(it);
        cgm_si_codec_free(&codec);
    }
    assert_int_equal(groups, 1024 / 128);
    assert_int_equal(insts, st.wave_instructions);
    assert_int_equal(stores, 1024 / 64);
    assert_int_equal(store_lanes, 1000);         /* the if (i < n) guard */
    free(t);
    free(sec);
    cgm_reader_close(rd);
    unlink(path);
}

static void recording_is_deterministic(void **state)
{
    (void)state;
    char p1[] = "/tmp/cgm_si_det1_XXXXXX", p2[] = "/tmp/cgm_si_det2_XXXXXX";
    close(mkstemp(p1));
    close(mkstemp(p2));
    struct si_run_stats st;
    uint64_t c;
    record_vector_add(p1, &st, &c);
    record_vector_add(p2, &st, &c);
    FILE *a = fopen(p1, "rb"), *b = fopen(p2, "rb");
    int ca, cb;
    long pos = 0;
    do {
        ca = fgetc(a);
        cb = fgetc(b);
        if (ca != cb)
            fail_msg("traces differ at byte %ld", pos);
        pos++;
    } while (ca != EOF);
    fclose(a);
    fclose(b);
    unlink(p1);
    unlink(p2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(codec_round_trip),
        cmocka_unit_test(strided_addresses_are_compact),
        cmocka_unit_test(damaged_records_are_refused),
        cmocka_unit_test(stats_match_models),
        cmocka_unit_test(recorded_run_decodes),
        cmocka_unit_test(recording_is_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
