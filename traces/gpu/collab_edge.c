/* Collaborative edge detection (seed 000 Sec. 3.3.2.3): a 3 x 3 filter over a
 * grey image; the CPU threads take the first rows, the GPU the rest. */
#include "collab_common.h"
#include "collab_edge_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    gpu_require();
    long k = gpu_get_kernel("edge_detect", "edge_detect");
    float *img = collab_host(&c, WD * HT * 4), *out = collab_host(&c, WD * HT * 4);
    float *filter = collab_host(&c, 9 * 4);
    static const float sobel[9] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
    memcpy(filter, sobel, sizeof sobel);
    for (int i = 0; i < WD * HT; i++) img[i] = gpu_frand();
    int cpu = collab_cpu_units(&c, HT, T), gpu = HT - cpu;
    cgm_roi_begin();
    float *gi = collab_to_gpu(&c, img, WD * HT * 4, 1), *gf = collab_to_gpu(&c, filter, 36, 1);
    float *go = collab_to_gpu(&c, out, WD * HT * 4, 0);
    if (gpu) {
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, gi); arg_ptr(&g, gf); arg_ptr(&g, go);
        arg_int(&g, WD); arg_int(&g, HT); arg_int(&g, cpu);
        gpu_run(k, 2, WD, (size_t)gpu, T, T, &g);
    }
    struct job j = { img, filter, out };
    collab_cpu(&c, cpu, cpu_rows, &j);
    cgm_gpu_wait();
    collab_from_gpu(&c, out, go, (size_t)cpu * WD * 4, (size_t)gpu * WD * 4);
    cgm_roi_end();
    static float ref[WD * HT];
    struct job r = { img, filter, ref };
    cpu_rows(&r, 0, HT);
    return gpu_finish(gpu_close("edge", out, ref, WD * HT, 1e-5f));
}
