/* Collaborative knn: the records, the query point, the CPU threads'
 * distances and the choice of the nearest, shared by the cgm/guest.h
 * program (traces/gpu/collab_knn.c) and its OpenCL twin (traces/opencl/). */
#ifndef CGM_COLLAB_KNN_CPU_H
#define CGM_COLLAB_KNN_CPU_H

enum { NR = 4096, K = 5, G = 64 };
static const float LAT = 0.25f, LNG = 0.75f;

struct job { const float *rec; float *dist; };

static void cpu_part(void *ctx, int lo, int hi)
{
    struct job *j = ctx;
    for (int i = lo; i < hi; i++) {
        float a = LAT - j->rec[2 * i], b = LNG - j->rec[2 * i + 1];
        j->dist[i] = sqrtf(a * a + b * b);
    }
}

/* The K smallest distances, ascending. */
static void nearest(const float *d, float *best)
{
    for (int k = 0; k < K; k++) best[k] = 3.4e38f;
    for (int i = 0; i < NR; i++)
        for (int k = 0; k < K; k++)
            if (d[i] < best[k]) {
                memmove(best + k + 1, best + k, (size_t)(K - 1 - k) * 4);
                best[k] = d[i];
                break;
            }
}

#endif
