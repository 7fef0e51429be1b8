/* The GPU's insides, shared by the files of replay/gpu: kernels, work-groups,
 * wavefronts, compute units and the dispatcher. */
#ifndef REPLAY_GPU_INTERNAL_H
#define REPLAY_GPU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cgm/gpu_request.h"
#include "cgm/knightsim.h"
#include "cgm/sirec.h"
#include "replay/config.h"
#include "replay/gpu/coalesce.h"
#include "replay/gpu/gpu.h"
#include "replay/gpu/ideal_mem.h"
#include "replay/gpu/kernel_stats.h"
#include "replay/gpu/program.h"
#include "replay/gpu/sync.h"
#include "replay/gpu/wave_reader.h"

#define RP_NEVER UINT64_MAX

/* The unit types of the issue stage: at most one instruction of each issues
 * per cycle, from the pool whose turn it is. */
enum rp_issue_type { IT_BRANCH, IT_SCALAR, IT_SIMD, IT_VMEM, IT_LDS, IT_COUNT };

/* Why a compute unit's cycle issued nothing (the first that applies). */
enum rp_cu_stall {
    CS_UNIT_BUSY,   /* an instruction was ready but its unit could not take it */
    CS_MEMORY,      /* wavefronts wait in s_waitcnt or s_endpgm for memory */
    CS_BARRIER,     /* wavefronts wait at s_barrier */
    CS_DEPENDENCY,  /* wavefronts wait for their previous instruction */
    CS_FETCH,       /* nothing ready in the issuing pool's fetch buffer */
    CS_COUNT
};
/* Their names in the statistics (gpu_stats.c). */
extern const char *const rp_cu_stall_names[CS_COUNT];

struct rp_kernel {
    uint32_t launch, kernel;
    char name[128];
    uint32_t grid[3], group[3];
    uint64_t lds_bytes;            /* per work-group, fixed and dynamic */
    uint32_t vgprs, sgprs;         /* 0: not in the trace (no limit applied) */
    uint32_t waves;                /* per work-group */
    struct rp_launch_streams streams;
    uint64_t groups, dispatched, finished;
    uint64_t launched_tick;        /* when the host launched it (engine ticks) */
    uint64_t start, end;           /* GPU cycles; end RP_NEVER while it runs */
    bool launched, started, done;
    uint64_t shown_start, shown_end, shown_cycles; /* at the last snapshot (gpu_stats.c) */
    struct rp_thread *waiter;      /* a host thread in gpu_done for it */
    struct rp_thread *host;        /* the thread that launched it */
    uint64_t map_addr, map_bytes;  /* the driver's region for it (gpu_map), given back at its end */
    struct rp_kernel *next;        /* the queue of kernels not done, by launch id */
};

enum rp_wave_state {
    W_READY,      /* may fetch (from ready_at on) */
    W_BUSY,       /* its instruction has not yet reached the point it may fetch again */
    W_WAITCNT,    /* s_waitcnt: until its counts are reached */
    W_BARRIER,    /* at s_barrier */
    W_ENDING,     /* s_endpgm: until its memory accesses are done */
    W_DONE
};

/* What the wavefront does when its instruction completes (scalar unit). */
enum rp_wave_then { THEN_NONE, THEN_WAITCNT, THEN_BARRIER, THEN_END };

/* The instruction a wavefront fetched and has not issued yet. */
struct rp_winst {
    const struct cgm_si_static *s;
    uint64_t exec;
    uint64_t fetch_ready;
    uint32_t lds_cycles;
    uint16_t nreq;
    struct rp_mreq req[RP_MREQ_MAX];
};

struct rp_wg;
struct cgm_memsys;
struct rp_cu;

struct rp_wave {
    struct rp_cu *cu;
    struct rp_wg *wg;
    unsigned index, pool, slot;     /* index: its number in the work-group's stream */
    enum rp_wave_state state;
    enum rp_wave_then then;
    uint64_t ready_at;
    uint8_t wait_vm, wait_lgkm;    /* W_WAITCNT, THEN_WAITCNT */
    /* vector memory instructions complete in issue order for vmcnt: a bit
     * per one in flight (seq % 64), retired up to the first not done */
    uint64_t vm_issued, vm_retired, vm_done_bits;
    unsigned lgkm;                 /* scalar loads and LDS instructions in flight */
    struct rp_winst inst;
    struct cgm_si_dyn dyn;         /* decoding room */
    uint64_t instructions;
};

