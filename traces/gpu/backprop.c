/* Back-propagation on the GPU (seed 000 Sec. 3.3.1, after Rodinia): one
 * layer's forward pass (per-group partial sums in LDS, __local arguments)
 * and the weight adjustment, checked against the CPU. */
#include "gpu_common.h"

enum { IN = 256, HID = 16, B = 16 };
#define ETA 0.3f
#define MOMENTUM 0.3f

int main(void)
{
    gpu_require();
    long kf = gpu_get_kernel("backprop", "bp_layerforward");
    long ka = gpu_get_kernel("backprop", "bp_adjust_weights");
    const int W = (IN + 1) * (HID + 1);
    cgm_roi_begin();
    float *x = gpu_buffer((IN + 1) * 4), *w = gpu_buffer(W * 4), *oldw = gpu_buffer(W * 4);
    float *part = gpu_buffer(IN / B * HID * 4), *delta = gpu_buffer((HID + 1) * 4);
    static float cw[(IN + 1) * (HID + 1)], cold[(IN + 1) * (HID + 1)], cpart[IN / B * HID];
    for (int i = 0; i <= IN; i++) x[i] = gpu_frand();
    for (int i = 0; i < W; i++) cw[i] = w[i] = gpu_frand() - 0.5f;
    for (int i = 0; i <= HID; i++) delta[i] = gpu_frand() - 0.5f;

    struct gpu_args a = { .n = 0 };
    arg_ptr(&a, x); arg_ptr(&a, w); arg_ptr(&a, part);
    arg_local(&a, B * 4); arg_local(&a, B * B * 4); arg_int(&a, HID);
    gpu_run(kf, 2, HID, IN, B, B, &a);
    struct gpu_args b = { .n = 0 };
    arg_ptr(&b, delta); arg_ptr(&b, x); arg_ptr(&b, w); arg_ptr(&b, oldw); arg_int(&b, HID);
    gpu_run(ka, 2, HID, IN, B, B, &b);
    cgm_gpu_wait();
    cgm_roi_end();

    /* forward: the same tree reduction over each group's 16 rows */
    for (int g = 0; g < IN / B; g++)
        for (int j = 0; j < HID; j++) {
            float p[B];
            for (int ty = 0; ty < B; ty++) {
                int i = g * B + ty;
                p[ty] = cw[(i + 1) * (HID + 1) + j + 1] * x[i + 1];
            }
            for (int s = B / 2; s > 0; s /= 2)
                for (int ty = 0; ty < s; ty++)
                    p[ty] += p[ty + s];
            cpart[g * HID + j] = p[0];
        }
    /* adjust (oldw starts at zero) */
    for (int i = 0; i < IN; i++)
        for (int j = 0; j < HID; j++) {
            int k = (i + 1) * (HID + 1) + j + 1;
            float change = ETA * delta[j + 1] * x[i + 1] + MOMENTUM * cold[k];
            cw[k] += change;
            cold[k] = change;
        }
    for (int j = 0; j < HID; j++) {
        float bias = ETA * delta[j + 1] + MOMENTUM * cold[j + 1];
        cw[j + 1] += bias;
        cold[j + 1] = bias;
    }
    int ok = gpu_close("partial", part, cpart, IN / B * HID, 1e-5f) &&
             gpu_close("w", w, cw, W, 1e-5f) && gpu_close("oldw", oldw, cold, W, 1e-5f);
    return gpu_finish(ok);
}
