/* Generic cache structures shared by every cache level (CPU L1/L2/L3, GPU
 * vector L1s and L2 banks): a set-associative array with LRU replacement
 * whose lines carry a protocol state, a data token and directory fields
 * (holder sets of any size), and an MSHR file whose entries coalesce the
 * requests waiting on one block. */
#ifndef CGM_CACHE_H
#define CGM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgm_cache_line {
    uint64_t block;      /* block number (address / block size) */
    uint64_t data;       /* functional data token, for checking coherence */
    uint64_t sharers;    /* directory: holders 0..63 (bit per holder; the rest are
                            in the array's extension words, see cgm_holders_*) */
    uint64_t lru;        /* larger is more recent */
    int32_t owner;       /* directory: exclusive holder, or -1 */
    int32_t requester;   /* the request being served (or joined) while pending */
    uint16_t acks;       /* acknowledgements still expected */
    uint8_t state;       /* protocol-defined; 0 means invalid */
    uint8_t pending;     /* protocol-defined transient operation; 0 none */
    uint8_t req;         /* protocol-defined request type being served */
    uint8_t early_wb;    /* protocol-defined: a write-back that overtook the operation pending */
    bool dirty;
    bool instr;          /* the request being served or joined is an instruction fetch */
};

struct cgm_cache_array {
    unsigned sets, ways, block_bytes;
    unsigned set_shift;  /* block-number bits skipped before the set index */
    struct cgm_cache_line *lines; /* [set][way] */
    uint32_t *tags;      /* lines' blocks folded to 32 bits, [set][tag_stride], 64-byte
                            aligned so a lookup reads one host cache line per 16 ways;
                            a match is confirmed on the line itself */
    unsigned tag_stride; /* ways rounded up to a multiple of 4 */
    uint64_t way_mask;   /* bit per way */
    uint64_t clock;
    unsigned holder_words; /* 64-bit words per holder set (1: the line's own) */
    uint64_t *holders_ext; /* words 1.. of each line's holder set, [line][holder_words - 1] */
};

/* set_shift: low block-number bits used elsewhere (for example the slice
 * index of a striped cache). Returns 0 or -1 (sets not a power of two, or
 * out of memory). */
int cgm_cache_array_init(struct cgm_cache_array *a, unsigned sets, unsigned ways,
                         unsigned block_bytes, unsigned set_shift);
void cgm_cache_array_free(struct cgm_cache_array *a);
unsigned cgm_cache_set_of(const struct cgm_cache_array *a, uint64_t block);
/* The valid line holding block, or NULL. */
struct cgm_cache_line *cgm_cache_find(struct cgm_cache_array *a, uint64_t block);
/* The line to replace for block: an invalid way if any, else the least
 * recently used way that may_evict accepts; NULL if none may go. */
struct cgm_cache_line *cgm_cache_victim(struct cgm_cache_array *a, uint64_t block,
                                        bool (*may_evict)(const struct cgm_cache_line *, void *),
                                        void *ctx);
void cgm_cache_touch(struct cgm_cache_array *a, struct cgm_cache_line *l);
/* Index of line l in a (set * ways + way). */
static inline size_t cgm_cache_line_index(const struct cgm_cache_array *a, const struct cgm_cache_line *l)
{
    return (size_t)(l - a->lines);
}

/* ---- holder sets ---------------------------------------------------------
 * A directory line's sharers: a bit per holder. Holders 0..63 are the
 * line's sharers word, so a directory over at most 64 holders (the usual
 * case) pays nothing for the rest; cgm_cache_array_set_holders sizes the
 * extension words of an array whose directory tracks more. */
int cgm_cache_array_set_holders(struct cgm_cache_array *a, unsigned holders);

