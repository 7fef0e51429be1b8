/* Collaborative backprop: the layer's sizes and the CPU threads' rows of
 * the weight adjustment, shared by the cgm/guest.h program
 * (traces/gpu/collab_backprop.c) and its OpenCL twin (traces/opencl/). */
#ifndef CGM_COLLAB_BACKPROP_CPU_H
#define CGM_COLLAB_BACKPROP_CPU_H

enum { IN = 512, HID = 16, B = 16, W = (IN + 1) * (HID + 1) };
#define ETA 0.3f
#define MOMENTUM 0.3f

struct job { const float *delta, *x; float *w, *oldw; };

static void cpu_rows(void *ctx, int lo, int hi)
{
    struct job *j = ctx;
    for (int i = lo; i < hi; i++)
        for (int h = 0; h < HID; h++) {
            int k = (i + 1) * (HID + 1) + h + 1;
            float change = ETA * j->delta[h + 1] * j->x[i + 1] + MOMENTUM * j->oldw[k];
            j->w[k] += change;
            j->oldw[k] = change;
        }
}

#endif
