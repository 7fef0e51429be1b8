/* The compute units' port into the memory system (cgm/gpu_request.h): the
 * scalar caches, and for vector requests the translation (a TLB per CU,
 * the IOMMU's page walk on a miss) before the CU's vector L1; with
 * virtual vector L1s (gpu_l1_virtual) only the requests that need the L2,
 * by the one shared TLB. */
#include "memsys_internal.h"

#include "cgm/check.h"

#include <stdio.h>
#include <string.h>

int memsys_gpu_side_create(struct cgm_memsys *m, char *err, size_t errlen)
{
    const struct cgm_memsys_config *c = &m->cfg;
    unsigned cus = c->coh.gpu.cus;
    if (!c->gpu_scalar_latency || !c->gpu_scalar_share || !c->gpu_tlb_sets || (c->gpu_tlb_sets & (c->gpu_tlb_sets - 1)) ||
        !c->gpu_tlb_ways || !c->iommu_walkers) {
        snprintf(err, errlen, "memsys: the scalar caches' latency and sharing, the GPU TLBs' ways and the IOMMU's "
                 "walkers must be non-zero, the TLBs' sets a power of two");
        return -1;
    }
    unsigned shared_sets = c->gpu_tlb_shared_entries / c->gpu_tlb_ways;
    if (c->gpu_l1_virtual && (!shared_sets || shared_sets * c->gpu_tlb_ways != c->gpu_tlb_shared_entries ||
                              (shared_sets & (shared_sets - 1)))) {
        snprintf(err, errlen, "memsys: the shared GPU TLB's %u entries are not a power of two sets of %u ways",
                 c->gpu_tlb_shared_entries, c->gpu_tlb_ways);
        return -1;
    }
    m->nscalar = (cus + c->gpu_scalar_share - 1) / c->gpu_scalar_share;
    m->scalar = calloc(m->nscalar, sizeof *m->scalar);
    m->gpu_tlbs = calloc(cus + 1, sizeof *m->gpu_tlbs);
    m->walkers = calloc(c->iommu_walkers, sizeof *m->walkers);
    if (!m->scalar || !m->gpu_tlbs || !m->walkers) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* The TLBs there are: one per CU, and the shared one. */
static unsigned gpu_tlb_count(const struct cgm_memsys *m) { return m->cfg.coh.gpu.cus + m->cfg.gpu_l1_virtual; }

static void free_tlbs(struct cgm_memsys *m)
{
    for (unsigned i = 0; m->gpu_tlbs && i < gpu_tlb_count(m); i++)
        cgm_mmu_free(&m->gpu_tlbs[i]);
}

void memsys_gpu_side_free(struct cgm_memsys *m)
{
    free_tlbs(m);
    free(m->gpu_tlbs);
    free(m->walkers);
    free(m->scalar);
}

/* A TLB miss of address space ASID on page VPN, asked for at GPU cycle
 * ASKED, whose walk takes WALK cycles: if a walker is walking that page, the
 * miss waits for its walk; otherwise the walker free first (the lowest
 * numbered among equals) walks it. Returns the cycle the translation is
 * done. */
static uint64_t iommu_walk(struct cgm_memsys *m, uint32_t asid, uint64_t vpn, uint64_t asked, uint64_t walk)
{
    struct iommu_walker *first = &m->walkers[0];
    for (unsigned i = 0; i < m->cfg.iommu_walkers; i++) {
        struct iommu_walker *w = &m->walkers[i];
        if (w->free > asked && w->vpn == vpn && w->asid == asid) {
            m->iommu.joined++;
            return w->free;
        }
        if (w->free < first->free)
            first = w;
    }
    uint64_t start = first->free > asked ? first->free : asked;
    m->iommu.walks++;
    m->iommu.wait_cycles += start - asked;
    *first = (struct iommu_walker){ .free = start + walk, .vpn = vpn, .asid = asid };
    return first->free;
}

/* With a page table: the CU's TLB, then on a miss the IOMMU (iommu_walk).
 * Writes the physical address and the GPU cycle the translation is done;
 * false when physical memory is exhausted or the address is beyond the
 * memory modelled. Without a page table the address is physical. */
static bool gpu_translate(struct cgm_memsys *m, unsigned cu, uint64_t vaddr, uint64_t now, uint64_t *paddr,
                          uint64_t *ready)
{
    *paddr = vaddr;
    *ready = now;
    if (m->pt) {
        struct cgm_mmu *t = &m->gpu_tlbs[m->cfg.gpu_l1_virtual ? m->cfg.coh.gpu.cus : cu];
        uint64_t misses = t->st.misses;
        uint32_t asid = m->cfg.gpu_own_pages ? 1 : 0;
        long lat = cgm_mmu_translate(t, asid, vaddr, paddr);
        if (lat < 0)
            return false;
        *ready = now + (uint64_t)lat;
        if (t->st.misses != misses) {
            uint64_t asked = now + m->cfg.gpu_tlb_latency;
            *ready = iommu_walk(m, asid, vaddr >> cgm_page_table_page_bits(m->pt), asked, *ready - asked);
        }
    }
    return *paddr >> m->block_shift < m->cfg.mem_bytes >> m->block_shift;
}

/* A virtual vector L1 finishes the request by itself (so it needs no
 * translation): its page is mapped and the L1 holds the block with the
 * permission the request needs (a store under a write-through protocol
 * goes to the L2 whatever the L1 holds, and needs a writable copy). The L1
 * is asked as the request arrives; a copy that changes while the request
 * waits in the L1's queue is not seen. The physical address goes into
 * *paddr (the block's, which the model's caches are indexed by). */
static bool virtual_l1_hit(const struct cgm_memsys *m, unsigned cu, const struct cgm_gpu_request *r, uint64_t *paddr)
{
    if (!m->pt || r->op == CGM_GPU_ATOMIC)
        return false;
    unsigned bits = cgm_page_table_page_bits(m->pt);
    uint64_t pfn, data;
    if (!cgm_page_table_lookup(m->pt, m->cfg.gpu_own_pages ? 1 : 0, r->vaddr >> bits, &pfn))
        return false;
    *paddr = pfn << bits | (r->vaddr & ((1ull << bits) - 1));
    if (*paddr >> m->block_shift >= m->cfg.mem_bytes >> m->block_shift)
        return false;
    unsigned st = cgm_coh_gpu_copy(m->coh, (int)cu, *paddr >> m->block_shift, &data);
    const struct cgm_coh_protocol *p = cgm_coh_protocol_of(m->coh, CGM_NODE_GPU_L1);
    unsigned need = r->op == CGM_GPU_STORE ? CGM_COH_WRITE : CGM_COH_READ;
    return st < p->nstates && p->permission[st] >= need;
}

void cgm_memsys_gpu_tlb_flush(struct cgm_memsys *m)
{
    for (unsigned i = 0; m->pt && i < gpu_tlb_count(m); i++) {
        cgm_mmu_flush(&m->gpu_tlbs[i], 0);
        cgm_mmu_flush(&m->gpu_tlbs[i], 1);
    }
}

void cgm_memsys_gpu_drop_page(struct cgm_memsys *m, uint32_t asid, uint64_t vpn)
{
    for (unsigned i = 0; m->pt && i < gpu_tlb_count(m); i++)
        cgm_mmu_flush_page(&m->gpu_tlbs[i], asid, vpn);
}

void cgm_memsys_gpu_watch_room(struct cgm_memsys *m, unsigned cu, ks_eventcount *ec)
{
    CGM_CHECK(cu < m->cfg.coh.gpu.cus);
    m->nodes[cgm_coh_gpu_l1_node(m->coh, (int)cu)].room = ec;
}

void memsys_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    struct cgm_memsys *m = ctx;
    (void)op;
    (void)block;
    struct node *n = &m->nodes[cgm_coh_gpu_l1_node(m->coh, cu)];
    struct cgm_gpu_request r = n->greqs[tag].r;
    uint64_t to_l2 = n->greqs[tag].to_l2, answered = ks_domain_cycle(m->gpu) + n->latency;
    memsys_record_free(n, tag);
    if (to_l2) {
        uint64_t cycles = answered - (to_l2 - 1);
        n->l2_latency.requests++;
        n->l2_latency.cycles += cycles;
        if (cycles > n->l2_latency.max)
            n->l2_latency.max = cycles;
    }
    if (m->gpu_done)
        m->gpu_done(m->gpu_ctx, &r, value, answered);
}

