/* Traces of the GPU workloads (traces/gpu) for the replay tests: recorded
 * by bin/tracegen into temporary files, found through CGM_BIN and
 * CGM_BUILD. Linked into every unit test. */
#ifndef TESTS_UNIT_GPU_RECORDING_H
#define TESTS_UNIT_GPU_RECORDING_H

#include "replay/sim.h"

/* Records `$CGM_BUILD/traces/gpu/COMMAND` (a program name and its
 * arguments) with its code objects taken from $CGM_BUILD/KERNELS into a new
 * temporary file whose name goes into PATH (64 bytes). The test fails unless
 * the workload prints PASS. */
void gpu_record(char *path, const char *kernels, const char *command);

/* Replays TRACE under CFG (failing the test on an error) and returns the
 * statistics snapshot at the end (a cJSON object, to free with cJSON_Delete). */
void *gpu_replay_stats(const char *trace, const struct rp_config *cfg);

/* Number at PATH in a cJSON tree: keys separated by dots, array entries by
 * index ("gpu.kernels.0.cycles"); the test fails if there is none. */
double gpu_stat(const void *json, const char *path);

#endif
