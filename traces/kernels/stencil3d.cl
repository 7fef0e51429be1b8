/* A 7-point 3D stencil (seed 004 Fig. 6.5's 3D-Stencil) over an n x n x n
 * volume stored x fastest: work-item (x, y) walks its column in z; the
 * volume's faces are copied unchanged. Contraction off, so the CPU's check
 * computes the same roundings. */
#pragma OPENCL FP_CONTRACT OFF

__kernel void stencil7(__global const float *in, __global float *out, int n, float centre, float side)
{
    int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x >= n || y >= n)
        return;
    int plane = n * n;
    bool face = x == 0 || y == 0 || x == n - 1 || y == n - 1;
    for (int z = 0; z < n; z++) {
        int i = z * plane + y * n + x;
        if (face || z == 0 || z == n - 1) {
            out[i] = in[i];
            continue;
        }
        float s = in[i - 1] + in[i + 1];
        s = s + in[i - n];
        s = s + in[i + n];
        s = s + in[i - plane];
        s = s + in[i + plane];
        out[i] = centre * in[i] + side * s;
    }
}
