/* The Southern Islands GPU as the rest of replay sees it: built when the
 * trace holds GPU work, driven by the host threads' GPU events, reporting
 * its statistics. Its insides are in replay/gpu/gpu_internal.h. */
#ifndef REPLAY_GPU_GPU_H
#define REPLAY_GPU_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/events.h"
#include "cgm/knightsim.h"
#include "cgm/stats.h"
#include "cgm/trace.h"
#include "replay/gpu/sync.h"

struct rp_sim;
struct rp_thread;
struct rp_gpu;

/* True when the trace holds GPU work (work-group streams or SI sections). */
bool rp_gpu_in_trace(struct cgm_reader *r);

/* Builds the GPU of SIM (compute units, dispatcher and memory) in SIM's
 * engine, its contexts in clock domain DOMAIN, before the first run. NULL
 * with ERR set. */
struct rp_gpu *rp_gpu_create(struct rp_sim *sim, ks_domain *domain, char *err, size_t errlen);
/* Lets its contexts return (a run that ended early), then frees it. */
void rp_gpu_stop(struct rp_gpu *g);
void rp_gpu_destroy(struct rp_gpu *g);

/* A host thread's GPU event, at an empty pipeline (from a core's context).
 * False when T must wait (gpu_done of a kernel still running): the GPU
 * makes it runnable again when the kernel ends. */
bool rp_gpu_event(struct rp_gpu *g, struct rp_thread *t, unsigned core, const struct cgm_event *ev);
/* A store of a core into [sim->gpu_watch_lo, sim->gpu_watch_hi) (where the
 * GPU's buffers are, when copies or flushes are charged). */
void rp_gpu_cpu_store(struct rp_gpu *g, uint64_t va);
/* A core's access into them when sim->gpu_watch_loads is set: the CPU
 * cycles it waits for the copy protocol (rp_sync_cpu_touch). */
uint64_t rp_gpu_cpu_touch(struct rp_gpu *g, uint64_t va, bool write);
/* The memory system performed an access of the copy engine (the tag's kind
 * is RP_SYNC_TAG). */
void rp_gpu_sync_done(struct rp_gpu *g, uint64_t tag, uint64_t cycle);

/* No kernel is queued or running. */
bool rp_gpu_idle(const struct rp_gpu *g);
/* The GPU cycle now (from any context). */
uint64_t rp_gpu_cycle(const struct rp_gpu *g);
/* GPU cycles a running kernel may go without issuing an instruction
 * before the replay stops (as M2S-CGM stops a GPU that completes nothing
 * for a million cycles): memory that never answers. */
#define RP_GPU_STUCK_CYCLES 1000000
/* Called from outside the contexts between runs of the engine: true when
 * a kernel has run RP_GPU_STUCK_CYCLES without an instruction issued (MSG
 * then says which and since when). */
bool rp_gpu_stuck(struct rp_gpu *g, char *msg, size_t len);
/* Wavefront instructions issued so far. */
uint64_t rp_gpu_instructions(const struct rp_gpu *g);

/* Registers the "gpu" group of the statistics under PARENT (after
 * rp_gpu_create, before the run). 0, or -1 when out of memory. */
int rp_gpu_stats_register(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat parent);
/* Brings what the registry reads up to the GPU cycle now: call before
 * every snapshot. */
void rp_gpu_stats_settle(struct rp_gpu *g);
/* Each launch's statistics to OUT (NULL: no more), one JSON line per
 * launch as it ends (kernel_stats.h); false when a line could not be
 * written. */
void rp_gpu_kernels_out(struct rp_gpu *g, FILE *out);
bool rp_gpu_kernels_written(const struct rp_gpu *g);
/* As of the last settle: busy and stalled cycles summed over the compute
 * units (GPU cycles); CPU cycles host threads spent in copies and flushes. */
uint64_t rp_gpu_busy_cycles(const struct rp_gpu *g);
uint64_t rp_gpu_stall_cycles(const struct rp_gpu *g);
uint64_t rp_gpu_system_cycles(const struct rp_gpu *g);

#endif
