/* Collaborative k-nearest neighbour as a plain OpenCL program: the twin of
 * traces/gpu/collab_knn.c: distances of every record to a query point, the
 * CPU threads taking the first records and the GPU the rest; the host then
 * picks the K nearest. */
#include "cl_collab.h"
#include "../gpu/collab_knn_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "knn");
    cl_kernel k = cl_kernel_of(prog, "knn_distance");
    struct cl_array rec = cl_collab_host(&env, &c, NR * 8), dist = cl_collab_host(&env, &c, NR * 4);
    float *hr = rec.host, *hd = dist.host;
    for (int i = 0; i < 2 * NR; i++) hr[i] = gpu_frand();
    int cpu = collab_cpu_units(&c, NR, G), gpu = NR - cpu;
    cgm_roi_begin();
    cl_mem gr = cl_collab_to_gpu(&env, &c, &rec, 1), gd = cl_collab_to_gpu(&env, &c, &dist, 0);
    if (gpu) {
        const int nr = NR;
        CL_ARG(k, 0, gr);
        CL_ARG(k, 1, gd);
        CL_ARG(k, 2, nr);
        CL_ARG(k, 3, cpu);
        CL_ARG(k, 4, LAT);
        CL_ARG(k, 5, LNG);
        size_t global = (size_t)gpu, local = G;
        cl_run(&env, k, 1, &global, &local);
    }
    struct job j = { hr, hd };
    collab_cpu(&c, cpu, cpu_part, &j);
    cl_check(clFinish(env.q), "clFinish");
    cl_collab_from_gpu(&env, &c, &dist, (size_t)cpu * 4, (size_t)gpu * 4);
    cgm_roi_end();
    static float ref[NR];
    struct job r = { hr, ref };
    cpu_part(&r, 0, NR);
    float got[K], want[K];
    nearest(hd, got);
    nearest(ref, want);
    for (int i = 0; i < K; i++)
        printf("neighbour %d at %.6f\n", i, (double)got[i]);
    return cl_finish("distance", hd, NR, cl_close("distance", hd, ref, NR, 1e-5f) &&
                                             cl_close("nearest", got, want, K, 1e-5f));
}
