/* Shared by the data-movement workloads (seed 004's programs): a buffer
 * the program either shares with the GPU by pointer (the CPU works in the
 * GPU's buffer and the copy protocol, gpu.copy_policy, moves it) or keeps
 * twice, in host memory and in a GPU buffer, moving it with explicit
 * copies as a hand-written (CUDA-like) program does. */
#ifndef CGM_MOVEMENT_COMMON_H
#define CGM_MOVEMENT_COMMON_H

#include "gpu_common.h"

struct mv_buffer {
    void *host, *dev; /* the same pointer when shared */
    size_t bytes;
};

/* "share" or "copy" as the program's argument ARG; -1 when it is neither. */
static inline int mv_mode(const char *arg)
{
    return !strcmp(arg, "share") ? 1 : !strcmp(arg, "copy") ? 0 : -1;
}

static inline void *mv_alloc(struct mv_buffer *b, size_t bytes, int share)
{
    b->bytes = bytes;
    b->dev = gpu_buffer(bytes);
    b->host = share ? b->dev : malloc(bytes);
    if (!b->host)
        gpu_die("malloc", 0);
    return b->host;
}

/* The first BYTES of B to the GPU (copy) or nothing (share). */
static inline void mv_to_gpu(const struct mv_buffer *b, size_t bytes)
{
    if (b->host != b->dev && cgm_gpu_copy(b->dev, b->host, bytes) < 0)
        gpu_die("copy to the GPU", 0);
}

static inline void mv_to_cpu(const struct mv_buffer *b)
{
    if (b->host != b->dev && cgm_gpu_copy(b->host, b->dev, b->bytes) < 0)
        gpu_die("copy from the GPU", 0);
}

#endif
