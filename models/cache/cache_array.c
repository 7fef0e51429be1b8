/* Set-associative cache array with packed tags, its replacement policies
 * (LRU by access stamps), and the MSHR file. */
#include "cgm/cache.h"
#include "cgm/bits.h"

#include <emmintrin.h>
#include <stdlib.h>
#include <string.h>

int cgm_cache_array_init_policy(struct cgm_cache_array *a, unsigned sets, unsigned ways, unsigned block_bytes,
                                unsigned set_shift, const struct cgm_repl_policy *repl)
{
    memset(a, 0, sizeof *a);
    if (!cgm_pow2(sets) || !ways || set_shift > 32 || !repl)
        return -1;
    /* Each set's tags start on a 16-byte boundary: a lookup compares four
     * ways per SSE2 instruction. */
    unsigned stride = (ways + 3) & ~3u;
    size_t n = (size_t)sets * ways;
    size_t tag_bytes = ((size_t)sets * stride * sizeof *a->tags + 63) & ~(size_t)63;
    a->lines = calloc(n, sizeof *a->lines);
    a->tags = aligned_alloc(64, tag_bytes);
    a->repl_lines = repl->line_bytes ? calloc(n, repl->line_bytes) : NULL;
    if (a->tags)
        memset(a->tags, 0, tag_bytes);
    if (!a->lines || !a->tags || (repl->line_bytes && !a->repl_lines)) {
        cgm_cache_array_free(a);
        return -1;
    }
    a->sets = sets;
    a->ways = ways;
    a->tag_stride = stride;
    a->way_mask = ways >= 64 ? ~0ull : (1ull << ways) - 1;
    a->block_bytes = block_bytes;
    a->set_shift = set_shift;
    a->repl = repl;
    return 0;
}

int cgm_cache_array_init(struct cgm_cache_array *a, unsigned sets, unsigned ways,
                         unsigned block_bytes, unsigned set_shift)
{
    return cgm_cache_array_init_policy(a, sets, ways, block_bytes, set_shift, &cgm_repl_lru);
}

void cgm_cache_array_free(struct cgm_cache_array *a)
{
    free(a->lines);
    free(a->tags);
    free(a->repl_lines);
    a->lines = NULL;
    a->tags = NULL;
    a->repl_lines = NULL;
}

void cgm_cache_array_keep_low_bits(struct cgm_cache_array *a, unsigned low_bits)
{
    a->low_mask = low_bits ? (1ull << low_bits) - 1 : 0;
}

unsigned cgm_cache_set_of(const struct cgm_cache_array *a, uint64_t block)
{
    /* (block >> (shift + low)) << low, then the low bits */
    return (unsigned)((((block >> a->set_shift) & ~a->low_mask) | (block & a->low_mask)) & (a->sets - 1));
}

static uint32_t fold(uint64_t block) { return (uint32_t)block ^ (uint32_t)(block >> 32); }

/* Compares every way of the set without a branch per way (the way that
 * matches is random, so an early exit would mispredict on nearly every
 * lookup): four tags per SSE2 compare, the matches gathered in a bit mask.
 * A folded tag may match another block, and an invalid way may still carry
 * its old tag (an invalidated block refilled elsewhere in the set), hence
 * the test on the line. */
struct cgm_cache_line *cgm_cache_find(struct cgm_cache_array *a, uint64_t block)
{
    unsigned set = cgm_cache_set_of(a, block);
    const uint32_t *tags = &a->tags[(size_t)set * a->tag_stride];
    __m128i t = _mm_set1_epi32((int)fold(block));
    uint64_t mask = 0;
    for (unsigned g = 0; g < a->tag_stride; g += 4) {
        __m128i eq = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)&tags[g]), t);
        mask |= (uint64_t)(unsigned)_mm_movemask_ps(_mm_castsi128_ps(eq)) << g;
    }
    mask &= a->way_mask; /* the padding after the last way */
    struct cgm_cache_line *lines = &a->lines[(size_t)set * a->ways];
    for (; mask; mask &= mask - 1) {
        struct cgm_cache_line *l = &lines[__builtin_ctzll(mask)];
        if (l->block == block && l->state)
            return l;
    }
    return NULL;
}

void cgm_cache_set_block(struct cgm_cache_array *a, struct cgm_cache_line *l, uint64_t block)
{
    size_t i = (size_t)(l - a->lines);
    l->block = block;
    a->tags[a->tag_stride == a->ways ? i : i / a->ways * a->tag_stride + i % a->ways] = fold(block);
}

/* ---- LRU ---------------------------------------------------------------
 * The stamp of each line's last use (its repl word), larger for a more
 * recent one; a block brought in as a bypass gets stamp 0, older than
 * every line used or brought in before. */
static void lru_insert(struct cgm_cache_array *a, struct cgm_cache_line *l, enum cgm_cache_hint hint)
{
    if (hint == CGM_HINT_BYPASS)
        l->repl = 0;
    else
        cgm_repl_lru_touch(a, l);
}

