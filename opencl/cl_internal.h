/* The guest OpenCL platform's objects and the helpers its files share.
 *
 * Every object starts with the ICD dispatch pointer (the ocl-icd loader
 * calls through it) and is registered in a table of live objects, so a
 * handle that is NULL, released or of another kind is an OpenCL error, not
 * a crash. Commands run in submission order on the guest's GPU driver
 * (cgm/guest.h); a command whose wait list is not complete (a user event)
 * waits in its queue, and so does everything after it. One lock, which a
 * thread may take again, serialises the library for threaded hosts. */
#ifndef CGM_OPENCL_INTERNAL_H
#define CGM_OPENCL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cgm/guest.h"

/* The ICD build (-fvisibility=hidden) exports only the loader's entry
 * points (CGM_EXPORT): the application's cl* calls reach the others
 * through the dispatch table, and calls inside the library never bind to
 * the loader's cl* symbols. CGM_API marks the OpenCL API functions, which
 * the static library exports. */
#define CGM_API
#define CGM_EXPORT __attribute__((visibility("default")))

enum cl_kind { K_PLATFORM = 1, K_DEVICE, K_CONTEXT, K_QUEUE, K_MEM, K_PROGRAM, K_KERNEL, K_EVENT };

struct cl_head {
    const void *dispatch;          /* struct _cl_icd_dispatch *, first as the ICD ABI wants */
    int kind;
    cl_uint refs;
};

struct _cl_platform_id {
    struct cl_head h;
};

struct _cl_device_id {
    struct cl_head h;
    struct cgm_gpu_device_info info;
};

struct cl_callback {
    void (*fn)();
    void *user_data;
    cl_int when;                   /* events: the status it waits for */
    struct cl_callback *next;
};

struct _cl_context {
    struct cl_head h;
    cl_context_properties props[8];
    size_t nprops;
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
    void *notify_data;
};

struct cl_cmd;

struct _cl_command_queue {
    struct cl_head h;
    cl_context ctx;
    cl_command_queue_properties props;
    struct cl_cmd *head, *tail;    /* commands waiting for their wait lists */
    struct _cl_command_queue *next_queue;
};

struct _cl_mem {
    struct cl_head h;
    cl_context ctx;
    cl_mem_flags flags;
    size_t size;
    char *addr;                    /* where the GPU sees it (the guest's address space) */
    void *host_ptr;
    int owns;                      /* addr came from cgm_gpu_alloc */
    cl_mem parent;                 /* sub-buffers */
    size_t origin;
    cl_uint maps;
    struct cl_callback *destructors;
};

struct _cl_program {
    struct cl_head h;
    cl_context ctx;
    char *source;                  /* NULL: from a binary */
    size_t source_len;
    long handle;                   /* the driver's, 0 until built */
    cl_build_status status;
    char *options, *log;
    cl_uint kernels;               /* kernel objects made from it */
    char object[CGM_GPU_OBJECT_NAME];   /* clCompileProgram's result: the driver's name for it */
};

struct _cl_kernel {
    struct cl_head h;
    cl_program program;
    long handle;
    char name[128];
    struct cgm_gpu_kernel_info info;
    struct cgm_gpu_kernel_arg *args;
    unsigned char *argbuf, *argset;
    cl_uint nset;                  /* arguments set so far (argset's ones) */
    struct cgm_gpu_ndrange last_nd;   /* the last launch's NDRange, checked (dims 0: none) */
};

struct _cl_event {
    struct cl_head h;
    cl_context ctx;
    cl_command_queue queue;        /* NULL: a user event */
    cl_command_type type;
    cl_int status;
    cl_ulong times[4];             /* queued, submit, start, end (ns of the virtual clock) */
    int launched;                  /* a kernel or an asynchronous copy the driver may not have
                                      reported done (a wait for it is a gpu_wait) */
    struct cl_callback *callbacks;
};

/* ---- objects (objects.c) ---- */
/* The library lock (a futex word, see objects.c); a thread may take it again. */
extern atomic_int cgm_cl_lock_word;
extern _Thread_local unsigned cgm_cl_lock_depth;
void cgm_cl_lock_wait(void);
void cgm_cl_lock_wake(void);
static inline void cgm_cl_lock(void)
{
    int free_word = 0;
    if (cgm_cl_lock_depth++ == 0 &&
        !atomic_compare_exchange_strong(&cgm_cl_lock_word, &free_word, 1))
        cgm_cl_lock_wait();
}
static inline void cgm_cl_unlock(void)
{
    if (--cgm_cl_lock_depth == 0 && atomic_exchange(&cgm_cl_lock_word, 0) == 2)
        cgm_cl_lock_wake();
}
/* The lock when nobody holds it (this thread neither): the API's fast
 * paths take it so and call nothing while they hold it, so they need
 * neither the depth nor a stack frame; a held lock sends them to their
 * full path, which takes it with cgm_cl_lock (again, in a callback). */
static inline __attribute__((always_inline)) int cgm_cl_trylock(void)
{
    int free_word = 0;
    return atomic_compare_exchange_strong(&cgm_cl_lock_word, &free_word, 1);
}
static inline __attribute__((always_inline)) void cgm_cl_unlock_try(void)
{
    if (atomic_exchange(&cgm_cl_lock_word, 0) == 2)
        cgm_cl_lock_wake();
}
/* A zeroed object of KIND with one reference, registered; NULL when out of memory. */
void *cgm_cl_new(size_t bytes, int kind);
/* 1 when P is a live object of KIND. The table of live objects is walked
 * only when P is neither the last object of KIND found (a launch loop names
 * the same queue and kernel again and again: three instructions inline) nor
 * in a small direct-mapped set of objects found before (kernels and buffers
 * used in turn: a few more, inline too). Releasing an object takes it out of both. Under the lock. */
