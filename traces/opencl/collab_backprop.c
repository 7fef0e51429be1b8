/* Collaborative back-propagation as a plain OpenCL program: the twin of
 * traces/gpu/collab_backprop.c: the weight adjustment, the CPU threads
 * taking the first input rows, the GPU the rest. */
#include "cl_collab.h"
#include "../gpu/collab_backprop_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "collab_backprop");
    cl_kernel k = cl_kernel_of(prog, "cb_adjust_weights");
    struct cl_array delta = cl_collab_host(&env, &c, (HID + 1) * 4);
    struct cl_array x = cl_collab_host(&env, &c, (IN + 1) * 4);
    struct cl_array w = cl_collab_host(&env, &c, W * 4), oldw = cl_collab_host(&env, &c, W * 4);
    float *hd = delta.host, *hx = x.host, *hw = w.host, *ho = oldw.host;
    static float rw[W], rold[W];
    for (int i = 0; i <= HID; i++) hd[i] = gpu_frand() - 0.5f;
    for (int i = 0; i <= IN; i++) hx[i] = gpu_frand();
    for (int i = 0; i < W; i++) {
        rw[i] = hw[i] = gpu_frand() - 0.5f;
        rold[i] = ho[i] = 0.1f * gpu_frand();
    }
    int cpu = collab_cpu_units(&c, IN, B), gpu = IN - cpu;
    cgm_roi_begin();
    cl_mem gd = cl_collab_to_gpu(&env, &c, &delta, 1), gx = cl_collab_to_gpu(&env, &c, &x, 1);
    cl_mem gw = cl_collab_to_gpu(&env, &c, &w, 1), gold = cl_collab_to_gpu(&env, &c, &oldw, 1);
    if (gpu) {
        const int hid = HID;
        CL_ARG(k, 0, gd);
        CL_ARG(k, 1, gx);
        CL_ARG(k, 2, gw);
        CL_ARG(k, 3, gold);
        CL_ARG(k, 4, hid);
        CL_ARG(k, 5, cpu);
        size_t global[2] = { HID, (size_t)gpu }, local[2] = { B, B };
        cl_run(&env, k, 2, global, local);
    }
    struct job j = { hd, hx, hw, ho };
    collab_cpu(&c, cpu, cpu_rows, &j);
    cl_check(clFinish(env.q), "clFinish");
    size_t off = (size_t)(cpu + 1) * (HID + 1) * 4, len = (size_t)gpu * (HID + 1) * 4;
    cl_collab_from_gpu(&env, &c, &w, off, len);
    cl_collab_from_gpu(&env, &c, &oldw, off, len);
    cgm_roi_end();
    struct job r = { hd, hx, rw, rold };
    cpu_rows(&r, 0, IN);
    int ok = cl_close("w", hw, rw, W, 1e-5f) && cl_close("oldw", ho, rold, W, 1e-5f);
    return cl_finish("w", hw, W, ok);
}
