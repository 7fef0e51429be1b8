/* Collaborative matmul: the matrices' size and the CPU threads' rows,
 * shared by the cgm/guest.h program (traces/gpu/collab_matmul.c) and its
 * OpenCL twin (traces/opencl/). */
#ifndef CGM_COLLAB_MATMUL_CPU_H
#define CGM_COLLAB_MATMUL_CPU_H

enum { N = 64, T = 16 };

struct job { const float *a, *b; float *c; };

static void cpu_rows(void *ctx, int lo, int hi)
{
    struct job *j = ctx;
    for (int r = lo; r < hi; r++)
        for (int col = 0; col < N; col++) {
            float acc = 0.0f;
            for (int k = 0; k < N; k++)
                acc += j->a[r * N + k] * j->b[k * N + col];
            j->c[r * N + col] = acc;
        }
}

#endif
