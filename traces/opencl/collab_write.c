/* Collaborative write as a plain OpenCL program: the twin of traces/gpu/
 * collab_write.c: every element gets value + index, the CPU threads writing
 * the first part and the GPU the rest. */
#include "cl_collab.h"
#include "../gpu/collab_write_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "write");
    cl_kernel k = cl_kernel_of(prog, "write_array");
    struct cl_array data = cl_collab_host(&env, &c, N * 4);
    int cpu = collab_cpu_units(&c, N, G), gpu = N - cpu;
    cgm_roi_begin();
    cl_mem gd = cl_collab_to_gpu(&env, &c, &data, 0);
    if (gpu) {
        const int value = VALUE;
        CL_ARG(k, 0, gd);
        CL_ARG(k, 1, cpu);
        CL_ARG(k, 2, value);
        size_t global = (size_t)gpu, local = 64;
        cl_run(&env, k, 1, &global, &local);
    }
    collab_cpu(&c, cpu, cpu_part, data.host);
    cl_check(clFinish(env.q), "clFinish");
    cl_collab_from_gpu(&env, &c, &data, (size_t)cpu * 4, (size_t)gpu * 4);
    cgm_roi_end();
    const int *d = data.host;
    int ok = 1;
    for (int i = 0; i < N && ok; i++)
        if (d[i] != VALUE + i) {
            printf("data[%d] = %d, want %d\n", i, d[i], VALUE + i);
            ok = 0;
        }
    return cl_finish_exact("data", d, N * 4, ok);
}
