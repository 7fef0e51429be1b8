/* Collaborative edge detection as a plain OpenCL program: the twin of
 * traces/gpu/collab_edge.c: a 3 x 3 filter over a grey image, the CPU
 * threads taking the first rows, the GPU the rest. */
#include "cl_collab.h"
#include "../gpu/collab_edge_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "edge_detect");
    cl_kernel k = cl_kernel_of(prog, "edge_detect");
    struct cl_array img = cl_collab_host(&env, &c, WD * HT * 4);
    struct cl_array out = cl_collab_host(&env, &c, WD * HT * 4);
    struct cl_array filter = cl_collab_host(&env, &c, 9 * 4);
    static const float sobel[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
    memcpy(filter.host, sobel, sizeof sobel);
    float *hi = img.host;
    for (int i = 0; i < WD * HT; i++) hi[i] = gpu_frand();
    int cpu = collab_cpu_units(&c, HT, T), gpu = HT - cpu;
    cgm_roi_begin();
    cl_mem gi = cl_collab_to_gpu(&env, &c, &img, 1), gf = cl_collab_to_gpu(&env, &c, &filter, 1);
    cl_mem go = cl_collab_to_gpu(&env, &c, &out, 0);
    if (gpu) {
        const int wd = WD, ht = HT;
        CL_ARG(k, 0, gi);
        CL_ARG(k, 1, gf);
        CL_ARG(k, 2, go);
        CL_ARG(k, 3, wd);
        CL_ARG(k, 4, ht);
        CL_ARG(k, 5, cpu);
        size_t global[2] = { WD, (size_t)gpu }, local[2] = { T, T };
        cl_run(&env, k, 2, global, local);
    }
    struct job j = { hi, filter.host, out.host };
    collab_cpu(&c, cpu, cpu_rows, &j);
    cl_check(clFinish(env.q), "clFinish");
    cl_collab_from_gpu(&env, &c, &out, (size_t)cpu * WD * 4, (size_t)gpu * WD * 4);
    cgm_roi_end();
    static float ref[WD * HT];
    struct job r = { hi, filter.host, ref };
    cpu_rows(&r, 0, HT);
    return cl_finish("edge", out.host, WD * HT, cl_close("edge", out.host, ref, WD * HT, 1e-5f));
}
