/* The compute units' port into the memory system (cgm/gpu_request.h). */
#include "memsys_internal.h"

#include "cgm/check.h"

#include <stdio.h>

/* The physical address of a CU's virtual address: through the page table
 * the CPU's TLBs use, in the process's address space (0) or, with pages of
 * its own, in the GPU's (1); without a page table, the address itself.
 * False when physical memory is exhausted or the address is beyond the
 * memory modelled. */
static bool gpu_translate(struct cgm_memsys *m, uint64_t vaddr, uint64_t *paddr)
{
    *paddr = vaddr;
    if (m->pt) {
        unsigned pb = cgm_page_table_page_bits(m->pt);
        uint64_t pfn;
        uint32_t asid = m->cfg.gpu_own_pages ? 1 : 0;
        if (!cgm_page_table_lookup(m->pt, asid, vaddr >> pb, &pfn) &&
            !cgm_page_table_map(m->pt, asid, vaddr >> pb, &pfn))
            return false;
        *paddr = pfn << pb | (vaddr & ((1ull << pb) - 1));
    }
    return *paddr >> m->block_shift < m->cfg.mem_bytes >> m->block_shift;
}

void memsys_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    struct cgm_memsys *m = ctx;
    (void)op;
    (void)block;
    struct node *n = &m->nodes[cgm_coh_gpu_l1_node(m->coh, cu)];
    struct cgm_gpu_request r = n->greqs[tag].r;
    memsys_record_free(n, tag);
    if (m->gpu_done)
        m->gpu_done(m->gpu_ctx, &r, value, ks_domain_cycle(m->gpu) + n->latency);
}

/* Vector loads and stores go to the CU's vector L1; an atomic is performed
 * there as a store (it needs the block exclusive); scalar loads go to the
 * vector L1 too (the model has no scalar cache yet). */
static bool gpu_port_access(void *ctx, const struct cgm_gpu_request *r)
{
    struct cgm_memsys *m = ctx;
    CGM_CHECK(r->cu < m->cfg.coh.gpu.cus && r->op < CGM_GPU_NOPS);
    struct node *n = &m->nodes[cgm_coh_gpu_l1_node(m->coh, r->cu)];
    if (n->cpu.n >= m->cfg.gpu_queue)
        return false;
    uint64_t paddr;
    if (!gpu_translate(m, r->vaddr, &paddr)) {
        /* Answered at once with nothing read, so the caller does not wait
         * for ever; cgm_memsys_gpu_error says what went wrong. */
        if (!m->gpu_error[0])
            snprintf(m->gpu_error, sizeof m->gpu_error, "GPU address 0x%llx: physical memory exhausted or "
                     "beyond the memory modelled", (unsigned long long)r->vaddr);
        if (m->gpu_done)
            m->gpu_done(m->gpu_ctx, r, 0, ks_domain_cycle(m->gpu));
        return true;
    }
    int idx = memsys_record_take(n);
    if (idx < 0)
        return false;
    uint8_t op = r->op == CGM_GPU_LOAD || r->op == CGM_GPU_SCALAR_LOAD ? CGM_OP_LOAD : CGM_OP_STORE;
    n->greqs[idx] = (struct gpu_req){ .r = *r, .block = paddr >> m->block_shift, .op = op };
    memsys_node_request(m, n, (unsigned)idx, ks_domain_cycle(m->gpu));
    return true;
}

struct cgm_gpu_mem_port cgm_memsys_gpu_port(struct cgm_memsys *m, struct cgm_page_table *pt, cgm_gpu_done_fn done,
                                            void *ctx)
{
    m->pt = pt;
    m->gpu_done = done;
    m->gpu_ctx = ctx;
    return (struct cgm_gpu_mem_port){ .ctx = m, .access = gpu_port_access };
}

const char *cgm_memsys_gpu_error(const struct cgm_memsys *m) { return m->gpu_error; }
