/* Collaborative write: the value every element gets and the CPU threads'
 * part, shared by the cgm/guest.h program (traces/gpu/collab_write.c) and
 * its OpenCL twin (traces/opencl/). */
#ifndef CGM_COLLAB_WRITE_CPU_H
#define CGM_COLLAB_WRITE_CPU_H

enum { N = 1 << 16, G = 256, VALUE = 7 };

static void cpu_part(void *ctx, int lo, int hi)
{
    int *d = ctx;
    for (int i = lo; i < hi; i++)
        d[i] = VALUE + i;
}

#endif
