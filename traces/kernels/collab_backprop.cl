/* Collaborative back-propagation (seed 000 Sec. 3.3.2.1): the weight
 * adjustment of the second phase, for the rows [row0, row0 + grid rows) the
 * host gave the GPU; CPU threads adjust the other rows the same way. */
#define CB_ETA 0.3f
#define CB_MOMENTUM 0.3f

/* Grid (hid, rows): w[(i+1)*(hid+1) + j+1] for i = row0 + global id 1. */
__kernel void cb_adjust_weights(__global const float *delta, __global const float *x,
                                __global float *w, __global float *oldw, int hid, int row0)
{
    int j = (int)get_global_id(0), i = row0 + (int)get_global_id(1);
    int k = (i + 1) * (hid + 1) + j + 1;
    float change = CB_ETA * delta[j + 1] * x[i + 1] + CB_MOMENTUM * oldw[k];
    w[k] += change;
    oldw[k] = change;
}
