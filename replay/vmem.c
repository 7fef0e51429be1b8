/* First-touch page placement. */
#include "replay/vmem.h"

#include <stdlib.h>
#include <string.h>

int rp_vmem_init(struct rp_vmem *v, uint64_t page_size, uint64_t mem_bytes)
{
    memset(v, 0, sizeof *v);
    while ((1ull << v->page_shift) < page_size)
        v->page_shift++;
    v->frames = mem_bytes >> v->page_shift;
    v->cap = 1024;
    v->vpn = calloc(v->cap, sizeof *v->vpn);
    v->pfn = calloc(v->cap, sizeof *v->pfn);
    v->last_vpn = UINT64_MAX;
    return v->vpn && v->pfn && v->frames ? 0 : -1;
}

void rp_vmem_free(struct rp_vmem *v)
{
    free(v->vpn);
    free(v->pfn);
    memset(v, 0, sizeof *v);
}

static uint64_t slot(uint64_t vpn, uint64_t mask) { return ((vpn + 1) * 0x9E3779B97F4A7C15ull >> 20) & mask; }

static void grow(struct rp_vmem *v)
{
    uint64_t ncap = v->cap * 2;
    uint64_t *nv = calloc(ncap, sizeof *nv), *np = calloc(ncap, sizeof *np);
    if (!nv || !np)
        abort(); /* the footprint is bounded by the trace's pages */
    for (uint64_t i = 0; i < v->cap; i++)
        if (v->vpn[i]) {
            uint64_t k = slot(v->vpn[i] - 1, ncap - 1);
            while (nv[k])
                k = (k + 1) & (ncap - 1);
            nv[k] = v->vpn[i];
            np[k] = v->pfn[i];
        }
    free(v->vpn);
    free(v->pfn);
    v->vpn = nv;
    v->pfn = np;
    v->cap = ncap;
}

uint64_t rp_vmem_translate(struct rp_vmem *v, uint64_t vaddr)
{
    uint64_t vpn = vaddr >> v->page_shift, off = vaddr & ((1ull << v->page_shift) - 1);
    if (vpn == v->last_vpn)
        return (v->last_pfn << v->page_shift) | off;
    uint64_t k = slot(vpn, v->cap - 1);
    while (v->vpn[k] && v->vpn[k] != vpn + 1)
        k = (k + 1) & (v->cap - 1);
    if (!v->vpn[k]) {
        if (2 * (v->used + 1) > v->cap) {
            grow(v);
            return rp_vmem_translate(v, vaddr);
        }
        v->vpn[k] = vpn + 1;
        v->pfn[k] = v->next_frame % v->frames;
        if (v->next_frame >= v->frames)
            v->aliased++;
        v->next_frame++;
        v->used++;
    }
    v->last_vpn = vpn;
    v->last_pfn = v->pfn[k];
    return (v->pfn[k] << v->page_shift) | off;
}
