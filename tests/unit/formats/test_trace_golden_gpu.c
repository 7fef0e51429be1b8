/* The committed GPU golden trace, traces/golden/v2-gpu-stream-copy.cgt:
 * tests/data/si/kernels/micro.cl's stream_copy (out[i] = in[i] + n) over
 * 256 work-items in groups of 64, launched by traces/gpu/gpu_micro. Every
 * record is decoded with today's reader and checked against what the
 * program does: its two buffers, one launch, four work-group streams of one
 * wavefront each, whose load reads in[64 g + l] and whose store writes
 * out[64 g + l] at lane l. A change to the SI static table, the kernel
 * section or the work-group records that this reader cannot read as
 * version 2 fails here: it needs a new version number and a new golden file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgm/events.h"
#include "cgm/sirec.h"
#include "cgm/trace.h"

#define GOLDEN_REL "traces/golden/v2-gpu-stream-copy.cgt"
enum { GLOBAL = 256, LOCAL = 64, GROUPS = GLOBAL / LOCAL };

static struct cgm_reader *open_golden(void)
{
    char path[4096], err[512];
    const char *root = getenv("CGM_ROOT");
    snprintf(path, sizeof path, "%s/%s", root ? root : ".", GOLDEN_REL);
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    if (!r)
        print_error("%s\n", err);
    assert_non_null(r);
    return r;
}

/* The host's GPU calls: two allocations (in, then out: gpu_micro's order)
 * and one launch of GLOBAL work-items in groups of LOCAL. */
struct host {
    uint64_t in, out;
    unsigned allocs, launches;
};

static void read_host(struct cgm_reader *r, struct host *h)
{
    *h = (struct host){ 0 };
    unsigned threads = 0;
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        if (cgm_reader_stream(r, s)->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        threads++;
        struct cgm_riter *it = cgm_riter_open(r, s);
        assert_non_null(it);
        const uint8_t *rec;
        size_t len;
        int more;
        while ((more = cgm_riter_next(it, &rec, &len)) == 1) {
            struct cgm_event ev;
            if (rec[0] < CGM_EV_GPU_LOAD || rec[0] > CGM_EV_GPU_WAIT)
                continue;
            assert_int_equal(cgm_event_decode(rec, len, &ev), 0);
            if (ev.type == CGM_EV_GPU_ALLOC) {
                assert_int_equal(ev.f[CGM_EVF_GPU_ALLOC_BYTES], GLOBAL * 4);
                if (h->allocs++ == 0)
                    h->in = ev.f[CGM_EVF_GPU_ALLOC_ADDR];
                else
                    h->out = ev.f[CGM_EVF_GPU_ALLOC_ADDR];
            } else if (ev.type == CGM_EV_GPU_LAUNCH) {
                h->launches++;
                assert_int_equal(ev.f[CGM_EVF_GPU_LAUNCH_DIMS], 1);
                assert_int_equal(ev.f[CGM_EVF_GPU_LAUNCH_GRID_X], GLOBAL);
                assert_int_equal(ev.f[CGM_EVF_GPU_LAUNCH_GROUP_X], LOCAL);
                assert_int_equal(ev.f[CGM_EVF_GPU_LAUNCH_GRID_Y], 1);
                assert_int_equal(ev.f[CGM_EVF_GPU_LAUNCH_GROUP_Y], 1);
            }
        }
        assert_int_equal(more, 0); /* the stream's end, no damaged chunk */
        cgm_riter_close(it);
    }
    assert_int_equal(threads, 1);
    assert_int_equal(h->allocs, 2);
    assert_int_equal(h->launches, 1);
}

static void test_header_and_kernel_section(void **state)
{
    (void)state;
    struct cgm_reader *r = open_golden();
    assert_int_equal(cgm_reader_version(r), 2);
    assert_true(cgm_reader_complete(r));
    char err[512];
    uint8_t *text;
    size_t len;
    assert_int_equal(cgm_reader_read_section(r, CGM_SI_KERNEL_PREFIX "1", 1 << 16, &text, &len, err, sizeof err), 0);
    struct cgm_si_kernel_info k;
    assert_int_equal(cgm_si_kernel_info_decode(text, len, &k), 0);
    free(text);
    assert_string_equal(k.name, "stream_copy");
    assert_int_equal(k.kernel, 1);
    assert_int_equal(k.program, 1);
    assert_int_equal(k.lds_bytes, 0);
    struct host h;
    read_host(r, &h);
    assert_int_not_equal(h.in, h.out);
    cgm_reader_close(r);
}

