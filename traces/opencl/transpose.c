/* Matrix transpose of an N x N float matrix in 16 x 16 tiles through local
 * memory (a __local argument). Usage: transpose [N]. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 16, 8192, 16, 0);
    size_t bytes = (size_t)n * n * 4;
    float *a = cl_alloc(bytes), *t = cl_alloc(bytes);
    for (size_t i = 0; i < (size_t)n * n; i++)
        a[i] = cl_frand();
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "transpose");
    cl_kernel k = cl_kernel_of(prog, "transpose");
    cgm_roi_begin();
    cl_mem in = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a);
    cl_mem out = cl_buffer(&env, CL_MEM_WRITE_ONLY, bytes, NULL);
    CL_ARG(k, 0, out);
    CL_ARG(k, 1, in);
    CL_ARG(k, 2, n);
    cl_arg(k, 3, 16 * 17 * sizeof(float), NULL);
    size_t global[2] = { (size_t)n, (size_t)n }, local[2] = { 16, 16 };
    cl_run(&env, k, 2, global, local);
    cl_read(&env, out, bytes, t);
    cgm_roi_end();
    int ok = 1;
    for (int r = 0; r < n && ok; r++)
        for (int c = 0; c < n; c++)
            if (t[(size_t)c * n + r] != a[(size_t)r * n + c]) {
                printf("out[%d][%d] differs\n", c, r);
                ok = 0;
                break;
            }
    return cl_finish_exact("transpose", t, bytes, ok);
}
