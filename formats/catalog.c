/* Finding a trace's streams and chunks: through the index when the file is
 * whole, by scanning its blocks when it is not. Every size read from the
 * file is checked against the file's length and the format's limits before
 * anything is allocated for it. */
#include "formats/catalog.h"

#include <errno.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "cgm/codec.h"

void catalog_free(struct catalog *c)
{
    for (size_t i = 0; i < c->nstreams; i++)
        free(c->streams[i].chunks);
    free(c->streams);
    id_map_free(&c->ids);
    memset(c, 0, sizeof *c);
}

long catalog_add_stream(struct catalog *c, const struct cgm_stream_info *info)
{
    if (c->nstreams >= CGM_STREAMS_MAX)
        return -1;
    if (c->nstreams == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        struct catalog_stream *ns = realloc(c->streams, cap * sizeof *ns);
        if (!ns)
            return -1;
        c->streams = ns;
        c->cap = cap;
    }
    struct catalog_stream *s = &c->streams[c->nstreams];
    memset(s, 0, sizeof *s);
    s->pub.info = *info;
    return (long)c->nstreams++;
}

int catalog_add_chunk(struct catalog_stream *s, const struct cgm_chunk_ref *r)
{
    if (s->nchunks == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        struct cgm_chunk_ref *nc = realloc(s->chunks, cap * sizeof *nc);
        if (!nc)
            return -1;
        s->chunks = nc;
        s->cap = cap;
    }
    s->chunks[s->nchunks++] = *r;
    s->pub.totals.records += r->records;
    s->pub.totals.instructions += r->instructions;
    s->pub.totals.raw_bytes += r->raw_bytes;
    s->pub.totals.compressed_bytes += r->stored_bytes;
    s->pub.totals.chunks++;
    return 0;
}

int catalog_index_stream(struct catalog *c, uint32_t index)
{
    return id_map_put(&c->ids, c->streams[index].pub.info.id, index) ? -1 : 0;
}

long catalog_find(const struct catalog *c, uint32_t id)
{
    return id_map_get(&c->ids, id);
}

int file_read_at(const struct trace_file *f, uint64_t off, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t k = pread(f->fd, p, len, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        off += (uint64_t)k;
        len -= (size_t)k;
    }
    return 0;
}

const char *block_read_checked(const struct trace_file *f, uint64_t off,
                               struct cgm_block *b)
{
    uint8_t hdr[CGM_BLOCK_HEADER_BYTES];
    if (off + CGM_BLOCK_HEADER_BYTES > f->size)
        return "block header cut short";
    if (file_read_at(f, off, hdr, sizeof hdr))
        return "read error";
    const char *e = cgm_block_decode(hdr, b);
    if (e)
        return e;
    if (b->stored_bytes > f->size - off - CGM_BLOCK_HEADER_BYTES)
        return "block payload cut short";
    /* Hash the payload in pieces: no buffer sized from the file. */
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        return "out of memory";
    XXH3_64bits_reset(st);
    uint8_t piece[65536];
    uint64_t pos = off + CGM_BLOCK_HEADER_BYTES;
    e = NULL;
    for (uint32_t left = b->stored_bytes; left && !e;) {
        uint32_t n = left < sizeof piece ? left : (uint32_t)sizeof piece;
        if (file_read_at(f, pos, piece, n))
            e = "read error";
        XXH3_64bits_update(st, piece, n);
        pos += n;
        left -= n;
    }
    if (!e && CGM_HASH_DIFFERS(XXH3_64bits_digest(st), b->payload_hash))
        e = "block payload checksum mismatch";
    XXH3_freeState(st);
    return e;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    uint8_t *nb = realloc(*buf, need ? need : 1);
    if (!nb)
        return -1;
    *buf = nb;
    *cap = need;
    return 0;
}

const char *block_load_payload(const struct trace_file *f, uint64_t off,
                               const struct cgm_block *b, uint8_t **out,
                               size_t *out_cap, uint8_t **tmp, size_t *tmp_cap)
{
    /* Sizes were bounded by cgm_block_decode; the payload must lie in the file. */
    if (b->stored_bytes > f->size || off + CGM_BLOCK_HEADER_BYTES > f->size - b->stored_bytes)
        return "block payload cut short";
    uint8_t **dst = b->codec == CGM_CODEC_RAW ? out : tmp;
    size_t *dcap = b->codec == CGM_CODEC_RAW ? out_cap : tmp_cap;
    if (grow(dst, dcap, b->stored_bytes) || grow(out, out_cap, b->raw_bytes))
        return "out of memory";
    if (file_read_at(f, off + CGM_BLOCK_HEADER_BYTES, *dst, b->stored_bytes))
        return "read error";
    if (CGM_HASH_DIFFERS(cgm_hash64(*dst, b->stored_bytes), b->payload_hash))
        return "block payload checksum mismatch";
    if (b->codec == CGM_CODEC_LZ4) {
        int n = LZ4_decompress_safe((const char *)*tmp, (char *)*out,
                                    (int)b->stored_bytes, (int)b->raw_bytes);
        if (n < 0 || (uint32_t)n != b->raw_bytes)
            return "block payload does not decompress to its stated size";
    }
    return NULL;
}

