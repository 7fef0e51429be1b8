/* Traces of the GPU workloads (traces/gpu) for the replay tests: recorded
 * by bin/tracegen into temporary files, found through CGM_BIN and
 * CGM_BUILD. Linked into every unit test. */
#ifndef TESTS_UNIT_GPU_RECORDING_H
#define TESTS_UNIT_GPU_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include "replay/sim.h"

/* Records `$CGM_BUILD/traces/gpu/COMMAND` (a program name and its
 * arguments) with its code objects taken from $CGM_BUILD/KERNELS into a new
 * temporary file whose name goes into PATH (64 bytes). The test fails unless
 * the workload prints PASS. */
void gpu_record(char *path, const char *kernels, const char *command);

/* The workloads the GPU replay tests share: every GPU-only program, a
 * kernel launched from several threads, and the collaborative ones in both
 * copy styles, each small enough for make test. */
#define GPU_NWORK 12
extern const char *const gpu_workloads[GPU_NWORK];
/* Their traces, recorded by gpu_record_workloads (a cmocka group setup)
 * and removed by gpu_remove_workloads (its teardown). */
extern char gpu_traces[GPU_NWORK][64];
int gpu_record_workloads(void **state);
int gpu_remove_workloads(void **state);

/* Records `gpu_micro KERNEL WORK-ITEMS GROUP` (the micro-kernels of
 * tests/data/si, code objects in kernels/test) for each of the N shapes
 * into PATHS[i]; gpu_remove_traces removes N such traces. */
void gpu_record_micro(char (*paths)[64], const char *const (*shapes)[3], size_t n);
void gpu_remove_traces(char (*paths)[64], size_t n);

/* Wavefront instructions the trace's work-group streams hold. */
uint64_t gpu_recorded_instructions(const char *path);

/* Replays TRACE under CFG (failing the test on an error) and returns the
 * statistics snapshot at the end (a cJSON object, to free with cJSON_Delete). */
void *gpu_replay_stats(const char *trace, const struct rp_config *cfg);

/* Replays TRACE under CFG and returns the JSON replay writes (the region of
 * interest's section included; cJSON_Delete it). */
void *gpu_replay_json(const char *trace, const struct rp_config *cfg);

/* GPU cycles of every kernel in a replay's statistics, summed. */
double gpu_kernel_cycles(const void *json);

/* Number at PATH in a cJSON tree: keys separated by dots, array entries by
 * index ("gpu.kernels.0.cycles"); the test fails if there is none. */
double gpu_stat(const void *json, const char *path);

#endif
