/* The timed memory system: per core a data and instruction cache
 * controller, L3 slices holding the directory (the MESI protocol of
 * cgm/coh.h), a ring of switches (cgm/net.h), the system agent with the
 * memory controller, and DRAM (cgm/dram.h); with compute units, a vector L1
 * controller per CU and GPU L2 banks joined by a crossbar, reaching the
 * ring through the hub on the system agent's switch. Every element is a
 * KnightSim context in its clock domain (struct cgm_memsys_domains).
 *
 * Lanes: messages to a directory travel on the request lane, from a
 * directory on the reply lane, blocks forwarded core to core on the
 * coherence lane; each source-destination pair thus uses one lane and
 * stays in order, which the protocol needs. */
#ifndef CGM_MEMSYS_H
#define CGM_MEMSYS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/coh.h"
#include "cgm/dram.h"
#include "cgm/gpu_request.h"
#include "cgm/keys.h"
#include "cgm/knightsim.h"
#include "cgm/mmu.h"
#include "cgm/net.h"

/* The clock domains the memory system's contexts run in, made by the
 * caller (who runs its own contexts in them too): caches and cores in the
 * CPU domain, GPU caches and hub in the GPU domain, the ring and the system
 * agent in the system domain, DRAM in its own. */
struct cgm_memsys_domains {
    ks_domain *cpu, *gpu, *sys, *dram;
    ks_domain *gpu_dram;              /* a discrete GPU's own DRAM (gpu_dram_on), else NULL */
};
/* Creates the four domains in eng (before its first run): CPU, system and
 * GPU at the frequencies given, DRAM at 1 / tCK of dram. 0, or -1 with
 * the reason in err. */
int cgm_memsys_domains_create(ks_engine *eng, uint64_t cpu_hz, uint64_t gpu_hz, uint64_t sys_hz,
                              const struct cgm_dram_config *dram, struct cgm_memsys_domains *d, char *err,
                              size_t errlen);

/* Adds d->gpu_dram, the clock of a discrete GPU's own DRAM, at 1 / tCK of
 * gpu_dram (before the engine's first run). 0, or -1 with the reason in err. */
int cgm_memsys_gpu_dram_domain_create(ks_engine *eng, const struct cgm_dram_config *gpu_dram,
                                      struct cgm_memsys_domains *d, char *err, size_t errlen);

/* The built-in clocks: a 4 GHz CPU, a 1 GHz GPU and a 2 GHz system (seed
 * 000 Table 4.1), DRAM at its own. */
int cgm_memsys_default_domains(ks_engine *eng, const struct cgm_dram_config *dram, struct cgm_memsys_domains *d,
                               char *err, size_t errlen);