/* ---- the index ----------------------------------------------------------- */

static const char *parse_index(const struct trace_file *f, const uint8_t *p,
                               const uint8_t *end, uint64_t index_offset,
                               struct catalog *c)
{
    uint64_t nstreams;
    if (cgm_get_varint(&p, end, &nstreams))
        return "index cut short";
    /* Every stream takes at least 8 bytes of index. */
    if (nstreams > CGM_STREAMS_MAX || nstreams > (uint64_t)(end - p) / 8)
        return "index claims more streams than it can hold";
    for (uint64_t i = 0; i < nstreams; i++) {
        struct cgm_stream_info info;
        const char *e = cgm_stream_info_decode(&p, end, &info);
        if (e)
            return e;
        uint64_t v[6];
        for (int k = 0; k < 6; k++)
            if (cgm_get_varint(&p, end, &v[k]))
                return "index cut short";
        long si = catalog_add_stream(c, &info);
        if (si < 0)
            return "out of memory";
        if (catalog_index_stream(c, (uint32_t)si))
            return "index names a stream id twice";
        struct catalog_stream *s = &c->streams[si];
        s->pub.closed = v[0] != 0;
        uint64_t nchunks = v[5];
        /* Each chunk entry takes at least 5 bytes, each chunk 64 in the file. */
        if (nchunks > (uint64_t)(end - p) / 5 || nchunks > f->size / CGM_BLOCK_HEADER_BYTES)
            return "index claims more chunks than it can hold";
        uint64_t offset = 0, first = 0;
        for (uint64_t k = 0; k < nchunks; k++) {
            uint64_t d, rec, ins, raw, stored;
            if (cgm_get_varint(&p, end, &d) || cgm_get_varint(&p, end, &rec) ||
                cgm_get_varint(&p, end, &ins) || cgm_get_varint(&p, end, &raw) ||
                cgm_get_varint(&p, end, &stored))
                return "index cut short";
            offset += d;
            if ((k > 0 && d == 0) || offset < CGM_FILE_HEADER_BYTES ||
                offset > index_offset ||
                raw > CGM_BLOCK_PAYLOAD_MAX || stored > CGM_BLOCK_PAYLOAD_MAX ||
                rec == 0 || rec > raw ||
                index_offset - offset < CGM_BLOCK_HEADER_BYTES + stored)
                return "index entry out of range";
            struct cgm_chunk_ref r = {
                .offset = offset, .first_record = first, .instructions = ins,
                .records = (uint32_t)rec, .raw_bytes = (uint32_t)raw,
                .stored_bytes = (uint32_t)stored, .seq = (uint32_t)k,
            };
            if (catalog_add_chunk(s, &r))
                return "out of memory";
            first += rec;
        }
        if (s->pub.totals.records != v[1] || s->pub.totals.instructions != v[2] ||
            s->pub.totals.raw_bytes != v[3] || s->pub.totals.compressed_bytes != v[4])
            return "index totals disagree with its chunk entries";
    }
    if (p != end)
        return "index has trailing bytes";
    return NULL;
}

const char *catalog_from_index(const struct trace_file *f, struct catalog *c,
                               uint64_t *at, uint64_t *index_offset)
{
    uint8_t tr[CGM_TRAILER_BYTES];
    struct cgm_trailer t;
    *at = f->size >= CGM_TRAILER_BYTES ? f->size - CGM_TRAILER_BYTES : 0;
    if (f->size < CGM_FILE_HEADER_BYTES + CGM_BLOCK_HEADER_BYTES + CGM_TRAILER_BYTES)
        return "no trailer";
    if (file_read_at(f, *at, tr, sizeof tr))
        return "read error";
    const char *e = cgm_trailer_decode(tr, &t);
    if (e)
        return e;
    if (t.index_offset < CGM_FILE_HEADER_BYTES || t.index_offset > *at ||
        t.index_bytes != *at - t.index_offset)
        return "trailer points outside the file";
    *at = t.index_offset;
    struct cgm_block b;
    uint8_t hdr[CGM_BLOCK_HEADER_BYTES];
    if (file_read_at(f, t.index_offset, hdr, sizeof hdr))
        return "read error";
    if ((e = cgm_block_decode(hdr, &b)))
        return e;
    if (b.type != CGM_BLOCK_INDEX)
        return "trailer does not point at an index block";
    if (CGM_BLOCK_HEADER_BYTES + (uint64_t)b.stored_bytes != t.index_bytes)
        return "index block size disagrees with the trailer";
    uint8_t *raw = NULL, *tmp = NULL;
    size_t raw_cap = 0, tmp_cap = 0;
    e = block_load_payload(f, t.index_offset, &b, &raw, &raw_cap, &tmp, &tmp_cap);
    free(tmp);
    if (!e)
        e = parse_index(f, raw, raw + b.raw_bytes, t.index_offset, c);
    free(raw);
    if (e)
        catalog_free(c);
    *index_offset = t.index_offset;
    return e;
}