static inline uint64_t *cgm_holders_word(const struct cgm_cache_array *a, struct cgm_cache_line *l,
                                         unsigned w)
{
    return w ? &a->holders_ext[cgm_cache_line_index(a, l) * (a->holder_words - 1) + w - 1] : &l->sharers;
}
static inline bool cgm_holders_has(const struct cgm_cache_array *a, const struct cgm_cache_line *l,
                                   unsigned h)
{
    return (*cgm_holders_word(a, (struct cgm_cache_line *)l, h / 64) >> (h % 64)) & 1;
}
static inline void cgm_holders_add(const struct cgm_cache_array *a, struct cgm_cache_line *l, unsigned h)
{
    *cgm_holders_word(a, l, h / 64) |= 1ull << (h % 64);
}
static inline void cgm_holders_del(const struct cgm_cache_array *a, struct cgm_cache_line *l, unsigned h)
{
    *cgm_holders_word(a, l, h / 64) &= ~(1ull << (h % 64));
}
static inline void cgm_holders_clear(const struct cgm_cache_array *a, struct cgm_cache_line *l)
{
    for (unsigned w = 0; w < a->holder_words; w++)
        *cgm_holders_word(a, l, w) = 0;
}
static inline bool cgm_holders_empty(const struct cgm_cache_array *a, const struct cgm_cache_line *l)
{
    for (unsigned w = 0; w < a->holder_words; w++)
        if (*cgm_holders_word(a, (struct cgm_cache_line *)l, w))
            return false;
    return true;
}
static inline unsigned cgm_holders_count(const struct cgm_cache_array *a, const struct cgm_cache_line *l)
{
    unsigned n = 0;
    for (unsigned w = 0; w < a->holder_words; w++)
        n += (unsigned)__builtin_popcountll(*cgm_holders_word(a, (struct cgm_cache_line *)l, w));
    return n;
}
/* The first holder at or after h, or -1. Iterate with
 * for (int h = cgm_holders_next(a, l, 0); h >= 0; h = cgm_holders_next(a, l, h + 1)). */
static inline int cgm_holders_next(const struct cgm_cache_array *a, const struct cgm_cache_line *l, unsigned h)
{
    for (unsigned w = h / 64; w < a->holder_words; w++) {
        uint64_t v = *cgm_holders_word(a, (struct cgm_cache_line *)l, w);
        if (w == h / 64)
            v &= ~0ull << (h % 64);
        if (v)
            return (int)(w * 64 + (unsigned)__builtin_ctzll(v));
    }
    return -1;
}
/* Gives line l (of a) to block; always use this rather than writing
 * l->block, so the packed tags stay right. */
void cgm_cache_set_block(struct cgm_cache_array *a, struct cgm_cache_line *l, uint64_t block);

/* ---- MSHR with coalescer ------------------------------------------------ */
/* A request parked on an entry, as it came (cgm/coh.h's struct
 * cgm_coh_req without the entry's block). */
struct cgm_mshr_waiter {
    uint64_t tag;
    uint64_t value;
    uint64_t mask;       /* the bytes of the block it touches; 0: all */
    uint16_t bytes;
    uint8_t op, flags;
};

struct cgm_mshr_entry {
    uint64_t block;
    bool used;
    uint8_t kind;        /* caller-defined (which array, which request was sent) */
    unsigned n;          /* waiters */
    struct cgm_mshr_waiter *w;
};

struct cgm_mshr {
    unsigned entries, coalesce;
    unsigned used;
    uint64_t peak_used;
    struct cgm_mshr_entry *e;
    uint64_t *blocks;    /* e[i].block, or CGM_MSHR_FREE */
    /* Index by block: open addressing with linear probing, twice the entries
     * (rounded up to a power of two) so probe runs stay short; a slot holds
     * an entry's number + 1, 0 when empty. Kept in step by alloc/release. */
    uint16_t *slot;
    unsigned mask, shift;
};
#define CGM_MSHR_FREE UINT64_MAX /* never a block number (addresses / block size) */
#define CGM_MSHR_MAX 65535u      /* entries: the index's slots hold an entry's number + 1 in 16 bits */

int cgm_mshr_init(struct cgm_mshr *m, unsigned entries, unsigned coalesce);
void cgm_mshr_free(struct cgm_mshr *m);
struct cgm_mshr_entry *cgm_mshr_find(struct cgm_mshr *m, uint64_t block, uint8_t kind);
/* NULL when every entry is in use. */
struct cgm_mshr_entry *cgm_mshr_alloc(struct cgm_mshr *m, uint64_t block, uint8_t kind);
/* false when the entry's coalescer is full. */
bool cgm_mshr_push(struct cgm_mshr_entry *e, unsigned coalesce, const struct cgm_mshr_waiter *w);
void cgm_mshr_release(struct cgm_mshr *m, struct cgm_mshr_entry *e);

#endif
