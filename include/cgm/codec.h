/* Generic record codecs shared by every record format: little-endian
 * integers, LEB128 varints, zigzag and delta coding against a context the
 * encoder and the decoder keep in step. Decoders never read past END. */
#ifndef CGM_CODEC_H
#define CGM_CODEC_H

#include <stdint.h>
#include <string.h>

#define CGM_VARINT_MAX 10 /* bytes of the longest 64-bit varint */

static inline void cgm_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void cgm_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void cgm_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t cgm_get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t cgm_get_le32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint64_t cgm_get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Writes V as a varint at P; returns the bytes written (1..10). */
static inline size_t cgm_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Reads a varint from *P, advancing it. Returns 0, or -1 when the varint
 * runs past END or is longer than 64 bits. */
static inline int cgm_get_varint(const uint8_t **p, const uint8_t *end,
                                 uint64_t *v)
{
    const uint8_t *q = *p;
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (q >= end)
            return -1;
        uint8_t b = *q++;
        if (shift == 63 && b > 1)
            return -1;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *v = x;
            return 0;
        }
    }
    return -1;
}

static inline uint64_t cgm_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t cgm_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Delta coding: the value is sent as the zigzag varint of its difference
 * from *PREV (wrapping), and *PREV becomes the value on both sides. */
static inline size_t cgm_put_delta(uint8_t *p, uint64_t *prev, uint64_t v)
{
    size_t n = cgm_put_varint(p, cgm_zigzag((int64_t)(v - *prev)));
    *prev = v;
    return n;
}

static inline int cgm_get_delta(const uint8_t **p, const uint8_t *end,
                                uint64_t *prev, uint64_t *v)
{
    uint64_t z;
    if (cgm_get_varint(p, end, &z))
        return -1;
    *v = *prev + (uint64_t)cgm_unzigzag(z);
    *prev = *v;
    return 0;
}

#endif
