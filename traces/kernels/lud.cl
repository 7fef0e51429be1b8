/* LU decomposition without pivoting (seed 000 Sec. 3.3.1, the computation of
 * Rodinia's lud), one elimination step per pair of launches on an n x n
 * row-major matrix: scale column k below the diagonal, then update the
 * trailing sub-matrix. */
__kernel void lud_scale(__global float *a, int n, int k)
{
    int i = k + 1 + (int)get_global_id(0);
    if (i < n)
        a[i * n + k] /= a[k * n + k];
}

/* 2-D grid over the trailing (n-k-1)^2 block, tiled in LDS: each group loads
 * the pivot-row and pivot-column pieces it needs once. */
#define LUD_TILE 16
__kernel void lud_update(__global float *a, int n, int k)
{
    __local float row[LUD_TILE], col[LUD_TILE];
    int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    int j = k + 1 + (int)get_global_id(0), i = k + 1 + (int)get_global_id(1);
    if (ty == 0)
        row[tx] = j < n ? a[k * n + j] : 0.0f;
    if (tx == 0)
        col[ty] = i < n ? a[i * n + k] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n && j < n)
        a[i * n + j] -= col[ty] * row[tx];
}
