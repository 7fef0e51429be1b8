/* The cgmtrace trace container (.cgt): streams of length-framed records,
 * buffered into chunks, compressed with LZ4 and checksummed.
 *
 * File layout (all integers little-endian):
 *   file header (64 bytes)
 *   blocks, each a 64-byte block header and a payload:
 *     STREAM  declares a stream (kind, id, attributes); written when it opens
 *     CHUNK   whole records of one stream, LZ4-compressed
 *     END     a stream's totals, written when it closes
 *     INDEX   every stream and every chunk (written by finalize)
 *   trailer (32 bytes) pointing at the INDEX block
 * A file without a valid trailer is recovered by scanning the blocks; every
 * whole block before the cut is read and the file is reported incomplete.
 *
 * Records are opaque to the container. By convention the first byte of a
 * record is its type (see cgm/events.h for the ranges).
 *
 * Section streams carry metadata. Names in use:
 *   "program"     text lines "key=value": argv, exit_status, instructions,
 *                 tracegen's options; tracetool info prints them
 *   "x86.static"  the x86 static code table (cgm/x86rec.h; read it with
 *                 cgm_x86_static_read, which knows the versions' rules) */
#ifndef CGM_TRACE_H
#define CGM_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Versions (a reader reads every version up to its own):
 *   1  the first
 *   2  the x86.static section is written as the code is decoded, its
 *      chunks before the chunks that run its instructions, so a trace cut
 *      anywhere describes the code it holds: entries in any address order,
 *      each address once (version 1 wrote it at the end, in address order)
 *   3  the gpu_copy_async event (a copy the program does not wait for) */
#define CGM_TRACE_VERSION 3u

/* Limits a reader enforces before allocating anything sized from the file. */
#define CGM_CHUNK_MIN          4096u
#define CGM_CHUNK_DEFAULT      (256u * 1024u)
#define CGM_CHUNK_MAX          (16u * 1024u * 1024u)
#define CGM_RECORD_MAX         CGM_CHUNK_MAX
#define CGM_STREAM_NAME_MAX    64u
#define CGM_STREAMS_MAX        (1u << 20)

enum cgm_stream_kind {
    CGM_STREAM_X86_THREAD    = 1, /* one guest x86 thread */
    CGM_STREAM_GPU_WORKGROUP = 2, /* one work-group of one kernel launch */
    CGM_STREAM_GPU_WAVEFRONT = 3, /* one wavefront of one work-group */
    CGM_STREAM_SECTION       = 4, /* metadata: static tables, program information */
};

/* What a stream is. Nothing here fixes where replay runs it. */
struct cgm_stream_info {
    uint32_t id;                 /* unique in the file, chosen by the writer */
    uint16_t kind;               /* enum cgm_stream_kind */
    uint64_t thread_id;          /* x86: guest tid */
    uint32_t launch_id;          /* GPU: kernel launch number */
    uint32_t group[3];           /* GPU: work-group id */
    uint32_t wavefront;          /* GPU: wavefront within the group */
    char name[CGM_STREAM_NAME_MAX]; /* sections: "x86.static", "program", ... */
};

/* Totals of one stream, as the writer saw them or the reader found them. */
struct cgm_stream_totals {
    uint64_t records;
    uint64_t instructions;       /* as counted by the record encoders */
    uint64_t raw_bytes;          /* framed records before compression */
    uint64_t compressed_bytes;   /* chunk payloads as stored */
    uint64_t chunks;
};

/* ---- writer ------------------------------------------------------------ */

struct cgm_writer;
struct cgm_wstream;

struct cgm_writer_options {
    uint32_t chunk_bytes;        /* raw bytes per chunk; 0 means the default */
    int compression_level;       /* 0: LZ4 fast (default); >0: LZ4 HC level */
};

/* Creates PATH (truncating it). Returns NULL and fills ERR on failure. */
struct cgm_writer *cgm_writer_create(const char *path,
                                     const struct cgm_writer_options *opt,
                                     char *err, size_t errlen);

/* Opens a stream; its declaration reaches the file at once. The id must be
 * unused. Returns NULL on error (see cgm_writer_error). */
struct cgm_wstream *cgm_writer_open_stream(struct cgm_writer *w,
                                           const struct cgm_stream_info *info);

/* Appends one record of LEN bytes (1..CGM_RECORD_MAX) that stands for
 * INSTRUCTIONS instructions (0 for events and metadata). */
int cgm_wstream_append(struct cgm_wstream *s, const void *rec, size_t len,
                       uint32_t instructions);

/* Hands the records appended so far over as a chunk now, without waiting
 * for the chunk to fill. */
int cgm_wstream_flush(struct cgm_wstream *s);

/* FN is called in the caller's thread just before any stream's chunk is
 * handed over (not for chunks handed over by FN itself), with that
 * stream: a writer of metadata that other chunks depend on flushes it
 * there, so it precedes them in the file, and a file cut anywhere holds
 * the metadata of every chunk it holds. */