struct cgm_memsys_config {
    unsigned cores, slices;
    unsigned block_bytes;             /* cache block (power of two); every cache uses it */
    unsigned header_bytes;            /* a packet's header; data packets carry a block more */
    struct cgm_coh_config coh;        /* cache geometry, MSHR, queues; coh.gpu: the GPU's
                                         (coh.gpu.cus 0: no GPU) and its organisation */
    unsigned l1_latency, l2_latency, l3_latency; /* CPU cycles; an L2 hit costs l1 + l2 */
    unsigned ports;                   /* requests a controller takes per cycle */
    unsigned rx_queue;                /* a controller's input queue per lane */
    unsigned cpu_queue;               /* a core's request queue into its L1 */
    /* The cores' L1 MSHR files, below the L2's (coh.mshr): while an L1 has
     * this many blocks missing, it takes no request for another block (a
     * blocked cache); 0: the L2's file alone bounds its misses. */
    unsigned l1i_mshr, l1d_mshr;
    unsigned retry_cycles;            /* NACK back-off */
    struct cgm_net_config net;
    unsigned sa_latency;              /* system cycles through a system agent */
    unsigned mc_queue;                /* requests in flight at each memory controller */
    struct cgm_dram_config dram;      /* each memory controller's DRAM */
    /* Memory controllers (1 to 64), each with DRAM of the dram settings
     * behind a system agent on a ring switch of its own. Physical
     * addresses spread over them in runs of mem_interleave bytes,
     * controller after controller (a power of two, at least a block: a
     * block's size interleaves by block, a page's by page), or with
     * mem_interleave 0 in contiguous ranges, one per controller. */
    unsigned mem_controllers;
    uint64_t mem_interleave;
    uint64_t mem_bytes;               /* physical memory modelled (functional values) */
    bool check_dram;                  /* run the DRAM timing checker on every command */
    /* GPU cycles: a vector L1 hit costs gpu_l1_latency; an L2 bank takes
     * gpu_l2_latency from a message to its answer */
    unsigned gpu_l1_latency, gpu_l2_latency;
    unsigned gpu_ports;               /* requests or messages a GPU cache takes per cycle */
    unsigned gpu_queue;               /* a CU's request queue into its vector L1 */
    unsigned gpu_xbar_bytes;          /* each crossbar port between the vector L1s and the L2
                                         banks: bytes per GPU cycle each way */
    /* The hub's link between the L2 banks and the ring: each way gpu_link_bytes
     * per GPU cycle (32 at 1 GHz is seed 000's 32 GB/s), and hub_latency
     * GPU cycles more for every packet crossing it. */
    unsigned gpu_link_bytes, hub_latency;
    /* Hubs (at least one, each with such a link): L2 bank b reaches the
     * ring through hub b mod gpu_hubs. */
    unsigned gpu_hubs;
    /* The scalar caches: one per gpu_scalar_share CUs (seed 000: one per
     * CU; SI hardware shares one among up to four). As in the seed every
     * access hits (a kernel's scalar data is placed there before it runs)
     * after gpu_scalar_latency GPU cycles, and a cache is busy for that
     * long with each access. */
    unsigned gpu_scalar_latency, gpu_scalar_share;
    /* Translation, with a page table (cgm_memsys_gpu_port): a TLB per CU
     * (gpu_tlb_latency GPU cycles on a hit), kept across kernels (only
     * unmapping and mprotect take entries out); a miss waits for one of
     * the IOMMU's iommu_walkers page walkers: iommu_walk_latency GPU
     * cycles, plus a fault latency when the page was mapped already (soft)
     * or is mapped now (hard). A miss on a page a walker is walking waits
     * for that walk instead of starting another. */
    unsigned gpu_tlb_sets, gpu_tlb_ways, gpu_tlb_latency;
    /* The GPU MMU of seed 002 Sec. 2.5 (gpu_l1_virtual): virtually indexed,
     * virtually tagged vector L1s, so an access its L1 finishes by itself
     * is not translated; one that needs the L2 (a miss, a store without a
     * writable copy) is translated first by the one TLB the CUs share
     * (gpu_tlb_shared_entries entries, gpu_tlb_ways ways, gpu_tlb_latency,
     * the IOMMU on a miss) in place of the CU's, which stay unused. */
    bool gpu_l1_virtual;
    unsigned gpu_tlb_shared_entries;
    unsigned iommu_walkers, iommu_walk_latency, iommu_soft_fault_latency, iommu_hard_fault_latency;
    bool gpu_own_pages;               /* the GPU's data on pages of its own (address space 1):
                                         the non-coherent organisations */
    /* A CU's request to a GPU L2 bank without a free MSHR or write-back
     * entry: false, it waits at the bank's door until one frees; true, the
     * bank takes it and NACKs it, and the CU's L1 sends it again
     * retry_cycles later (seed 001 Sec. 3.5.1, 4.5.1). */
    bool gpu_l2_nack_when_full;
    /* A bank's FRC (coh.gpu.l2_frc_entries): GPU cycles its tag look-up
     * adds to a miss it takes, and a swap into the L2 takes (0: 1) */
    unsigned gpu_l2_frc_latency, gpu_l2_frc_swap_latency;
    /* A discrete GPU's own memory (seed 004 Sec. 3.4.1): with gpu_dram_on
     * the GPU L2 banks' memory requests cross their hub's link to a memory
     * controller of the GPU's own, with DRAM of the gpu_dram settings in the
     * domain d->gpu_dram, instead of entering the ring; the ring's
     * controllers and their DRAM stay the host's. Needs compute units whose
     * L2 misses go to memory (coh.gpu.shared_llc false) and pages of their
     * own (gpu_own_pages). The hub's link and latency are the path from the
     * banks to that controller. */
    bool gpu_dram_on;
    struct cgm_dram_config gpu_dram;
};

