/* Traces cut short replay: a recording killed with SIGKILL, and a
 * multithreaded recording cut after each of its chunks and in the middle of
 * the next, each replayed with --partial
 * (every thread up to its last whole chunk; threads whose creation or
 * wake-up was cut off end there, with a warning). A longer piece of a
 * trace never replays fewer instructions than a shorter one, and the whole
 * trace replays as many as without --partial. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "tests/unit/run_program.h"
#include "tests/unit/x86_recording.h"

static char replay[4096], tracegen[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(replay, sizeof replay, "%s/replay", getenv("CGM_BIN"));
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Replays TRACE (with --partial when PARTIAL) and returns the instructions
 * the statistics report; the replay must succeed. *WARNINGS (may be NULL)
 * gets replay's stderr. */
static uint64_t replayed(const char *trace, int partial, char **warnings)
{
    char json[] = "/tmp/cgm_cut_json_XXXXXX";
    close(mkstemp(json));
    char *argv[7] = { replay, "-q", "-o", json };
    int k = 4;
    if (partial)
        argv[k++] = "--partial";
    argv[k++] = (char *)trace;
    argv[k] = NULL;
    struct run_options o = { .timeout = 300 };
    struct run_result *r = run_program(argv, &o);
    if (r->status != 0)
        print_error("replay %s: %s\n", trace, r->err);
    assert_int_equal(r->status, 0);
    size_t len;
    char *text = (char *)slurp(json, &len);
    text[len] = 0;
    /* the top-level key (one tab in), not the per-core ones */
    const char *key = strstr(text, "\n\t\"instructions\":");
    assert_non_null(key);
    uint64_t n = strtoull(strchr(key, ':') + 1, NULL, 10);
    free(text);
    unlink(json);
    if (warnings)
        *warnings = strdup(r->err);
    run_result_free(r);
    return n;
}

static void write_prefix(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static int by_value(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Where the chunks of the whole trace PATH end (a 64-byte block header and
 * the stored payload after each chunk's offset), ascending: the cuts that
 * each leave one more whole chunk. */
static size_t chunk_ends(const char *path, size_t *ends, size_t cap)
{
    char err[512];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    size_t n = 0;
    struct cgm_chunk_info c;
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++)
        for (size_t k = 0; cgm_reader_chunk(r, s, k, &c) == 0 && n < cap; k++)
            ends[n++] = (size_t)c.offset + 64 + c.stored_bytes;
    cgm_reader_close(r);
    qsort(ends, n, sizeof *ends, by_value);
    return n;
}

static void test_cut_anywhere_replays_with_partial(void **state)
{
    (void)state;
    struct x86_recording rec;
    /* small chunks: many ways to cut, each thread in several pieces */
    const char *opts[] = { "--chunk-bytes", "8K", NULL };
    x86_record_guest(&rec, "sync_mt", opts);
    assert_int_equal(rec.status, 0);
    uint64_t whole = replayed(rec.path, 0, NULL);
    assert_true(whole > 0);
    size_t len, ends[4096];
    uint8_t *data = slurp(rec.path, &len);
    size_t nends = chunk_ends(rec.path, ends, 4096);
    assert_true(nends > 10);
    char cut[] = "/tmp/cgm_cut_XXXXXX";
    close(mkstemp(cut));
    uint64_t prev = 0;
    int dropped_threads = 0, cuts = 0, with_instructions = 0;
    /* at most 32 cuts: every chunk end when there are fewer, each torn in
     * the middle of the next block too */
    size_t step = nends / 15 + 1;
    for (size_t e = 0; e < nends; e += step) {
        for (int torn = 0; torn < 2; torn++) {
            size_t n = torn ? ends[e] + (e + 1 < nends ? (ends[e + 1] - ends[e]) / 2 : 1) : ends[e];
            if (n >= len)
                continue;
            write_prefix(cut, data, n);
            char *warn = NULL;
            uint64_t got = replayed(cut, 1, &warn);
            if (got < prev || got > whole)
                print_error("cut at %zu of %zu bytes: %llu instructions (previous cut %llu, "
                            "whole %llu)\n", n, len, (unsigned long long)got,
                            (unsigned long long)prev, (unsigned long long)whole);
            assert_true(got >= prev);
            assert_true(got <= whole);
            assert_non_null(strstr(warn, "incomplete"));
            dropped_threads += strstr(warn, "was cut off") != NULL;
            with_instructions += got > 0;
            cuts++;
            free(warn);
            prev = got;
        }
    }
    /* sync_mt's threads wait for each other: some cut leaves one waiting */
    assert_true(dropped_threads > 0);
    assert_true(with_instructions > cuts / 4);
    assert_true(replayed(rec.path, 1, NULL) == whole);
    unlink(cut);
    free(data);
    x86_recording_remove(&rec);
}

/* SIGKILL cannot be caught: the trace has no index, no program section, but
 * every whole chunk, the static table of the code they run included. */
static void test_killed_recording_replays(void **state)
{
    (void)state;
    char trace[] = "/tmp/cgm_killed_XXXXXX", guest[4096];
    close(mkstemp(trace));
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/matmul_mt", getenv("CGM_BUILD"));
    char *argv[] = { tracegen, "--quiet", "-o", trace, "--", guest, "512", "4", NULL };
    struct run_options o = { .timeout = 120, .signal_after = 2.0, .signal = SIGKILL };
    struct run_result *r = run_program(argv, &o);
    assert_int_equal(r->status, 128 + SIGKILL);
    run_result_free(r);
    char err[512];
    struct cgm_reader *rd = cgm_reader_open(trace, err, sizeof err);
    assert_non_null(rd);
    assert_false(cgm_reader_complete(rd));
    assert_true(cgm_reader_find_section(rd, "x86.static") >= 0);
    cgm_reader_close(rd);
    char *warn = NULL;
    assert_true(replayed(trace, 1, &warn) > 0);
    assert_non_null(strstr(warn, "incomplete"));
    free(warn);
    unlink(trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_anywhere_replays_with_partial),
        cmocka_unit_test(test_killed_recording_replays),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
