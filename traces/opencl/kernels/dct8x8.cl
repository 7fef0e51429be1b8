/* DCT 8x8 (AMD APP SDK DCT): the two-dimensional discrete cosine transform
 * of each 8 x 8 block of an image, out = D * B * D^T, one work-item per
 * coefficient and one work-group per block. D (the 8 x 8 DCT-II matrix)
 * comes from the host, so the device needs no cosine. */
__kernel void dct8x8(__global const float *in, __global float *out, __global const float *d,
                     int width, __local float *block)
{
    int u = (int)get_local_id(0), v = (int)get_local_id(1);
    int x = (int)get_global_id(0), y = (int)get_global_id(1);
    block[v * 8 + u] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* coefficient (row v, column u): sum over k, l of D[v][k] * B[k][l] * D[u][l] */
    float acc = 0.0f;
    for (int k = 0; k < 8; k++) {
        float row = 0.0f;
        for (int l = 0; l < 8; l++)
            row += block[k * 8 + l] * d[u * 8 + l];
        acc += d[v * 8 + k] * row;
    }
    out[y * width + x] = acc;
}
