/* PolyBench-GPU 3MM on N x N floats: E = A * B, F = C * D, G = E * F, three
 * launches of one kernel, the intermediates staying on the device; against
 * the CPU. Usage: mm3 [N]. */
#include "cl_set.h"

static void cpu_mm(const float *a, const float *b, float *c, int n)
{
    for (size_t i = 0; i < (size_t)n * n; i++)
        c[i] = 0.0f;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                c[(size_t)i * n + j] += a[(size_t)i * n + k] * b[(size_t)k * n + j];
}

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 16, 4096, 16, 0);
    size_t count = (size_t)n * n, bytes = count * 4;
    float *m[4], *e = cl_alloc(bytes), *f = cl_alloc(bytes), *g = cl_alloc(bytes),
                 *got = cl_alloc(bytes);
    for (int x = 0; x < 4; x++) {
        m[x] = cl_alloc(bytes);
        for (size_t i = 0; i < count; i++)
            m[x][i] = cl_frand() - 0.5f;
    }
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "mm3");
    cl_kernel k = cl_kernel_of(prog, "mm");
    cgm_roi_begin();
    cl_mem in[4], mid[3];
    for (int x = 0; x < 4; x++)
        in[x] = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, m[x]);
    for (int x = 0; x < 3; x++)
        mid[x] = cl_buffer(&env, CL_MEM_READ_WRITE, bytes, NULL);
    const cl_mem *ops[3][3] = { { &in[0], &in[1], &mid[0] }, { &in[2], &in[3], &mid[1] },
                                { &mid[0], &mid[1], &mid[2] } };
    size_t global[2] = { (size_t)n, (size_t)n }, local[2] = { 16, 16 };
    for (int step = 0; step < 3; step++) {
        for (cl_uint a = 0; a < 3; a++)
            cl_arg(k, a, sizeof(cl_mem), ops[step][a]);
        CL_ARG(k, 3, n);
        cl_run(&env, k, 2, global, local);
    }
    cl_read(&env, mid[2], bytes, got);
    cgm_roi_end();
    cpu_mm(m[0], m[1], e, n);
    cpu_mm(m[2], m[3], f, n);
    cpu_mm(e, f, g, n);
    return cl_finish("G", got, count, cl_close("G", got, g, count, 1e-4f));
}
