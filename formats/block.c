/* Encoding and checking of the container's fixed-size structures. */
#include "formats/block.h"

#include <string.h>
#include <xxhash.h>

#include "cgm/codec.h"

uint32_t cgm_hash32(const void *p, size_t n)
{
    return (uint32_t)XXH3_64bits(p, n);
}

uint64_t cgm_hash64(const void *p, size_t n)
{
    return XXH3_64bits(p, n);
}

void cgm_file_header_encode(uint8_t out[CGM_FILE_HEADER_BYTES],
                            const struct cgm_file_header *h)
{
    memset(out, 0, CGM_FILE_HEADER_BYTES);
    memcpy(out, CGM_FILE_MAGIC, 8);
    cgm_put_le32(out + 8, h->version);
    cgm_put_le32(out + 12, CGM_FILE_HEADER_BYTES);
    cgm_put_le32(out + 16, h->chunk_bytes);
    cgm_put_le32(out + 60, cgm_hash32(out, 60));
}

const char *cgm_file_header_decode(const uint8_t in[CGM_FILE_HEADER_BYTES],
                                   struct cgm_file_header *h)
{
    if (memcmp(in, CGM_FILE_MAGIC, 8))
        return "not a cgmtrace file (bad magic)";
    if (CGM_HASH_DIFFERS(cgm_get_le32(in + 60), cgm_hash32(in, 60)))
        return "file header checksum mismatch";
    h->version = cgm_get_le32(in + 8);
    if (h->version == 0 || h->version > CGM_TRACE_VERSION)
        return "unsupported trace version";
    if (cgm_get_le32(in + 12) != CGM_FILE_HEADER_BYTES)
        return "bad file header size";
    h->chunk_bytes = cgm_get_le32(in + 16);
    if (h->chunk_bytes < CGM_CHUNK_MIN || h->chunk_bytes > CGM_CHUNK_MAX)
        return "chunk size in file header out of range";
    return NULL;
}

void cgm_block_encode(uint8_t out[CGM_BLOCK_HEADER_BYTES],
                      const struct cgm_block *b)
{
    memset(out, 0, CGM_BLOCK_HEADER_BYTES);
    cgm_put_le32(out, CGM_BLOCK_MAGIC);
    out[4] = b->type;
    out[5] = b->codec;
    cgm_put_le32(out + 8, b->stream);
    cgm_put_le32(out + 12, b->seq);
    cgm_put_le32(out + 16, b->raw_bytes);
    cgm_put_le32(out + 20, b->stored_bytes);
    cgm_put_le32(out + 24, b->records);
    cgm_put_le64(out + 32, b->first_record);
    cgm_put_le64(out + 40, b->instructions);
    cgm_put_le64(out + 48, b->payload_hash);
    cgm_put_le32(out + 60, cgm_hash32(out, 60));
}

const char *cgm_block_decode(const uint8_t in[CGM_BLOCK_HEADER_BYTES],
                             struct cgm_block *b)
{
    if (cgm_get_le32(in) != CGM_BLOCK_MAGIC)
        return "bad block magic";
    if (CGM_HASH_DIFFERS(cgm_get_le32(in + 60), cgm_hash32(in, 60)))
        return "block header checksum mismatch";
    b->type = in[4];
    b->codec = in[5];
    b->stream = cgm_get_le32(in + 8);
    b->seq = cgm_get_le32(in + 12);
    b->raw_bytes = cgm_get_le32(in + 16);
    b->stored_bytes = cgm_get_le32(in + 20);
    b->records = cgm_get_le32(in + 24);
    b->first_record = cgm_get_le64(in + 32);
    b->instructions = cgm_get_le64(in + 40);
    b->payload_hash = cgm_get_le64(in + 48);
    if (b->type < CGM_BLOCK_STREAM || b->type > CGM_BLOCK_INDEX)
        return "unknown block type";
    if (b->codec != CGM_CODEC_RAW && b->codec != CGM_CODEC_LZ4)
        return "unknown block codec";
    if (b->raw_bytes > CGM_BLOCK_PAYLOAD_MAX || b->stored_bytes > CGM_BLOCK_PAYLOAD_MAX)
        return "block size beyond the format's limit";
    if (b->codec == CGM_CODEC_RAW && b->raw_bytes != b->stored_bytes)
        return "uncompressed block with differing sizes";
    if (b->records > b->raw_bytes)
        return "more records than bytes in block";
    return NULL;
}

