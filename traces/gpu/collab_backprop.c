/* Collaborative back-propagation (seed 000 Sec. 3.3.2.1): the weight
 * adjustment; the CPU threads take the first input rows, the GPU the rest. */
#include "collab_common.h"
#include "collab_backprop_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    gpu_require();
    long k = gpu_get_kernel("collab_backprop", "cb_adjust_weights");
    float *delta = collab_host(&c, (HID + 1) * 4), *x = collab_host(&c, (IN + 1) * 4);
    float *w = collab_host(&c, W * 4), *oldw = collab_host(&c, W * 4);
    static float rw[W], rold[W];
    for (int i = 0; i <= HID; i++) delta[i] = gpu_frand() - 0.5f;
    for (int i = 0; i <= IN; i++) x[i] = gpu_frand();
    for (int i = 0; i < W; i++) {
        rw[i] = w[i] = gpu_frand() - 0.5f;
        rold[i] = oldw[i] = 0.1f * gpu_frand();
    }
    int cpu = collab_cpu_units(&c, IN, B), gpu = IN - cpu;
    cgm_roi_begin();
    float *gd = collab_to_gpu(&c, delta, (HID + 1) * 4, 1), *gx = collab_to_gpu(&c, x, (IN + 1) * 4, 1);
    float *gw = collab_to_gpu(&c, w, W * 4, 1), *gold = collab_to_gpu(&c, oldw, W * 4, 1);
    if (gpu) {
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, gd); arg_ptr(&g, gx); arg_ptr(&g, gw); arg_ptr(&g, gold);
        arg_int(&g, HID); arg_int(&g, cpu);
        gpu_run(k, 2, HID, (size_t)gpu, B, B, &g);
    }
    struct job j = { delta, x, w, oldw };
    collab_cpu(&c, cpu, cpu_rows, &j);
    cgm_gpu_wait();
    size_t off = (size_t)(cpu + 1) * (HID + 1) * 4, len = (size_t)gpu * (HID + 1) * 4;
    collab_from_gpu(&c, w, gw, off, len);
    collab_from_gpu(&c, oldw, gold, off, len);
    cgm_roi_end();
    struct job r = { delta, x, rw, rold };
    cpu_rows(&r, 0, IN);
    return gpu_finish(gpu_close("w", w, rw, W, 1e-5f) && gpu_close("oldw", oldw, rold, W, 1e-5f));
}
