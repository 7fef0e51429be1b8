/* The page table: an open-addressing hash map from (asid, vpn) to frame,
 * with frames handed out in first-touch order. */
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
    if (pt)
        free(pt->slots);
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
    pt->slots[i].pfn = pt->next_frame++;
    pt->used++;
    *pfn = pt->slots[i].pfn;
    return true;
}

uint64_t cgm_page_table_mapped(const struct cgm_page_table *pt) { return pt->used; }

unsigned cgm_page_table_page_bits(const struct cgm_page_table *pt) { return pt->cfg.page_bits; }
