/* x86 recording: the record codec inverts itself, tracegen's traces verify,
 * decode completely, account for every instruction, and repeat byte for
 * byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "tests/unit/x86_rand.h"
#include "tests/unit/x86_recording.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    return x86_xorshift64(&rng);
}

static void test_block_codec_round_trip(void **state)
{
    (void)state;
    static struct cgm_x86_access in[CGM_X86_ACCESS_MAX], out[CGM_X86_ACCESS_MAX];
    static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 10, 3, 512 };
    struct cgm_x86_codec *enc = calloc(1, sizeof *enc), *dec = calloc(1, sizeof *dec);
    uint8_t *buf = malloc(CGM_X86_RECORD_BYTES_MAX);
    assert_non_null(enc);
    assert_non_null(dec);
    assert_non_null(buf);
    for (int round = 0; round < 2000; round++) {
        uint32_t n = (uint32_t)(next_rand() % (round % 100 == 0 ? CGM_X86_ACCESS_MAX + 1 : 40));
        uint64_t start = 0x400000 + (next_rand() % 4096) * 16;
        if (round % 7 == 0)
            start = next_rand(); /* anywhere in the 64-bit space */
        uint32_t ninsn = (uint32_t)(next_rand() % (CGM_X86_BLOCK_INSNS_MAX + 1));
        for (uint32_t i = 0; i < n; i++) {
            in[i].insn = (uint8_t)(next_rand() % CGM_X86_BLOCK_INSNS_MAX);
            in[i].write = (uint8_t)(next_rand() & 1);
            in[i].size = sizes[next_rand() % 8];
            in[i].addr = (next_rand() & 1) ? 0x7ffffffde000 + next_rand() % 65536 : next_rand();
        }
        uint8_t type = (round & 1) ? CGM_X86_REC_BLOCK : CGM_X86_REC_PARTIAL;
        size_t len = cgm_x86_block_encode(enc, buf, type, start, ninsn, in, n);
        assert_true(len <= CGM_X86_RECORD_BYTES_MAX);
        struct cgm_x86_block_rec r;
        assert_int_equal(cgm_x86_block_decode(dec, buf, len, &r, out), 0);
        assert_int_equal(r.type, type);
        assert_true(r.start == start);
        assert_int_equal(r.ninsn, ninsn);
        assert_int_equal(r.naccess, n);
        for (uint32_t i = 0; i < n; i++) {
            assert_true(out[i].addr == in[i].addr);
            assert_int_equal(out[i].size, in[i].size);
            assert_int_equal(out[i].insn, in[i].insn);
            assert_int_equal(out[i].write, in[i].write);
        }
        /* a truncated record is rejected, never read past its end */
        if (len > 1) {
            struct cgm_x86_codec copy = *dec;
            assert_int_equal(cgm_x86_block_decode(&copy, buf, len - 1, &r, out), -1);
        }
    }
    free(enc);
    free(dec);
    free(buf);
}

static void test_static_codec_round_trip(void **state)
{
    (void)state;
    uint8_t buf[64 * CGM_X86_STATIC_BYTES_MAX];
    struct cgm_x86_static s[64];
    uint64_t prev = 0, addr = 0x401000;
    size_t len = 0;
    for (int i = 0; i < 64; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].addr = addr;
        s[i].len = (uint8_t)(1 + next_rand() % 15);
        s[i].cls = (uint8_t)(next_rand() % CGM_X86_CLASS_COUNT);
        s[i].op = (uint16_t)(next_rand() % 200);
        s[i].nmem = (uint8_t)(next_rand() % 3);
        for (int k = 0; k < s[i].len; k++)
            s[i].bytes[k] = (uint8_t)next_rand();
        s[i].uops = (uint8_t)(next_rand() % 5);
        s[i].loads = (uint8_t)(next_rand() % 3);
        s[i].stores = (uint8_t)(next_rand() % 3);
        s[i].mem_size = (uint16_t)(next_rand() % 600);
        s[i].nsrc = (uint8_t)(next_rand() % (CGM_X86_REGS_MAX + 1));
        s[i].ndst = (uint8_t)(next_rand() % (CGM_X86_REGS_MAX + 1));
        for (int k = 0; k < s[i].nsrc; k++)
            s[i].src[k] = (uint8_t)(next_rand() % CGM_X86_REG_COUNT);
        for (int k = 0; k < s[i].ndst; k++)
            s[i].dst[k] = (uint8_t)(next_rand() % CGM_X86_REG_COUNT);
        addr += s[i].len;
        len += cgm_x86_static_encode(buf + len, &prev, &s[i]);
    }
    const uint8_t *p = buf;
    prev = 0;
    for (int i = 0; i < 64; i++) {
        struct cgm_x86_static d;
        assert_int_equal(cgm_x86_static_decode(&p, buf + len, &prev, &d), 0);
        assert_memory_equal(&d, &s[i], sizeof d);
    }
    assert_ptr_equal(p, buf + len);
    /* every proper prefix of the table is rejected or ends early, never overread */
    for (size_t cut = 1; cut < 40; cut++) {
        const uint8_t *q = buf;
        uint64_t pv = 0;
        struct cgm_x86_static d;
        int ok = 1;
        while (q < buf + len - cut && ok)
            ok = cgm_x86_static_decode(&q, buf + len - cut, &pv, &d) == 0;
        assert_true(q <= buf + len - cut);
    }
}

