/* Generic cache structures shared by every cache level (CPU L1/L2/L3, GPU
 * vector L1s and L2 banks) and the TLBs: a set-associative array whose
 * lines carry a state and a data token (a protocol keeps any other field
 * of its own in arrays beside it, indexed as the lines), replacement by a
 * policy behind a small interface (victim, touch, insert), and an MSHR
 * file whose entries coalesce the requests waiting on one block. */
#ifndef CGM_CACHE_H
#define CGM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgm_cache_line {
    uint64_t block;      /* block number (address / block size) */
    uint64_t data;       /* functional data token, for checking coherence */
    uint64_t repl;       /* the replacement policy's (LRU: the stamp of the last use) */
    uint8_t state;       /* protocol-defined; 0 means invalid */
    bool dirty;
};

struct cgm_cache_array;
struct cgm_repl_policy;

/* How a block comes into the array: as any other (NORMAL), or as one the
 * caller expects not to be used again (BYPASS: a streaming or bypassing
 * access; the policy may choose it as the next victim). */
enum cgm_cache_hint { CGM_HINT_NORMAL, CGM_HINT_BYPASS };

/* Whether a line may be replaced (a victim filter). */
typedef bool (*cgm_cache_may_evict)(const struct cgm_cache_line *l, void *ctx);

/* A replacement policy. It keeps a word in each line (repl), line_bytes
 * more per line if it needs them (the array's repl_lines, indexed as the
 * lines) and a word of its own (repl_clock). */
struct cgm_repl_policy {
    const char *name;
    size_t line_bytes;
    /* Line l was used (a hit). */
    void (*touch)(struct cgm_cache_array *a, struct cgm_cache_line *l);
    /* Line l now holds a new block. */
    void (*insert)(struct cgm_cache_array *a, struct cgm_cache_line *l, enum cgm_cache_hint hint);
    /* The line of set to replace: an invalid way if any, else the way the
     * policy prefers among those may_evict accepts (all if it is NULL);
     * NULL if none may go. */
    struct cgm_cache_line *(*victim)(struct cgm_cache_array *a, unsigned set, cgm_cache_may_evict may_evict,
                                     void *ctx);
};
/* Least recently used, by access stamps (the default). Its touch and
 * victim are called directly, without the policy's pointers, by
 * cgm_cache_touch and cgm_cache_victim (the hit path of every cache). */
extern const struct cgm_repl_policy cgm_repl_lru;
struct cgm_cache_line *cgm_repl_lru_victim(struct cgm_cache_array *a, unsigned set, cgm_cache_may_evict may_evict,
                                           void *ctx);

struct cgm_cache_array {
    unsigned sets, ways, block_bytes;
    unsigned set_shift;  /* block-number bits skipped before the set index */
    uint64_t low_mask;   /* the lowest block-number bits, kept below the skipped ones (0: none) */
    struct cgm_cache_line *lines; /* [set][way] */
    uint32_t *tags;      /* lines' blocks folded to 32 bits, [set][tag_stride], 64-byte
                            aligned so a lookup reads one host cache line per 16 ways;
                            a match is confirmed on the line itself */
    unsigned tag_stride; /* ways rounded up to a multiple of 4 */
    uint64_t way_mask;   /* bit per way */
    const struct cgm_repl_policy *repl;
    void *repl_lines;    /* the policy's state per line beyond the line's repl word */
    uint64_t repl_clock; /* the policy's own (LRU: the last stamp given) */
};

/* set_shift: low block-number bits used elsewhere (for example the slice
 * index of a striped cache). Replacement is LRU. Returns 0 or -1 (sets not
 * a power of two, or out of memory). */
int cgm_cache_array_init(struct cgm_cache_array *a, unsigned sets, unsigned ways,
                         unsigned block_bytes, unsigned set_shift);
/* The same with the replacement policy repl. */
int cgm_cache_array_init_policy(struct cgm_cache_array *a, unsigned sets, unsigned ways, unsigned block_bytes,
                                unsigned set_shift, const struct cgm_repl_policy *repl);
/* Keeps the lowest LOW_BITS block-number bits in the set index, below the
 * set_shift bits skipped above them: a cache striped in runs of 2^LOW_BITS
 * blocks (the skipped bits choose the stripe) still uses every set. */
void cgm_cache_array_keep_low_bits(struct cgm_cache_array *a, unsigned low_bits);
void cgm_cache_array_free(struct cgm_cache_array *a);
unsigned cgm_cache_set_of(const struct cgm_cache_array *a, uint64_t block);
/* The valid line holding block, or NULL. */
struct cgm_cache_line *cgm_cache_find(struct cgm_cache_array *a, uint64_t block);
/* Index of line l in a (set * ways + way). */
static inline size_t cgm_cache_line_index(const struct cgm_cache_array *a, const struct cgm_cache_line *l)
{
    return (size_t)(l - a->lines);
}
/* The line to replace for block (the policy's victim in its set). */
static inline struct cgm_cache_line *cgm_cache_victim(struct cgm_cache_array *a, uint64_t block,
                                                      cgm_cache_may_evict may_evict, void *ctx)
{
    unsigned set = cgm_cache_set_of(a, block);
    return a->repl == &cgm_repl_lru ? cgm_repl_lru_victim(a, set, may_evict, ctx)
                                    : a->repl->victim(a, set, may_evict, ctx);
}
/* LRU's stamp for a use of line l. */
static inline void cgm_repl_lru_touch(struct cgm_cache_array *a, struct cgm_cache_line *l)
{
    l->repl = ++a->repl_clock;
}
static inline void cgm_cache_touch(struct cgm_cache_array *a, struct cgm_cache_line *l)
{
    if (a->repl == &cgm_repl_lru)
        cgm_repl_lru_touch(a, l);
    else
        a->repl->touch(a, l);
}
/* Gives line l (of a) to block; always use this rather than writing
 * l->block, so the packed tags stay right. The replacement policy is not
 * told: cgm_cache_insert does both. */
void cgm_cache_set_block(struct cgm_cache_array *a, struct cgm_cache_line *l, uint64_t block);
/* Line l now holds block, brought in as hint says. */
static inline void cgm_cache_insert(struct cgm_cache_array *a, struct cgm_cache_line *l, uint64_t block,
                                    enum cgm_cache_hint hint)
{
    cgm_cache_set_block(a, l, block);
    if (a->repl == &cgm_repl_lru && hint == CGM_HINT_NORMAL)
        cgm_repl_lru_touch(a, l);
    else
        a->repl->insert(a, l, hint);
}

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
