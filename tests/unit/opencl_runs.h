/* Running OpenCL programs natively and under tracegen, and reading what
 * their traces' kernels did, for the tests of the guest OpenCL platform
 * (test_opencl, test_opencl_set). Paths are absolute: some commands run in
 * the temporary folder. */
#ifndef CGM_TESTS_OPENCL_RUNS_H
#define CGM_TESTS_OPENCL_RUNS_H

#include <stdint.h>

/* $CGM_BIN, $CGM_BUILD, $CGM_ROOT (else bin, build, .), a fresh temporary
 * folder, the OpenCL build cache in it, and where commands' output goes. */
struct cl_runs {
    char bin[1024], build[1024], root[1024], tmp[1024], cache[1100], out[1100], err[1100];
};
extern struct cl_runs cl_runs;

/* Fills cl_runs and makes the temporary folder; non-zero on failure. */
int cl_runs_init(void);
/* Removes the temporary folder; non-zero on failure. */
int cl_runs_cleanup(void);

/* Runs CMD (a shell command) with its output in cl_runs.out and .err; its status. */
int cl_run_cmd(const char *cmd);
/* Runs CMD and returns its standard output; fails the test unless it exits 0. */
char *cl_output_of(const char *cmd);
/* Records PROGRAM (a path under BUILD/traces, with its arguments) into
 * TRACE; its standard output. Kernel sources come from the tree. */
char *cl_record(const char *program, const char *trace);

/* TRACE's asynchronous copies (gpu_copy_async events, all streams). */
unsigned cl_async_copies(const char *trace);

enum { CL_MAX_LAUNCHES = 512 };
struct cl_kernel_work {
    unsigned launches;
    uint64_t insts[CL_MAX_LAUNCHES + 1];          /* by launch id */
    uint64_t group_insts[CL_MAX_LAUNCHES + 1][64]; /* by launch and work-group (first 64) */
    unsigned groups[CL_MAX_LAUNCHES + 1];
    uint64_t total;                                /* every launch's */
};

/* Verifies TRACE and fills W from its work-group streams. */
void cl_kernel_work(const char *trace, struct cl_kernel_work *w);
/* Fails unless A and B ran the same launches, work-group by work-group. */
void cl_same_kernel_work(const struct cl_kernel_work *a, const struct cl_kernel_work *b);

/* Replays TRACE with traces/configs/seed.ini in the organisation
 * (COHERENT, L3) and checks the GPU's wavefront instructions (WAVE_INSTS);
 * COPIES (when not negative) against the copy jobs the statistics report
 * (the blocking copies, COPIES less the trace's asynchronous ones, and at
 * most one wait for each of those), COPY_BYTES (when not negative) against
 * the bytes copied. */
void cl_replay(const char *trace, int coherent, int l3, uint64_t wave_insts, int copies,
               double copy_bytes);

#endif