struct rp_wg {
    struct rp_kernel *k;
    uint64_t id;                   /* linear work-group id */
    struct rp_cu *cu;
    unsigned nwaves, waves_left;   /* wavefronts, and those not done */
    unsigned live, at_barrier;     /* not past s_endpgm; waiting at s_barrier */
    uint64_t lds;                  /* allocated */
    uint64_t start;                /* cycle it was mapped */
    struct rp_wave *waves;
    struct rp_wg_stream stream;    /* its wavefronts' instructions */
    struct rp_wg *next;            /* the compute unit's list */
};

/* A memory instruction in flight: its requests and their completions. */
struct rp_mslot {
    struct rp_wave *w;
    uint64_t vm_seq;               /* vector memory: the wavefront's number for it */
    uint64_t done_at;              /* latest completion among its requests */
    uint64_t issued;               /* the cycle it entered the slot */
    uint16_t nreq, sent, pending;
    uint8_t op, flags;
    bool busy, vector;
    bool holds_vmb;                /* vector: it holds an entry of the vector memory buffer */
    struct rp_mreq *req;
};

struct rp_pool {
    struct rp_wave **slot;         /* wavefronts_per_simd entries, NULL when free */
    uint64_t *wake;                /* per slot: the cycle its wavefront needs looking at (RP_NEVER: until
                                      something else pokes it) */
    /* A bit per slot: its wake is not RP_NEVER (timed), its wavefront is
     * ready to fetch (ready). Fetch looks at timed slots only, and not at
     * the ready ones while the fetch buffer is full. */
    uint64_t timed_bits, ready_bits;
    unsigned waves;
    uint64_t vgprs, sgprs;         /* in use */
    struct rp_wave **fb;           /* fetch buffer, oldest first */
    unsigned fb_n;
    uint64_t simd_free;            /* cycle the SIMD takes its next instruction */
};

struct rp_cu_stats {
    uint64_t insts[CGM_SI_UNIT_COUNT];   /* wavefront instructions issued, by unit */
    uint64_t lanes[CGM_SI_UNIT_COUNT];   /* their active lanes (EXEC), shown for [energy] only */
    uint64_t busy, stall[CS_COUNT], idle;
    uint64_t wave_cycles, peak_waves;    /* resident wavefronts summed over cycles; peak */
    uint64_t work_groups, work_group_cycles;  /* ended; their cycles from mapping to end, summed */
    uint64_t lds_insts, lds_cycles, lds_conflict_cycles;
    uint64_t vmem_insts, vmem_requests, smem_requests;
    uint64_t vmem_stall;                 /* cycles a vector memory instruction waited for the unit (M2S-CGM's "stall") */
    uint64_t port_refused;
    /* operations: a vector instruction's active lanes, a scalar ALU, scalar
       memory or branch instruction 1 (seed 001's OPC counts these) */
    uint64_t lane_ops;
    uint64_t vmem_done, vmem_latency, vmem_latency_max; /* vector memory instructions retired, their
                                                           cycles from issue to last answer, the longest */
    uint64_t vmb_full;                   /* cycles every entry of the vector memory buffer was taken */
};

struct rp_cu {
    struct rp_gpu *gpu;
    unsigned id;
    /* Synchronisations for a self-invalidating protocol the port refused
     * (bit 0 a system release, 1 a system acquire, 2 a device acquire),
     * asked again each cycle; the kernel whose start this CU acquired. */
    uint8_t sync_want;
    const struct rp_kernel *synced_kernel;
    struct rp_pool *pools;
    unsigned next_pool;            /* where the next work-group's first wavefront goes */
    struct rp_wg *wgs;             /* resident */
    struct rp_wg *dead;            /* ended this cycle, freed at the next */
    unsigned nwgs, waves;
    uint64_t lds_used;
    /* LDS: completion cycles of the instructions in it, in order */
    uint64_t *lds_done;
    unsigned lds_head, lds_n;
    uint64_t lds_free;
    /* memory instructions in flight: vector then scalar. The vector memory
       buffer's vmem_buffer entries bound the vector ones; with non-blocking
       stores a store gives its entry back once sent and keeps a slot (of
       64) until answered, for vmcnt */
    struct rp_mslot *slots;
    unsigned nslots, nvslots;
    unsigned vmb_size, vmb_used;
    uint64_t free_mask[2];         /* free slots, a bit each: [0] scalar (from nvslots on), [1] vector */
    uint64_t *fin;                 /* slots whose requests have all been answered */
    unsigned fin_n;
    unsigned nstate[W_DONE + 1];   /* resident wavefronts by state */
    uint64_t *send;                /* slot numbers with requests to send, in issue order */
    unsigned send_head, send_n;
    unsigned send_kind[2];         /* of them: [0] scalar, [1] vector */
    unsigned mem_unknown;          /* requests whose completion is not known yet */
    ks_eventcount ec;              /* a completion came, or a work-group was mapped */
    enum rp_cu_stall why;          /* last stall cause */
    uint64_t counted;              /* asleep: cycles before this one are counted (else RP_NEVER) */
    unsigned sleep_waves;          /* asleep: wavefronts resident */
    /* waiting instead of trying each cycle (cu.c, poll_wait): the cycle
       before the wait repeats, but for the pool whose turn it is */
    bool polling;
    bool refused_watched;          /* this cycle the port refused a store that marks a buffer */
    uint32_t poll_blocked, poll_vstall; /* a bit per pool: an instruction blocked on its unit; a
                                           vector memory one */
    enum rp_cu_stall poll_why;     /* the cause of a turn where none is blocked */
    uint64_t poll_refusals;        /* the port's refusals each cycle */
    bool issued_type[IT_COUNT];
    bool unit_blocked;
    struct rp_cu_stats st;
    struct rp_cu_stats shown;      /* st up to the last snapshot's cycle (gpu_stats.c) */
};

