/* The README's worked example: y = a * x, one work-item per element. */
__kernel void scale(__global const float *x, __global float *y, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i];
}