struct cgm_cache_line *cgm_repl_lru_victim(struct cgm_cache_array *a, unsigned set_index,
                                           cgm_cache_may_evict may_evict, void *ctx)
{
    struct cgm_cache_line *set = &a->lines[(size_t)set_index * a->ways];
    /* Mostly the least recently used way may go: ask may_evict about it
     * alone, and walk the set with the filter only if it may not. */
    struct cgm_cache_line *best = &set[0];
    for (unsigned w = 0; w < a->ways; w++) {
        if (!set[w].state)
            return &set[w];
        if (set[w].repl < best->repl)
            best = &set[w];
    }
    if (!may_evict || may_evict(best, ctx))
        return best;
    best = NULL;
    for (unsigned w = 0; w < a->ways; w++) {
        if (!may_evict(&set[w], ctx))
            continue;
        if (!best || set[w].repl < best->repl)
            best = &set[w];
    }
    return best;
}

const struct cgm_repl_policy cgm_repl_lru = {
    .name = "lru", .touch = cgm_repl_lru_touch, .insert = lru_insert, .victim = cgm_repl_lru_victim,
};

/* ---- MSHR ---------------------------------------------------------------- */

int cgm_mshr_init(struct cgm_mshr *m, unsigned entries, unsigned coalesce)
{
    memset(m, 0, sizeof *m);
    if (!entries || !coalesce || entries > CGM_MSHR_MAX)
        return -1;
    unsigned bits = 1;
    while ((1u << bits) < 2 * entries)
        bits++;
    m->e = calloc(entries, sizeof *m->e);
    m->blocks = malloc(entries * sizeof *m->blocks);
    m->slot = calloc(1u << bits, sizeof *m->slot);
    if (!m->e || !m->blocks || !m->slot) {
        cgm_mshr_free(m);
        return -1;
    }
    m->mask = (1u << bits) - 1;
    m->shift = 64 - bits;
    for (unsigned i = 0; i < entries; i++)
        m->blocks[i] = CGM_MSHR_FREE;
    m->entries = entries;
    m->coalesce = coalesce;
    for (unsigned i = 0; i < entries; i++) {
        m->e[i].w = calloc(coalesce, sizeof *m->e[i].w);
        if (!m->e[i].w) {
            cgm_mshr_free(m);
            return -1;
        }
    }
    return 0;
}

void cgm_mshr_free(struct cgm_mshr *m)
{
    for (unsigned i = 0; m->e && i < m->entries; i++)
        free(m->e[i].w);
    free(m->e);
    free(m->blocks);
    free(m->slot);
    m->e = NULL;
    m->blocks = NULL;
    m->slot = NULL;
}

/* Fibonacci hashing: the high bits of block * 2^64/phi spread consecutive
 * blocks (the common miss pattern) over the table. */
static inline unsigned mshr_home(const struct cgm_mshr *m, uint64_t block)
{
    return (unsigned)((block * 0x9E3779B97F4A7C15ull) >> m->shift);
}

/* The lowest-numbered entry of block and kind, as a scan of the entries in
 * order would find it: the whole probe run is visited, so entries of the
 * same block with other kinds (or, if a caller allowed it, twins) cannot
 * change which one is returned. */
struct cgm_mshr_entry *cgm_mshr_find(struct cgm_mshr *m, uint64_t block, uint8_t kind)
{
    struct cgm_mshr_entry *best = NULL;
    for (unsigned p = mshr_home(m, block); m->slot[p]; p = (p + 1) & m->mask) {
        struct cgm_mshr_entry *e = &m->e[m->slot[p] - 1];
        if (m->blocks[m->slot[p] - 1] == block && e->kind == kind && (!best || e < best))
            best = e;
    }
    return best;
}

struct cgm_mshr_entry *cgm_mshr_alloc(struct cgm_mshr *m, uint64_t block, uint8_t kind)
{
    for (unsigned i = 0; i < m->entries; i++) {
        if (!m->e[i].used) {
            struct cgm_mshr_entry *e = &m->e[i];
            e->used = true;
            e->block = block;
            e->kind = kind;
            e->n = 0;
            m->blocks[i] = block;
            m->used++;
            if (m->used > m->peak_used)
                m->peak_used = m->used;
            unsigned p = mshr_home(m, block);
            while (m->slot[p])
                p = (p + 1) & m->mask;
            m->slot[p] = (uint16_t)(i + 1);
            return e;
        }
    }
    return NULL;
}

bool cgm_mshr_push(struct cgm_mshr_entry *e, unsigned coalesce, const struct cgm_mshr_waiter *w)
{
    if (e->n >= coalesce)
        return false;
    e->w[e->n++] = *w;
    return true;
}

/* Removes entry number i + 1 from the index; the entries after it in its
 * probe run move back into the hole when their home allows (deletion
 * without tombstones, so lookups never slow down as the run ages). */
static void mshr_unindex(struct cgm_mshr *m, unsigned i)
{
    unsigned p = mshr_home(m, m->blocks[i]);
    while (m->slot[p] != i + 1)
        p = (p + 1) & m->mask;
    for (unsigned q = (p + 1) & m->mask; m->slot[q]; q = (q + 1) & m->mask) {
        unsigned home = mshr_home(m, m->blocks[m->slot[q] - 1]);
        /* q's entry may fill the hole at p unless its home lies in (p, q] */
        if (((q - home) & m->mask) >= ((q - p) & m->mask)) {
            m->slot[p] = m->slot[q];
            p = q;
        }
    }
    m->slot[p] = 0;
}

void cgm_mshr_release(struct cgm_mshr *m, struct cgm_mshr_entry *e)
{
    unsigned i = (unsigned)(e - m->e);
    mshr_unindex(m, i);
    e->used = false;
    e->n = 0;
    m->used--;
    m->blocks[i] = CGM_MSHR_FREE;
}
