/* The trace writer: per-stream chunk buffers, LZ4, checksummed blocks, and
 * an index with a trailer at finalize. Memory: one raw chunk per open
 * stream plus one shared compression buffer, and one small index entry per
 * chunk written. */
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cgm/codec.h"
#include "formats/block.h"

/* What the index needs to remember of each stream. */
struct stream_meta {
    struct cgm_stream_info info;
    struct cgm_stream_totals totals;
    struct cgm_chunk_ref *chunks;
    size_t nchunks, cap;
    struct cgm_wstream *open; /* NULL once closed */
};

struct cgm_wstream {
    struct cgm_writer *w;
    size_t meta;           /* index into w->streams */
    uint8_t *buf;          /* framed records of the chunk being filled */
    size_t used;
    uint32_t records;
    uint64_t instructions;
};

struct cgm_writer {
    int fd;
    char *path;
    uint64_t offset;
    uint32_t chunk_bytes;
    int level;
    uint8_t *cbuf;         /* compression output, shared by all streams */
    size_t cbuf_size;
    struct stream_meta *streams;
    size_t nstreams, cap;
    char error[512];
};

static int fail(struct cgm_writer *w, const char *fmt, ...)
{
    if (!w->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        int n = snprintf(w->error, sizeof w->error, "%s: ", w->path);
        if (n > 0 && (size_t)n < sizeof w->error)
            vsnprintf(w->error + n, sizeof w->error - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

const char *cgm_writer_error(const struct cgm_writer *w)
{
    return w->error;
}

static int write_all(struct cgm_writer *w, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t k = writev(w->fd, iov, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return fail(w, "write at offset %llu: %s",
                        (unsigned long long)w->offset, strerror(errno));
        }
        w->offset += (uint64_t)k;
        while (n > 0 && (size_t)k >= iov->iov_len) {
            k -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + k;
            iov->iov_len -= (size_t)k;
        }
    }
    return 0;
}

/* Writes one block; compresses PAYLOAD when that makes it smaller. */
static int write_block(struct cgm_writer *w, struct cgm_block *b,
                       const uint8_t *payload, size_t len)
{
    const uint8_t *stored = payload;
    size_t stored_len = len;
    b->codec = CGM_CODEC_RAW;
    if (len > 64) {
        if (len > w->cbuf_size) {
            size_t need = (size_t)LZ4_compressBound((int)len);
            uint8_t *nb = realloc(w->cbuf, need);
            if (!nb)
                return fail(w, "out of memory");
            w->cbuf = nb;
            w->cbuf_size = need;
        }
        int c = w->level > 0
            ? LZ4_compress_HC((const char *)payload, (char *)w->cbuf, (int)len,
                              (int)w->cbuf_size, w->level)
            : LZ4_compress_default((const char *)payload, (char *)w->cbuf,
                                   (int)len, (int)w->cbuf_size);
        if (c > 0 && (size_t)c < len) {
            stored = w->cbuf;
            stored_len = (size_t)c;
            b->codec = CGM_CODEC_LZ4;
        }
    }
    b->raw_bytes = (uint32_t)len;
    b->stored_bytes = (uint32_t)stored_len;
    b->payload_hash = cgm_hash64(stored, stored_len);
    uint8_t hdr[CGM_BLOCK_HEADER_BYTES];
    cgm_block_encode(hdr, b);
    struct iovec iov[2] = {
        { hdr, sizeof hdr },
        { (void *)(uintptr_t)stored, stored_len },
    };
    return write_all(w, iov, stored_len ? 2 : 1);
}

struct cgm_writer *cgm_writer_create(const char *path,
                                     const struct cgm_writer_options *opt,
                                     char *err, size_t errlen)
{
    uint32_t chunk = opt && opt->chunk_bytes ? opt->chunk_bytes : CGM_CHUNK_DEFAULT;
    if (chunk < CGM_CHUNK_MIN || chunk > CGM_CHUNK_MAX) {
        snprintf(err, errlen, "%s: chunk size %u outside %u..%u bytes", path,
                 chunk, CGM_CHUNK_MIN, CGM_CHUNK_MAX);
        return NULL;
    }
    struct cgm_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    w->chunk_bytes = chunk;
    w->level = opt ? opt->compression_level : 0;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(w->path);
        free(w);
        return NULL;
    }
    uint8_t hdr[CGM_FILE_HEADER_BYTES];
    struct cgm_file_header fh = { CGM_TRACE_VERSION, chunk };
    cgm_file_header_encode(hdr, &fh);
    struct iovec iov = { hdr, sizeof hdr };
    if (write_all(w, &iov, 1)) {
        snprintf(err, errlen, "%s", w->error);
        cgm_writer_abandon(w);
        return NULL;
    }
    return w;
}

struct cgm_wstream *cgm_writer_open_stream(struct cgm_writer *w,
                                           const struct cgm_stream_info *info)
{
    if (w->error[0])
        return NULL;
    if (info->kind < CGM_STREAM_X86_THREAD || info->kind > CGM_STREAM_SECTION) {
        fail(w, "stream %u: unknown kind %u", info->id, info->kind);
        return NULL;
    }
    if (w->nstreams >= CGM_STREAMS_MAX) {
        fail(w, "more than %u streams", CGM_STREAMS_MAX);
        return NULL;
    }
    for (size_t i = 0; i < w->nstreams; i++) {
        if (w->streams[i].info.id == info->id) {
            fail(w, "stream id %u opened twice", info->id);
            return NULL;
        }
    }
    if (w->nstreams == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        struct stream_meta *ns = realloc(w->streams, cap * sizeof *ns);
        if (!ns) {
            fail(w, "out of memory");
            return NULL;
        }
        w->streams = ns;
        w->cap = cap;
    }
    struct cgm_wstream *s = calloc(1, sizeof *s);
    if (!s || !(s->buf = malloc(w->chunk_bytes))) {
        free(s);
        fail(w, "out of memory");
        return NULL;
    }
    s->w = w;
    s->meta = w->nstreams;
    struct stream_meta *m = &w->streams[w->nstreams++];
    memset(m, 0, sizeof *m);
    m->info = *info;
    m->info.name[CGM_STREAM_NAME_MAX - 1] = 0;
    m->open = s;

    uint8_t decl[CGM_STREAM_INFO_MAX_BYTES];
    size_t n = cgm_stream_info_encode(decl, &m->info);
    struct cgm_block b = { .type = CGM_BLOCK_STREAM, .stream = info->id };
    if (write_block(w, &b, decl, n))
        return NULL; /* S stays owned by the writer and is freed at the end */
    return s;
}

/* Writes the records buffered in S (if any) as one chunk. */
static int flush_chunk(struct cgm_wstream *s, const uint8_t *data, size_t len)
{
    struct cgm_writer *w = s->w;
    struct stream_meta *m = &w->streams[s->meta];
    if (!s->records)
        return 0;
    if (m->nchunks == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        struct cgm_chunk_ref *nc = realloc(m->chunks, cap * sizeof *nc);
        if (!nc)
            return fail(w, "out of memory");
        m->chunks = nc;
        m->cap = cap;
    }
    struct cgm_block b = {
        .type = CGM_BLOCK_CHUNK,
        .stream = m->info.id,
        .seq = (uint32_t)m->nchunks,
        .records = s->records,
        .first_record = m->totals.records,
        .instructions = s->instructions,
    };
    uint64_t at = w->offset;
    if (write_block(w, &b, data, len))
        return -1;
    m->chunks[m->nchunks++] = (struct cgm_chunk_ref){
        .offset = at, .first_record = b.first_record,
        .instructions = b.instructions, .records = b.records,
        .raw_bytes = b.raw_bytes, .stored_bytes = b.stored_bytes, .seq = b.seq,
    };
    m->totals.records += s->records;
    m->totals.instructions += s->instructions;
    m->totals.raw_bytes += len;
    m->totals.compressed_bytes += b.stored_bytes;
    m->totals.chunks++;
    s->used = 0;
    s->records = 0;
    s->instructions = 0;
    return 0;
}

int cgm_wstream_append(struct cgm_wstream *s, const void *rec, size_t len,
                       uint32_t instructions)
{
    struct cgm_writer *w = s->w;
    if (w->error[0])
        return -1;
    if (len == 0 || len > CGM_RECORD_MAX)
        return fail(w, "stream %u: record of %zu bytes (allowed 1..%u)",
                    w->streams[s->meta].info.id, len, CGM_RECORD_MAX);
    size_t framed = len + CGM_VARINT_MAX;
    if (s->used + framed > w->chunk_bytes && flush_chunk(s, s->buf, s->used))
        return -1;
    if (framed > w->chunk_bytes) {
        /* A record larger than a chunk gets a chunk of its own. */
        uint8_t *big = malloc(framed);
        if (!big)
            return fail(w, "out of memory");
        size_t n = cgm_put_varint(big, len);
        memcpy(big + n, rec, len);
        s->records = 1;
        s->instructions = instructions;
        int rc = flush_chunk(s, big, n + len);
        free(big);
        return rc;
    }
    s->used += cgm_put_varint(s->buf + s->used, len);
    memcpy(s->buf + s->used, rec, len);
    s->used += len;
    s->records++;
    s->instructions += instructions;
    return 0;
}

const struct cgm_stream_totals *cgm_wstream_totals(const struct cgm_wstream *s)
{
    return &s->w->streams[s->meta].totals;
}

static void free_stream(struct cgm_wstream *s)
{
    s->w->streams[s->meta].open = NULL;
    free(s->buf);
    free(s);
}

int cgm_wstream_close(struct cgm_wstream *s)
{
    struct cgm_writer *w = s->w;
    struct stream_meta *m = &w->streams[s->meta];
    int rc = w->error[0] ? -1 : flush_chunk(s, s->buf, s->used);
    if (!rc) {
        uint8_t p[5 * CGM_VARINT_MAX];
        size_t n = 0;
        n += cgm_put_varint(p + n, m->totals.records);
        n += cgm_put_varint(p + n, m->totals.instructions);
        n += cgm_put_varint(p + n, m->totals.raw_bytes);
        n += cgm_put_varint(p + n, m->totals.compressed_bytes);
        n += cgm_put_varint(p + n, m->totals.chunks);
        struct cgm_block b = { .type = CGM_BLOCK_END, .stream = m->info.id };
        rc = write_block(w, &b, p, n);
    }
    free_stream(s);
    return rc;
}

int cgm_writer_add_section(struct cgm_writer *w, uint32_t id, const char *name,
                           const void *data, size_t len)
{
    struct cgm_stream_info info = { .id = id, .kind = CGM_STREAM_SECTION };
    snprintf(info.name, sizeof info.name, "%s", name);
    struct cgm_wstream *s = cgm_writer_open_stream(w, &info);
    if (!s)
        return -1;
    /* Pieces of half a chunk keep every record inside one chunk. */
    size_t piece = w->chunk_bytes / 2;
    const uint8_t *p = data;
    int rc = 0;
    for (size_t off = 0; off < len && !rc; off += piece)
        rc = cgm_wstream_append(s, p + off, len - off < piece ? len - off : piece, 0);
    return cgm_wstream_close(s) || rc ? -1 : 0;
}

/* Index payload: nstreams, then per stream its declaration, closed flag,
 * totals, nchunks and per chunk (offset delta, seq delta, records,
 * instructions, raw, stored). First records follow from the counts. */
static int write_index(struct cgm_writer *w)
{
    size_t cap = CGM_VARINT_MAX;
    for (size_t i = 0; i < w->nstreams; i++)
        cap += CGM_STREAM_INFO_MAX_BYTES + 7 * CGM_VARINT_MAX +
               w->streams[i].nchunks * 6 * CGM_VARINT_MAX;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return fail(w, "out of memory for the index");
    size_t n = cgm_put_varint(buf, w->nstreams);
    for (size_t i = 0; i < w->nstreams; i++) {
        const struct stream_meta *m = &w->streams[i];
        n += cgm_stream_info_encode(buf + n, &m->info);
        n += cgm_put_varint(buf + n, m->open == NULL);
        n += cgm_put_varint(buf + n, m->totals.records);
        n += cgm_put_varint(buf + n, m->totals.instructions);
        n += cgm_put_varint(buf + n, m->totals.raw_bytes);
        n += cgm_put_varint(buf + n, m->totals.compressed_bytes);
        n += cgm_put_varint(buf + n, m->nchunks);
        uint64_t prev = 0;
        for (size_t c = 0; c < m->nchunks; c++) {
            const struct cgm_chunk_ref *r = &m->chunks[c];
            n += cgm_put_varint(buf + n, r->offset - prev);
            prev = r->offset;
            n += cgm_put_varint(buf + n, r->records);
            n += cgm_put_varint(buf + n, r->instructions);
            n += cgm_put_varint(buf + n, r->raw_bytes);
            n += cgm_put_varint(buf + n, r->stored_bytes);
        }
    }
    if (n > CGM_BLOCK_PAYLOAD_MAX) {
        free(buf);
        return fail(w, "index of %zu bytes exceeds the format's limit", n);
    }
    struct cgm_trailer t = { .index_offset = w->offset };
    struct cgm_block b = { .type = CGM_BLOCK_INDEX };
    int rc = write_block(w, &b, buf, n);
    free(buf);
    if (rc)
        return -1;
    t.index_bytes = w->offset - t.index_offset;
    uint8_t tr[CGM_TRAILER_BYTES];
    cgm_trailer_encode(tr, &t);
    struct iovec iov = { tr, sizeof tr };
    return write_all(w, &iov, 1);
}

static void destroy(struct cgm_writer *w)
{
    for (size_t i = 0; i < w->nstreams; i++) {
        if (w->streams[i].open)
            free_stream(w->streams[i].open);
        free(w->streams[i].chunks);
    }
    free(w->streams);
    free(w->cbuf);
    free(w->path);
    free(w);
}

int cgm_writer_finalize(struct cgm_writer *w, char *err, size_t errlen)
{
    for (size_t i = 0; i < w->nstreams; i++)
        if (w->streams[i].open)
            cgm_wstream_close(w->streams[i].open);
    int rc = w->error[0] ? -1 : write_index(w);
    if (close(w->fd) && !rc)
        rc = fail(w, "close: %s", strerror(errno));
    if (rc && err)
        snprintf(err, errlen, "%s", w->error);
    w->fd = -1;
    destroy(w);
    return rc;
}

void cgm_writer_abandon(struct cgm_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    destroy(w);
}