struct rp_gpu {
    struct rp_sim *sim;
    const struct rp_config *cfg;
    ks_engine *eng;
    ks_domain *domain;
    struct rp_gpu_trace trace;
    struct rp_ideal_mem ideal;
    struct cgm_gpu_mem_port port;
    bool self_inv;                 /* the hierarchy runs a self-invalidating protocol (replay/coh_sync.h) */
    struct cgm_memsys *room_ms;    /* the hierarchy, which says when a CU's port has room (the ideal
                                      memory refuses nothing) */
    struct rp_sync sync;           /* copies and flushes between the CPU's and the GPU's memory */
    struct rp_cu *cus;
    unsigned ncus;
    /* kernels */
    struct rp_kernel **kernels;    /* every launch seen, in launch order */
    size_t nkernels, kernels_cap;
    struct rp_kernel *queue_head;  /* kernels not done, by launch id */
    uint32_t next_launch;          /* the launch that runs next (ids count from 1) */
    uint64_t next_group;           /* of the head kernel, next to dispatch */
    unsigned rr;                   /* dispatcher: the compute unit to try first */
    uint64_t last_end;             /* the last kernel's end: the next starts no earlier */
    ks_eventcount dispatch_ec;     /* a kernel was queued or a work-group ended */
    /* driver memory */
    uint64_t driver_pages, driver_regions;
    uint64_t pending_map_addr, pending_map_bytes;  /* a launch region whose gpu_launch comes next */
    uint32_t pending_map_launch;
    /* limits and derived settings */
    unsigned simd_cycles;
    bool warned_resources;
    bool stopping;
    uint64_t issued;               /* wavefront instructions, all compute units */
    uint64_t watch_issued, watch_cycle; /* rp_gpu_stuck: issued at the GPU cycle it last moved */
    uint64_t shown_cycle;          /* the last snapshot's GPU cycle */
    struct rp_kstats *kstats;      /* statistics per kernel (kernel_stats.c) */
    const char *unit_names[CGM_SI_UNIT_COUNT];
};

/* dispatch.c */
void rp_dispatcher_main(void *arg);
/* A work-group of CU ended (from the compute unit's context). */
void rp_dispatch_wg_done(struct rp_gpu *g, struct rp_wg *wg);
/* The kernel at the queue's head ended. */
void rp_gpu_kernel_done(struct rp_gpu *g, struct rp_kernel *k);
/* A fatal error: the run stops with MSG. */
void rp_gpu_fail(struct rp_gpu *g, const char *msg);

/* gpu_stats.c: every compute unit's statistics up to NOW into what the
 * registry reads. */
void rp_gpu_settle_cus(struct rp_gpu *g, uint64_t now);
/* movement_stats.c: the "data_movement" group under PARENT. */
void rp_gpu_data_movement_register(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat parent);

/* cu.c */
int rp_cu_init(struct rp_cu *cu, struct rp_gpu *g, unsigned id);
void rp_cu_free(struct rp_cu *cu);
void rp_cu_main(void *arg);
void rp_cu_mem_done(struct rp_cu *cu, uint64_t tag, uint64_t cycle);
/* Work-group wg of kernel k starts on cu: the kernel's start is an acquire
 * there (once per kernel, replay/coh_sync.h). */
void rp_cu_wg_start(struct rp_cu *cu, const struct rp_kernel *k);
/* Its statistics up to cycle NOW (the cycles it has slept through counted). */
void rp_cu_stats_at(const struct rp_cu *cu, uint64_t now, struct rp_cu_stats *out);
/* Wavefront W starts (its first fetch no earlier than AT). */
void rp_cu_wave_start(struct rp_cu *cu, struct rp_wave *w, uint64_t at);

#endif