/* A scalar load (seed 000 and its code): the kernel's scalar data is placed
 * in the cache before the kernel runs, so every access hits; the cache is
 * busy for its latency with each, so the CUs sharing it queue. Values are
 * not modelled there: the answer carries 0. */
static bool scalar_access(struct cgm_memsys *m, const struct cgm_gpu_request *r)
{
    struct scalar_cache *c = &m->scalar[r->cu / m->cfg.gpu_scalar_share];
    uint64_t now = ks_domain_cycle(m->gpu), start = c->free > now ? c->free : now;
    c->free = start + m->cfg.gpu_scalar_latency;
    c->st.accesses++;
    c->st.wait_cycles += start - now;
    if (m->gpu_done)
        m->gpu_done(m->gpu_ctx, r, 0, c->free);
    return true;
}

/* What the CU's vector L1 is asked: an atomic is performed as a store
 * (it needs the block exclusive); the bytes the request touches and its
 * GLC and SLC bits go with it. */
struct cgm_coh_req memsys_gpu_coh_request(const struct cgm_memsys *m, const struct cgm_gpu_request *r, uint64_t paddr,
                                          unsigned idx)
{
    unsigned block = m->cfg.block_bytes;
    uint8_t flags = (r->flags & CGM_GPU_GLC ? CGM_COH_GLC : 0) | (r->flags & CGM_GPU_SLC ? CGM_COH_SLC : 0);
    return (struct cgm_coh_req){ .block = paddr >> m->block_shift, .tag = idx, .value = r->value,
                                 .mask = cgm_coh_byte_mask(block, (unsigned)(paddr & (block - 1)), r->bytes),
                                 .bytes = r->bytes, .op = r->op == CGM_GPU_LOAD ? CGM_OP_LOAD : CGM_OP_STORE,
                                 .flags = flags };
}

