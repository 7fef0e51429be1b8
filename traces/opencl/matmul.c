/* Matrix multiply of N x N floats in 16 x 16 local-memory tiles, against
 * the CPU. Usage: matmul [N]. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 16, 4096, 16, 0);
    size_t count = (size_t)n * n, bytes = count * 4;
    float *a = cl_alloc(bytes), *b = cl_alloc(bytes), *c = cl_alloc(bytes), *ref = cl_alloc(bytes);
    for (size_t i = 0; i < count; i++) {
        a[i] = cl_frand() - 0.5f;
        b[i] = cl_frand() - 0.5f;
    }
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "matmul");
    cl_kernel k = cl_kernel_of(prog, "matmul");
    cgm_roi_begin();
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    cl_mem ma = cl_buffer(&env, in, bytes, a), mb = cl_buffer(&env, in, bytes, b);
    cl_mem mc = cl_buffer(&env, CL_MEM_WRITE_ONLY, bytes, NULL);
    CL_ARG(k, 0, ma);
    CL_ARG(k, 1, mb);
    CL_ARG(k, 2, mc);
    CL_ARG(k, 3, n);
    size_t global[2] = { (size_t)n, (size_t)n }, local[2] = { 16, 16 };
    cl_run(&env, k, 2, global, local);
    cl_read(&env, mc, bytes, c);
    cgm_roi_end();
    for (int r = 0; r < n; r++)
        for (int kk = 0; kk < n; kk++) {
            float x = a[(size_t)r * n + kk];
            for (int col = 0; col < n; col++)
                ref[(size_t)r * n + col] += x * b[(size_t)kk * n + col];
        }
    return cl_finish("C", c, count, cl_close("C", c, ref, count, 1e-4f));
}
