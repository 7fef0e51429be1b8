/* Fast Walsh transform of N floats (N a power of two), log2(N) launches.
 * The inputs are -1, 0 or 1, so every partial result is an integer below
 * 2^24 and the transform is exact on every device. Usage: fwt [N]. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 8192, 128, 1 << 24, 128, 1);
    size_t bytes = (size_t)n * 4;
    float *v = cl_alloc(bytes), *got = cl_alloc(bytes);
    for (int i = 0; i < n; i++)
        v[i] = (float)((int)(cl_urand() % 3) - 1);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "fwt");
    cl_kernel k = cl_kernel_of(prog, "fwt_step");
    cgm_roi_begin();
    cl_mem m = cl_buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, v);
    CL_ARG(k, 0, m);
    size_t global = (size_t)n / 2, local = 64;
    for (int step = 1; step < n; step *= 2) {
        CL_ARG(k, 1, step);
        cl_run(&env, k, 1, &global, &local);
    }
    cl_read(&env, m, bytes, got);
    cgm_roi_end();
    for (int step = 1; step < n; step *= 2)
        for (int b = 0; b < n; b += 2 * step)
            for (int i = b; i < b + step; i++) {
                float x = v[i], y = v[i + step];
                v[i] = x + y;
                v[i + step] = x - y;
            }
    return cl_finish_exact("transform", got, bytes, !memcmp(v, got, bytes));
}