/* Records the musl guest NAME with a scheduling quantum and, if EXTRA, one more option. */
static void record(struct x86_recording *r, const char *name, const char *quantum,
                   const char *extra)
{
    const char *opts[] = { extra, "--quantum", quantum, NULL };
    x86_record_guest(r, name, extra ? opts : opts + 1);
}

static int files_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int eq = fa && fb;
    while (eq) {
        int x = fgetc(fa), y = fgetc(fb);
        if (x != y)
            eq = 0;
        if (x == EOF || y == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return eq;
}

static void test_recorded_trace_is_whole_and_repeatable(void **state)
{
    (void)state;
    struct x86_recording t1, t2;
    record(&t1, "hello", "100000", NULL);
    record(&t2, "hello", "100000", NULL);
    /* hello exits with status 3 */
    assert_int_equal(t1.status, 3);
    assert_int_equal(t2.status, 3);
    assert_true(files_equal(t1.path, t2.path));

    char err[512];
    assert_int_equal(cgm_trace_verify(t1.path, err, sizeof err), 0);
    struct cgm_reader *r = cgm_reader_open(t1.path, err, sizeof err);
    assert_non_null(r);
    assert_true(cgm_reader_complete(r));

    /* static table: each address once (the reader sorts and refuses
     * duplicates), classes are known */
    struct cgm_x86_static *table;
    size_t nstatic;
    assert_int_equal(cgm_x86_static_read(r, 64u << 20, &table, &nstatic, err, sizeof err), 0);
    for (size_t i = 1; i < nstatic; i++)
        assert_true(table[i].addr > table[i - 1].addr);
    for (size_t i = 0; i < nstatic; i++)
        assert_true(table[i].cls < CGM_X86_CLASS_COUNT);
    free(table);
    assert_true(nstatic > 100);

    long idx = -1;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++)
        if (cgm_reader_stream(r, i)->info.kind == CGM_STREAM_X86_THREAD)
            idx = (long)i;
    assert_true(idx >= 0);
    const struct cgm_reader_stream *rs = cgm_reader_stream(r, (size_t)idx);
    struct cgm_riter *it = cgm_riter_open(r, (size_t)idx);
    assert_non_null(it);
    struct cgm_x86_codec *codec = calloc(1, sizeof *codec);
    static struct cgm_x86_access acc[CGM_X86_ACCESS_MAX];
    const uint8_t *rec;
    size_t len;
    uint64_t insts = 0, writes = 0, syscalls = 0;
    int exit_seen = 0, rc;
    while ((rc = cgm_riter_next(it, &rec, &len)) == 1) {
        assert_true(len >= 1);
        if (rec[0] == CGM_X86_REC_BLOCK || rec[0] == CGM_X86_REC_PARTIAL) {
            struct cgm_x86_block_rec b;
            assert_int_equal(cgm_x86_block_decode(codec, rec, len, &b, acc), 0);
            insts += b.ninsn;
            for (uint32_t i = 0; i < b.naccess; i++)
                writes += acc[i].write;
        } else {
            struct cgm_event ev;
            assert_int_equal(cgm_event_decode(rec, len, &ev), 0);
            if (ev.type == CGM_EV_SYSCALL)
                syscalls++;
            if (ev.type == CGM_EV_THREAD_EXIT) {
                exit_seen = 1;
                assert_int_equal(ev.f[2], 3);
            }
        }
    }
    assert_int_equal(rc, 0);
    assert_true(exit_seen);
    assert_true(syscalls >= 2); /* at least the TLS setup and the write */
    assert_true(writes > 0);
    /* every retired instruction is in a block record */
    assert_true(insts == rs->totals.instructions);
    assert_true(insts > 1000);
    cgm_riter_close(it);
    free(codec);
    cgm_reader_close(r);
    x86_recording_remove(&t1);
    x86_recording_remove(&t2);
}

/* Threads: one stream each, every ended wait names a wake that happened
 * before it, sequence numbers are unique across streams. */
