/* Edge detection (seed 000 Sec. 3.3.2.3): a 3 x 3 filter convolved with a
 * grey image, for the rows [row0, row0 + grid rows).  The seed's version
 * stores into the input image; this one writes a separate output so that
 * the result does not depend on the order work-items run in.  Border pixels
 * use the nearest pixel inside the image. */
__kernel void edge_detect(__global const float *image, __constant float *filter,
                          __global float *out, int width, int height, int row0)
{
    int x = (int)get_global_id(0), y = row0 + (int)get_global_id(1);
    if (x >= width || y >= height)
        return;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int sx = clamp(x + dx, 0, width - 1), sy = clamp(y + dy, 0, height - 1);
            acc += filter[(dy + 1) * 3 + dx + 1] * image[sy * width + sx];
        }
    out[y * width + x] = fabs(acc);
}
