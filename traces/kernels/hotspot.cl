/* HotSpot (seed 000 Sec. 3.3.1, the thermal model of Rodinia's hotspot): one
 * explicit time step of the chip temperature grid.  Each 16x16 work-group
 * stages its tile in LDS; neighbours outside the tile come from global
 * memory, and the grid edge reuses the cell's own temperature. */
#define HS_TILE 16

__kernel void hotspot_step(__global const float *power, __global const float *temp_in,
                           __global float *temp_out, int cols, int rows,
                           float cap, float rx, float ry, float rz, float step, float amb)
{
    __local float tile[HS_TILE][HS_TILE];
    int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    int c = (int)get_global_id(0), r = (int)get_global_id(1);
    int in_grid = r < rows && c < cols;
    float t = in_grid ? temp_in[r * cols + c] : 0.0f;
    tile[ty][tx] = t;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!in_grid)
        return;
    float n = r == 0 ? t : ty > 0 ? tile[ty - 1][tx] : temp_in[(r - 1) * cols + c];
    float s = r == rows - 1 ? t : ty < HS_TILE - 1 ? tile[ty + 1][tx] : temp_in[(r + 1) * cols + c];
    float w = c == 0 ? t : tx > 0 ? tile[ty][tx - 1] : temp_in[r * cols + c - 1];
    float e = c == cols - 1 ? t : tx < HS_TILE - 1 ? tile[ty][tx + 1] : temp_in[r * cols + c + 1];
    float delta = (step / cap) * (power[r * cols + c] + (s + n - 2.0f * t) / ry +
                                  (e + w - 2.0f * t) / rx + (amb - t) / rz);
    temp_out[r * cols + c] = t + delta;
}
