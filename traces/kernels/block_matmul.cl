/* Block matrix multiply (seed 000 Sec. 3.3.2.2): C = A * B for n x n
 * row-major matrices, 16 x 16 tiles staged in LDS; the GPU computes the
 * rows [row0, row0 + grid rows), CPU threads the rest.  n is a multiple
 * of 16. */
#define BM_TILE 16

__kernel void block_matmul(__global const float *A, __global const float *B, __global float *C,
                           int n, int row0)
{
    __local float a[BM_TILE][BM_TILE], b[BM_TILE][BM_TILE];
    int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    int col = (int)get_global_id(0), row = row0 + (int)get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += BM_TILE) {
        a[ty][tx] = A[row * n + t + tx];
        b[ty][tx] = B[(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < BM_TILE; k++)
            acc += a[ty][k] * b[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
