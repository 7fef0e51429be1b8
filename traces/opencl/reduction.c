/* Sum of N unsigned integers: work-groups of 256 reduce 512 elements each
 * in local memory, the host adds the work-groups' sums. Exact against the
 * CPU. Usage: reduction [N]. */
#include "cl_set.h"

enum { GROUP = 256 };

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 8192, 2 * GROUP, 1 << 26, 2 * GROUP, 0);
    int groups = n / (2 * GROUP);
    uint32_t *v = cl_alloc((size_t)n * 4), *sums = cl_alloc((size_t)groups * 4);
    for (int i = 0; i < n; i++)
        v[i] = cl_urand() & 0xff;
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "reduction");
    cl_kernel k = cl_kernel_of(prog, "reduce");
    cgm_roi_begin();
    cl_mem in = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)n * 4, v);
    cl_mem out = cl_buffer(&env, CL_MEM_WRITE_ONLY, (size_t)groups * 4, NULL);
    CL_ARG(k, 0, in);
    CL_ARG(k, 1, out);
    cl_arg(k, 2, GROUP * 4, NULL);
    size_t global = (size_t)n / 2, local = GROUP;
    cl_run(&env, k, 1, &global, &local);
    cl_read(&env, out, (size_t)groups * 4, sums);
    uint64_t total = 0;
    for (int g = 0; g < groups; g++)
        total += sums[g];
    cgm_roi_end();
    uint64_t want = 0;
    for (int i = 0; i < n; i++)
        want += v[i];
    printf("sum of %d values: %llu\n", n, (unsigned long long)total);
    return cl_finish_exact("sums", sums, (size_t)groups * 4, total == want);
}
