/* make bench-trace-format: raw record bytes written and read per second
 * through the container, and the compression ratio, on a synthetic x86-like
 * record stream. The baseline, measured in the same run on the same bytes,
 * is plain LZ4 compression and decompression of 256 KiB buffers: the ratios
 * show what the container (framing, checksums, I/O) costs on top. */
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgm/codec.h"
#include "cgm/trace.h"

#define RECORDS 30000000ull

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A record as an x86 recorder might write it: a type byte, and for memory
 * instructions a delta-coded address. Three arrays walked with strides of 8
 * bytes, one random access in 16, a taken branch every 8 records. */
struct gen {
    uint64_t prev, a[3], rng;
};

static size_t next_record(struct gen *g, uint64_t k, uint8_t *out)
{
    g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
    size_t n = 0;
    if (k % 8 == 7) {
        out[n++] = 0x41; /* branch: target delta */
        n += cgm_put_varint(out + n, (g->rng >> 40) & 0x3f);
        return n;
    }
    out[n++] = 0x40;
    uint64_t addr;
    if ((g->rng >> 60) == 0)
        addr = 0x7f0000000000ull + ((g->rng >> 20) & 0xffffff8);
    else
        addr = g->a[k % 3] += 8;
    n += cgm_put_delta(out + n, &g->prev, addr);
    return n;
}

int main(void)
{
    char path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/cgm_bench_%d.cgt", dir ? dir : "/tmp", (int)getpid());

    /* Baseline: LZ4 alone over the same kind of bytes, chunk-sized. */
    size_t chunk = CGM_CHUNK_DEFAULT, bound = (size_t)LZ4_compressBound((int)chunk);
    uint8_t *raw = malloc(chunk), *comp = malloc(bound), *back = malloc(chunk);
    struct gen g = { .a = { 0x600000, 0x800000, 0xa00000 }, .rng = 1 };
    size_t used = 0;
    uint64_t k = 0;
    while (used + 16 < chunk)
        used += next_record(&g, k++, raw + used);
    int clen = 0;
    int reps = 400;
    double t0 = now();
    for (int i = 0; i < reps; i++)
        clen = LZ4_compress_default((const char *)raw, (char *)comp, (int)used, (int)bound);
    double lz4c = (double)used * reps / (now() - t0) / 1e6;
    t0 = now();
    for (int i = 0; i < reps; i++)
        LZ4_decompress_safe((const char *)comp, (char *)back, clen, (int)chunk);
    double lz4d = (double)used * reps / (now() - t0) / 1e6;
    if (memcmp(raw, back, used)) {
        fputs("bench-trace-format: LZ4 baseline did not round-trip\n", stderr);
        return 1;
    }

    /* The container: one stream written, then read back. */
    char err[256];
    struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
    if (!w) {
        fprintf(stderr, "bench-trace-format: %s\n", err);
        return 1;
    }
    struct cgm_stream_info in = { .id = 1, .kind = CGM_STREAM_X86_THREAD, .thread_id = 1 };
    struct cgm_wstream *s = cgm_writer_open_stream(w, &in);
    /* Records are made before the clock starts: only the container is timed. */
    g = (struct gen){ .a = { 0x600000, 0x800000, 0xa00000 }, .rng = 1 };
    uint8_t *recs = malloc(RECORDS * 12), *lens = malloc(RECORDS);
    size_t total = 0;
    for (k = 0; k < RECORDS; k++) {
        lens[k] = (uint8_t)next_record(&g, k, recs + total);
        total += lens[k];
    }
    const uint8_t *rec = recs;
    t0 = now();
    for (k = 0; k < RECORDS; k++) {
        size_t n = lens[k];
        int rc = cgm_wstream_append(s, rec, n, 1);
        rec += n;
        if (rc) {
            fprintf(stderr, "bench-trace-format: %s\n", cgm_writer_error(w));
            return 1;
        }
    }
    if (cgm_writer_finalize(w, err, sizeof err)) {
        fprintf(stderr, "bench-trace-format: %s\n", err);
        return 1;
    }
    double wt = now() - t0;
    free(recs);
    free(lens);

    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "bench-trace-format: %s\n", err);
        return 1;
    }
    const struct cgm_reader_stream *st = cgm_reader_stream(r, 0);
    uint64_t raw_bytes = st->totals.raw_bytes, stored = st->totals.compressed_bytes;
    struct cgm_riter *it = cgm_riter_open(r, 0);
    const uint8_t *p;
    size_t len;
    uint64_t sum = 0, nrec = 0;
    t0 = now();
    while (cgm_riter_next(it, &p, &len) == 1) {
        sum += p[len - 1];
        nrec++;
    }
    double rt = now() - t0;
    cgm_riter_close(it);
    cgm_reader_close(r);
    unlink(path);
    if (nrec != RECORDS) {
        fprintf(stderr, "bench-trace-format: read %llu records of %llu\n",
                (unsigned long long)nrec, RECORDS);
        return 1;
    }

    double write_mbps = (double)raw_bytes / wt / 1e6, read_mbps = (double)raw_bytes / rt / 1e6;
    double ratio = (double)raw_bytes / (double)stored;
    printf("records               %llu (%.2f raw bytes each, checksum %llu)\n",
           RECORDS, (double)raw_bytes / RECORDS, (unsigned long long)sum);
    printf("container write       %8.1f MB/s of raw records (target >= 300)\n", write_mbps);
    printf("container read        %8.1f MB/s of raw records (target >= 800)\n", read_mbps);
    printf("LZ4 compress alone    %8.1f MB/s   container write / LZ4 = %.2f\n", lz4c, write_mbps / lz4c);
    printf("LZ4 decompress alone  %8.1f MB/s   container read / LZ4  = %.2f\n", lz4d, read_mbps / lz4d);
    printf("compression ratio     %8.2f\n", ratio);
    printf("BENCH trace-format write_mbps=%.1f read_mbps=%.1f ratio=%.2f lz4_compress_mbps=%.1f "
           "lz4_decompress_mbps=%.1f write_vs_lz4=%.2f read_vs_lz4=%.2f\n",
           write_mbps, read_mbps, ratio, lz4c, lz4d, write_mbps / lz4c, read_mbps / lz4d);
    free(raw);
    free(comp);
    free(back);
    return 0;
}
