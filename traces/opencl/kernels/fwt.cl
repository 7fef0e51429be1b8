/* Fast Walsh transform (AMD APP SDK FastWalshTransform): one butterfly
 * stage per launch; work-item t combines the pair (i, i + step) of its
 * block of 2 * step elements. */
__kernel void fwt_step(__global float *data, int step)
{
    int t = (int)get_global_id(0);
    int i = (t / step) * 2 * step + t % step;
    float a = data[i], b = data[i + step];
    data[i] = a + b;
    data[i + step] = a - b;
}
