/* Collaborative k-nearest neighbour (seed 000 Sec. 3.3.2.4, after Rodinia's
 * nn): distances of every record to a query point, the CPU threads taking
 * the first records and the GPU the rest; the host then picks the K nearest. */
#include "collab_common.h"
#include "collab_knn_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    gpu_require();
    long k = gpu_get_kernel("knn", "knn_distance");
    float *rec = collab_host(&c, NR * 8), *dist = collab_host(&c, NR * 4);
    for (int i = 0; i < 2 * NR; i++) rec[i] = gpu_frand();
    int cpu = collab_cpu_units(&c, NR, G), gpu = NR - cpu;
    cgm_roi_begin();
    float *gr = collab_to_gpu(&c, rec, NR * 8, 1), *gd = collab_to_gpu(&c, dist, NR * 4, 0);
    if (gpu) {
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, gr); arg_ptr(&g, gd); arg_int(&g, NR); arg_int(&g, cpu);
        arg_float(&g, LAT); arg_float(&g, LNG);
        gpu_run(k, 1, (size_t)gpu, 1, G, 1, &g);
    }
    struct job j = { rec, dist };
    collab_cpu(&c, cpu, cpu_part, &j);
    cgm_gpu_wait();
    collab_from_gpu(&c, dist, gd, (size_t)cpu * 4, (size_t)gpu * 4);
    cgm_roi_end();
    static float ref[NR];
    struct job r = { rec, ref };
    cpu_part(&r, 0, NR);
    float got[K], want[K];
    nearest(dist, got);
    nearest(ref, want);
    for (int i = 0; i < K; i++)
        printf("neighbour %d at %.6f\n", i, (double)got[i]);
    return gpu_finish(gpu_close("distance", dist, ref, NR, 1e-5f) &&
                      gpu_close("nearest", got, want, K, 1e-5f));
}
