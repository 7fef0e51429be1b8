/* libFuzzer target for the trace reader and verifier and the record
 * decoders behind them (events, x86 blocks, the x86 static table): any bytes
 * must give a clean error or records, never a crash, a hang or an unbounded
 * allocation. Seed it with traces/golden/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "cgm/x86view.h"

static struct cgm_x86_codec codec;
static struct cgm_x86_access acc[CGM_X86_ACCESS_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz.cgt", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char err[512];
    struct cgm_reader *r = cgm_reader_open_fd(fd, "fuzz.cgt", err, sizeof err);
    if (r) {
        for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
            struct cgm_riter *it = cgm_riter_open(r, i);
            const uint8_t *rec;
            size_t len;
            struct cgm_event ev;
            struct cgm_x86_block_rec b;
            memset(&codec, 0, sizeof codec);
            while (cgm_riter_next(it, &rec, &len) == 1) {
                if (rec[0] == CGM_X86_REC_BLOCK || rec[0] == CGM_X86_REC_PARTIAL)
                    cgm_x86_block_decode(&codec, rec, len, &b, acc);
                else
                    cgm_event_decode(rec, len, &ev);
            }
            if (cgm_reader_stream(r, i)->totals.records > 1)
                cgm_riter_seek(it, cgm_reader_stream(r, i)->totals.records / 2);
            cgm_riter_close(it);
        }
        struct cgm_x86_view *view = cgm_x86_view_open(r, err, sizeof err);
        if (view) {
            for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
                struct cgm_x86_stats st = { 0 };
                if (cgm_reader_stream(r, i)->info.kind == CGM_STREAM_X86_THREAD)
                    cgm_x86_stream_stats(view, r, i, &st, NULL, err, sizeof err);
            }
            cgm_x86_view_close(view);
        }
        uint8_t *sec;
        size_t len;
        if (cgm_reader_read_section(r, "program", 1 << 20, &sec, &len, err, sizeof err) == 0)
            free(sec);
        cgm_reader_close(r);
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        cgm_trace_verify(path, err, sizeof err);
    }
    close(fd);
    return 0;
}
