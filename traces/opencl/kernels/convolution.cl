/* 2D convolution (AMD APP SDK SimpleConvolution, PolyBench-GPU 2DCONV with
 * the mask as an input): each output pixel is the mask-weighted sum of the
 * input around it; pixels nearer the border than the mask's radius stay 0. */
__kernel void convolve(__global const float *in, __constant float *mask, __global float *out,
                       int width, int height, int radius)
{
    int x = (int)get_global_id(0), y = (int)get_global_id(1);
    float acc = 0.0f;
    if (x >= radius && y >= radius && x < width - radius && y < height - radius) {
        int side = 2 * radius + 1;
        for (int dy = -radius; dy <= radius; dy++)
            for (int dx = -radius; dx <= radius; dx++)
                acc += mask[(dy + radius) * side + dx + radius] * in[(y + dy) * width + x + dx];
    }
    out[y * width + x] = acc;
}