extern const void *cgm_cl_last_valid[K_EVENT + 1];
int cgm_cl_valid_lookup(const void *p, int kind);
static inline int cgm_cl_known(const void *p, int kind);
static inline int cgm_cl_valid(const void *p, int kind)
{
    return cgm_cl_known(p, kind) || cgm_cl_valid_lookup(p, kind);
}
/* The set of objects found before (direct-mapped by address). */
struct cgm_cl_seen { const void *p; int kind; };
enum { CGM_CL_SEEN = 64 };
extern struct cgm_cl_seen cgm_cl_seen[CGM_CL_SEEN];
static inline unsigned cgm_cl_seen_slot(const void *p)
{
    uintptr_t x = (uintptr_t)p >> 4;   /* objects are 16-byte aligned */
    return (unsigned)(x ^ (x >> 6)) & (CGM_CL_SEEN - 1);
}
/* 1 when P is the last object of KIND found or in the set of objects found
 * before, with no call (the API's fast paths); 0 leaves it to cgm_cl_valid. */
static inline __attribute__((always_inline)) int cgm_cl_known(const void *p, int kind)
{
    if (!p)
        return 0;
    if (p == cgm_cl_last_valid[kind])
        return 1;
    const struct cgm_cl_seen *e = &cgm_cl_seen[cgm_cl_seen_slot(p)];
    return e->p == p && e->kind == kind;
}
/* cgm_cl_valid for a caller that does not hold the lock. */
int cgm_cl_valid_locked(const void *p, int kind);
/* clRetain*: one more reference to P when it is a live object of KIND,
 * else INVALID (the kind's error code). */
cl_int cgm_cl_retain(void *p, int kind, cl_int invalid);
/* Unregisters and frees P. */
void cgm_cl_free(void *p);
extern struct _cl_platform_id cgm_cl_platform;
extern struct _cl_device_id cgm_cl_device;
/* The platform exists (under tracegen); fills the device description. */
int cgm_cl_platform_ready(void);
cl_ulong cgm_cl_now(void);

/* clGet*Info: copies VALUE (SIZE bytes) per the OpenCL rules. */
cl_int cgm_cl_info(const void *value, size_t size, size_t param_value_size, void *param_value,
                   size_t *param_value_size_ret);
cl_int cgm_cl_info_str(const char *s, size_t param_value_size, void *param_value,
                       size_t *param_value_size_ret);
#define CGM_SET_ERR(errcode_ret, e) do { if (errcode_ret) *(errcode_ret) = (e); } while (0)

/* ---- commands (queue.c) ---- */
/* OP_COPY_ASYNC: a non-blocking read or write of a buffer, the driver's
 * asynchronous copy (cgm_gpu_copy_async): the host goes on. */
enum cl_cmd_op { OP_NONE, OP_SYNC, OP_COPY, OP_FILL, OP_RECT, OP_KERNEL, OP_COPY_ASYNC };
/* A command, built by the caller on its stack; copied (with its wait list,
 * pattern and arguments) only when it must wait in its queue. */
struct cl_cmd {
    int op;
    cl_command_type type;
    const cl_event *waits;
    cl_uint nwaits;
    char *dst;
    const char *src;
    size_t bytes;
    const void *pattern;           /* OP_FILL: pattern_size bytes */
    size_t pattern_size;
    size_t rect_region[3], dst_pitch[2], src_pitch[2];
    long kernel;                   /* OP_KERNEL */
    struct cgm_gpu_ndrange nd;
    const unsigned char *args;
    size_t args_bytes;
    cl_event event;                /* a waiting command's */
    struct cl_cmd *next;
};
/* Checks a wait list (CL_INVALID_EVENT_WAIT_LIST, CL_INVALID_CONTEXT). */
cl_int cgm_cl_check_waits(cl_command_queue q, cl_uint n, const cl_event *list);
/* Runs command C on Q now when nothing holds it back, else queues a copy.
 * BLOCKING waits for its end. Gives its event to EVENT_OUT when not NULL.
 * Returns the command's error when it failed by itself (or, blocking,
 * because its wait list failed), else CL_SUCCESS. */
cl_int cgm_cl_submit(cl_command_queue q, const struct cl_cmd *c, int blocking, cl_event *event_out);
/* clEnqueueNDRangeKernel's command: launched at once, with no command
 * record, when nothing holds it back and nobody asked for its event. */
cl_int cgm_cl_submit_kernel(cl_command_queue q, long kernel, const struct cgm_gpu_ndrange *nd,
                            const unsigned char *args, size_t args_bytes, cl_uint n,
                            const cl_event *waits, cl_event *event_out);
/* Kernels launched that the host has not waited for (set by a launch;
 * cgm_cl_gpu_sync's gpu_wait clears it). */
extern int cgm_cl_launches_pending;
/* Asynchronous copies started that the host has not waited for (the same
 * gpu_wait clears it). */
extern int cgm_cl_copies_pending;
/* The OpenCL error of a failed cgm_gpu_launch_nd. */
cl_int cgm_cl_launch_error(long rc);
/* Runs every queue's runnable commands. */
void cgm_cl_progress(void);
/* Makes kernel results visible to the host (cgm_gpu_wait once per batch). */
void cgm_cl_gpu_sync(void);
/* Completes EV with STATUS (CL_COMPLETE or an error) and runs its callbacks. */
void cgm_cl_event_complete(cl_event ev, cl_int status);
cl_event cgm_cl_event_new(cl_context ctx, cl_command_queue q, cl_command_type type);
void cgm_cl_register_queue(cl_command_queue q);
void cgm_cl_unregister_queue(cl_command_queue q);

#endif
