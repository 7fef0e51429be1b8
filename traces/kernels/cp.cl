/* Coulombic potential in the spirit of Parboil's cp (seed 004 Table 3.3:
 * moderate transfers both ways, the atoms sent in chunks): work-item (x, y)
 * adds the potential of NATOMS atoms (x, y, z, charge) at its point of a
 * plane of the grid (spacing h, at height z) to grid[y * gx + x]. */
__kernel void cp_chunk(__global const float4 *atoms, __global float *grid, int natoms, int gx,
                       float h, float z)
{
    int x = (int)get_global_id(0), y = (int)get_global_id(1);
    float px = h * (float)x, py = h * (float)y, e = 0.0f;
    for (int a = 0; a < natoms; a++) {
        float4 at = atoms[a];
        float dx = px - at.x, dy = py - at.y, dz = z - at.z;
        e += at.w / sqrt(dx * dx + dy * dy + dz * dz);
    }
    grid[y * gx + x] += e;
}