/* Vector loads and stores go to the CU's vector L1 once translated. */
static bool gpu_port_access(void *ctx, const struct cgm_gpu_request *r)
{
    struct cgm_memsys *m = ctx;
    CGM_CHECK(r->cu < m->cfg.coh.gpu.cus && r->op < CGM_GPU_NOPS);
    if (r->op == CGM_GPU_SCALAR_LOAD)
        return scalar_access(m, r);
    bool sync = r->op == CGM_GPU_ACQUIRE || r->op == CGM_GPU_RELEASE;
    if (sync && !m->pages) { /* nothing to do without a self-invalidating protocol */
        if (m->gpu_done)
            m->gpu_done(m->gpu_ctx, r, 0, ks_domain_cycle(m->gpu));
        return true;
    }
    struct node *n = &m->nodes[cgm_coh_gpu_l1_node(m->coh, r->cu)];
    if (n->cpu.n >= m->cfg.gpu_queue)
        return false;
    int idx = memsys_record_take(n);
    if (idx < 0)
        return false;
    uint64_t now = ks_domain_cycle(m->gpu), paddr, ready;
    if (sync) {
        n->greqs[idx] = (struct gpu_req){
            .r = *r, .ready = now,
            .req = { .tag = (unsigned)idx, .op = r->op == CGM_GPU_ACQUIRE ? CGM_OP_ACQUIRE : CGM_OP_RELEASE,
                     .flags = r->flags & CGM_GPU_SCOPE_SYSTEM ? CGM_COH_SCOPE_SYSTEM : 0 } };
        memsys_node_request(m, n, (unsigned)idx, now);
        return true;
    }
    if (m->cfg.gpu_l1_virtual && virtual_l1_hit(m, r->cu, r, &paddr))
        ready = now;
    else if (!gpu_translate(m, r->cu, r->vaddr, now, &paddr, &ready)) {
        /* Answered at once with nothing read, so the caller does not wait
         * for ever; cgm_memsys_gpu_error says what went wrong. */
        memsys_record_free(n, (uint64_t)idx);
        if (!m->gpu_error[0])
            snprintf(m->gpu_error, sizeof m->gpu_error, "GPU address 0x%llx: physical memory exhausted or "
                     "beyond the memory modelled", (unsigned long long)r->vaddr);
        if (m->gpu_done)
            m->gpu_done(m->gpu_ctx, r, 0, now);
        return true;
    }
    n->greqs[idx] = (struct gpu_req){ .r = *r, .req = memsys_gpu_coh_request(m, r, paddr, (unsigned)idx), .ready = ready };
    memsys_node_request(m, n, (unsigned)idx, now);
    return true;
}

