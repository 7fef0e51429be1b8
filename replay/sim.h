/* The simulated system: KnightSim engine, the memory system, the cores
 * (replay/core.c) and the guest threads (replay/sched.c) mapped onto them;
 * the guest's address space; the region of interest. */
#ifndef REPLAY_SIM_H
#define REPLAY_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/knightsim.h"
#include "cgm/memsys.h"
#include "cgm/mmu.h"
#include "cgm/stats.h"
#include "cgm/trace.h"
#include "replay/config.h"
#include "replay/sched.h"
#include "replay/stats_roi.h"
#include "replay/timeline.h"
#include "replay/x86_static.h"

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

extern const char *const rp_uop_class_names[RP_UC_COUNT];

struct rp_core_stats {
    uint64_t instructions, uops, loads, stores, fetches, cycles;
    uint64_t uops_by_class[RP_UC_COUNT];
    uint64_t branches, mispredictions, syscalls, context_switches;
    uint64_t cond_branches, cond_mispredictions;   /* the conditional share */
    uint64_t stall[ST_COUNT];
    uint64_t commit_cycles;        /* cycles that committed something */
    uint64_t rob_full, iq_full, lsq_full, mem_refused;
};

struct rp_sim;
/* An out-of-order core, one KnightSim context (replay/core.c; its insides
 * are in replay/core.h). */
struct rp_core;

struct rp_gpu;
struct rp_windows;

struct rp_sim {
    struct rp_config cfg;
    struct cgm_reader *reader;
    const char *trace_name;
    struct rp_static st;
    ks_engine *eng;
    struct cgm_memsys *ms;
    struct cgm_page_table *pt;     /* first-touch placement of guest pages */
    struct rp_core **cores;
    struct rp_sched sched;         /* the guest threads */
    struct rp_gpu *gpu;            /* NULL when the trace holds no GPU work */
    uint64_t gpu_watch_lo, gpu_watch_hi; /* the GPU's buffers, when copies are charged (else empty) */
    bool gpu_watch_loads;          /* loads inside them are reported too (a copy protocol that faults) */
    unsigned cores_active;
    uint64_t end_cycle;
    bool failed;
    bool stopping;                 /* rp_sim_stop: contexts return */
    char error[600];
    /* statistics (replay/stats.c) */
    struct cgm_stats *stats;       /* every statistic, registered once */
    uint64_t snapshot_cycle;       /* the cycle the snapshot being taken is of */
    uint64_t *core_cycles;         /* per core: cycles run up to snapshot_cycle */
    struct rp_regions regions;     /* the regions of interest (replay/stats_roi.c) */
    struct rp_windows *windows;    /* statistics per window (replay/windows.c), or NULL */
    struct rp_timeline *timeline;  /* --timeline (replay/timeline.c), or NULL */
    FILE *kernels_out;             /* each GPU launch's statistics (--kernels-out), or NULL */
};

/* Builds the system for TRACE under CFG. Returns NULL with ERR set. */
struct rp_sim *rp_sim_create(const struct rp_config *cfg, const char *trace, char *err, size_t errlen);
/* Runs to the end of every thread. 0, or -1 with the reason in sim->error. */
int rp_sim_run(struct rp_sim *s, bool progress);
/* Ends every context (cores and memory system); call from outside any
 * context once rp_sim_run returned. rp_sim_destroy calls it. */
void rp_sim_stop(struct rp_sim *s);
void rp_sim_destroy(struct rp_sim *s);

/* For the cores. Handles an event at an empty pipeline; false if the
 * thread must block. */
bool rp_sim_event(struct rp_sim *s, struct rp_core *c, struct rp_thread *t, const struct cgm_event *ev);
void rp_sim_fail(struct rp_sim *s, const char *msg);
/* A core returned at the end of its cycle END - 1. */
void rp_sim_core_finished(struct rp_sim *s, uint64_t end);

/* For the GPU. Gives frames to the pages of [ADDR, ADDR + LEN) now;
 * returns how many pages that is. */
uint64_t rp_sim_map(struct rp_sim *s, uint64_t addr, uint64_t len);
/* Takes the pages of [ADDR, ADDR + LEN) out of the address space. */
void rp_sim_unmap(struct rp_sim *s, uint64_t addr, uint64_t len);
/* The GPU has no kernel left: the run ends if the cores are done too. */
void rp_sim_gpu_idle(struct rp_sim *s);

/* replay/core.c. NULL when out of memory. */
struct rp_core *rp_core_create(struct rp_sim *s, int id);
void rp_core_destroy(struct rp_core *c);
/* The core's context (argument: the core). */
void rp_core_main(void *arg);
/* The memory system performed request TAG of the core at CYCLE. */
void rp_core_mem_done(struct rp_core *c, uint64_t tag, uint64_t cycle);
/* Core c met synchronisation event e (an int: enum rp_sync_event of
 * replay/coh_sync.h): under a self-invalidating protocol its next commit
 * waits for the release and acquire it is. */
void rp_core_sync(struct rp_core *c, int e);
/* Wakes the core's context if it waits for memory (rp_sim_stop). */
void rp_core_wake(struct rp_core *c);
const struct rp_core_stats *rp_core_stats(const struct rp_core *c);
/* Counts a sleeping core's stall cycles up to NOW (before a snapshot). */
void rp_core_stats_settle(struct rp_core *c, uint64_t now);
unsigned rp_core_id(const struct rp_core *c);
/* Its data TLB (DATA) or instruction TLB. */
const struct cgm_mmu *rp_core_tlb(const struct rp_core *c, bool data);
/* The core has run out of work and returned. */
bool rp_core_done(const struct rp_core *c);
/* Drops a page's cached translation from both TLBs (a shootdown), or
 * every translation. */
void rp_core_drop_page(struct rp_core *c, uint32_t asid, uint64_t vpn);
void rp_core_drop_pages(struct rp_core *c);

/* replay/stats.c: registers every statistic of the built system in
 * s->stats (0, or -1 when out of memory); a snapshot of them all at CYCLES
 * (free() it; NULL when out of memory); output: the whole run with the
 * region of interest under "roi", or (ROI_ONLY) the region alone when the
 * trace has markers, as JSON and as a text summary. */
int rp_stats_register(struct rp_sim *s);
uint64_t *rp_stats_snapshot(struct rp_sim *s, uint64_t cycles);
int rp_stats_write(struct rp_sim *s, FILE *json, FILE *text, bool roi_only);
/* The text summary of the snapshot END and of the regions R (the regions
 * alone with ROI_ONLY when there are some). Every statistic it shows is
 * read by path; one the registry does not have is an error in ERR naming
 * its path, and nothing is written: -1 (also when TEXT cannot be
 * written), else 0. */
int rp_stats_text(const struct cgm_stats *reg, const uint64_t *end, const struct rp_regions *r, bool roi_only,
                  FILE *text, char *err, size_t errlen);
/* --kernels-out: opens PATH for each GPU launch's statistics, one JSON line
 * per launch as it ends (before the run; a trace without GPU work leaves
 * it empty, with a warning). 0, or -1 with ERR naming the file. */
int rp_stats_kernels_out(struct rp_sim *s, const char *path, char *err, size_t errlen);
/* Closes it after the run: 0, or -1 when a line could not be written. */
int rp_stats_kernels_close(struct rp_sim *s);

#endif
