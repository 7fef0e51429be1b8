/* The trace writer. Records are framed into the stream's fill buffer; a
 * full buffer is handed to the writer's background thread, which
 * compresses it, checksums it and writes it, while the stream fills its
 * second buffer. So a stream holds at most two chunks, compression runs on
 * another core than the recorder, and the file is the same byte for byte
 * whatever the timing: blocks are written in the order they were handed
 * over, and that order depends only on the calls made. */
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <lz4hc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cgm/codec.h"
#include "formats/block.h"
#include "formats/catalog.h"

struct cgm_wstream {
    struct cgm_writer *w;
    size_t meta;              /* index into w->cat.streams */
    uint8_t *buf[2];          /* allocated small and grown up to a chunk */
    size_t cap[2];
    int busy[2];              /* buf[i] is queued or being written */
    int cur;                  /* the buffer being filled */
    size_t used;
    uint32_t records;         /* in the buffer being filled */
    uint64_t instructions;
    uint64_t records_before;  /* records handed over in earlier chunks */
    uint32_t seq;             /* chunks handed over */
    struct cgm_stream_totals snapshot;
};

/* A block for the background thread to write. */
struct job {
    struct job *next;
    struct cgm_block b;       /* type, stream, seq, records, first_record, instructions */
    const uint8_t *data;
    size_t len;
    size_t meta;              /* the stream, for chunks and ends */
    int *busy;                /* cleared when written */
    uint8_t *owned;           /* freed when written */
    struct cgm_wstream *closing; /* freed when written (END blocks) */
    uint8_t small[CGM_STREAM_INFO_MAX_BYTES];
};

struct cgm_writer {
    int fd;
    char *path;
    uint64_t offset;          /* background thread only, until it is joined */
    uint32_t chunk_bytes;
    int level;
    uint8_t *cbuf;            /* compression output (background thread) */
    size_t cbuf_size;

    pthread_mutex_t lock;
    pthread_cond_t work;      /* jobs queued, or stop */
    pthread_cond_t done;      /* a job finished */
    struct job *head, *tail;
    int stop;
    pthread_t thread;
    int thread_running;

    struct catalog cat;       /* streams and chunks for the index; under the lock */
    atomic_int failed;        /* any error: calls fail from now on */
    atomic_int io_failed;     /* the file cannot be written: queued blocks are dropped */
    uint64_t handed_bytes;    /* chunk payloads handed over (the caller's thread) */
    void (*on_chunk)(void *ctx, const struct cgm_wstream *s);
    void *on_chunk_ctx;
    int in_on_chunk;
    char error[512];          /* set once, under the lock */
};

static void set_error(struct cgm_writer *w, const char *fmt, va_list ap)
{
    if (w->error[0])
        return;
    int n = snprintf(w->error, sizeof w->error, "%s: ", w->path);
    if (n > 0 && (size_t)n < sizeof w->error)
        vsnprintf(w->error + n, sizeof w->error - (size_t)n, fmt, ap);
    atomic_store(&w->failed, 1);
}

/* Records an error; the caller holds the lock. */
static int fail_locked(struct cgm_writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(w, fmt, ap);
    va_end(ap);
    return -1;
}

static int fail(struct cgm_writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&w->lock);
    set_error(w, fmt, ap);
    pthread_mutex_unlock(&w->lock);
    va_end(ap);
    return -1;
}

const char *cgm_writer_error(const struct cgm_writer *w)
{
    return w->error;
}

int cgm_writer_failed(const struct cgm_writer *w)
{
    return atomic_load(&((struct cgm_writer *)w)->failed);
}

uint64_t cgm_writer_bytes(const struct cgm_writer *w)
{
    return w->handed_bytes;
}

