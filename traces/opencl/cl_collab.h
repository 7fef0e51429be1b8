/* Shared by the collaborative OpenCL programs: the twins of traces/gpu/
 * collab_*.c, with the same command line (THREADS CPU_PERCENT copy|share),
 * work split and CPU threads (traces/gpu/collab_common.h, included as it is),
 * and the same inputs. Memory, the OpenCL way:
 *   copy:  host arrays in malloc'd memory; device buffers made from them
 *          (CL_MEM_COPY_HOST_PTR) and the GPU's part of each output read
 *          back with an offset;
 *   share: host arrays are buffers allocated for the host
 *          (CL_MEM_ALLOC_HOST_PTR) and mapped once: the CPU threads work in
 *          the mapping while the kernel works in the buffer, each on its own
 *          part (zero-copy on the guest platform, as cgm_gpu_alloc memory in
 *          the twin; natively on PoCL's CPU device the same memory). */
#ifndef CGM_CL_COLLAB_H
#define CGM_CL_COLLAB_H

#include "cl_set.h"
#include "../gpu/collab_common.h"

struct cl_array {
    void *host;
    cl_mem mem;
    size_t bytes;
};

/* A host array of BYTES (zeroed in copy mode). */
static inline struct cl_array cl_collab_host(struct cl_env *env, const struct collab *c,
                                             size_t bytes)
{
    struct cl_array a = { NULL, NULL, bytes };
    if (!c->share) {
        a.host = cl_alloc(bytes);
        return a;
    }
    a.mem = cl_buffer(env, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL);
    cl_int e;
    a.host = clEnqueueMapBuffer(env->q, a.mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                NULL, NULL, &e);
    cl_check(e, "clEnqueueMapBuffer");
    return a;
}

/* The array's device buffer: a copy of it (IN) or a fresh one in copy mode. */
static inline cl_mem cl_collab_to_gpu(struct cl_env *env, const struct collab *c,
                                      struct cl_array *a, int in)
{
    if (!c->share)
        a->mem = cl_buffer(env, CL_MEM_READ_WRITE | (in ? CL_MEM_COPY_HOST_PTR : 0), a->bytes,
                           in ? a->host : NULL);
    return a->mem;
}

/* Brings the GPU's part [off, off + bytes) of an output back (copy mode). */
static inline void cl_collab_from_gpu(struct cl_env *env, const struct collab *c,
                                      const struct cl_array *a, size_t off, size_t bytes)
{
    if (!c->share && bytes)
        cl_check(clEnqueueReadBuffer(env->q, a->mem, CL_TRUE, off, bytes, (char *)a->host + off,
                                     0, NULL, NULL), "clEnqueueReadBuffer");
}

#endif
