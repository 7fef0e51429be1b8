/* The trace reader: opens a file through its index (or by scanning when the
 * writer did not finish) and iterates a stream's records one chunk at a
 * time. An iterator holds the chunk it reads and its compressed form. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgm/codec.h"
#include "cgm/input.h"
#include "formats/catalog.h"

struct cgm_reader {
    struct trace_file file;
    int own_fd;
    char *name;
    struct catalog cat;
    int complete;
    char damage[256];
};

struct cgm_riter {
    struct cgm_reader *r;
    const struct catalog_stream *s;
    size_t next_chunk;           /* the chunk to load when this one is done */
    uint8_t *raw, *tmp;
    size_t raw_cap, tmp_cap;
    const uint8_t *p, *end;      /* unread records of the loaded chunk */
    uint32_t left;               /* records left in the loaded chunk */
    uint64_t position;
    uint64_t chunk_offset;
    char error[256];
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

struct cgm_reader *cgm_reader_open_fd(int fd, const char *name, char *err,
                                      size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st)) {
        set_err(err, errlen, "%s: %s", name, strerror(errno));
        return NULL;
    }
    struct cgm_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->name = strdup(name))) {
        free(r);
        set_err(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    r->file.fd = fd;
    r->file.name = r->name;
    r->file.size = (uint64_t)st.st_size;

    uint8_t hdr[CGM_FILE_HEADER_BYTES];
    struct cgm_file_header fh;
    const char *e;
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
        e = "not a regular file";
    else if (r->file.size < CGM_FILE_HEADER_BYTES)
        e = "file is shorter than a trace header";
    else if (file_read_at(&r->file, 0, hdr, sizeof hdr))
        e = "cannot read the trace header";
    else
        e = cgm_file_header_decode(hdr, &fh);
    if (e) {
        set_err(err, errlen, "%s: offset 0: %s", name, e);
        cgm_reader_close(r);
        return NULL;
    }
    r->file.version = fh.version;
    r->file.chunk_bytes = fh.chunk_bytes;

    uint64_t at, index_offset;
    e = catalog_from_index(&r->file, &r->cat, &at, &index_offset);
    if (!e) {
        r->complete = 1;
        return r;
    }
    /* No usable index: recover what the blocks themselves say. */
    char why_index[128];
    snprintf(why_index, sizeof why_index, "%s at offset %llu", e,
             (unsigned long long)at);
    uint64_t stop;
    e = catalog_scan(&r->file, &r->cat, &stop);
    if (!e)
        e = "index unreadable";
    snprintf(r->damage, sizeof r->damage,
             "%s; blocks recovered up to offset %llu (%s)", e,
             (unsigned long long)stop, why_index);
    return r;
}

struct cgm_reader *cgm_reader_open(const char *path, char *err, size_t errlen)
{
    char why[512];
    int fd = cgm_open_input(path, why, sizeof why);
    if (fd < 0) {
        set_err(err, errlen, "%s", why);
        return NULL;
    }
    struct cgm_reader *r = cgm_reader_open_fd(fd, path, err, errlen);
    if (!r) {
        close(fd);
        return NULL;
    }
    r->own_fd = 1;
    return r;
}

void cgm_reader_close(struct cgm_reader *r)
{
    if (!r)
        return;
    if (r->own_fd)
        close(r->file.fd);
    catalog_free(&r->cat);
    free(r->name);
    free(r);
}

uint32_t cgm_reader_version(const struct cgm_reader *r) { return r->file.version; }
uint64_t cgm_reader_file_bytes(const struct cgm_reader *r) { return r->file.size; }
int cgm_reader_complete(const struct cgm_reader *r) { return r->complete; }
const char *cgm_reader_damage(const struct cgm_reader *r) { return r->damage; }
size_t cgm_reader_stream_count(const struct cgm_reader *r) { return r->cat.nstreams; }

const struct cgm_reader_stream *cgm_reader_stream(const struct cgm_reader *r,
                                                  size_t index)
{
    return index < r->cat.nstreams ? &r->cat.streams[index].pub : NULL;
}

long cgm_reader_find_stream(const struct cgm_reader *r, uint32_t id)
{
    return catalog_find(&r->cat, id);
}

long cgm_reader_find_section(const struct cgm_reader *r, const char *name)
{
    for (size_t i = 0; i < r->cat.nstreams; i++) {
        const struct cgm_stream_info *in = &r->cat.streams[i].pub.info;
        if (in->kind == CGM_STREAM_SECTION && !strcmp(in->name, name))
            return (long)i;
    }
    return -1;
}

int cgm_reader_chunk(const struct cgm_reader *r, size_t stream_index, size_t k,
                     struct cgm_chunk_info *out)
{
    if (stream_index >= r->cat.nstreams || k >= r->cat.streams[stream_index].nchunks)
        return -1;
    const struct cgm_chunk_ref *c = &r->cat.streams[stream_index].chunks[k];
    *out = (struct cgm_chunk_info){
        .offset = c->offset, .first_record = c->first_record,
        .instructions = c->instructions, .records = c->records,
        .raw_bytes = c->raw_bytes, .stored_bytes = c->stored_bytes,
    };
    return 0;
}

/* ---- iteration ------------------------------------------------------------- */

struct cgm_riter *cgm_riter_open(struct cgm_reader *r, size_t stream_index)
{
    if (stream_index >= r->cat.nstreams)
        return NULL;
    struct cgm_riter *it = calloc(1, sizeof *it);
    if (!it)
        return NULL;
    it->r = r;
    it->s = &r->cat.streams[stream_index];
    return it;
}

void cgm_riter_close(struct cgm_riter *it)
{
    if (!it)
        return;
    free(it->raw);
    free(it->tmp);
    free(it);
}

const char *cgm_riter_error(const struct cgm_riter *it) { return it->error; }
uint64_t cgm_riter_position(const struct cgm_riter *it) { return it->position; }

static int iter_fail(struct cgm_riter *it, const char *what)
{
    snprintf(it->error, sizeof it->error, "%s: offset %llu: stream %u chunk %zu: %s",
             it->r->name, (unsigned long long)it->chunk_offset,
             it->s->pub.info.id, it->next_chunk ? it->next_chunk - 1 : 0, what);
    return -1;
}

static int load_chunk(struct cgm_riter *it, size_t k)
{
    const struct cgm_chunk_ref *ref = &it->s->chunks[k];
    it->next_chunk = k + 1;
    it->chunk_offset = ref->offset;
    uint8_t hdr[CGM_BLOCK_HEADER_BYTES];
    struct cgm_block b;
    const char *e = NULL;
    if (file_read_at(&it->r->file, ref->offset, hdr, sizeof hdr))
        e = "chunk header cut short";
    else
        e = cgm_block_decode(hdr, &b);
    if (!e && (b.type != CGM_BLOCK_CHUNK || b.stream != it->s->pub.info.id ||
               b.seq != ref->seq || b.records != ref->records ||
               b.raw_bytes != ref->raw_bytes || b.stored_bytes != ref->stored_bytes ||
               b.first_record != ref->first_record))
        e = "chunk header disagrees with the index";
    if (!e)
        e = block_load_payload(&it->r->file, ref->offset, &b, &it->raw,
                               &it->raw_cap, &it->tmp, &it->tmp_cap);
    if (e)
        return iter_fail(it, e);
    it->p = it->raw;
    it->end = it->raw + b.raw_bytes;
    it->left = b.records;
    it->position = ref->first_record;
    return 0;
}

int cgm_riter_next(struct cgm_riter *it, const uint8_t **rec, size_t *len)
{
    if (it->error[0])
        return -1;
    while (!it->left) {
        if (it->p != it->end)
            return iter_fail(it, "bytes after the chunk's last record");
        if (it->next_chunk >= it->s->nchunks)
            return 0;
        if (load_chunk(it, it->next_chunk))
            return -1;
    }
    uint64_t n;
    if (cgm_get_varint(&it->p, it->end, &n) || n == 0 ||
        n > (uint64_t)(it->end - it->p))
        return iter_fail(it, "bad record frame");
    *rec = it->p;
    *len = (size_t)n;
    it->p += n;
    it->left--;
    it->position++;
    return 1;
}

int cgm_riter_seek(struct cgm_riter *it, uint64_t record)
{
    const struct catalog_stream *s = it->s;
    if (record >= s->pub.totals.records)
        return -1;
    size_t lo = 0, hi = s->nchunks;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->chunks[mid].first_record <= record)
            lo = mid;
        else
            hi = mid;
    }
    it->error[0] = 0;
    if (load_chunk(it, lo))
        return -1;
    const uint8_t *rec;
    size_t len;
    while (it->position < record)
        if (cgm_riter_next(it, &rec, &len) != 1)
            return -1;
    return 0;
}

