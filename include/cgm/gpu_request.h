/* What a GPU compute unit asks of the memory below it: one access of at
 * most a block, from the vector memory unit (after its coalescer, or one
 * per lane when the L1's MSHR merges them) or from the scalar unit.
 *
 * The compute unit model sees memory only through struct cgm_gpu_mem_port,
 * so the same model runs on the full GPU hierarchy of the memory system
 * (vector L1s, scalar caches, L2 banks, hub, IOMMU) or on a plain timed
 * memory for analytical tests. Addresses are guest virtual addresses: the
 * memory below translates them (per-CU TLB, IOMMU page walk). */
#ifndef CGM_GPU_REQUEST_H
#define CGM_GPU_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

enum cgm_gpu_op {
    CGM_GPU_LOAD,         /* vector load through the CU's vector L1 */
    CGM_GPU_STORE,        /* vector store */
    CGM_GPU_ATOMIC,       /* vector read-modify-write */
    CGM_GPU_SCALAR_LOAD,  /* scalar load through the CU's scalar cache */
    /* Synchronisations at the CU's vector L1 for a self-invalidating
     * protocol (CGM_OP_ACQUIRE, CGM_OP_RELEASE of cgm/coh.h; vaddr and
     * bytes unused); answered at once under the others. */
    CGM_GPU_ACQUIRE,
    CGM_GPU_RELEASE,
    CGM_GPU_NOPS
};

/* Instruction bits the memory below may honour (SI's GLC and SLC). */
enum { CGM_GPU_GLC = 1, CGM_GPU_SLC = 2 };
/* A synchronisation of system scope (kernel start and end): it reaches
 * the GPU L2 (else device scope: the vector L1 only). */
enum { CGM_GPU_SCOPE_SYSTEM = 4 };

struct cgm_gpu_request {
    uint64_t vaddr;       /* guest virtual; [vaddr, vaddr + bytes) stays in one block */
    uint64_t tag;         /* the caller's, handed back at completion */
    uint64_t value;       /* stores: the value written (functional checks); else 0 */
    uint16_t cu;          /* compute unit */
    uint16_t bytes;
    uint8_t op;           /* enum cgm_gpu_op */
    uint8_t flags;        /* CGM_GPU_GLC | CGM_GPU_SLC */
};

/* A request is performed: loads get the value read, stores the value
 * written; gpu_cycle is the GPU cycle its result is available (it may be
 * in the future). */
typedef void (*cgm_gpu_done_fn)(void *ctx, const struct cgm_gpu_request *r, uint64_t value,
                                uint64_t gpu_cycle);

/* The memory a compute unit talks to. access queues r at the CU's port
 * (call it from a context in the GPU clock domain) and returns false when
 * the port's queue is full: try again next cycle. Completion comes later,
 * through the done function given to whatever made the port. */
struct cgm_gpu_mem_port {
    void *ctx;
    bool (*access)(void *ctx, const struct cgm_gpu_request *r);
    /* The CU's vector L1 is invalidated (buffer_wbinvl1, the start of a
     * kernel): returns the GPU cycles it takes, 0 if the L1 has nothing to
     * drop (its protocol keeps it coherent). NULL: never anything. */
    unsigned (*invalidate)(void *ctx, unsigned cu);
};

#endif
