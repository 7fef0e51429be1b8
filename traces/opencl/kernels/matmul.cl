/* Matrix multiply C = A * B (AMD APP SDK MatrixMultiplication, PolyBench
 * GEMM without the scalars): 16 x 16 tiles of A and B staged in local
 * memory, each work-item summing one element of C. */
#define TILE 16

__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int n)
{
    __local float ta[TILE][TILE], tb[TILE][TILE];
    int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    int col = (int)get_global_id(0), row = (int)get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
