/* Sobel filter over a SIZE x SIZE grey image, against the CPU.
 * Usage: sobel [SIZE]. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 16, 8192, 16, 0);
    size_t count = (size_t)n * n, bytes = count * 4;
    float *img = cl_alloc(bytes), *got = cl_alloc(bytes), *want = cl_alloc(bytes);
    for (size_t i = 0; i < count; i++)
        img[i] = cl_frand();
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "sobel");
    cl_kernel k = cl_kernel_of(prog, "sobel");
    cgm_roi_begin();
    cl_mem in = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, img);
    cl_mem out = cl_buffer(&env, CL_MEM_WRITE_ONLY, bytes, NULL);
    CL_ARG(k, 0, in);
    CL_ARG(k, 1, out);
    CL_ARG(k, 2, n);
    CL_ARG(k, 3, n);
    size_t global[2] = { (size_t)n, (size_t)n }, local[2] = { 16, 16 };
    cl_run(&env, k, 2, global, local);
    cl_read(&env, out, bytes, got);
    cgm_roi_end();
    for (int y = 1; y < n - 1; y++)
        for (int x = 1; x < n - 1; x++) {
            const float *p = img + (size_t)y * n + x;
            float gx = (p[-n + 1] + 2.0f * p[1] + p[n + 1]) - (p[-n - 1] + 2.0f * p[-1] + p[n - 1]);
            float gy = (p[n - 1] + 2.0f * p[n] + p[n + 1]) - (p[-n - 1] + 2.0f * p[-n] + p[-n + 1]);
            want[(size_t)y * n + x] = sqrtf(gx * gx + gy * gy);
        }
    return cl_finish("gradient", got, count, cl_close("gradient", got, want, count, 1e-5f));
}
