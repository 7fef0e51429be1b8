/* DCT 8x8 of a SIZE x SIZE image, block by block, against the CPU.
 * Usage: dct8x8 [SIZE]. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 8, 8192, 8, 0);
    size_t count = (size_t)n * n, bytes = count * 4;
    float *img = cl_alloc(bytes), *got = cl_alloc(bytes), *want = cl_alloc(bytes), d[64];
    for (size_t i = 0; i < count; i++)
        img[i] = cl_frand();
    /* the orthonormal DCT-II matrix: D[k][l] = c(k) cos((2l + 1) k pi / 16) */
    for (int k = 0; k < 8; k++)
        for (int l = 0; l < 8; l++)
            d[k * 8 + l] = (k ? sqrtf(0.25f) : sqrtf(0.125f)) *
                           cosf((float)((2 * l + 1) * k) * 3.14159265358979f / 16.0f);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "dct8x8");
    cl_kernel k = cl_kernel_of(prog, "dct8x8");
    cgm_roi_begin();
    cl_mem in = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, img);
    cl_mem out = cl_buffer(&env, CL_MEM_WRITE_ONLY, bytes, NULL);
    cl_mem md = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof d, d);
    CL_ARG(k, 0, in);
    CL_ARG(k, 1, out);
    CL_ARG(k, 2, md);
    CL_ARG(k, 3, n);
    cl_arg(k, 4, 64 * sizeof(float), NULL);
    size_t global[2] = { (size_t)n, (size_t)n }, local[2] = { 8, 8 };
    cl_run(&env, k, 2, global, local);
    cl_read(&env, out, bytes, got);
    cgm_roi_end();
    for (int by = 0; by < n; by += 8)
        for (int bx = 0; bx < n; bx += 8)
            for (int v = 0; v < 8; v++)
                for (int u = 0; u < 8; u++) {
                    double acc = 0;
                    for (int y = 0; y < 8; y++)
                        for (int x = 0; x < 8; x++)
                            acc += (double)d[v * 8 + y] * img[(size_t)(by + y) * n + bx + x] *
                                   d[u * 8 + x];
                    want[(size_t)(by + v) * n + bx + u] = (float)acc;
                }
    return cl_finish("coefficients", got, count, cl_close("coefficients", got, want, count, 1e-5f));
}
