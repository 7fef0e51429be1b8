/* The GPU driver: the guest's GPU calls (cgm/guest.h) on the Southern
 * Islands emulator, over the guest's own memory, recorded into the trace.
 *
 * Recording (when tracegen writes a trace):
 *   - events in the calling thread's stream: gpu_load, gpu_alloc, gpu_free,
 *     gpu_copy, gpu_launch + gpu_launch_mem (at the launch call), gpu_done
 *     (for every launch since the last wait, at the wait) and gpu_wait;
 *   - gpu_map for the memory the driver maps for itself (code objects, each
 *     launch's kernel arguments, dispatch packet and private memory);
 *   - per loaded program P a section "si.static.P" (stream id
 *     GPU_STATIC_STREAM_BASE + P) holding its static instruction table;
 *   - per kernel handle K a section "si.kernel.K" (stream id
 *     GPU_KERNEL_STREAM_BASE + K): its name and resource use;
 *   - per work-group one stream (ids from GPU_GROUP_STREAM_BASE upwards)
 *     named "si.static.P" after the table its records decode against, with
 *     launch_id equal to the launch field of its gpu_launch event.
 * Under --roi-only, launches outside the region of interest get their events
 * but no work-group streams.
 * Launches run to completion at the launch call, so runs are deterministic. */
#ifndef TRACEGEN_GPU_DRIVER_H
#define TRACEGEN_GPU_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/events.h"
#include "tracegen/si/si_program.h"
#include "cgm/sirec.h"
#include "cgm/trace.h"

struct x86_process;
struct x86_thread;
struct cgm_event;

#define GPU_STATIC_STREAM_BASE 0x7ffe0000u
#define GPU_KERNEL_STREAM_BASE 0x7ffd0000u
#define GPU_GROUP_STREAM_BASE  0x40000000u
#define GPU_MAX_PROGRAMS       64
#define GPU_MAX_KERNELS        1024
#define GPU_MAX_ARGS_BYTES     4096
#define GPU_MAX_BINARY_BYTES   (64u << 20)
/* work-group streams in one trace: the container holds CGM_STREAMS_MAX
 * streams, leaving room for threads and sections */
#define GPU_MAX_GROUP_STREAMS  (CGM_STREAMS_MAX - 65536u)

struct gpu_program {
    struct si_program prog;
    uint64_t code_address, code_len;   /* the image mapped in guest memory */
    struct cgm_si_static *table;
    size_t ntable;
    uint8_t *binary;                   /* the code object's bytes, as loaded */
    size_t binary_len;
};

struct gpu_kernel_ref {
    uint32_t program;                  /* handle */
    const struct si_kernel *k;
};

struct gpu_alloc {
    uint64_t addr, len;
};

struct gpu_driver {
    struct gpu_program *programs[GPU_MAX_PROGRAMS];
    uint32_t nprograms;
    struct gpu_kernel_ref kernels[GPU_MAX_KERNELS];
    uint32_t nkernels;
    struct gpu_alloc *allocs;
    size_t nallocs, allocs_cap;
    uint32_t launches;                 /* launch ids given so far (first is 1) */
    uint32_t waited;                   /* launches 1..waited have had their gpu_done */
    uint32_t next_group_stream;
};

/* 1 when NR is one of the GPU call numbers. */
int gpu_is_syscall(uint64_t nr);

/* Runs GPU call NR for thread T with the syscall arguments A; returns the
 * value for RAX (-errno on failure, explained on stderr). */
long gpu_syscall(struct x86_process *p, struct x86_thread *t, uint64_t nr, const uint64_t a[6]);

void gpu_driver_destroy(struct gpu_driver *d);

/* ---- internal, shared by the driver's files ---- */

/* Maps LEN bytes of fresh zeroed guest memory with PROT (GPROT_*) below the
 * process's mmap area; returns the address or 0. */
uint64_t gpu_guest_map(struct x86_process *p, uint64_t len, int prot);
/* LEN bytes of guest memory at ADDR in a fresh host buffer; NULL with
 * *RC = -ENOMEM or -EFAULT (said on stderr, naming WHAT) when it fails. */
uint8_t *gpu_copy_in_new(struct x86_process *p, uint64_t addr, uint64_t len, const char *what,
                         long *rc);
/* The emulator's view of guest memory. */
struct si_memory gpu_si_memory(struct x86_process *p);
/* Records EV in T's stream when tracing. */
void gpu_record(struct x86_thread *t, const struct cgm_event *ev);
/* Records a gpu_map event: the driver mapped [ADDR, ADDR + LEN) for itself. */
void gpu_record_map(struct x86_thread *t, uint64_t addr, uint64_t len, enum cgm_gpu_map_what what,
                    uint32_t launch);
long gpu_launch(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                const uint64_t a[6]);
long gpu_launch_nd(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                   const uint64_t a[6]);
/* Loads code object BIN (LEN bytes, which the program keeps; NAME for
 * messages): program handle or -errno, the loader's message in WHY when
 * WHY is not NULL. */
long gpu_load_image(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                    const char *name, uint8_t *bin, size_t len, char *why, size_t whylen);
/* cgm_gpu_build (gpu_build.c) and cgm_gpu_query (gpu_query.c). */
long gpu_build(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
               const uint64_t a[6]);
long gpu_query(struct x86_process *p, struct gpu_driver *d, const uint64_t a[6]);
/* cgm_gpu_compile and cgm_gpu_link (gpu_link.c). */
long gpu_compile(struct x86_process *p, const uint64_t a[6]);
long gpu_link(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
              const uint64_t a[6]);
/* tracegen --compile-kernel: OpenCL C file CL_PATH (with OPTIONS, as
 * clBuildProgram takes them) into code object OUT, as cgm_gpu_build compiles,
 * through CACHE_DIR; the compiler's messages on stderr. 0, or -1 with WHY. */
int gpu_compile_file(const char *cl_path, const char *options, const char *cache_dir,
                     const char *out, char *why, size_t whylen);

#endif
