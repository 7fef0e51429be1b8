/* The simulated system: KnightSim engine, the memory system, the cores
 * (replay/core.c) and the guest threads mapped onto them, with the
 * happens-before order of thread creation and futex wake/wait. */
#ifndef REPLAY_SIM_H
#define REPLAY_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/knightsim.h"
#include "cgm/memsys.h"
#include "cgm/mmu.h"
#include "cgm/trace.h"
#include "replay/bpred.h"
#include "replay/config.h"
#include "replay/x86_static.h"
#include "replay/x86_stream.h"

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

/* Why a cycle committed nothing. With an empty reorder buffer the cause
 * is the front end's last blocking reason. */
enum rp_stall {
    ST_ICACHE,    /* fetch waits for the L1I */
    ST_ITLB,      /* fetch waits for an instruction translation */
    ST_BRANCH,    /* refetch after a misprediction */
    ST_SERIALIZE, /* pipeline drained for a system call return or an event */
    ST_FRONTEND,  /* other front-end delays (a thread's start) */
    ST_MEMORY,    /* head is a load waiting for the memory system */
    ST_EXECUTE,   /* head is computing */
    ST_SYSCALL,   /* head is a system call trap */
    ST_IDLE,      /* no thread to run (blocked or finished) */
    ST_COUNT
};

struct rp_core_stats {
    uint64_t instructions, uops, loads, stores, fetches, cycles;
    uint64_t branches, mispredictions, syscalls, context_switches;
    uint64_t cond_branches, cond_mispredictions;   /* the conditional share */
    uint64_t stall[ST_COUNT];
    uint64_t commit_cycles;        /* cycles that committed something */
    uint64_t rob_full, iq_full, lsq_full, mem_refused;
};

enum rp_thread_state { TH_WAITING_CREATE, TH_RUNNABLE, TH_RUNNING, TH_BLOCKED, TH_DONE };

struct rp_thread {
    uint64_t tid;
    size_t stream_index;
    struct rp_x86_stream *stream;  /* opened when it first runs */
    enum rp_thread_state state;
    struct rp_item held;           /* an item read but not yet taken */
    bool has_held;
    uint64_t blocked_on;           /* wake seq it waits for */
    uint64_t instructions;
    struct rp_thread *next_runnable;
};

struct rp_sim;

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
    struct rp_core_stats st;
};

struct rp_sim {
    struct rp_config cfg;
    struct cgm_reader *reader;
    const char *trace_name;
    struct rp_static st;
    ks_engine *eng;
    struct cgm_memsys *ms;
    struct cgm_page_table *pt;     /* first-touch placement of guest pages */
    struct rp_core *cores;
    struct rp_thread *threads;
    size_t nthreads;
    struct rp_thread *run_head, *run_tail;
    uint64_t *wakes;               /* hash set of completed futex-wake seqs (+1) */
    uint64_t wakes_cap, wakes_n;
    unsigned cores_active;
    size_t threads_left;
    ks_eventcount sched_ec;        /* a thread became runnable, or all are done */
    uint64_t end_cycle;
    bool failed;
    bool stopping;                 /* rp_sim_stop: contexts return */
    char error[600];
    /* region of interest */
    bool roi_open, roi_seen;
    uint64_t roi_begin_cycle, roi_end_cycle;
    void *roi_begin, *roi_end;     /* cJSON snapshots */
    unsigned warned_gpu;
};

/* Builds the system for TRACE under CFG. Returns NULL with ERR set. */
struct rp_sim *rp_sim_create(const struct rp_config *cfg, const char *trace, char *err, size_t errlen);
/* Runs to the end of every thread. 0, or -1 with the reason in sim->error. */
int rp_sim_run(struct rp_sim *s, bool progress);
/* Ends every context (cores and memory system); call from outside any
 * context once rp_sim_run returned. rp_sim_destroy calls it. */
void rp_sim_stop(struct rp_sim *s);
void rp_sim_destroy(struct rp_sim *s);

/* For the cores. */
struct rp_thread *rp_sim_next_thread(struct rp_sim *s);
void rp_sim_make_runnable(struct rp_sim *s, struct rp_thread *t);
bool rp_sim_runnable_waiting(const struct rp_sim *s);
/* Handles an event at an empty pipeline; false if the thread must block. */
bool rp_sim_event(struct rp_sim *s, struct rp_core *c, struct rp_thread *t, const struct cgm_event *ev);
void rp_sim_fail(struct rp_sim *s, const char *msg);
void rp_sim_core_finished(struct rp_sim *s, struct rp_core *c);

/* replay/core.c */
int rp_core_init(struct rp_core *c, struct rp_sim *s, int id);
void rp_core_free(struct rp_core *c);
void rp_core_main(void *arg);
void rp_core_mem_done(struct rp_core *c, uint64_t tag, uint64_t cycle);

/* replay/stats.c: the statistics as a cJSON object (cJSON *), and output:
 * the whole run with the region of interest under "roi", or (ROI_ONLY)
 * the region alone when the trace has markers. */
void *rp_stats_snapshot(struct rp_sim *s, uint64_t cycles);
int rp_stats_write(struct rp_sim *s, FILE *json, FILE *text, bool roi_only);

#endif
