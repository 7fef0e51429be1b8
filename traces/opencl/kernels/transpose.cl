/* Matrix transpose (AMD APP SDK MatrixTranspose): each 16 x 16 work-group
 * reads a tile in rows, and writes it transposed in rows through local
 * memory (one column of padding keeps the banks apart). */
#define TILE 16

__kernel void transpose(__global float *out, __global const float *in, int n,
                        __local float *tile)
{
    int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    int bx = (int)get_group_id(0) * TILE, by = (int)get_group_id(1) * TILE;
    tile[ly * (TILE + 1) + lx] = in[(by + ly) * n + bx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[(bx + ly) * n + by + lx] = tile[lx * (TILE + 1) + ly];
}
