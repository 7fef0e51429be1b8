/* Copies and flushes between the CPU's and the GPU's memory, charged per
 * memory organisation as seed 000 charges them (Sec. 4.2, and its driver's
 * copy calls):
 *   NC-MC, NC-L3  the GPU's data live on pages of their own: a copy to the
 *                 GPU runs as CPU loads of the host's words and stores to
 *                 the GPU's, 4 bytes at a time, then a CPU flush of every
 *                 block written; a copy back first flushes the blocks from
 *                 the GPU's caches, then copies;
 *   C-MC          one address space, requests joining at the memory
 *                 controller: only the flushes (CPU before the GPU reads,
 *                 GPU before the CPU reads);
 *   C-L3          nothing: the L3's directory keeps both sides coherent.
 * The accesses go through the memory system from the calling thread's
 * core, at most cpu.mem_ports per cycle and cpu.lsq_size in flight (the
 * copy loop of an out-of-order core), each phase fenced: the next starts
 * when the last one's accesses are all done. The thread waits off its
 * core meanwhile (the system time of the seed's Study 1 breakdown).
 *
 * What is charged when:
 * - a recorded copy (gpu_copy) between host memory and a GPU buffer
 *   (gpu_alloc) at that event; copies between two buffers or two host
 *   ranges are the DMA engine's and cost no CPU time;
 * - in a program that makes no copies (it shares its GPU buffers by
 *   pointer, as one written for a coherent system does), every buffer as
 *   if the program copied it the way one for the non-coherent system
 *   must: to the GPU at a launch when the CPU stored into it since the
 *   last launch, back at a gpu_done that leaves the thread no kernel in
 *   flight when the GPU stored into it since the last copy back (a wait
 *   for several kernels copies once, after the last). A program that copies (a gpu_copy seen) is taken
 *   to manage its buffers itself from then on. */
#ifndef REPLAY_GPU_SYNC_H
#define REPLAY_GPU_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "cgm/events.h"
#include "cgm/knightsim.h"
#include "cgm/xfer.h"
#include "replay/gpu/adsm.h"

struct rp_gpu;
struct rp_thread;

/* A GPU buffer (gpu_alloc). */
struct rp_region {
    uint64_t addr, bytes;
    bool cpu_dirty, gpu_dirty;     /* stored into since its last copy that way */
};

/* What a job waits for: a recorded copy, the copies before a launch, after a gpu_done, the
 * thread's asynchronous copies still on the copy engine. */
enum rp_sync_why { WHY_COPY, WHY_LAUNCH, WHY_DONE, WHY_ASYNC };

enum rp_sync_phase_kind { PH_COPY, PH_FLUSH_CPU, PH_FLUSH_GPU };

struct rp_sync_phase {
    uint8_t kind;
    uint8_t dst_asid, src_asid;    /* address spaces (PH_FLUSH_*: src_asid) */
    uint64_t dst, src, bytes;      /* PH_FLUSH_*: src and bytes */
};

/* One thread's copies and flushes in progress. */
struct rp_sync_job {
    struct rp_thread *t;
    unsigned core;
    uint64_t start;                /* CPU cycle */
    struct rp_sync_phase *ph;
    unsigned nph, cap, at;         /* phases, the one being issued */
    uint64_t offset;               /* into phase at: bytes issued (PH_COPY: half-steps) */
    unsigned inflight;
    uint64_t ready;                /* the latest completion cycle of its accesses (and of its transfers) */
    uint8_t why;                   /* enum rp_sync_why: whose wait it is */
    uint64_t async_done;           /* the CPU cycle its thread's asynchronous copies end */
    bool active;
};

