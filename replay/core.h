/* The out-of-order core's insides (replay/core.c): micro-ops, the reorder
 * buffer with the fetch queue behind it, operand wake-up. Private to the
 * core and to tests that look inside it; the rest of replay sees the core
 * through replay/sim.h. */
#ifndef REPLAY_CORE_H
#define REPLAY_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "cgm/knightsim.h"
#include "cgm/mmu.h"
#include "replay/bpred.h"
#include "replay/sim.h"
#include "replay/x86_static.h"

enum rp_uop_kind { UOP_ALU, UOP_LOAD, UOP_STORE };

/* Beyond any reorder buffer (cpu.rob_size is at most 4096). */
#define RP_SRC_FAR 0xffff

struct rp_uop {
    uint64_t seq;
    uint64_t addr;             /* physical, loads and stores */
    uint64_t done;             /* cycle the result is available; UINT64_MAX: not yet */
    uint64_t xlat_done;        /* cycle its address translation completes */
    uint64_t line;             /* I-cache line fetch it came from (sequence + 1; 0: none) */
    uint32_t xlat;             /* translation cycles beyond a TLB hit, not yet started */
    uint16_t src_back[RP_SRC_MAX + 1]; /* sources: seq minus theirs, at most RP_SRC_FAR */
    uint8_t nsrc;
    uint8_t kind, cls, lat;
    bool issued, retire, redirect, store_done, syscall;
};

/* How far the sources of a micro-op in the issue queue are known to be
 * complete (replay/core.c, scan_sources); one per reorder-buffer entry. */
struct rp_wait {
    uint64_t ready_at;         /* latest completion of the sources looked at */
    uint64_t first_waiter;     /* seq + 1 of a uop waiting for this one's completion (0: none) */
    uint64_t next;             /* seq + 1 of the next uop in the same waiter list or wheel bucket */
    uint8_t next_src;          /* sources before this one were looked at */
};

/* Cycles the timing wheel of micro-ops about to be ready spans. */
#define RP_WHEEL 256

struct rp_core {
    struct rp_sim *sim;
    int id;
    struct rp_thread *thread;
    uint64_t slice_start;
    /* front end */
    struct rp_uop *uops;           /* ring: the reorder buffer [rob_head, rob_tail), then the
                                      fetch queue [fq_head == rob_tail, fq_tail) */
    uint64_t uop_mask, line_mask;  /* ring storage: power-of-two sizes - 1 */
    uint64_t fq_head, fq_tail;    /* sequence numbers; ring of fetch_queue */
    uint64_t fetch_block;          /* last I-cache block fetched + 1 (0: none) */
    uint64_t fetch_vpage, fetch_ppage; /* translation of the page fetch is in (vpage + 1) */
    struct cgm_mmu itlb, dtlb;
    uint64_t fetch_ready;          /* cycle fetch may continue */
    bool fetch_wait_redirect;
    /* Line fetches, pipelined: each I-cache line requested gets a sequence
     * number; its micro-ops wait in the fetch queue until it arrives. The
     * ring (fetch_queue + 1 entries: every live line has a micro-op in the
     * fetch queue, or is the current one) holds each line's arrival cycle. */
    uint64_t *line_ready;          /* UINT64_MAX while in flight */
    uint64_t line_tail;            /* lines requested (the current line is line_tail - 1) */
    bool fetch_starved;            /* dispatch last stopped at a line not yet arrived */
    uint64_t redirect_seq;         /* the mispredicted or serialising uop */
    uint8_t fetch_cause;           /* enum rp_stall: why fetch last stopped */
    struct rp_bpred bp;
    /* back end */
    uint64_t rob_head, rob_tail;
    uint64_t *cand;                /* bit per ROB slot: unissued, its sources complete */
    uint64_t wheel[RP_WHEEL];      /* seq + 1 of a uop whose sources complete at a cycle (mod RP_WHEEL) */
    uint64_t wheel_time;           /* buckets up to this cycle were emptied into cand */
    struct rp_wait *wait;          /* per reorder-buffer entry: its sources' readiness */
    uint64_t writer[RP_REGS_MAX];  /* seq + 1 of the last uop writing each register */
    unsigned iq_used, lsq_used, stores_after_commit;
    uint64_t div_free;             /* cycle the unpipelined divider is free */
    uint64_t mem_unknown;          /* memory requests in flight without a known done cycle */
    ks_eventcount mem_ec;
    bool finished;
    /* While the core sleeps: its stall cycles are counted through this
     * cycle and the rest go to asleep_why (a snapshot counts them early). */
    bool asleep;
    uint8_t asleep_why;
    uint64_t asleep_counted;
    /* Synchronisations for a self-invalidating protocol (replay/coh_sync.h):
     * wanted (bit 0 a release, bit 1 an acquire), in flight, and the locked
     * micro-op they were asked for (seq + 1). Commit waits for them. */
    bool self_inv;
    uint8_t sync_want;
    unsigned sync_out;
    uint64_t sync_seq;
    struct rp_core_stats st;
};

#endif