static void test_threaded_trace_events(void **state)
{
    (void)state;
    struct x86_recording t;
    record(&t, "sync_mt", "50", NULL);
    assert_int_equal(t.status, 0);
    char err[512];
    assert_int_equal(cgm_trace_verify(t.path, err, sizeof err), 0);
    struct cgm_reader *r = cgm_reader_open(t.path, err, sizeof err);
    assert_non_null(r);
    enum { MAXSEQ = 1 << 20 };
    uint8_t *kind = calloc(MAXSEQ, 1); /* 1 wake, 2 other */
    uint64_t (*waits)[2] = calloc(MAXSEQ, sizeof *waits);
    size_t nwaits = 0, threads = 0, creates = 0, exits = 0;
    assert_non_null(kind);
    assert_non_null(waits);
    struct cgm_x86_codec *codec = malloc(sizeof *codec);
    static struct cgm_x86_access acc[CGM_X86_ACCESS_MAX];
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        if (cgm_reader_stream(r, i)->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        threads++;
        memset(codec, 0, sizeof *codec);
        struct cgm_riter *it = cgm_riter_open(r, i);
        const uint8_t *rec;
        size_t len;
        int last_was_exit = 0;
        while (cgm_riter_next(it, &rec, &len) == 1) {
            last_was_exit = 0;
            if (rec[0] == CGM_X86_REC_BLOCK || rec[0] == CGM_X86_REC_PARTIAL) {
                struct cgm_x86_block_rec b;
                assert_int_equal(cgm_x86_block_decode(codec, rec, len, &b, acc), 0);
                continue;
            }
            struct cgm_event ev;
            assert_int_equal(cgm_event_decode(rec, len, &ev), 0);
            uint64_t seq = ev.f[0];
            switch (ev.type) {
            case CGM_EV_FUTEX_WAKE: case CGM_EV_FUTEX_WAIT: case CGM_EV_THREAD_CREATE:
            case CGM_EV_THREAD_EXIT:
                assert_true(seq > 0 && seq < MAXSEQ);
                assert_int_equal(kind[seq], 0); /* unique */
                kind[seq] = ev.type == CGM_EV_FUTEX_WAKE ? 1 : 2;
                break;
            default:
                break;
            }
            if (ev.type == CGM_EV_FUTEX_WAIT && ev.f[2]) {
                waits[nwaits][0] = seq;
                waits[nwaits][1] = ev.f[2];
                nwaits++;
            }
            creates += ev.type == CGM_EV_THREAD_CREATE;
            if (ev.type == CGM_EV_THREAD_EXIT) {
                exits++;
                last_was_exit = 1;
            }
        }
        assert_true(last_was_exit);
        cgm_riter_close(it);
    }
    assert_int_equal(threads, 7); /* main, 4 workers, producer, consumer */
    assert_int_equal(creates, 6);
    assert_int_equal(exits, 7);
    assert_true(nwaits > 0); /* with a 50-instruction quantum someone sleeps */
    for (size_t k = 0; k < nwaits; k++) {
        assert_true(waits[k][1] < waits[k][0]);
        assert_int_equal(kind[waits[k][1]], 1);
    }
    free(codec);
    free(kind);
    free(waits);
    cgm_reader_close(r);
    x86_recording_remove(&t);
}

/* --roi-only: the workers of matmul_mt live entirely inside the region of
 * interest, so their streams are the same as in a full recording, while
 * the main thread keeps only what it ran between the markers. */
static void test_roi_only(void **state)
{
    (void)state;
    struct x86_recording full, roi;
    record(&full, "matmul_mt", "100000", NULL);
    record(&roi, "matmul_mt", "100000", "--roi-only");
    assert_int_equal(full.status, 0);
    assert_int_equal(roi.status, 0);
    char err[512];
    struct cgm_reader *rf = cgm_reader_open(full.path, err, sizeof err);
    struct cgm_reader *rr = cgm_reader_open(roi.path, err, sizeof err);
    assert_non_null(rf);
    assert_non_null(rr);
    assert_int_equal(cgm_reader_stream_count(rf), cgm_reader_stream_count(rr));
    int markers = 0;
    for (uint32_t tid = 1000; tid <= 1004; tid++) {
        long a = cgm_reader_find_stream(rf, tid), b = cgm_reader_find_stream(rr, tid);
        assert_true(a >= 0 && b >= 0);
        uint64_t ia = cgm_reader_stream(rf, (size_t)a)->totals.instructions;
        uint64_t ib = cgm_reader_stream(rr, (size_t)b)->totals.instructions;
        if (tid == 1000) {
            assert_true(ib < ia / 10);
            struct cgm_riter *it = cgm_riter_open(rr, (size_t)b);
            const uint8_t *rec;
            size_t len;
            while (cgm_riter_next(it, &rec, &len) == 1)
                markers += rec[0] == CGM_EV_ROI_BEGIN || rec[0] == CGM_EV_ROI_END;
            cgm_riter_close(it);
        } else {
            assert_true(ia == ib && ia > 100000);
        }
    }
    assert_int_equal(markers, 2);
    cgm_reader_close(rf);
    cgm_reader_close(rr);
    x86_recording_remove(&full);
    x86_recording_remove(&roi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_codec_round_trip),
        cmocka_unit_test(test_static_codec_round_trip),
        cmocka_unit_test(test_recorded_trace_is_whole_and_repeatable),
        cmocka_unit_test(test_threaded_trace_events),
        cmocka_unit_test(test_roi_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
