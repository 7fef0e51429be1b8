/* Bitonic sort of N unsigned integers (N a power of two): log2(N) *
 * (log2(N) + 1) / 2 launches over the whole array, against qsort.
 * Usage: bitonic [N]. */
#include "cl_set.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 4096, 64, 1 << 24, 64, 1);
    size_t bytes = (size_t)n * 4;
    uint32_t *v = cl_alloc(bytes), *got = cl_alloc(bytes);
    for (int i = 0; i < n; i++)
        v[i] = cl_urand();
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "bitonic");
    cl_kernel k = cl_kernel_of(prog, "bitonic_step");
    cgm_roi_begin();
    cl_mem m = cl_buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, v);
    CL_ARG(k, 0, m);
    size_t global = (size_t)n, local = 256 < n ? 256 : (size_t)n;
    for (cl_uint size = 2; size <= (cl_uint)n; size *= 2)
        for (cl_uint j = size / 2; j > 0; j /= 2) {
            CL_ARG(k, 1, j);
            CL_ARG(k, 2, size);
            cl_run(&env, k, 1, &global, &local);
        }
    cl_read(&env, m, bytes, got);
    cgm_roi_end();
    qsort(v, (size_t)n, 4, cmp_u32);
    int ok = !memcmp(v, got, bytes);
    if (!ok)
        puts("the GPU's order differs from qsort's");
    return cl_finish_exact("sorted", got, bytes, ok);
}