void cgm_writer_on_chunk(struct cgm_writer *w,
                         void (*fn)(void *ctx, const struct cgm_wstream *s), void *ctx);

/* Flushes the stream's last chunk, writes its END block and frees it. */
int cgm_wstream_close(struct cgm_wstream *s);

const struct cgm_stream_totals *cgm_wstream_totals(const struct cgm_wstream *s);

/* Writes a whole metadata section as a SECTION stream of one record per
 * call to cgm_wstream_append; this helper writes one record of LEN bytes. */
int cgm_writer_add_section(struct cgm_writer *w, uint32_t id, const char *name,
                           const void *data, size_t len);

/* Closes every open stream, writes the index and the trailer, closes the
 * file and frees W (also on error). Returns 0 on success. */
int cgm_writer_finalize(struct cgm_writer *w, char *err, size_t errlen);

/* Frees W without writing the index: the file is left as a killed writer
 * would leave it (readable by scanning). */
void cgm_writer_abandon(struct cgm_writer *w);

const char *cgm_writer_error(const struct cgm_writer *w);
/* 1 once any call or write has failed (cgm_writer_error says why). */
int cgm_writer_failed(const struct cgm_writer *w);
/* Bytes of framed records handed over in chunks so far, before
 * compression (the caller's thread's view; it grows a chunk at a time). */
uint64_t cgm_writer_bytes(const struct cgm_writer *w);

/* ---- reader ------------------------------------------------------------ */

struct cgm_reader;
struct cgm_riter;

struct cgm_reader_stream {
    struct cgm_stream_info info;
    struct cgm_stream_totals totals;
    int closed;                  /* an END block was seen */
};

/* Opens PATH. Reads the index through the trailer, or scans the file when
 * the trailer is missing or bad. Returns NULL and fills ERR when the file is
 * not a trace at all (bad header, unsupported version). */
struct cgm_reader *cgm_reader_open(const char *path, char *err, size_t errlen);
/* The same over an open file descriptor (not closed by the reader); NAME is
 * used in messages. */
struct cgm_reader *cgm_reader_open_fd(int fd, const char *name, char *err,
                                      size_t errlen);
void cgm_reader_close(struct cgm_reader *r);

uint32_t cgm_reader_version(const struct cgm_reader *r);
uint64_t cgm_reader_file_bytes(const struct cgm_reader *r);
/* 1 when the file has a valid index and trailer. */
int cgm_reader_complete(const struct cgm_reader *r);
/* Why the file is incomplete ("" when it is complete). */
const char *cgm_reader_damage(const struct cgm_reader *r);

size_t cgm_reader_stream_count(const struct cgm_reader *r);
const struct cgm_reader_stream *cgm_reader_stream(const struct cgm_reader *r,
                                                  size_t index);
/* Index of the stream with this id, or -1. */
long cgm_reader_find_stream(const struct cgm_reader *r, uint32_t id);
/* The first SECTION stream with this name, or -1. */
long cgm_reader_find_section(const struct cgm_reader *r, const char *name);

/* One chunk of a stream, as the index (or the scan) describes it. */
struct cgm_chunk_info {
    uint64_t offset;             /* of its block header in the file */
    uint64_t first_record;
    uint64_t instructions;
    uint32_t records;
    uint32_t raw_bytes;
    uint32_t stored_bytes;
};
/* Fills OUT for chunk K of stream STREAM_INDEX; -1 when there is none. */
int cgm_reader_chunk(const struct cgm_reader *r, size_t stream_index, size_t k,
                     struct cgm_chunk_info *out);

/* Iterates one stream's records, reading and decompressing one chunk at a
 * time. */
struct cgm_riter *cgm_riter_open(struct cgm_reader *r, size_t stream_index);
/* Next record: 1 with REC and LEN set (valid until the next call), 0 at the
 * end of the stream, -1 on a damaged chunk (see cgm_riter_error). */
int cgm_riter_next(struct cgm_riter *it, const uint8_t **rec, size_t *len);
/* Positions the iterator at record number RECORD (0-based) of the stream by
 * seeking to the chunk that holds it. Returns 0, or -1 past the end. */
int cgm_riter_seek(struct cgm_riter *it, uint64_t record);
/* The number of the record the next cgm_riter_next returns. */
uint64_t cgm_riter_position(const struct cgm_riter *it);
const char *cgm_riter_error(const struct cgm_riter *it);
void cgm_riter_close(struct cgm_riter *it);

/* Reads a section stream whole into a new buffer (its records joined),
 * refusing sections larger than LIMIT bytes. Returns 0 and sets *DATA and
 * *LEN (free with free()), or -1 with ERR filled. */
int cgm_reader_read_section(struct cgm_reader *r, const char *name,
                            size_t limit, uint8_t **data, size_t *len,
                            char *err, size_t errlen);

/* Checks every block, checksum, record frame and the index against the
 * blocks. Returns 0 when the whole file is intact; otherwise -1 and ERR
 * names the offset and the fault. */
int cgm_trace_verify(const char *path, char *err, size_t errlen);

const char *cgm_stream_kind_name(uint16_t kind);

#endif
