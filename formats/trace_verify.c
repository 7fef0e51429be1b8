/* tracetool verify: every block, checksum, record frame, and the index
 * against what the blocks say. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgm/input.h"
#include "formats/catalog.h"

static int same_chunks(const struct catalog_stream *a, const struct catalog_stream *b)
{
    if (a->nchunks != b->nchunks)
        return 0;
    for (size_t k = 0; k < a->nchunks; k++) {
        const struct cgm_chunk_ref *x = &a->chunks[k], *y = &b->chunks[k];
        if (x->offset != y->offset || x->first_record != y->first_record ||
            x->instructions != y->instructions || x->records != y->records ||
            x->raw_bytes != y->raw_bytes || x->stored_bytes != y->stored_bytes)
            return 0;
    }
    return 1;
}

static int same_info(const struct cgm_stream_info *a, const struct cgm_stream_info *b)
{
    return a->id == b->id && a->kind == b->kind && a->thread_id == b->thread_id &&
           a->launch_id == b->launch_id && a->wavefront == b->wavefront &&
           !memcmp(a->group, b->group, sizeof a->group) && !strcmp(a->name, b->name);
}

/* Compares the index's catalog with the scanned one; returns a message. */
static const char *compare(const struct catalog *scan, const struct catalog *index,
                           uint32_t *bad_stream)
{
    if (scan->nstreams != index->nstreams)
        return "index and blocks list different numbers of streams";
    for (size_t i = 0; i < scan->nstreams; i++) {
        const struct catalog_stream *a = &scan->streams[i], *b = &index->streams[i];
        *bad_stream = a->pub.info.id;
        if (!same_info(&a->pub.info, &b->pub.info))
            return "index and stream declaration differ";
        if (a->pub.closed != b->pub.closed)
            return "index and blocks disagree on whether the stream was closed";
        if (!same_chunks(a, b))
            return "index and blocks list different chunks";
    }
    return NULL;
}

int cgm_trace_verify(const char *path, char *err, size_t errlen)
{
    char open_err[512];
    struct cgm_reader *r = cgm_reader_open(path, open_err, sizeof open_err);
    if (!r) {
        snprintf(err, errlen, "%s", open_err);
        return -1;
    }
    struct trace_file f = { .name = path, .size = cgm_reader_file_bytes(r) };
    f.fd = cgm_open_input(path, err, errlen);
    if (f.fd < 0) {
        cgm_reader_close(r);
        return -1;
    }
    struct catalog scan = { 0 }, index = { 0 };
    uint64_t stop = 0, at = 0, index_offset = 0;
    uint32_t bad_stream = 0;
    const char *e = catalog_scan(&f, &scan, &stop);
    if (e) {
        snprintf(err, errlen, "%s: offset %llu: %s", path, (unsigned long long)stop, e);
        goto out;
    }
    e = catalog_from_index(&f, &index, &at, &index_offset);
    if (e) {
        snprintf(err, errlen, "%s: offset %llu: %s", path, (unsigned long long)at, e);
        goto out;
    }
    if (index_offset != stop) {
        e = "index block is not where the blocks end";
        snprintf(err, errlen, "%s: offset %llu: %s", path, (unsigned long long)stop, e);
        goto out;
    }
    if ((e = compare(&scan, &index, &bad_stream))) {
        snprintf(err, errlen, "%s: offset %llu: stream %u: %s", path,
                 (unsigned long long)index_offset, bad_stream, e);
        goto out;
    }
    /* Decompress every chunk and walk every record frame. */
    for (size_t i = 0; i < cgm_reader_stream_count(r) && !e; i++) {
        struct cgm_riter *it = cgm_riter_open(r, i);
        const uint8_t *rec;
        size_t len;
        int rc;
        uint64_t n = 0;
        if (!it) {
            e = "out of memory";
            snprintf(err, errlen, "%s: %s", path, e);
            break;
        }
        while ((rc = cgm_riter_next(it, &rec, &len)) == 1)
            n++;
        if (rc < 0) {
            e = "bad chunk";
            snprintf(err, errlen, "%s", cgm_riter_error(it));
        } else if (n != cgm_reader_stream(r, i)->totals.records) {
            e = "record count";
            snprintf(err, errlen, "%s: stream %u: %llu records read, index says %llu",
                     path, cgm_reader_stream(r, i)->info.id, (unsigned long long)n,
                     (unsigned long long)cgm_reader_stream(r, i)->totals.records);
        }
        cgm_riter_close(it);
    }
out:
    catalog_free(&scan);
    catalog_free(&index);
    close(f.fd);
    cgm_reader_close(r);
    return e ? -1 : 0;
}