/* Reads the static table of section NAME into TABLE (CAP entries). */
static size_t read_table(struct cgm_reader *r, const char *name, struct cgm_si_static *table, size_t cap)
{
    char err[512];
    uint8_t *sec;
    size_t len, n = 0;
    assert_int_equal(cgm_reader_read_section(r, name, 1 << 24, &sec, &len, err, sizeof err), 0);
    uint32_t prev = 0;
    for (const uint8_t *p = sec; p < sec + len; n++) {
        assert_true(n < cap);
        assert_int_equal(cgm_si_static_decode(&p, sec + len, &prev, &table[n]), 0);
        assert_true(table[n].size == 4 || table[n].size == 8 || table[n].size == 12);
        assert_true(table[n].unit < CGM_SI_UNIT_COUNT);
    }
    free(sec);
    return n;
}

static void test_workgroup_streams_hold_the_kernel(void **state)
{
    (void)state;
    struct cgm_reader *r = open_golden();
    struct host h;
    read_host(r, &h);
    static struct cgm_si_static table[4096];
    static struct cgm_si_dyn insts[CGM_SI_RUN_MAX];
    size_t n = read_table(r, CGM_SI_STATIC_PREFIX "1", table, 4096);
    unsigned seen[GROUPS] = { 0 }, streams = 0;
    uint64_t first_count = 0;
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        const struct cgm_reader_stream *rs = cgm_reader_stream(r, s);
        if (rs->info.kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        streams++;
        assert_string_equal(rs->info.name, CGM_SI_STATIC_PREFIX "1");
        assert_int_equal(rs->info.launch_id, 1);
        unsigned g = rs->info.group[0];
        assert_true(g < GROUPS);
        assert_int_equal(rs->info.group[1], 0);
        assert_int_equal(rs->info.group[2], 0);
        seen[g]++;
        struct cgm_si_codec codec;
        assert_int_equal(cgm_si_codec_init(&codec, table, n), 0);
        struct cgm_riter *it = cgm_riter_open(r, s);
        assert_non_null(it);
        const uint8_t *rec;
        size_t len;
        uint64_t count = 0;
        unsigned loads = 0, stores = 0, ends = 0;
        int more;
        while ((more = cgm_riter_next(it, &rec, &len)) == 1) {
            uint8_t type;
            unsigned wave, k;
            assert_int_equal(cgm_si_record_decode(&codec, rec, len, &type, &wave, insts, &k), 0);
            assert_int_equal(wave, 0); /* 64 work-items: one wavefront */
            if (type != CGM_SI_REC_WAVE)
                continue;
            count += k;
            for (unsigned i = 0; i < k; i++) {
                long e = cgm_si_static_find(&codec, insts[i].offset);
                assert_true(e >= 0);
                ends += table[e].unit == CGM_SI_END;
                if (table[e].unit != CGM_SI_VMEM || table[e].access == CGM_SI_NONE)
                    continue;
                assert_int_equal(table[e].access_size, 4);
                assert_int_equal(insts[i].exec, UINT64_MAX);
                uint64_t base = table[e].access == CGM_SI_LOAD ? h.in : h.out;
                loads += table[e].access == CGM_SI_LOAD;
                stores += table[e].access == CGM_SI_STORE;
                for (unsigned l = 0; l < CGM_SI_LANES; l++)
                    assert_int_equal(insts[i].addr[l], base + 4 * (LOCAL * g + l));
            }
        }
        assert_int_equal(more, 0);
        cgm_riter_close(it);
        cgm_si_codec_free(&codec);
        assert_int_equal(loads, 1);
        assert_int_equal(stores, 1);
        assert_int_equal(ends, 1);
        assert_int_equal(count, rs->totals.instructions);
        /* straight-line code: every group runs the same instructions */
        if (!first_count)
            first_count = count;
        assert_int_equal(count, first_count);
    }
    assert_int_equal(streams, GROUPS);
    for (unsigned g = 0; g < GROUPS; g++)
        assert_int_equal(seen[g], 1);
    cgm_reader_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_and_kernel_section),
        cmocka_unit_test(test_workgroup_streams_hold_the_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