/* The model's key rows ([memsys], cgm/memsys_keys.def): those
 * cgm_memsys_default_config sets, and the GPU's, which
 * cgm_memsys_default_gpu sets. A program that reads its own values for
 * them copies them with cgm_keys_copy after those calls. */
extern const struct cgm_key cgm_memsys_keys[], cgm_memsys_gpu_keys[];
extern const size_t cgm_memsys_nkeys, cgm_memsys_gpu_nkeys;
/* The rows' defaults into C. */
void cgm_memsys_key_defaults(const struct cgm_key *keys, size_t n, struct cgm_memsys_config *c);

/* The built-in system (close to seed 000 Sec. 3.4.1 / Table 4.1):
 * quad-core, 32 KB 8-way L1s, 256 KB 8-way L2s, 2 MB 16-way L3 slices,
 * ring, dual channel DDR3-1600, 256 MB of modelled memory, 64-byte blocks
 * and 8-byte headers (run it at 4 GHz with a 2 GHz system clock). */
void cgm_memsys_default_config(struct cgm_memsys_config *c);

/* Adds a GPU of cus compute units as seed 000 builds it (Table 4.1, the
 * original code's settings): per CU a 16 KB 4-way vector L1 (1 cycle, MSHR
 * 16, coalescer 32), an L2 bank of 64 KB 16-way (3 cycles, MSHR 32,
 * coalescer 64) per four CUs (at least one, a power of two), in one of the
 * four organisations of seed 000 Sec. 4.2:
 *   coherent  shared_llc
 *   false     false       NC-MC: own pages, GPU misses to the memory controller
 *   false     true        NC-L3: own pages, GPU misses to the L3, untracked
 *   true      false       C-MC: shared pages, misses to the memory controller
 *                         (flush before the other side reads)
 *   true      true        C-L3: shared pages, the L3 directory tracks the GPU */
void cgm_memsys_default_gpu(struct cgm_memsys_config *c, unsigned cus, bool coherent, bool shared_llc);

/* A request is done: called when the L1 (or the L2, on an L1 miss)
 * performs it, with the CPU cycle its result is available (that cycle plus
 * the L1 latency, plus the L2 latency if the L2 served it), which may be in
 * the future. Loads and fetches get the value read, stores the value
 * written. */
typedef void (*cgm_memsys_done_fn)(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr,
                                   uint64_t value, uint64_t cycle);

struct cgm_memsys;
struct cgm_page_class;

/* Builds every context in eng, in the domains d. NULL on a bad
 * configuration (reason in err). */
struct cgm_memsys *cgm_memsys_create(ks_engine *eng, const struct cgm_memsys_domains *d,
                                     const struct cgm_memsys_config *cfg, cgm_memsys_done_fn done, void *ctx,
                                     char *err, size_t errlen);
/* Ends every context of the memory system: call when a run is over and
 * before cgm_memsys_destroy; it runs the engine until they have returned
 * (so other contexts still scheduled will run too). */
void cgm_memsys_stop(struct cgm_memsys *m);
void cgm_memsys_destroy(struct cgm_memsys *m);
ks_domain *cgm_memsys_cpu_domain(const struct cgm_memsys *m);
const struct cgm_memsys_config *cgm_memsys_config_of(const struct cgm_memsys *m);

/* Queues a load, store or fetch of physical address addr at core's L1
 * (call from a context), or a flush of its block from the CPU's caches
 * (CGM_OP_FLUSH_CPU) or the GPU's (CGM_OP_FLUSH_GPU): the non-coherent
 * organisations hand a range over by one flush per block, as seed 000's
 * driver does, each answered like a request once done. false if the
 * core's request queue is full; try again next cycle. */
bool cgm_memsys_access(struct cgm_memsys *m, int core, uint8_t op, uint64_t addr, uint64_t tag,
                       uint64_t store_value);