static int write_all(struct cgm_writer *w, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t k = writev(w->fd, iov, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            atomic_store(&w->io_failed, 1);
            return fail(w, "write at offset %llu: %s", (unsigned long long)w->offset,
                        strerror(errno));
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

/* Writes one block, compressed when that makes it smaller. */
static int write_block(struct cgm_writer *w, struct cgm_block *b, const uint8_t *payload,
                       size_t len)
{
    const uint8_t *stored = payload;
    size_t stored_len = len;
    b->codec = CGM_CODEC_RAW;
    if (len > 64) {
        size_t need = (size_t)LZ4_compressBound((int)len);
        if (need > w->cbuf_size) {
            uint8_t *nb = realloc(w->cbuf, need);
            if (!nb)
                return fail(w, "out of memory");
            w->cbuf = nb;
            w->cbuf_size = need;
        }
        int c = w->level > 0
            ? LZ4_compress_HC((const char *)payload, (char *)w->cbuf, (int)len,
                              (int)w->cbuf_size, w->level)
            : LZ4_compress_fast((const char *)payload, (char *)w->cbuf, (int)len,
                                (int)w->cbuf_size, 1);
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

/* ---- the background thread -------------------------------------------------- */

/* An END block repeats the stream's totals, which only this thread knows
 * once the stream's chunks are written. */
static size_t end_payload(const struct cgm_stream_totals *t, uint8_t *p)
{
    size_t n = 0;
    n += cgm_put_varint(p + n, t->records);
    n += cgm_put_varint(p + n, t->instructions);
    n += cgm_put_varint(p + n, t->raw_bytes);
    n += cgm_put_varint(p + n, t->compressed_bytes);
    n += cgm_put_varint(p + n, t->chunks);
    return n;
}

/* Blocks queued before a misuse error are still written, so the file keeps
 * everything recorded up to the error; only an I/O error stops writing. */
static void run_job(struct cgm_writer *w, struct job *j)
{
    if (atomic_load(&w->io_failed))
        return;
    uint64_t at = w->offset;
    if (j->b.type == CGM_BLOCK_END) {
        pthread_mutex_lock(&w->lock);
        j->len = end_payload(&w->cat.streams[j->meta].pub.totals, j->small);
        pthread_mutex_unlock(&w->lock);
        j->data = j->small;
    }
    if (write_block(w, &j->b, j->data, j->len)) {
        atomic_store(&w->io_failed, 1); /* a hole would break the stream's sequence */
        return;
    }
    if (j->b.type != CGM_BLOCK_CHUNK)
        return;
    struct cgm_chunk_ref ref = {
        .offset = at, .first_record = j->b.first_record, .instructions = j->b.instructions,
        .records = j->b.records, .raw_bytes = j->b.raw_bytes,
        .stored_bytes = j->b.stored_bytes, .seq = j->b.seq,
    };
    pthread_mutex_lock(&w->lock);
    if (catalog_add_chunk(&w->cat.streams[j->meta], &ref)) {
        atomic_store(&w->io_failed, 1);
        fail_locked(w, "out of memory");
    }
    pthread_mutex_unlock(&w->lock);
}

static void *background(void *arg)
{
    struct cgm_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->head && !w->stop)
            pthread_cond_wait(&w->work, &w->lock);
        struct job *j = w->head;
        if (!j)
            break; /* stopped and drained */
        w->head = j->next;
        if (!w->head)
            w->tail = NULL;
        pthread_mutex_unlock(&w->lock);
        run_job(w, j);
        pthread_mutex_lock(&w->lock);
        if (j->busy)
            *j->busy = 0;
        free(j->owned);
        if (j->closing) {
            /* FIFO order: every chunk of the stream is written by now. */
            free(j->closing->buf[0]);
            free(j->closing->buf[1]);
            free(j->closing);
        }
        free(j);
        pthread_cond_broadcast(&w->done);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Queues J (taking ownership). */
static void submit(struct cgm_writer *w, struct job *j)
{
    pthread_mutex_lock(&w->lock);
    j->next = NULL;
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
}

static void wait_idle(struct cgm_writer *w, const int *busy)
{
    pthread_mutex_lock(&w->lock);
    while (*busy)
        pthread_cond_wait(&w->done, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

/* Starts the background thread with every signal blocked, so the
 * application's signals reach its own threads (and interrupt their
 * blocking calls) rather than this one. */
static int start_background(struct cgm_writer *w)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, background, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static struct job *new_job(struct cgm_writer *w, uint8_t type, uint32_t stream)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j) {
        fail(w, "out of memory");
        return NULL;
    }
    j->b.type = type;
    j->b.stream = stream;
    return j;
}

/* ---- the recorder's side ------------------------------------------------------- */

struct cgm_writer *cgm_writer_create(const char *path, const struct cgm_writer_options *opt,
                                     char *err, size_t errlen)
{
    uint32_t chunk = opt && opt->chunk_bytes ? opt->chunk_bytes : CGM_CHUNK_DEFAULT;
    if (chunk < CGM_CHUNK_MIN || chunk > CGM_CHUNK_MAX) {
        snprintf(err, errlen, "%s: chunk size %u outside %u..%u bytes", path, chunk,
                 CGM_CHUNK_MIN, CGM_CHUNK_MAX);
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
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->done, NULL);
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        cgm_writer_abandon(w);
        return NULL;
    }
    uint8_t hdr[CGM_FILE_HEADER_BYTES];
    struct cgm_file_header fh = { CGM_TRACE_VERSION, chunk };
    cgm_file_header_encode(hdr, &fh);
    struct iovec iov = { hdr, sizeof hdr };
    int rc = write_all(w, &iov, 1);
    if (!rc && start_background(w) != 0)
        rc = fail(w, "cannot start the compression thread");
    if (rc) {
        snprintf(err, errlen, "%s", w->error);
        cgm_writer_abandon(w);
        return NULL;
    }
    w->thread_running = 1;
    return w;
}

struct cgm_wstream *cgm_writer_open_stream(struct cgm_writer *w,
                                           const struct cgm_stream_info *info)
{
    if (atomic_load(&w->failed))
        return NULL;
    if (info->kind < CGM_STREAM_X86_THREAD || info->kind > CGM_STREAM_SECTION) {
        fail(w, "stream %u: unknown kind %u", info->id, info->kind);
        return NULL;
    }
    struct cgm_wstream *s = calloc(1, sizeof *s);
    struct job *j = new_job(w, CGM_BLOCK_STREAM, info->id);
    if (!s || !j || !(s->buf[0] = malloc(CGM_CHUNK_MIN))) {
        free(s);
        free(j);
        fail(w, "out of memory");
        return NULL;
    }
    s->cap[0] = CGM_CHUNK_MIN;
    s->w = w;
    pthread_mutex_lock(&w->lock);
    const char *why = NULL;
    struct cgm_stream_info named = *info;
    named.name[CGM_STREAM_NAME_MAX - 1] = 0;
    long si = -1;
    if (w->cat.nstreams >= CGM_STREAMS_MAX)
        why = "too many streams";
    else if (catalog_find(&w->cat, info->id) >= 0)
        why = "opened twice";
    else if ((si = catalog_add_stream(&w->cat, &named)) < 0)
        why = "out of memory";
    else if (catalog_index_stream(&w->cat, (uint32_t)si)) {
        w->cat.nstreams--;
        why = "out of memory";
    }
    if (why) {
        fail_locked(w, "stream id %u: %s", info->id, why);
        pthread_mutex_unlock(&w->lock);
        free(s->buf[0]);
        free(s->buf[1]);
        free(s);
        free(j);
        return NULL;
    }
    s->meta = (size_t)si;
    w->cat.streams[si].open = s;
    j->len = cgm_stream_info_encode(j->small, &named);
    pthread_mutex_unlock(&w->lock);
    j->data = j->small;
    submit(w, j);
    return s;
}

/* Hands DATA (LEN bytes of framed records) over as the stream's next chunk.
 * BUSY is cleared once written; OWNED is freed then. */
static int hand_over(struct cgm_wstream *s, const uint8_t *data, size_t len, int *busy,
                     uint8_t *owned)
{
    struct cgm_writer *w = s->w;
    if (w->on_chunk && !w->in_on_chunk) {
        w->in_on_chunk = 1;
        w->on_chunk(w->on_chunk_ctx, s);
        w->in_on_chunk = 0;
    }
    struct job *j = new_job(w, CGM_BLOCK_CHUNK, w->cat.streams[s->meta].pub.info.id);
    if (!j) {
        free(owned);
        return -1;
    }
    j->b.seq = s->seq++;
    j->b.records = s->records;
    j->b.first_record = s->records_before;
    j->b.instructions = s->instructions;
    j->data = data;
    j->len = len;
    j->meta = s->meta;
    j->busy = busy;
    j->owned = owned;
    if (busy)
        *busy = 1;
    s->records_before += s->records;
    s->records = 0;
    s->instructions = 0;
    w->handed_bytes += len;
    submit(w, j);
    return 0;
}

/* Hands the fill buffer over and switches to the other one, which is
 * given at least the capacity the stream has shown it needs. */
static int flush_chunk(struct cgm_wstream *s)
{
    if (!s->records)
        return 0;
    int c = s->cur;
    if (hand_over(s, s->buf[c], s->used, &s->busy[c], NULL))
        return -1;
    s->cur = c ^ 1;
    s->used = 0;
    wait_idle(s->w, &s->busy[s->cur]);
    if (s->cap[s->cur] < s->cap[c]) {
        free(s->buf[s->cur]);
        s->cap[s->cur] = 0;
        if (!(s->buf[s->cur] = malloc(s->cap[c])))
            return fail(s->w, "out of memory");
        s->cap[s->cur] = s->cap[c];
    }
    return atomic_load(&s->w->failed) ? -1 : 0;
}

/* Makes room for NEED more bytes in the fill buffer by growing it, up to a
 * chunk; returns 1 when it cannot grow further (flush instead). */
static int grow_fill(struct cgm_wstream *s, size_t need)
{
    int c = s->cur;
    size_t chunk = s->w->chunk_bytes;
    if (s->cap[c] >= chunk)
        return 1;
    size_t cap = s->cap[c];
    while (cap < s->used + need && cap < chunk)
        cap = 2 * cap < chunk ? 2 * cap : chunk;
    uint8_t *nb = realloc(s->buf[c], cap);
    if (!nb)
        return fail(s->w, "out of memory");
    s->buf[c] = nb;
    s->cap[c] = cap;
    return s->used + need <= cap ? 0 : 1;
}

int cgm_wstream_append(struct cgm_wstream *s, const void *rec, size_t len, uint32_t instructions)
{
    struct cgm_writer *w = s->w;
    uint8_t *buf = s->buf[s->cur];
    /* The common case: a short record that fits, its length one byte. */
    if (len - 1 < 127 && s->used + len + 1 <= s->cap[s->cur]) {
        buf[s->used] = (uint8_t)len;
        memcpy(buf + s->used + 1, rec, len);
        s->used += len + 1;
        s->records++;
        s->instructions += instructions;
        return 0;
    }
    if (atomic_load(&w->failed))
        return -1;
    if (len == 0 || len > CGM_RECORD_MAX)
        return fail(w, "stream %u: record of %zu bytes (allowed 1..%u)",
                    w->cat.streams[s->meta].pub.info.id, len, CGM_RECORD_MAX);
    size_t framed = len + CGM_VARINT_MAX;
    if (s->used + framed > s->cap[s->cur]) {
        int full = framed <= w->chunk_bytes ? grow_fill(s, framed) : 1;
        if (full < 0 || (full && flush_chunk(s)))
            return -1;
        if (full && framed <= w->chunk_bytes && s->used + framed > s->cap[s->cur] &&
            grow_fill(s, framed))
            return -1;
    }
    if (framed > w->chunk_bytes) {
        /* A record larger than a chunk gets a chunk of its own. */
        uint8_t *big = malloc(framed);
        if (!big)
            return fail(w, "out of memory");
        size_t n = cgm_put_varint(big, len);
        memcpy(big + n, rec, len);
        s->records = 1;
        s->instructions = instructions;
        int busy;
        if (hand_over(s, big, n + len, &busy, big))
            return -1;
        wait_idle(w, &busy);
        return atomic_load(&w->failed) ? -1 : 0;
    }
    buf = s->buf[s->cur];
    s->used += cgm_put_varint(buf + s->used, len);
    memcpy(buf + s->used, rec, len);
    s->used += len;
    s->records++;
    s->instructions += instructions;
    return 0;
}

int cgm_wstream_flush(struct cgm_wstream *s)
{
    if (atomic_load(&s->w->failed))
        return -1;
    return flush_chunk(s);
}

void cgm_writer_on_chunk(struct cgm_writer *w,
                         void (*fn)(void *ctx, const struct cgm_wstream *s), void *ctx)
{
    w->on_chunk = fn;
    w->on_chunk_ctx = ctx;
}

const struct cgm_stream_totals *cgm_wstream_totals(const struct cgm_wstream *s)
{
    struct cgm_wstream *m = (struct cgm_wstream *)s; /* the snapshot is a cache */
    pthread_mutex_lock(&s->w->lock);
    m->snapshot = s->w->cat.streams[s->meta].pub.totals;
    pthread_mutex_unlock(&s->w->lock);
    return &m->snapshot;
}

/* Hands the last records and the END block over without waiting: the
 * background thread frees the stream once it has written them, so closing
 * the many short streams of a GPU trace costs no round trip. */
int cgm_wstream_close(struct cgm_wstream *s)
{
    struct cgm_writer *w = s->w;
    int rc = 0;
    if (s->records)
        rc = hand_over(s, s->buf[s->cur], s->used, &s->busy[s->cur], NULL);
    pthread_mutex_lock(&w->lock);
    w->cat.streams[s->meta].open = NULL;
    pthread_mutex_unlock(&w->lock);
    struct job *j = new_job(w, CGM_BLOCK_END, w->cat.streams[s->meta].pub.info.id);
    if (!j) {
        /* Nothing can be written any more; wait for S's chunks, then free it. */
        wait_idle(w, &s->busy[0]);
        wait_idle(w, &s->busy[1]);
        free(s->buf[0]);
        free(s->buf[1]);
        free(s);
        return -1;
    }
    j->meta = s->meta;
    j->closing = s;
    submit(w, j);
    return rc || atomic_load(&w->failed) ? -1 : 0;
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
 * totals, nchunks and per chunk (offset delta, records, instructions, raw,
 * stored). First records and sequence numbers follow from the order. */
static int write_index(struct cgm_writer *w)
{
    size_t cap = CGM_VARINT_MAX;
    for (size_t i = 0; i < w->cat.nstreams; i++)
        cap += CGM_STREAM_INFO_MAX_BYTES + 7 * CGM_VARINT_MAX +
               w->cat.streams[i].nchunks * 5 * CGM_VARINT_MAX;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return fail(w, "out of memory for the index");
    size_t n = cgm_put_varint(buf, w->cat.nstreams);
    for (size_t i = 0; i < w->cat.nstreams; i++) {
        const struct catalog_stream *m = &w->cat.streams[i];
        n += cgm_stream_info_encode(buf + n, &m->pub.info);
        n += cgm_put_varint(buf + n, m->open == NULL);
        n += cgm_put_varint(buf + n, m->pub.totals.records);
        n += cgm_put_varint(buf + n, m->pub.totals.instructions);
        n += cgm_put_varint(buf + n, m->pub.totals.raw_bytes);
        n += cgm_put_varint(buf + n, m->pub.totals.compressed_bytes);
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

/* Closes the open streams, lets the background thread write everything
 * queued and stops it. */
static void drain(struct cgm_writer *w)
{
    for (size_t i = 0; i < w->cat.nstreams; i++) {
        pthread_mutex_lock(&w->lock);
        struct cgm_wstream *s = w->cat.streams[i].open;
        pthread_mutex_unlock(&w->lock);
        if (s)
            cgm_wstream_close(s);
    }
    if (w->thread_running) {
        pthread_mutex_lock(&w->lock);
        w->stop = 1;
        pthread_cond_signal(&w->work);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        w->thread_running = 0;
    }
}

static void destroy(struct cgm_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    catalog_free(&w->cat);
    free(w->cbuf);
    free(w->path);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->done);
    free(w);
}

int cgm_writer_finalize(struct cgm_writer *w, char *err, size_t errlen)
{
    drain(w);
    int rc = atomic_load(&w->failed) ? -1 : write_index(w);
    if (close(w->fd) && !rc)
        rc = fail(w, "close: %s", strerror(errno));
    w->fd = -1;
    if (rc && err)
        snprintf(err, errlen, "%s", w->error);
    destroy(w);
    return rc;
}

void cgm_writer_abandon(struct cgm_writer *w)
{
    drain(w);
    destroy(w);
}
