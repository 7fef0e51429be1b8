/* Floyd-Warshall over N nodes (N launches of N x N work-items) on a
 * generated graph, exact against the CPU. Usage: floyd [N]. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 16, 4096, 16, 0);
    size_t count = (size_t)n * n, bytes = count * 4;
    int *d = cl_alloc(bytes), *got = cl_alloc(bytes);
    /* edges of weight 1..100 with probability 1/8, a ring keeps every pair
     * connected; no path is longer than 100 * n, far from overflow */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t r = cl_urand();
            int w = (int)(r % 100) + 1;
            d[(size_t)i * n + j] = i == j ? 0 : j == (i + 1) % n || (r >> 16) % 8 == 0 ? w : 1 << 28;
        }
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "floyd");
    cl_kernel k = cl_kernel_of(prog, "floyd_step");
    cgm_roi_begin();
    cl_mem m = cl_buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, d);
    CL_ARG(k, 0, m);
    CL_ARG(k, 1, n);
    size_t global[2] = { (size_t)n, (size_t)n }, local[2] = { 16, 16 };
    for (int via = 0; via < n; via++) {
        CL_ARG(k, 2, via);
        cl_run(&env, k, 2, global, local);
    }
    cl_read(&env, m, bytes, got);
    cgm_roi_end();
    for (int via = 0; via < n; via++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int t = d[(size_t)i * n + via] + d[(size_t)via * n + j];
                if (t < d[(size_t)i * n + j])
                    d[(size_t)i * n + j] = t;
            }
    return cl_finish_exact("distances", got, bytes, !memcmp(d, got, bytes));
}
