/* libFuzzer target for replay's simulation on mutated traces: the reader's
 * fuzzer stops at the decoders, this one runs what they decode through
 * the scheduler, the cores and the memory system. A mutated .cgt mostly
 * fails its checksums, so the input is the streams' records themselves,
 * which the target writes into a valid container before replaying it:
 *
 *   repeat: kind (1 x86 thread, 4 section "x86.static", 5 section
 *           "program"), id (varint), record count (varint), then each
 *           record as a varint length (1..4096) and its bytes
 *
 * Any input must end in statistics or a clean error, never a crash, a
 * hang or an unbounded allocation. With CGM_FUZZ_EXPORT=TRACE.cgt set, the
 * target instead writes TRACE's streams in this form to stdout and exits:
 * a seed corpus from real traces (tests/validate/fuzz_replay_sim.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/codec.h"
#include "cgm/trace.h"
#include "replay/config.h"
#include "replay/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define RECORD_MAX 4096u
#define STREAMS_MAX 16u

static void put_varint(FILE *f, uint64_t v)
{
    uint8_t b[CGM_VARINT_MAX];
    fwrite(b, 1, cgm_put_varint(b, v), f);
}

/* Writes the x86 streams of trace PATH in the input form. */
static int export_trace(const char *path)
{
    char err[512];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    if (!r) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        const struct cgm_reader_stream *s = cgm_reader_stream(r, i);
        int kind = s->info.kind == CGM_STREAM_X86_THREAD ? 1
                   : s->info.kind != CGM_STREAM_SECTION ? 0
                   : !strcmp(s->info.name, "x86.static") ? 4
                   : !strcmp(s->info.name, "program") ? 5 : 0;
        if (!kind)
            continue;
        putchar(kind);
        put_varint(stdout, s->info.id);
        put_varint(stdout, s->totals.records);
        struct cgm_riter *it = cgm_riter_open(r, i);
        const uint8_t *rec;
        size_t len;
        while (it && cgm_riter_next(it, &rec, &len) == 1) {
            /* longer records (a program section, a big static record) are cut */
            size_t n = len < RECORD_MAX ? len : RECORD_MAX;
            put_varint(stdout, n);
            fwrite(rec, 1, n, stdout);
        }
        cgm_riter_close(it);
    }
    cgm_reader_close(r);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = getenv("CGM_FUZZ_EXPORT");
    if (path)
        exit(export_trace(path));
    return 0;
}

/* Writes the trace of DATA to PATH. Returns 0 when
 * it holds at least one thread. */
static int build_trace(const uint8_t *data, size_t size, const char *path)
{
    char err[512];
    struct cgm_writer_options wo = { .chunk_bytes = 4096 };
    struct cgm_writer *w = cgm_writer_create(path, &wo, err, sizeof err);
    if (!w)
        return -1;
    const uint8_t *p = data, *end = data + size;
    int threads = 0, sections = 0;
    for (unsigned s = 0; s < STREAMS_MAX && p < end; s++) {
        uint8_t kind = *p++;
        uint64_t id, count;
        if (cgm_get_varint(&p, end, &id) || cgm_get_varint(&p, end, &count))
            break;
        struct cgm_stream_info info = { .id = (uint32_t)id };
        if (kind == 1) {
            info.kind = CGM_STREAM_X86_THREAD;
            info.thread_id = id;
            threads++;
        } else if (kind == 4 || kind == 5) {
            info.kind = CGM_STREAM_SECTION;
            info.id = 0x7fff0000u + (kind == 4);
            snprintf(info.name, sizeof info.name, "%s", kind == 4 ? "x86.static" : "program");
            if (sections & (1 << kind))
                break;
            sections |= 1 << kind;
        } else {
            break;
        }
        struct cgm_wstream *ws = cgm_writer_open_stream(w, &info);
        if (!ws)
            break;
        for (uint64_t k = 0; k < count && p < end; k++) {
            uint64_t len;
            if (cgm_get_varint(&p, end, &len) || len == 0 || len > RECORD_MAX ||
                len > (uint64_t)(end - p))
                break;
            cgm_wstream_append(ws, p, (size_t)len, 0);
            p += len;
        }
        cgm_wstream_close(ws);
    }
    int rc = cgm_writer_finalize(w, err, sizeof err);
    return rc == 0 && threads ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 16))
        return 0;
    char path[] = "/tmp/cgm_fuzz_replay_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    close(fd);
    if (build_trace(data, size, path) == 0) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        cfg.cores = 2;
        char err[1024];
        struct rp_sim *s = rp_sim_create(&cfg, path, err, sizeof err);
        if (s) {
            rp_sim_run(s, false);
            rp_sim_destroy(s);
        }
    }
    unlink(path);
    return 0;
}
