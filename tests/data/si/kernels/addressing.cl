/* Kernels whose addresses clang builds in ways the bundled workloads do not:
 * test_si_addressing runs them against the same computation on the CPU. */

/* p[-1] with p = in + i: clang puts the -4 into the buffer resource's base
 * (s_mov_b64 s[8:9], -4) and the 64-bit pointer into the addr64 VGPRs, so
 * only 48-bit address arithmetic reaches in[i - 1]. */
__kernel void neighbour_diff(__global const int *in, __global int *out, int n)
{
    size_t i = get_global_id(0);
    __global const int *p = in + i;
    if (i > 0 && i + 1 < n)
        out[i] = p[-1] - p[1];
}

/* Strided loads at negative offsets from a per-work-item pointer, 64-bit
 * pointer arithmetic across rows. */
__kernel void row_stencil(__global const int *in, __global int *out, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < 2 || y < 1 || x >= w - 2 || y >= h - 1)
        return;
    __global const int *row = in + (long)y * w + x;
    out[y * w + x] = row[-2] + 3 * row[-1] - row[-w] + (row[w] ^ row[1]) - row[2];
}
