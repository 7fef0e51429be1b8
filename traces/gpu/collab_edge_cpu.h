/* Collaborative edge: the image's size and the CPU threads' rows of the
 * filter, shared by the cgm/guest.h program (traces/gpu/collab_edge.c) and
 * its OpenCL twin (traces/opencl/). */
#ifndef CGM_COLLAB_EDGE_CPU_H
#define CGM_COLLAB_EDGE_CPU_H

enum { WD = 64, HT = 64, T = 16 };

struct job { const float *img, *filter; float *out; };

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void cpu_rows(void *ctx, int lo, int hi)
{
    struct job *j = ctx;
    for (int y = lo; y < hi; y++)
        for (int x = 0; x < WD; x++) {
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    acc += j->filter[(dy + 1) * 3 + dx + 1] *
                           j->img[clampi(y + dy, 0, HT - 1) * WD + clampi(x + dx, 0, WD - 1)];
            j->out[y * WD + x] = fabsf(acc);
        }
}

#endif
