/* On-disk structures of the trace container, shared by the writer, the
 * reader and the verifier. See include/cgm/trace.h for the file layout. */
#ifndef CGM_FORMATS_BLOCK_H
#define CGM_FORMATS_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/trace.h"

#define CGM_FILE_MAGIC     "CGMTRACE"
#define CGM_TRAILER_MAGIC  "CGMTEND\0"
#define CGM_BLOCK_MAGIC    0x424d4743u /* "CGMB" */

#define CGM_FILE_HEADER_BYTES  64u
#define CGM_BLOCK_HEADER_BYTES 64u
#define CGM_TRAILER_BYTES      32u

/* The largest payload any block may claim: a chunk of the largest size
 * that did not compress, or a large index. Checked before allocating. */
#define CGM_BLOCK_PAYLOAD_MAX  (64u * 1024u * 1024u)

enum cgm_block_type {
    CGM_BLOCK_STREAM = 1,
    CGM_BLOCK_CHUNK  = 2,
    CGM_BLOCK_END    = 3,
    CGM_BLOCK_INDEX  = 4,
};

enum cgm_codec {
    CGM_CODEC_RAW = 0,
    CGM_CODEC_LZ4 = 1,
};

/* File header: magic[8] version u32 header_bytes u32 chunk_bytes u32
 * reserved[40] hash u32 (of bytes 0..59). */
struct cgm_file_header {
    uint32_t version;
    uint32_t chunk_bytes;
};

/* Block header (64 bytes):
 *  0 magic u32      4 type u8       5 codec u8    6 flags u16
 *  8 stream u32    12 seq u32      16 raw u32    20 stored u32
 * 24 records u32   28 reserved u32 32 first_record u64
 * 40 instructions u64              48 payload_hash u64
 * 56 reserved u32  60 header_hash u32 (of bytes 0..59) */
struct cgm_block {
    uint8_t type;
    uint8_t codec;
    uint32_t stream;
    uint32_t seq;
    uint32_t raw_bytes;
    uint32_t stored_bytes;
    uint32_t records;
    uint64_t first_record;
    uint64_t instructions;
    uint64_t payload_hash;
};

/* Trailer (32 bytes): magic[8] index_offset u64 index_bytes u64
 * reserved u32 hash u32 (of bytes 0..27). */
struct cgm_trailer {
    uint64_t index_offset;
    uint64_t index_bytes; /* block header and payload */
};

/* Fuzzing builds accept any checksum, so that the fuzzer reaches the
 * parsers behind them instead of stopping at the first hash. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CGM_HASH_DIFFERS(a, b) ((void)(a), (void)(b), 0)
#else
#define CGM_HASH_DIFFERS(a, b) ((a) != (b))
#endif

uint32_t cgm_hash32(const void *p, size_t n);
uint64_t cgm_hash64(const void *p, size_t n);

void cgm_file_header_encode(uint8_t out[CGM_FILE_HEADER_BYTES],
                            const struct cgm_file_header *h);
/* Returns NULL, or a static message naming what is wrong. */
const char *cgm_file_header_decode(const uint8_t in[CGM_FILE_HEADER_BYTES],
                                   struct cgm_file_header *h);

void cgm_block_encode(uint8_t out[CGM_BLOCK_HEADER_BYTES],
                      const struct cgm_block *b);
const char *cgm_block_decode(const uint8_t in[CGM_BLOCK_HEADER_BYTES],
                             struct cgm_block *b);

void cgm_trailer_encode(uint8_t out[CGM_TRAILER_BYTES],
                        const struct cgm_trailer *t);
const char *cgm_trailer_decode(const uint8_t in[CGM_TRAILER_BYTES],
                               struct cgm_trailer *t);

/* Stream declarations (STREAM payloads and index entries): tagged varints,
 * so later versions can add attributes. */
#define CGM_STREAM_INFO_MAX_BYTES 256u
size_t cgm_stream_info_encode(uint8_t *out, const struct cgm_stream_info *s);
/* Decodes from *P (advancing it) up to END. Returns NULL or a message. */
const char *cgm_stream_info_decode(const uint8_t **p, const uint8_t *end,
                                   struct cgm_stream_info *s);

/* One index entry per chunk. */
struct cgm_chunk_ref {
    uint64_t offset;       /* of the block header */
    uint64_t first_record;
    uint64_t instructions;
    uint32_t records;
    uint32_t raw_bytes;
    uint32_t stored_bytes;
    uint32_t seq;
};

#endif
