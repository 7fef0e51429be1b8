/* What the trace says about GPU work, looked up once: each program's static
 * instruction table (section "si.static.P"), each kernel's description
 * (section "si.kernel.K", absent from older traces) and where each launch's
 * work-group streams are (one stream per work-group, in dispatch order). */
#ifndef REPLAY_GPU_PROGRAM_H
#define REPLAY_GPU_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgm/sirec.h"
#include "cgm/trace.h"

/* A loaded static table; readers of its streams share its index. */
struct rp_si_program {
    char section[CGM_STREAM_NAME_MAX];
    struct cgm_si_static *table;
    size_t n;
    struct cgm_si_codec proto;
};

/* The work-group streams of one launch: [first, first + count) of the
 * reader's streams, in dispatch (linear work-group id) order. */
struct rp_launch_streams {
    uint32_t launch;
    size_t first, count;
};

struct rp_gpu_trace {
    struct cgm_reader *r;
    const char *name;              /* the trace's file name, for messages */
    struct rp_si_program **progs;  /* loaded on first use */
    size_t nprogs;
    struct rp_launch_streams *launches; /* sorted by launch id */
    size_t nlaunches;
};

/* Finds every launch's work-group streams. Returns 0, or -1 with ERR naming
 * the stream that is out of place. */
int rp_gpu_trace_init(struct rp_gpu_trace *t, struct cgm_reader *r, const char *name, char *err,
                      size_t errlen);
void rp_gpu_trace_free(struct rp_gpu_trace *t);

/* LAUNCH's work-group streams ({launch, 0, 0} when it has none: a launch
 * outside the region of interest of a --roi-only recording). */
struct rp_launch_streams rp_gpu_trace_launch(const struct rp_gpu_trace *t, uint32_t launch);

/* The static table a work-group stream decodes against (its info.name),
 * loaded on first use. NULL with ERR set. */
const struct rp_si_program *rp_gpu_trace_program(struct rp_gpu_trace *t, const char *section,
                                                 char *err, size_t errlen);

/* Kernel KERNEL's description: 1 found, 0 the trace has none, -1 (ERR
 * set) malformed. */
int rp_gpu_trace_kernel(struct rp_gpu_trace *t, uint32_t kernel, struct cgm_si_kernel_info *out,
                        char *err, size_t errlen);

#endif
