/* --timeline FILE.json: the run as Chrome trace-event JSON (what Perfetto
 * and chrome://tracing open), streamed to the file as the run goes.
 *
 * Tracks (pid "CPU", "GPU", "counters"; a tid per track, named by
 * metadata events when first used):
 *   core N                the guest thread it runs (B/E "thread TID")
 *   core N system calls   each system call trap at the head of the
 *                         reorder buffer (X "syscall NR", its result)
 *   core N memory stalls  runs of at least --timeline-stall cycles that
 *                         committed nothing while the head waited for a
 *                         load (X "memory stall"), as stall_cycles.memory
 *                         counts them
 *   kernels               each GPU launch from its start to its end
 *   copies and flushes    a thread's copies and flushes between the CPU's
 *                         and the GPU's memory (replay/gpu/sync.h)
 *   CU N slot K           the work-groups resident on compute unit N, a
 *                         track per place a work-group holds (work-groups
 *                         overlap on a compute unit)
 *   counters              every --timeline-window CPU cycles: IPC (all
 *                         cores), DRAM bandwidth (GB/s), ring packets per
 *                         CPU cycle
 * Timestamps are microseconds of simulated time; every slice's args carry
 * its length in its clock's cycles. At most --timeline-max-events events
 * are written (a begin keeps room for its end), the rest counted in
 * otherData.dropped with a warning. */
#ifndef REPLAY_TIMELINE_H
#define REPLAY_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgm/events.h"
#include "cgm/knightsim.h"

struct rp_sim;
struct rp_timeline;

struct rp_timeline_options {
    uint64_t max_events;     /* 0: the default */
    uint64_t stall_cycles;   /* shortest memory stall shown; 0: the default */
    uint64_t window_cycles;  /* counter samples; 0: the default */
};
#define RP_TIMELINE_MAX_EVENTS    1000000u
#define RP_TIMELINE_STALL_CYCLES  100u
#define RP_TIMELINE_WINDOW_CYCLES 10000u

/* Opens PATH for S's run (after rp_sim_create, before the run). NULL with
 * ERR naming the file when it cannot be written. */
struct rp_timeline *rp_timeline_open(struct rp_sim *s, const char *path,
                                     const struct rp_timeline_options *opt, char *err, size_t errlen);

/* Where the engine should stop before LIMIT for the next counter sample. */
uint64_t rp_timeline_stop_at(const struct rp_timeline *t, uint64_t limit);
/* The engine stopped at CPU cycle CYCLE: samples the counters there if a
 * window ends. */
void rp_timeline_reached(struct rp_timeline *t, struct rp_sim *s, uint64_t cycle);

/* From a core's context: every pass of its cycle loop, at CYCLE, stalled
 * for WHY when it committed nothing (enum rp_stall; ST_COUNT: it
 * committed); the thread it runs changed to TID (RP_TIMELINE_NO_THREAD:
 * none); a system call committed; the core returned at the end of cycle
 * CYCLE - 1. */
#define RP_TIMELINE_NO_THREAD UINT64_MAX
void rp_timeline_core_pass(struct rp_timeline *t, unsigned core, uint64_t cycle, unsigned why);
void rp_timeline_core_thread(struct rp_timeline *t, unsigned core, uint64_t cycle, uint64_t tid);
void rp_timeline_syscall_commit(struct rp_timeline *t, unsigned core, uint64_t cycle);
void rp_timeline_core_end(struct rp_timeline *t, unsigned core, uint64_t cycle);
/* The system call event of the trap the core committed last. */
void rp_timeline_syscall(struct rp_timeline *t, unsigned core, const struct cgm_event *ev);

/* GPU work, at engine tick TICK: a work-group (KEY, unique while it is
 * resident) of launch LAUNCH on compute unit CU; a launch; a thread's
 * copies and flushes (JOB: its thread's index). CYCLES: the length the
 * statistics count, in the GPU's cycles (the CPU's for a job). */
void rp_timeline_wg_begin(struct rp_timeline *t, unsigned cu, const void *key, uint32_t launch,
                          uint64_t group, ks_tick tick);
void rp_timeline_wg_end(struct rp_timeline *t, unsigned cu, const void *key, ks_tick tick, uint64_t cycles);
void rp_timeline_kernel_begin(struct rp_timeline *t, uint32_t launch, const char *name, ks_tick tick);
void rp_timeline_kernel_end(struct rp_timeline *t, ks_tick tick, uint64_t cycles);
void rp_timeline_sync_begin(struct rp_timeline *t, size_t job, uint64_t tid, const char *what, uint64_t bytes,
                            ks_tick tick);
void rp_timeline_sync_end(struct rp_timeline *t, size_t job, ks_tick tick, uint64_t cycles);

/* After the run: ends what is open at the run's end, the last counter
 * window, the trailer; closes the file and frees T. 0, or -1 when writing
 * failed. */
int rp_timeline_finish(struct rp_timeline *t, struct rp_sim *s);
/* Frees T (closing its file unfinished); NULL does nothing. */
void rp_timeline_free(struct rp_timeline *t);

#endif
