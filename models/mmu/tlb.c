/* The MMU: a set-associative TLB in front of the page table. */
#include "cgm/mmu.h"

#include <string.h>

/* TLB key: the asid above the page number, so address spaces never alias. */
static uint64_t tlb_key(uint32_t asid, uint64_t vpn) { return ((uint64_t)asid << 48) | (vpn & ((1ull << 48) - 1)); }

int cgm_mmu_init(struct cgm_mmu *m, const struct cgm_mmu_config *cfg, struct cgm_page_table *pt)
{
    memset(m, 0, sizeof *m);
    if (!pt || cgm_cache_array_init(&m->tlb, cfg->tlb_sets, cfg->tlb_ways, 0, 0))
        return -1;
    m->cfg = *cfg;
    m->pt = pt;
    return 0;
}

void cgm_mmu_free(struct cgm_mmu *m) { cgm_cache_array_free(&m->tlb); }

long cgm_mmu_translate(struct cgm_mmu *m, uint32_t asid, uint64_t vaddr, uint64_t *paddr)
{
    uint64_t frame;
    unsigned pb = cgm_page_table_page_bits(m->pt);
    uint64_t vpn = vaddr >> pb, off = vaddr & ((1ull << pb) - 1);
    uint64_t key = tlb_key(asid, vpn);
    m->st.translations++;
    struct cgm_cache_line *l = cgm_cache_find(&m->tlb, key);
    if (l) {
        m->st.hits++;
        cgm_cache_touch(&m->tlb, l);
        *paddr = (l->data << pb) | off;
        return m->cfg.tlb_latency;
    }
    m->st.misses++;
    long lat = (long)m->cfg.tlb_latency + m->cfg.walk_latency;
    if (cgm_page_table_lookup(m->pt, asid, vpn, &frame)) {
        m->st.soft_faults++;
        lat += m->cfg.soft_fault_latency;
    } else {
        if (!cgm_page_table_map(m->pt, asid, vpn, &frame))
            return -1;
        m->st.hard_faults++;
        lat += m->cfg.hard_fault_latency;
    }
    struct cgm_cache_line *v = cgm_cache_victim(&m->tlb, key, NULL, NULL);
    if (v->state)
        m->st.evictions++;
    cgm_cache_insert(&m->tlb, v, key, CGM_HINT_NORMAL);
    v->state = 1;
    v->data = frame;
    *paddr = (frame << pb) | off;
    return lat;
}

void cgm_mmu_flush(struct cgm_mmu *m, uint32_t asid)
{
    size_t n = (size_t)m->tlb.sets * m->tlb.ways;
    for (size_t i = 0; i < n; i++)
        if (m->tlb.lines[i].state && (m->tlb.lines[i].block >> 48) == asid)
            m->tlb.lines[i].state = 0;
}

bool cgm_mmu_flush_page(struct cgm_mmu *m, uint32_t asid, uint64_t vpn)
{
    struct cgm_cache_line *l = cgm_cache_find(&m->tlb, tlb_key(asid, vpn));
    if (!l)
        return false;
    l->state = 0;
    m->st.shootdowns++;
    return true;
}

void cgm_mmu_stats_register(const struct cgm_mmu *m, struct cgm_stats *reg, cgm_stat group)
{
    cgm_stat_counter(reg, group, "translations", &m->st.translations);
    cgm_stat_counter(reg, group, "hits", &m->st.hits);
    cgm_stat_counter(reg, group, "misses", &m->st.misses);
    cgm_stat_counter(reg, group, "first_touch_faults", &m->st.hard_faults);
    cgm_stat_counter(reg, group, "evictions", &m->st.evictions);
    cgm_stat_counter(reg, group, "shootdowns", &m->st.shootdowns);
}