/* The compute units' memory (cgm/gpu_request.h): one port for every CU,
 * a request naming its CU. Its access queues a vector request at the CU's
 * vector L1 (call it from a context in the GPU clock domain) and returns
 * false when that queue is full. Addresses are translated through pt, the
 * page table the CPU's TLBs use (in the process's address space 0, or the
 * GPU's own, 1, with gpu_own_pages), by the CU's TLB and the IOMMU, before
 * the L1 takes the request; they are physical addresses when pt is NULL.
 * done is called when a request is performed, with the GPU cycle its
 * result is available (a vector L1 hit: the cycle it was taken plus
 * gpu_tlb_latency and gpu_l1_latency). Atomics are performed as stores
 * (they take the block exclusive); scalar loads are answered by the
 * scalar cache inside the call. Only for a system with compute units. */
struct cgm_gpu_mem_port cgm_memsys_gpu_port(struct cgm_memsys *m, struct cgm_page_table *pt, cgm_gpu_done_fn done,
                                            void *ctx);
/* The CUs' TLBs drop their translation of one page, or every one (the
 * shootdown after an unmap or mprotect); nothing without compute units. */
void cgm_memsys_gpu_drop_page(struct cgm_memsys *m, uint32_t asid, uint64_t vpn);
void cgm_memsys_gpu_tlb_flush(struct cgm_memsys *m);
/* While ec is set, compute unit cu's vector L1 advances it each time it
 * takes a request out of its queue: its port may then take a request it
 * refused for a full queue. (A refusal for want of request records ends
 * with an answer, which the done function reports.) NULL stops it. A CU
 * that waits for room with ks_await_until resumes where retrying each
 * cycle would have succeeded. */
void cgm_memsys_gpu_watch_room(struct cgm_memsys *m, unsigned cu, ks_eventcount *ec);
/* "" or what went wrong with a GPU address (physical memory exhausted, or
 * an address beyond the memory modelled); such a request is answered at
 * once with the value 0. */
const char *cgm_memsys_gpu_error(const struct cgm_memsys *m);

struct cgm_memsys_stats {
    uint64_t completed, latency_sum, latency_max;
    uint64_t latency_hist[24];        /* CPU cycles, buckets [2^(i-1), 2^i) */
    uint64_t mem_reads, mem_writes;   /* summed over the memory controllers */
    uint64_t dram_violations;         /* with check_dram, summed likewise */
};
const struct cgm_memsys_stats *cgm_memsys_stats(const struct cgm_memsys *m);
/* One way of a GPU hub's link: packets and bytes that crossed it, and
 * the GPU cycles a packet ready to cross found the link busy. */
struct cgm_memsys_hub_stats {
    uint64_t packets, bytes, link_full_cycles;
};
/* Hub 0's way towards memory (up false) or towards the GPU's caches (up
 * true); NULL without compute units. */
const struct cgm_memsys_hub_stats *cgm_memsys_hub_stats(const struct cgm_memsys *m, bool up);
/* The hubs (0 without compute units), and hub i's way; NULL past the last. */
unsigned cgm_memsys_hubs(const struct cgm_memsys *m);
const struct cgm_memsys_hub_stats *cgm_memsys_hub_link_stats(const struct cgm_memsys *m, unsigned i, bool up);
/* The memory controllers; the one owning physical address addr (which
 * need not be below mem_bytes); controller i's DRAM and the requests it
 * took (NULL past the last). cgm_memsys_dram is controller 0's DRAM. */
unsigned cgm_memsys_controllers(const struct cgm_memsys *m);
unsigned cgm_memsys_controller_of(const struct cgm_memsys *m, uint64_t addr);
const struct cgm_dram *cgm_memsys_controller_dram(const struct cgm_memsys *m, unsigned i);
struct cgm_memsys_mc_stats {
    uint64_t reads, writes;
};
const struct cgm_memsys_mc_stats *cgm_memsys_controller_stats(const struct cgm_memsys *m, unsigned i);
/* A discrete GPU's own memory controller (gpu_dram_on): its DRAM and the
 * requests it took; NULL without one. */
const struct cgm_dram *cgm_memsys_gpu_dram(const struct cgm_memsys *m);
const struct cgm_memsys_mc_stats *cgm_memsys_gpu_dram_requests(const struct cgm_memsys *m);
/* With check_dram: the timing violations controller i's checker found. */
uint64_t cgm_memsys_controller_violations(const struct cgm_memsys *m, unsigned i);
/* Where a GPU L2 bank's misses spend their time, in GPU cycles (seed 001
 * Fig. 6.8's parts, as far as this model has them): fetches from below
 * (memory or the L3), each from the bank's request to its answer (the
 * memory's own access time included; a NACKed request counts from its
 * first try), and the cycles CUs' requests waited at the bank's door for
 * a free MSHR or write-back entry (gpu.l2.full_mshr = wait). The victim's
 * write-back and the CUs' copies of it are not on a miss's path here: the
 * victim leaves through the write-back queue at once. */
