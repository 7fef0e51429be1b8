/* Statistics per kernel: what the GPU did while each launch ran (its
 * compute units' instructions by unit, busy, stall and idle cycles,
 * occupancy, LDS and memory requests; the GPU's L1 and L2 accesses, hits
 * and misses; the hub's bytes; DRAM traffic), read from the statistics
 * registry's counters at the launch's start and end. Kernels run one at a
 * time, so every change of those counters between the two belongs to it
 * (DRAM's and the hub's counters count every source: the CPU's traffic
 * meanwhile too).
 *
 * Launches add up in the registry per kernel of the program (the trace's
 * kernel descriptions, "gpu.by_kernel"), a running launch included, so a
 * region of interest or a window shows what ran inside it. Each launch's
 * own row, as the registry's JSON, can be written as one line per launch
 * as it ends (--kernels-out). Memory is one row per kernel of the program
 * and one for the running launch, whatever the number of launches. */
#ifndef REPLAY_GPU_KERNEL_STATS_H
#define REPLAY_GPU_KERNEL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/stats.h"

struct rp_gpu;
struct rp_kernel;
struct rp_kstats;

/* Registers "by_kernel" under GPU_GROUP (after the compute units and the
 * memory system are registered: the rows' sources are found by path).
 * NULL when out of memory. */
struct rp_kstats *rp_kstats_register(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat gpu_group);
void rp_kstats_free(struct rp_kstats *ks);

/* Launch K starts and ends (GPU cycle NOW; from the GPU's contexts). */
void rp_kstats_begin(struct rp_kstats *ks, const struct rp_kernel *k, uint64_t now);
void rp_kstats_end(struct rp_kstats *ks, const struct rp_kernel *k, uint64_t now);

/* Brings the registry's per-kernel counters up to NOW (the compute units
 * settled first): before every snapshot. */
void rp_kstats_settle(struct rp_kstats *ks, uint64_t now);

/* Writes each launch's row to OUT from now on, one JSON object per line. */
void rp_kstats_write_to(struct rp_kstats *ks, FILE *out);
/* False when a line could not be written. */
bool rp_kstats_written(const struct rp_kstats *ks);

#endif