void cgm_trailer_encode(uint8_t out[CGM_TRAILER_BYTES],
                        const struct cgm_trailer *t)
{
    memset(out, 0, CGM_TRAILER_BYTES);
    memcpy(out, CGM_TRAILER_MAGIC, 8);
    cgm_put_le64(out + 8, t->index_offset);
    cgm_put_le64(out + 16, t->index_bytes);
    cgm_put_le32(out + 28, cgm_hash32(out, 28));
}

const char *cgm_trailer_decode(const uint8_t in[CGM_TRAILER_BYTES],
                               struct cgm_trailer *t)
{
    if (memcmp(in, CGM_TRAILER_MAGIC, 8))
        return "no trailer";
    if (CGM_HASH_DIFFERS(cgm_get_le32(in + 28), cgm_hash32(in, 28)))
        return "trailer checksum mismatch";
    t->index_offset = cgm_get_le64(in + 8);
    t->index_bytes = cgm_get_le64(in + 16);
    return NULL;
}

enum {
    TAG_END = 0, TAG_ID, TAG_KIND, TAG_THREAD, TAG_LAUNCH,
    TAG_GROUP_X, TAG_GROUP_Y, TAG_GROUP_Z, TAG_WAVEFRONT, TAG_NAME,
};

static size_t put_tag(uint8_t *p, unsigned tag, uint64_t v)
{
    size_t n = cgm_put_varint(p, tag);
    return n + cgm_put_varint(p + n, v);
}

size_t cgm_stream_info_encode(uint8_t *out, const struct cgm_stream_info *s)
{
    size_t n = 0;
    n += put_tag(out + n, TAG_ID, s->id);
    n += put_tag(out + n, TAG_KIND, s->kind);
    if (s->thread_id)
        n += put_tag(out + n, TAG_THREAD, s->thread_id);
    if (s->launch_id)
        n += put_tag(out + n, TAG_LAUNCH, s->launch_id);
    for (int i = 0; i < 3; i++)
        if (s->group[i])
            n += put_tag(out + n, TAG_GROUP_X + (unsigned)i, s->group[i]);
    if (s->wavefront)
        n += put_tag(out + n, TAG_WAVEFRONT, s->wavefront);
    size_t len = strnlen(s->name, CGM_STREAM_NAME_MAX - 1);
    if (len) {
        n += put_tag(out + n, TAG_NAME, len);
        memcpy(out + n, s->name, len);
        n += len;
    }
    out[n++] = TAG_END;
    return n;
}

const char *cgm_stream_info_decode(const uint8_t **p, const uint8_t *end,
                                   struct cgm_stream_info *s)
{
    memset(s, 0, sizeof *s);
    int have_id = 0, have_kind = 0;
    for (;;) {
        uint64_t tag, v;
        if (cgm_get_varint(p, end, &tag))
            return "truncated stream declaration";
        if (tag == TAG_END)
            break;
        if (cgm_get_varint(p, end, &v))
            return "truncated stream declaration";
        switch (tag) {
        case TAG_ID:
            if (v > UINT32_MAX)
                return "stream id out of range";
            s->id = (uint32_t)v;
            have_id = 1;
            break;
        case TAG_KIND:
            if (v < CGM_STREAM_X86_THREAD || v > CGM_STREAM_SECTION)
                return "unknown stream kind";
            s->kind = (uint16_t)v;
            have_kind = 1;
            break;
        case TAG_THREAD:
            s->thread_id = v;
            break;
        case TAG_LAUNCH:
        case TAG_GROUP_X:
        case TAG_GROUP_Y:
        case TAG_GROUP_Z:
        case TAG_WAVEFRONT:
            if (v > UINT32_MAX)
                return "stream attribute out of range";
            if (tag == TAG_LAUNCH)
                s->launch_id = (uint32_t)v;
            else if (tag == TAG_WAVEFRONT)
                s->wavefront = (uint32_t)v;
            else
                s->group[tag - TAG_GROUP_X] = (uint32_t)v;
            break;
        case TAG_NAME:
            if (v == 0 || v >= CGM_STREAM_NAME_MAX || v > (uint64_t)(end - *p))
                return "bad stream name length";
            memcpy(s->name, *p, v);
            *p += v;
            break;
        default:
            return "unknown stream attribute";
        }
    }
    if (!have_id || !have_kind)
        return "stream declaration without id or kind";
    return NULL;
}

const char *cgm_stream_kind_name(uint16_t kind)
{
    switch (kind) {
    case CGM_STREAM_X86_THREAD: return "x86_thread";
    case CGM_STREAM_GPU_WORKGROUP: return "gpu_workgroup";
    case CGM_STREAM_GPU_WAVEFRONT: return "gpu_wavefront";
    case CGM_STREAM_SECTION: return "section";
    default: return "unknown";
    }
}