struct cgm_memsys_gpu_l2_timing {
    uint64_t fetches, fetch_cycles, fetch_max, entry_waits, entry_wait_cycles;
};
const struct cgm_memsys_gpu_l2_timing *cgm_memsys_gpu_l2_timing(const struct cgm_memsys *m, unsigned bank);
/* A CU's CU-to-L2 latency (seed 002 Figs. 7, 8: "SM to GPU L2"): its
 * vector loads and stores its L1 did not answer at once (they went to the
 * L2, or waited for a miss of the same block there), and the GPU cycles
 * from the L1 taking each to its answer reaching the CU; the longest. */
struct cgm_memsys_gpu_l1_timing {
    uint64_t requests, cycles, max;
};
const struct cgm_memsys_gpu_l1_timing *cgm_memsys_gpu_l1_timing(const struct cgm_memsys *m, unsigned cu);
/* A scalar cache's accesses, and the GPU cycles they waited for it. */
struct cgm_memsys_scalar_stats {
    uint64_t accesses, wait_cycles;
};
unsigned cgm_memsys_scalar_caches(const struct cgm_memsys *m);
const struct cgm_memsys_scalar_stats *cgm_memsys_scalar_stats(const struct cgm_memsys *m, unsigned i);
/* A CU's TLB (its counts stay 0 without a page table), then (cu = the
 * number of CUs, gpu_l1_virtual) the shared one; NULL past the last. */
const struct cgm_mmu *cgm_memsys_gpu_tlb(const struct cgm_memsys *m, unsigned cu);
/* The IOMMU's page walks, the TLB misses that joined a walk of their page
 * already under way, and the GPU cycles misses waited for a free walker. */
struct cgm_memsys_iommu_stats {
    uint64_t walks, joined, wait_cycles;
};
const struct cgm_memsys_iommu_stats *cgm_memsys_iommu_stats(const struct cgm_memsys *m);
const struct cgm_coh_sys *cgm_memsys_coh(const struct cgm_memsys *m);
/* The page classes a self-invalidating protocol runs on (cgm/page_class.h);
 * NULL under the others. */
const struct cgm_page_class *cgm_memsys_page_classes(const struct cgm_memsys *m);
const struct cgm_dram *cgm_memsys_dram(const struct cgm_memsys *m);
const struct cgm_net *cgm_memsys_net(const struct cgm_memsys *m);
/* Coherence messages by type a cache sent and received (see struct
 * cgm_coh_msg_stats): core's L2 (its L1s exchange no messages), or L3
 * slice's. NULL for an index out of range. */
const struct cgm_coh_msg_stats *cgm_memsys_l2_msgs(const struct cgm_memsys *m, int core);
const struct cgm_coh_msg_stats *cgm_memsys_l3_msgs(const struct cgm_memsys *m, int slice);
/* Registers the statistics of every component into group (cgm/stats.h):
 * the array "caches" (created if the group has none: one entry per cache
 * with its name, kind, counts and coherence messages), "coherence_messages",
 * "protocol_rows", "network", with compute units "gpu_hub" (hub 0's link),
 * "dram" (memory controller 0's DRAM) and "memory_requests" (summed over
 * the controllers). With several hubs or controllers, the arrays
 * "gpu_hubs" and "memory_controllers" beside them hold one entry per hub
 * or controller, the first naming the object above that holds its counts.
 * Returns 0, or -1 when out of memory. */
int cgm_memsys_stats_register(const struct cgm_memsys *m, struct cgm_stats *reg, cgm_stat group);
/* Writes those statistics as one JSON object. */
int cgm_memsys_write_json(const struct cgm_memsys *m, FILE *out);
/* With check_dram: the first timing violation found (the lowest
 * numbered controller's), or "". */
const char *cgm_memsys_dram_check_error(const struct cgm_memsys *m);

#endif
