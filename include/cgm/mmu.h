/* Virtual memory (seed 000 Sec. 3.2.7): a TLB per core (sets, ways, LRU),
 * a page walk with a configurable latency, hard and soft page faults, and
 * a deterministic physical page allocator shared by every core.
 *
 * A translation that hits the TLB costs the TLB latency. A miss walks the
 * page table: if the page exists that is a soft fault (walk + soft fault
 * latency) and the translation is cached; if not, a hard fault allocates a
 * frame (walk + hard fault latency). Frames are handed out in first-touch
 * order from frame_base, so the same access order always gives the same
 * physical addresses. */
#ifndef CGM_MMU_H
#define CGM_MMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgm/cache.h"
#include "cgm/stats.h"

struct cgm_page_table_config {
    unsigned page_bits;      /* 12 for 4 KB pages */
    uint64_t frames;         /* physical frames available */
    uint64_t frame_base;     /* first frame number handed out */
};

struct cgm_page_table;

struct cgm_page_table *cgm_page_table_create(const struct cgm_page_table_config *cfg);
void cgm_page_table_destroy(struct cgm_page_table *pt);
/* The frame of (asid, vpn), if mapped. */
bool cgm_page_table_lookup(const struct cgm_page_table *pt, uint32_t asid, uint64_t vpn, uint64_t *pfn);
/* Maps (asid, vpn) to the next free frame. Returns false when physical
 * memory is exhausted. */
bool cgm_page_table_map(struct cgm_page_table *pt, uint32_t asid, uint64_t vpn, uint64_t *pfn);
/* Called for each page an unmap takes away, with the frame it had. */
typedef void (*cgm_page_unmapped_fn)(void *ctx, uint32_t asid, uint64_t vpn, uint64_t pfn);
/* Unmaps the mapped pages among [vpn, vpn + pages) of asid (pages never
 * touched are skipped); their frames are handed out again, most recently
 * freed first. Returns the number unmapped, or -1 when out of memory. */
int cgm_page_table_unmap_range(struct cgm_page_table *pt, uint32_t asid, uint64_t vpn, uint64_t pages,
                               cgm_page_unmapped_fn fn, void *ctx);
/* Pages mapped now, and unmapped so far. */
uint64_t cgm_page_table_mapped(const struct cgm_page_table *pt);
uint64_t cgm_page_table_unmapped(const struct cgm_page_table *pt);
unsigned cgm_page_table_page_bits(const struct cgm_page_table *pt);

struct cgm_mmu_config {
    unsigned tlb_sets, tlb_ways;
    unsigned tlb_latency;    /* cycles for a hit */
    unsigned walk_latency;   /* cycles for a page walk */
    unsigned soft_fault_latency, hard_fault_latency;
};

struct cgm_mmu_stats {
    uint64_t translations, hits, misses, soft_faults, hard_faults, evictions;
    uint64_t shootdowns;     /* entries dropped by cgm_mmu_flush_page */
};

struct cgm_mmu {
    struct cgm_mmu_config cfg;
    struct cgm_page_table *pt;
    struct cgm_cache_array tlb; /* block = asid:vpn key, data = pfn */
    struct cgm_mmu_stats st;
};

/* Returns 0 or -1 (sets not a power of two, zero ways, out of memory). */
int cgm_mmu_init(struct cgm_mmu *m, const struct cgm_mmu_config *cfg, struct cgm_page_table *pt);
void cgm_mmu_free(struct cgm_mmu *m);
/* A TLB's counters (translations, hits, misses, first_touch_faults,
 * evictions, shootdowns) into the registry's group GROUP: the one
 * registration of them, for the cores' TLBs and the compute units'. */
void cgm_mmu_stats_register(const struct cgm_mmu *m, struct cgm_stats *reg, cgm_stat group);
/* Translates vaddr; writes the physical address and returns the latency
 * in cycles, or -1 if physical memory is exhausted. */
long cgm_mmu_translate(struct cgm_mmu *m, uint32_t asid, uint64_t vaddr, uint64_t *paddr);
/* Drops every cached translation of asid. */
void cgm_mmu_flush(struct cgm_mmu *m, uint32_t asid);
/* Drops the cached translation of one page (a shootdown after munmap or
 * mprotect); true if the TLB held it. */
bool cgm_mmu_flush_page(struct cgm_mmu *m, uint32_t asid, uint64_t vpn);

#endif
