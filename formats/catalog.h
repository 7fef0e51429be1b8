/* The catalog: a trace's streams and chunks, as the writer records them for
 * its index, or as a reader finds them through the index or by scanning the
 * blocks. Internal to formats/. */
#ifndef CGM_FORMATS_CATALOG_H
#define CGM_FORMATS_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "formats/block.h"
#include "formats/id_map.h"

struct cgm_wstream;

struct catalog_stream {
    struct cgm_reader_stream pub;
    struct cgm_chunk_ref *chunks;
    size_t nchunks, cap;
    struct cgm_wstream *open; /* writer only: the stream's handle until it closes */
};

struct catalog {
    struct catalog_stream *streams;
    size_t nstreams, cap;
    struct id_map ids;     /* stream index by id */
};

/* A file being read: descriptor, name for messages, size. */
struct trace_file {
    int fd;
    const char *name;
    uint64_t size;
    uint32_t version;
    uint32_t chunk_bytes;
};

void catalog_free(struct catalog *c);
/* Adds a stream; returns its index or -1 when out of memory. */
long catalog_add_stream(struct catalog *c, const struct cgm_stream_info *info);
/* Makes stream INDEX findable by id; -1 when its id is taken (or no memory). */
int catalog_index_stream(struct catalog *c, uint32_t index);
long catalog_find(const struct catalog *c, uint32_t id);
int catalog_add_chunk(struct catalog_stream *s, const struct cgm_chunk_ref *r);

/* Reads exactly LEN bytes at OFF; -1 on a short read or an error. */
int file_read_at(const struct trace_file *f, uint64_t off, void *buf, size_t len);

/* Reads and checks the block header at OFF and the hash of its payload.
 * Returns NULL or a static message. */
const char *block_read_checked(const struct trace_file *f, uint64_t off,
                               struct cgm_block *b);

/* Reads a block's payload at OFF (after its header), checks its hash and
 * decompresses it into *OUT (grown as needed, up to the format's limit).
 * Returns NULL or a static message. */
const char *block_load_payload(const struct trace_file *f, uint64_t off,
                               const struct cgm_block *b, uint8_t **out,
                               size_t *out_cap, uint8_t **tmp, size_t *tmp_cap);

/* Builds the catalog from the trailer and the index. Returns NULL, or a
 * message (with *AT set to the offset at fault) when there is no usable
 * index. */
const char *catalog_from_index(const struct trace_file *f, struct catalog *c,
                               uint64_t *at, uint64_t *index_offset);

/* Builds the catalog by scanning blocks from the file header on. Stops at
 * the first bad or cut block, at the index, or at the end; *STOP is the
 * offset where it stopped and the return value says why (NULL: it reached
 * an INDEX block). */
const char *catalog_scan(const struct trace_file *f, struct catalog *c,
                         uint64_t *stop);

#endif