int cgm_reader_read_section(struct cgm_reader *r, const char *name,
                            size_t limit, uint8_t **data, size_t *len,
                            char *err, size_t errlen)
{
    long si = cgm_reader_find_section(r, name);
    if (si < 0) {
        set_err(err, errlen, "%s: no section '%s'", r->name, name);
        return -1;
    }
    const struct cgm_reader_stream *s = &r->cat.streams[si].pub;
    if (s->totals.raw_bytes > limit) {
        set_err(err, errlen, "%s: section '%s' is larger than %zu bytes",
                r->name, name, limit);
        return -1;
    }
    uint8_t *buf = malloc(s->totals.raw_bytes ? s->totals.raw_bytes : 1);
    struct cgm_riter *it = buf ? cgm_riter_open(r, (size_t)si) : NULL;
    if (!it) {
        free(buf);
        set_err(err, errlen, "%s: out of memory", r->name);
        return -1;
    }
    size_t n = 0;
    const uint8_t *rec;
    size_t rlen;
    int rc;
    /* Framed bytes bound the joined records, so BUF cannot overflow. */
    while ((rc = cgm_riter_next(it, &rec, &rlen)) == 1) {
        memcpy(buf + n, rec, rlen);
        n += rlen;
    }
    if (rc < 0) {
        set_err(err, errlen, "%s", cgm_riter_error(it));
        free(buf);
        buf = NULL;
    }
    cgm_riter_close(it);
    *data = buf;
    *len = n;
    return rc < 0 ? -1 : 0;
}
