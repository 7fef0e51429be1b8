/* libFuzzer target for the trace reader and verifier: any bytes must give a
 * clean error or records, never a crash, a hang or an unbounded allocation.
 * Seed it with traces/golden/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/trace.h"

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
            while (cgm_riter_next(it, &rec, &len) == 1)
                cgm_event_decode(rec, len, &ev);
            if (cgm_reader_stream(r, i)->totals.records > 1)
                cgm_riter_seek(it, cgm_reader_stream(r, i)->totals.records / 2);
            cgm_riter_close(it);
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