struct rp_sync {
    struct rp_gpu *gpu;
    bool copies, flushes;          /* what the organisation charges */
    bool program_copies;           /* a gpu_copy was seen: no implicit copies */
    struct rp_region *regions;     /* sorted by address, disjoint */
    size_t nregions, regions_cap;
    struct rp_sync_job *jobs;      /* one per host thread (by index in the scheduler) */
    size_t njobs;
    unsigned active;
    ks_eventcount ec;              /* a job started */
    /* The copy protocol (gpu.copy_policy other than launch) and the copy
     * engine: in a discrete system the DMA engine over the link; in an
     * integrated one, for the transfers no thread waits for at an event
     * (a fault's block, rolling's eager blocks), a copy loop at its peak
     * rate (a word loaded and stored per two memory ports per cycle). */
    bool adsm_on, discrete;
    struct rp_adsm adsm;
    struct cgm_link link;
    struct cgm_dma dma;
    uint64_t cpu_hz;
    uint64_t engine_free;          /* integrated: the CPU cycle the copy loop is free */
    uint64_t eager_done;           /* the CPU cycle the last eager transfer ends */
    struct rp_sync_job *collect;   /* integrated, at a launch or gpu_done: the job the moves go into */
    uint64_t move_now, move_done;  /* otherwise: when the moves start, the latest end (CPU cycles) */
    bool move_failed;
    uint64_t fault_wait_cycles, launch_wait_cycles, done_wait_cycles, copy_wait_cycles;
    uint64_t async_copies, async_bytes, async_wait_cycles;
    /* statistics */
    uint64_t system_cycles;        /* CPU cycles threads spent in copies and flushes */
    uint64_t jobs_done, bytes_copied, blocks_flushed, implicit_copies;
};

/* Builds the engine for G's organisation and its context in the CPU
 * domain CPU. 0, or -1 (out of memory, or the engine refused). */
int rp_sync_init(struct rp_sync *y, struct rp_gpu *g, ks_domain *cpu, char *err, size_t errlen);
void rp_sync_free(struct rp_sync *y);
/* gpu_alloc, gpu_free. */
bool rp_sync_alloc(struct rp_sync *y, uint64_t addr, uint64_t bytes);
void rp_sync_release(struct rp_sync *y, uint64_t addr);
/* Stores into GPU buffers (by virtual address) by a core, by a compute
 * unit: call for stores inside the sim's [gpu_watch_lo, gpu_watch_hi). */
void rp_sync_cpu_store(struct rp_sync *y, uint64_t va);
void rp_sync_gpu_store(struct rp_sync *y, uint64_t va);
/* A core's access to VA inside the buffers under a copy protocol that
 * watches them (lazy, rolling): the CPU cycles it waits beyond its own
 * (a protection fault and the block it brings back), 0 when it does not
 * fault. */
uint64_t rp_sync_cpu_touch(struct rp_sync *y, uint64_t va, bool write);
/* The copies thread T (on CORE) makes at a gpu_copy event, before a launch
 * (to the GPU) or after a gpu_done (back): false when T must wait for them
 * (it is made runnable again when they are done, with t->synced set). */
bool rp_sync_copy(struct rp_sync *y, struct rp_thread *t, unsigned core, const struct cgm_event *ev);
/* A gpu_copy_async: on the copy engine, T goes on. A launch, gpu_done or
 * gpu_wait of T waits for it (rp_sync_wait_async for gpu_wait). */
void rp_sync_copy_async(struct rp_sync *y, struct rp_thread *t, const struct cgm_event *ev);
bool rp_sync_wait_async(struct rp_sync *y, struct rp_thread *t, unsigned core);
bool rp_sync_before_launch(struct rp_sync *y, struct rp_thread *t, unsigned core);
bool rp_sync_after_done(struct rp_sync *y, struct rp_thread *t, unsigned core);
/* The memory system performed one of the engine's accesses (TAG). */
void rp_sync_mem_done(struct rp_sync *y, uint64_t tag, uint64_t cycle);
/* The engine's context. */
void rp_sync_main(void *arg);

/* The tag kind of the engine's accesses (the cores use the others). */
#define RP_SYNC_TAG (3ull << 62)

#endif
