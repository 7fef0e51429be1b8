/* PolyBench-GPU 3MM's kernel: one work-item per element of C = A * B, the
 * inner product read straight from global memory (no tiling, as in
 * PolyBench-GPU). */
__kernel void mm(__global const float *a, __global const float *b, __global float *c, int n)
{
    int j = (int)get_global_id(0), i = (int)get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += a[i * n + k] * b[k * n + j];
    c[i * n + j] = acc;
}
