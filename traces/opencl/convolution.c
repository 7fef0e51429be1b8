/* 2D convolution of a SIZE x SIZE image with a 5 x 5 mask, against the CPU.
 * Usage: convolution [SIZE]. */
#include "cl_set.h"

enum { RADIUS = 2, SIDE = 2 * RADIUS + 1 };

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 16, 8192, 16, 0);
    size_t count = (size_t)n * n, bytes = count * 4;
    float *img = cl_alloc(bytes), *got = cl_alloc(bytes), *want = cl_alloc(bytes);
    float mask[SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE; i++)
        mask[i] = cl_frand() - 0.5f;
    for (size_t i = 0; i < count; i++)
        img[i] = cl_frand();
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "convolution");
    cl_kernel k = cl_kernel_of(prog, "convolve");
    cgm_roi_begin();
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    cl_mem mi = cl_buffer(&env, in, bytes, img), mm = cl_buffer(&env, in, sizeof mask, mask);
    cl_mem mo = cl_buffer(&env, CL_MEM_WRITE_ONLY, bytes, NULL);
    const int radius = RADIUS;
    CL_ARG(k, 0, mi);
    CL_ARG(k, 1, mm);
    CL_ARG(k, 2, mo);
    CL_ARG(k, 3, n);
    CL_ARG(k, 4, n);
    CL_ARG(k, 5, radius);
    size_t global[2] = { (size_t)n, (size_t)n }, local[2] = { 16, 16 };
    cl_run(&env, k, 2, global, local);
    cl_read(&env, mo, bytes, got);
    cgm_roi_end();
    for (int y = RADIUS; y < n - RADIUS; y++)
        for (int x = RADIUS; x < n - RADIUS; x++) {
            float acc = 0.0f;
            for (int dy = -RADIUS; dy <= RADIUS; dy++)
                for (int dx = -RADIUS; dx <= RADIUS; dx++)
                    acc += mask[(dy + RADIUS) * SIDE + dx + RADIUS] *
                           img[(size_t)(y + dy) * n + x + dx];
            want[(size_t)y * n + x] = acc;
        }
    return cl_finish("image", got, count, cl_close("image", got, want, count, 1e-5f));
}
