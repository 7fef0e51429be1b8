/* Vector addition (seed 004 Sec. 6.4.2's micro-benchmark): c = a + b over
 * n elements, one work-item per element. */
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c, int n)
{
    int i = (int)get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