/* ---- scanning -------------------------------------------------------------- */

/* An END block repeats the stream's totals; they must match its chunks. */
static const char *check_end(const struct trace_file *f, uint64_t off,
                             const struct cgm_block *b,
                             const struct catalog_stream *s)
{
    uint8_t p[5 * CGM_VARINT_MAX];
    if (s->pub.closed)
        return "stream closed twice";
    if (b->codec != CGM_CODEC_RAW || b->stored_bytes > sizeof p)
        return "bad stream end block";
    if (file_read_at(f, off + CGM_BLOCK_HEADER_BYTES, p, b->stored_bytes))
        return "read error";
    const uint8_t *q = p, *end = p + b->stored_bytes;
    uint64_t v[5];
    for (int i = 0; i < 5; i++)
        if (cgm_get_varint(&q, end, &v[i]))
            return "bad stream end block";
    const struct cgm_stream_totals *t = &s->pub.totals;
    if (q != end || v[0] != t->records || v[1] != t->instructions ||
        v[2] != t->raw_bytes || v[3] != t->compressed_bytes || v[4] != t->chunks)
        return "stream end totals disagree with its chunks";
    return NULL;
}

const char *catalog_scan(const struct trace_file *f, struct catalog *c,
                         uint64_t *stop)
{
    uint64_t off = CGM_FILE_HEADER_BYTES;
    uint8_t small[CGM_STREAM_INFO_MAX_BYTES];
    const char *why = NULL;
    for (;;) {
        *stop = off;
        if (off == f->size) {
            why = "file ends without an index";
            break;
        }
        struct cgm_block b;
        if ((why = block_read_checked(f, off, &b)))
            break;
        uint64_t next = off + CGM_BLOCK_HEADER_BYTES + b.stored_bytes;
        if (b.type == CGM_BLOCK_INDEX) {
            why = NULL;
            break;
        }
        if (b.type == CGM_BLOCK_STREAM) {
            struct cgm_stream_info info;
            if (b.codec != CGM_CODEC_RAW || b.stored_bytes > sizeof small) {
                why = "bad stream declaration block";
                break;
            }
            if (file_read_at(f, off + CGM_BLOCK_HEADER_BYTES, small, b.stored_bytes)) {
                why = "read error";
                break;
            }
            const uint8_t *p = small;
            if ((why = cgm_stream_info_decode(&p, small + b.stored_bytes, &info)))
                break;
            if (p != small + b.stored_bytes || info.id != b.stream) {
                why = "stream declaration disagrees with its block";
                break;
            }
            if (catalog_find(c, info.id) >= 0) {
                why = "stream declared twice";
                break;
            }
            long si = catalog_add_stream(c, &info);
            if (si < 0 || catalog_index_stream(c, (uint32_t)si)) {
                why = "out of memory";
                break;
            }
        } else {
            long si = catalog_find(c, b.stream);
            if (si < 0) {
                why = "block of an undeclared stream";
                break;
            }
            struct catalog_stream *s = &c->streams[si];
            if (b.type == CGM_BLOCK_END) {
                if ((why = check_end(f, off, &b, s)))
                    break;
                s->pub.closed = 1;
            } else {
                if (b.seq != s->nchunks || b.first_record != s->pub.totals.records ||
                    b.records == 0 || s->pub.closed) {
                    why = "chunk out of sequence";
                    break;
                }
                struct cgm_chunk_ref r = {
                    .offset = off, .first_record = b.first_record,
                    .instructions = b.instructions, .records = b.records,
                    .raw_bytes = b.raw_bytes, .stored_bytes = b.stored_bytes,
                    .seq = b.seq,
                };
                if (catalog_add_chunk(s, &r)) {
                    why = "out of memory";
                    break;
                }
            }
        }
        off = next;
    }
    return why;
}
