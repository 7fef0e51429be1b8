/* Back-propagation as a plain OpenCL program: the twin of traces/gpu/
 * backprop.c (same kernels, same inputs), with the buffers created from
 * host memory, the momentum buffer filled with zeros, and the results read
 * back. */
#include "cl_common.h"

enum { IN = 256, HID = 16, B = 16 };
#define ETA 0.3f
#define MOMENTUM 0.3f

int main(void)
{
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "backprop");
    cl_kernel kf = cl_kernel_of(prog, "bp_layerforward");
    cl_kernel ka = cl_kernel_of(prog, "bp_adjust_weights");
    enum { W = (IN + 1) * (HID + 1) };
    static float x[IN + 1], w[W], delta[HID + 1], part[IN / B * HID], gw[W], gold[W];
    static float cw[W], cold[W], cpart[IN / B * HID];
    cgm_roi_begin();
    for (int i = 0; i <= IN; i++) x[i] = cl_frand();
    for (int i = 0; i < W; i++) cw[i] = w[i] = cl_frand() - 0.5f;
    for (int i = 0; i <= HID; i++) delta[i] = cl_frand() - 0.5f;
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    cl_mem mx = cl_buffer(&env, in, sizeof x, x);
    cl_mem mw = cl_buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof w, w);
    cl_mem mold = cl_buffer(&env, CL_MEM_READ_WRITE, sizeof gold, NULL);
    cl_mem mpart = cl_buffer(&env, CL_MEM_WRITE_ONLY, sizeof part, NULL);
    cl_mem mdelta = cl_buffer(&env, in, sizeof delta, delta);
    const float zero = 0.0f;
    cl_check(clEnqueueFillBuffer(env.q, mold, &zero, sizeof zero, 0, sizeof gold, 0, NULL, NULL),
             "clEnqueueFillBuffer");

    int hid = HID;
    cl_check(clSetKernelArg(kf, 0, sizeof mx, &mx), "arg");
    cl_check(clSetKernelArg(kf, 1, sizeof mw, &mw), "arg");
    cl_check(clSetKernelArg(kf, 2, sizeof mpart, &mpart), "arg");
    cl_check(clSetKernelArg(kf, 3, B * sizeof(float), NULL), "arg");
    cl_check(clSetKernelArg(kf, 4, B * B * sizeof(float), NULL), "arg");
    cl_check(clSetKernelArg(kf, 5, sizeof hid, &hid), "arg");
    size_t global[2] = { HID, IN }, local[2] = { B, B };
    cl_check(clEnqueueNDRangeKernel(env.q, kf, 2, NULL, global, local, 0, NULL, NULL),
             "bp_layerforward");
    cl_check(clSetKernelArg(ka, 0, sizeof mdelta, &mdelta), "arg");
    cl_check(clSetKernelArg(ka, 1, sizeof mx, &mx), "arg");
    cl_check(clSetKernelArg(ka, 2, sizeof mw, &mw), "arg");
    cl_check(clSetKernelArg(ka, 3, sizeof mold, &mold), "arg");
    cl_check(clSetKernelArg(ka, 4, sizeof hid, &hid), "arg");
    cl_check(clEnqueueNDRangeKernel(env.q, ka, 2, NULL, global, local, 0, NULL, NULL),
             "bp_adjust_weights");
    cl_check(clEnqueueReadBuffer(env.q, mpart, CL_FALSE, 0, sizeof part, part, 0, NULL, NULL),
             "read");
    cl_check(clEnqueueReadBuffer(env.q, mw, CL_FALSE, 0, sizeof gw, gw, 0, NULL, NULL), "read");
    cl_check(clEnqueueReadBuffer(env.q, mold, CL_TRUE, 0, sizeof gold, gold, 0, NULL, NULL),
             "read");
    cgm_roi_end();

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
    int ok = cl_close("partial", part, cpart, IN / B * HID, 1e-5f) &&
             cl_close("w", gw, cw, W, 1e-5f) && cl_close("oldw", gold, cold, W, 1e-5f);
    clReleaseMemObject(mx);
    clReleaseMemObject(mw);
    clReleaseMemObject(mold);
    clReleaseMemObject(mpart);
    clReleaseMemObject(mdelta);
    clReleaseKernel(kf);
    clReleaseKernel(ka);
    clReleaseProgram(prog);
    clReleaseCommandQueue(env.q);
    clReleaseContext(env.ctx);
    return cl_finish("weights", gw, W, ok);
}
