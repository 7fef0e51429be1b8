/* Sobel filter (AMD APP SDK SobelFilter): the gradient magnitude of a grey
 * image from the 3 x 3 horizontal and vertical Sobel masks; the border
 * pixels stay 0. */
__kernel void sobel(__global const float *in, __global float *out, int width, int height)
{
    int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x == 0 || y == 0 || x >= width - 1 || y >= height - 1) {
        out[y * width + x] = 0.0f;
        return;
    }
    const __global float *p = in + y * width + x;
    float gx = (p[-width + 1] + 2.0f * p[1] + p[width + 1]) -
               (p[-width - 1] + 2.0f * p[-1] + p[width - 1]);
    float gy = (p[width - 1] + 2.0f * p[width] + p[width + 1]) -
               (p[-width - 1] + 2.0f * p[-width] + p[-width + 1]);
    out[y * width + x] = sqrt(gx * gx + gy * gy);
}
