/* Collaborative block matrix multiply as a plain OpenCL program: the twin
 * of traces/gpu/collab_matmul.c: C = A * B, the CPU threads take the first
 * rows, the GPU the rest (16 x 16 tiles). */
#include "cl_collab.h"
#include "../gpu/collab_matmul_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "block_matmul");
    cl_kernel k = cl_kernel_of(prog, "block_matmul");
    struct cl_array a = cl_collab_host(&env, &c, N * N * 4), b = cl_collab_host(&env, &c, N * N * 4);
    struct cl_array m = cl_collab_host(&env, &c, N * N * 4);
    float *ha = a.host, *hb = b.host;
    for (int i = 0; i < N * N; i++) {
        ha[i] = gpu_frand() - 0.5f;
        hb[i] = gpu_frand() - 0.5f;
    }
    int cpu = collab_cpu_units(&c, N, T), gpu = N - cpu;
    cgm_roi_begin();
    cl_mem ga = cl_collab_to_gpu(&env, &c, &a, 1), gb = cl_collab_to_gpu(&env, &c, &b, 1);
    cl_mem gm = cl_collab_to_gpu(&env, &c, &m, 0);
    if (gpu) {
        const int n = N;
        CL_ARG(k, 0, ga);
        CL_ARG(k, 1, gb);
        CL_ARG(k, 2, gm);
        CL_ARG(k, 3, n);
        CL_ARG(k, 4, cpu);
        size_t global[2] = { N, (size_t)gpu }, local[2] = { T, T };
        cl_run(&env, k, 2, global, local);
    }
    struct job j = { ha, hb, m.host };
    collab_cpu(&c, cpu, cpu_rows, &j);
    cl_check(clFinish(env.q), "clFinish");
    cl_collab_from_gpu(&env, &c, &m, (size_t)cpu * N * 4, (size_t)gpu * N * 4);
    cgm_roi_end();
    static float ref[N * N];
    struct job r = { ha, hb, ref };
    cpu_rows(&r, 0, N);
    return cl_finish("C", m.host, N * N, cl_close("C", m.host, ref, N * N, 1e-4f));
}
