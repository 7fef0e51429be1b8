/* A two-point angular correlation histogram in the spirit of Parboil's
 * tpacf (seed 004 Table 3.3: much data to the GPU, little back): work-item
 * i bins the angle between data point i and each of the first M random
 * points by its cosine against NBINS descending bounds; a work-group sums
 * its histogram in local memory and writes it to hist[group * (NBINS + 1)].
 * Contraction off, so the CPU's check bins the same dot products. */
#pragma OPENCL FP_CONTRACT OFF
#define TPACF_MAX_BINS 32

__kernel void tpacf_hist(__global const float4 *data, __global const float4 *random,
                         __global const float *bounds, __global uint *hist, int n, int m, int nbins)
{
    __local uint h[TPACF_MAX_BINS + 1];
    int l = (int)get_local_id(0), i = (int)get_global_id(0);
    for (int b = l; b <= nbins; b += (int)get_local_size(0))
        h[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) {
        float4 d = data[i];
        for (int j = 0; j < m; j++) {
            float4 r = random[j];
            float dot = d.x * r.x;
            dot = dot + d.y * r.y;
            dot = dot + d.z * r.z;
            int b = 0;
            while (b < nbins && dot < bounds[b])
                b++;
            atomic_inc(&h[b]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = l; b <= nbins; b += (int)get_local_size(0))
        hist[get_group_id(0) * (nbins + 1) + b] = h[b];
}