/* Under a protocol whose vector L1s are made coherent by software (si), the
 * L1 drops its copies, clearing the valid bits one set per cycle. */
static unsigned gpu_port_invalidate(void *ctx, unsigned cu)
{
    struct cgm_memsys *m = ctx;
    CGM_CHECK(cu < m->cfg.coh.gpu.cus);
    if (!cgm_coh_gpu_invalidates(m->coh))
        return 0;
    cgm_coh_gpu_invalidate(m->coh, (int)cu);
    return m->cfg.coh.gpu.l1_sets;
}

struct cgm_gpu_mem_port cgm_memsys_gpu_port(struct cgm_memsys *m, struct cgm_page_table *pt, cgm_gpu_done_fn done,
                                            void *ctx)
{
    free_tlbs(m);
    m->pt = NULL;
    const struct cgm_memsys_config *c = &m->cfg;
    struct cgm_mmu_config tc = { .tlb_sets = c->gpu_tlb_sets, .tlb_ways = c->gpu_tlb_ways,
                                 .tlb_latency = c->gpu_tlb_latency, .walk_latency = c->iommu_walk_latency,
                                 .soft_fault_latency = c->iommu_soft_fault_latency,
                                 .hard_fault_latency = c->iommu_hard_fault_latency };
    for (unsigned i = 0; pt && i < c->coh.gpu.cus; i++)
        if (cgm_mmu_init(&m->gpu_tlbs[i], &tc, pt))
            cgm_oom("memory system: a GPU TLB");
    tc.tlb_sets = c->gpu_tlb_shared_entries / c->gpu_tlb_ways;
    if (pt && c->gpu_l1_virtual && cgm_mmu_init(&m->gpu_tlbs[c->coh.gpu.cus], &tc, pt))
        cgm_oom("memory system: the shared GPU TLB");
    m->pt = pt;
    m->gpu_done = done;
    m->gpu_ctx = ctx;
    return (struct cgm_gpu_mem_port){ .ctx = m, .access = gpu_port_access, .invalidate = gpu_port_invalidate };
}

const char *cgm_memsys_gpu_error(const struct cgm_memsys *m) { return m->gpu_error; }

unsigned cgm_memsys_scalar_caches(const struct cgm_memsys *m) { return m->nscalar; }

const struct cgm_memsys_scalar_stats *cgm_memsys_scalar_stats(const struct cgm_memsys *m, unsigned i)
{
    return i < m->nscalar ? &m->scalar[i].st : NULL;
}

const struct cgm_mmu *cgm_memsys_gpu_tlb(const struct cgm_memsys *m, unsigned cu)
{
    return cu < gpu_tlb_count(m) ? &m->gpu_tlbs[cu] : NULL;
}

const struct cgm_memsys_gpu_l1_timing *cgm_memsys_gpu_l1_timing(const struct cgm_memsys *m, unsigned cu)
{
    return &m->nodes[cgm_coh_gpu_l1_node(m->coh, (int)cu)].l2_latency;
}

const struct cgm_memsys_iommu_stats *cgm_memsys_iommu_stats(const struct cgm_memsys *m) { return &m->iommu; }
