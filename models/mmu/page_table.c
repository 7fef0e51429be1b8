/* The page table: an open-addressing hash map from (asid, vpn) to frame,
 * with frames handed out in first-touch order; unmapped frames go on a
 * free stack and are handed out again first (most recently freed first),
 * so a guest that maps and unmaps needs only its live pages in frames. */
#include "cgm/mmu.h"

#include <stdlib.h>
#include <string.h>

struct pte {
    uint64_t key;   /* asid:vpn + 1; 0 marks an empty slot */
    uint64_t pfn;
};

struct cgm_page_table {
    struct cgm_page_table_config cfg;
    struct pte *slots;
    size_t cap, used;
    uint64_t next_frame;
    uint64_t *free_frames;  /* stack of unmapped frames */
    size_t nfree, free_cap;
    uint64_t unmapped;
};

static uint64_t key_of(uint32_t asid, uint64_t vpn) { return (((uint64_t)asid << 44) ^ vpn) + 1; }

static size_t hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

struct cgm_page_table *cgm_page_table_create(const struct cgm_page_table_config *cfg)
{
    if (cfg->page_bits < 10 || cfg->page_bits > 30 || !cfg->frames)
        return NULL;
    struct cgm_page_table *pt = calloc(1, sizeof *pt);
    if (!pt)
        return NULL;
    pt->cfg = *cfg;
    pt->cap = 1024;
    pt->slots = calloc(pt->cap, sizeof *pt->slots);
    if (!pt->slots) {
        free(pt);
        return NULL;
    }
    pt->next_frame = cfg->frame_base;
    return pt;
}

void cgm_page_table_destroy(struct cgm_page_table *pt)
{
    if (pt) {
        free(pt->slots);
        free(pt->free_frames);
    }
    free(pt);
}

bool cgm_page_table_lookup(const struct cgm_page_table *pt, uint32_t asid, uint64_t vpn, uint64_t *pfn)
{
    uint64_t k = key_of(asid, vpn);
    for (size_t i = hash(k, pt->cap);; i = (i + 1) & (pt->cap - 1)) {
        if (!pt->slots[i].key)
            return false;
        if (pt->slots[i].key == k) {
            *pfn = pt->slots[i].pfn;
            return true;
        }
    }
}

static bool grow(struct cgm_page_table *pt)
{
    size_t cap = pt->cap * 2;
    struct pte *s = calloc(cap, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < pt->cap; i++) {
        if (!pt->slots[i].key)
            continue;
        size_t j = hash(pt->slots[i].key, cap);
        while (s[j].key)
            j = (j + 1) & (cap - 1);
        s[j] = pt->slots[i];
    }
    free(pt->slots);
    pt->slots = s;
    pt->cap = cap;
    return true;
}

bool cgm_page_table_map(struct cgm_page_table *pt, uint32_t asid, uint64_t vpn, uint64_t *pfn)
{
    if (cgm_page_table_lookup(pt, asid, vpn, pfn))
        return true;
    if (pt->used >= pt->cfg.frames)
        return false;
    if (2 * (pt->used + 1) > pt->cap && !grow(pt))
        return false;
    uint64_t k = key_of(asid, vpn);
    size_t i = hash(k, pt->cap);
    while (pt->slots[i].key)
        i = (i + 1) & (pt->cap - 1);
    pt->slots[i].key = k;
    pt->slots[i].pfn = pt->nfree ? pt->free_frames[--pt->nfree] : pt->next_frame++;
    pt->used++;
    *pfn = pt->slots[i].pfn;
    return true;
}

/* Empties slot i and moves later members of its probe run back, so every
 * lookup still finds its key without tombstones. */
static void remove_slot(struct cgm_page_table *pt, size_t i)
{
    size_t mask = pt->cap - 1;
    for (size_t j = (i + 1) & mask; pt->slots[j].key; j = (j + 1) & mask) {
        size_t home = hash(pt->slots[j].key, pt->cap);
        /* Slot j may move to i only if its home is not in (i, j]. */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        pt->slots[i] = pt->slots[j];
        i = j;
    }
    pt->slots[i].key = 0;
}

static bool unmap_slot(struct cgm_page_table *pt, size_t i, uint64_t *pfn)
{
    if (pt->nfree == pt->free_cap) {
        size_t cap = pt->free_cap ? 2 * pt->free_cap : 256;
        uint64_t *f = realloc(pt->free_frames, cap * sizeof *f);
        if (!f)
            return false;
        pt->free_frames = f;
        pt->free_cap = cap;
    }
    *pfn = pt->slots[i].pfn;
    pt->free_frames[pt->nfree++] = pt->slots[i].pfn;
    remove_slot(pt, i);
    pt->used--;
    pt->unmapped++;
    return true;
}

static size_t find_slot(const struct cgm_page_table *pt, uint64_t k)
{
    for (size_t i = hash(k, pt->cap);; i = (i + 1) & (pt->cap - 1)) {
        if (!pt->slots[i].key || pt->slots[i].key == k)
            return i;
    }
}

int cgm_page_table_unmap_range(struct cgm_page_table *pt, uint32_t asid, uint64_t vpn, uint64_t pages,
                               cgm_page_unmapped_fn fn, void *ctx)
{
    uint64_t end = pages > UINT64_MAX - vpn ? UINT64_MAX : vpn + pages;
    int n = 0;
    if (pages <= 2 * (uint64_t)pt->used) {
        for (uint64_t v = vpn; v < end; v++) {
            size_t i = find_slot(pt, key_of(asid, v));
            uint64_t pfn;
            if (!pt->slots[i].key)
                continue;
            if (!unmap_slot(pt, i, &pfn))
                return -1;
            n++;
            if (fn)
                fn(ctx, asid, v, pfn);
        }
        return n;
    }
    /* A range larger than what is mapped (a released reservation): walk the
     * table instead. Removal moves entries back, so restart the slot after
     * each one; collect first to keep the order of the keys deterministic. */
    for (size_t i = 0; i < pt->cap;) {
        uint64_t k = pt->slots[i].key;
        uint64_t v = k ? ((k - 1) ^ ((uint64_t)asid << 44)) : 0;
        if (k && ((k - 1) >> 44) == asid && v >= vpn && v < end) {
            uint64_t pfn;
            if (!unmap_slot(pt, i, &pfn))
                return -1;
            n++;
            if (fn)
                fn(ctx, asid, v, pfn);
            continue; /* slot i now holds a moved entry, or nothing */
        }
        i++;
    }
    return n;
}

uint64_t cgm_page_table_unmapped(const struct cgm_page_table *pt) { return pt->unmapped; }

uint64_t cgm_page_table_mapped(const struct cgm_page_table *pt) { return pt->used; }

unsigned cgm_page_table_page_bits(const struct cgm_page_table *pt) { return pt->cfg.page_bits; }
