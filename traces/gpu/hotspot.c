/* HotSpot on the GPU (seed 000 Sec. 3.3.1): a few explicit time steps of
 * the thermal grid, checked against the same arithmetic on the CPU.  Steps
 * after the first are the region of interest (cgm_roi_begin/end).
 * Usage: hotspot [SIZE (multiple of 16, default 64)] [STEPS (default 4)] [CHECK (default 1)]
 * CHECK 0 leaves the CPU's computation and the check out: the GPU's work
 * alone, for timing the GPU models. */
#include "gpu_common.h"

static int S = 64, STEPS = 4, CHECK = 1;

static void cpu_step(const float *power, const float *tin, float *tout, float cap, float rx,
                     float ry, float rz, float step, float amb)
{
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            float t = tin[r * S + c];
            float n = r == 0 ? t : tin[(r - 1) * S + c];
            float s = r == S - 1 ? t : tin[(r + 1) * S + c];
            float w = c == 0 ? t : tin[r * S + c - 1];
            float e = c == S - 1 ? t : tin[r * S + c + 1];
            float delta = (step / cap) * (power[r * S + c] + (s + n - 2.0f * t) / ry +
                                          (e + w - 2.0f * t) / rx + (amb - t) / rz);
            tout[r * S + c] = t + delta;
        }
}

int main(int argc, char **argv)
{
    if (argc > 1) S = atoi(argv[1]);
    if (argc > 2) STEPS = atoi(argv[2]);
    if (argc > 3) CHECK = atoi(argv[3]);
    if (S < 16 || S > 4096 || S % 16 || STEPS < 1 || STEPS > 1000 || (CHECK != 0 && CHECK != 1)) {
        fprintf(stderr, "usage: %s [SIZE: 16..4096, multiple of 16] [STEPS: 1..1000] [CHECK: 0 or 1]\n",
                argv[0]);
        return 2;
    }
    gpu_require();
    long k = gpu_get_kernel("hotspot", "hotspot_step");
    size_t bytes = (size_t)S * S * 4;
    float *power = gpu_buffer(bytes), *t0 = gpu_buffer(bytes), *t1 = gpu_buffer(bytes);
    float *cp = malloc(bytes), *c0 = malloc(bytes), *c1 = malloc(bytes);
    if (!cp || !c0 || !c1)
        gpu_die("malloc", 0);
    for (int i = 0; i < S * S; i++) {
        cp[i] = power[i] = gpu_frand();
        c0[i] = t0[i] = 320.0f + 10.0f * gpu_frand();
    }
    const float cap = 0.5f, rx = 1.5f, ry = 1.25f, rz = 30.0f, step = 0.01f, amb = 80.0f;
    for (int i = 0; i < STEPS; i++) {
        if (i == 1)        /* the first step warms up; the rest is the ROI */
            cgm_roi_begin();
        float *in = i & 1 ? t1 : t0, *out = i & 1 ? t0 : t1;
        struct gpu_args a = { .n = 0 };
        arg_ptr(&a, power); arg_ptr(&a, in); arg_ptr(&a, out);
        arg_int(&a, S); arg_int(&a, S);
        arg_float(&a, cap); arg_float(&a, rx); arg_float(&a, ry); arg_float(&a, rz);
        arg_float(&a, step); arg_float(&a, amb);
        gpu_run(k, 2, (size_t)S, (size_t)S, 16, 16, &a);
        if (CHECK)
            cpu_step(cp, i & 1 ? c1 : c0, i & 1 ? c0 : c1, cap, rx, ry, rz, step, amb);
    }
    cgm_gpu_wait();
    cgm_roi_end();
    if (!CHECK)
        return gpu_finish(1);
    const float *got = STEPS & 1 ? t1 : t0, *want = STEPS & 1 ? c1 : c0;
    return gpu_finish(gpu_close("temperature", got, want, (size_t)S * S, 1e-5f));
}
