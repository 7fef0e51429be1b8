/* Set-associative cache array with LRU replacement by access stamps. */
#include "cgm/cache.h"

#include <stdlib.h>
#include <string.h>

int cgm_cache_array_init(struct cgm_cache_array *a, unsigned sets, unsigned ways,
                         unsigned block_bytes, unsigned set_shift)
{
    memset(a, 0, sizeof *a);
    if (!sets || (sets & (sets - 1)) || !ways || set_shift > 32)
        return -1;
    size_t n = (size_t)sets * ways, tag_bytes = (n * sizeof *a->tags + 63) & ~(size_t)63;
    a->lines = calloc(n, sizeof *a->lines);
    a->tags = aligned_alloc(64, tag_bytes);
    if (a->tags)
        memset(a->tags, 0, tag_bytes);
    if (!a->lines || !a->tags) {
        cgm_cache_array_free(a);
        return -1;
    }
    a->sets = sets;
    a->ways = ways;
    a->block_bytes = block_bytes;
    a->set_shift = set_shift;
    return 0;
}

void cgm_cache_array_free(struct cgm_cache_array *a)
{
    free(a->lines);
    free(a->tags);
    a->lines = NULL;
    a->tags = NULL;
}

unsigned cgm_cache_set_of(const struct cgm_cache_array *a, uint64_t block)
{
    return (unsigned)((block >> a->set_shift) & (a->sets - 1));
}

static uint32_t fold(uint64_t block) { return (uint32_t)block ^ (uint32_t)(block >> 32); }

/* Compares a group of up to 8 ways without a branch per way: the way that
 * matches is random, so an early exit costs a mispredicted branch on
 * nearly every lookup. A folded tag may match another block, and an
 * invalid way may still carry its old tag (an invalidated block refilled
 * elsewhere in the set), hence the test on the line. */
struct cgm_cache_line *cgm_cache_find(struct cgm_cache_array *a, uint64_t block)
{
    size_t base = (size_t)cgm_cache_set_of(a, block) * a->ways;
    const uint32_t *tags = &a->tags[base];
    uint32_t t = fold(block);
    for (unsigned w0 = 0; w0 < a->ways; w0 += 8) {
        unsigned mask = 0;
        if (a->ways - w0 >= 8) {
            for (unsigned k = 0; k < 8; k++)
                mask |= (unsigned)(tags[w0 + k] == t) << k;
        } else {
            for (unsigned k = 0; k < a->ways - w0; k++)
                mask |= (unsigned)(tags[w0 + k] == t) << k;
        }
        for (; mask; mask &= mask - 1) {
            struct cgm_cache_line *l = &a->lines[base + w0 + (unsigned)__builtin_ctz(mask)];
            if (l->block == block && l->state)
                return l;
        }
    }
    return NULL;
}

void cgm_cache_set_block(struct cgm_cache_array *a, struct cgm_cache_line *l, uint64_t block)
{
    l->block = block;
    a->tags[l - a->lines] = fold(block);
}

struct cgm_cache_line *cgm_cache_victim(struct cgm_cache_array *a, uint64_t block,
                                        bool (*may_evict)(const struct cgm_cache_line *, void *),
                                        void *ctx)
{
    struct cgm_cache_line *set = &a->lines[(size_t)cgm_cache_set_of(a, block) * a->ways];
    struct cgm_cache_line *best = NULL;
    for (unsigned w = 0; w < a->ways; w++) {
        if (!set[w].state)
            return &set[w];
        if (may_evict && !may_evict(&set[w], ctx))
            continue;
        if (!best || set[w].lru < best->lru)
            best = &set[w];
    }
    return best;
}

void cgm_cache_touch(struct cgm_cache_array *a, struct cgm_cache_line *l)
{
    l->lru = ++a->clock;
}

int cgm_mshr_init(struct cgm_mshr *m, unsigned entries, unsigned coalesce)
{
    memset(m, 0, sizeof *m);
    if (!entries || !coalesce)
        return -1;
    m->e = calloc(entries, sizeof *m->e);
    if (!m->e)
        return -1;
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
    m->e = NULL;
}

struct cgm_mshr_entry *cgm_mshr_find(struct cgm_mshr *m, uint64_t block, uint8_t kind)
{
    /* Most lookups find nothing: stop once every entry in use was seen. */
    for (unsigned i = 0, seen = 0; seen < m->used; i++) {
        if (!m->e[i].used)
            continue;
        seen++;
        if (m->e[i].block == block && m->e[i].kind == kind)
            return &m->e[i];
    }
    return NULL;
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
            m->used++;
            if (m->used > m->peak_used)
                m->peak_used = m->used;
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

void cgm_mshr_release(struct cgm_mshr *m, struct cgm_mshr_entry *e)
{
    e->used = false;
    e->n = 0;
    m->used--;
}
