/* HotSpot as a plain OpenCL program: the twin of traces/gpu/hotspot.c
 * (same kernel, inputs and time steps; steps after the first are the region
 * of interest). Usage: hotspot [SIZE (multiple of 16, default 64)] [STEPS
 * (default 4)]. */
#include "cl_common.h"

static int S = 64, STEPS = 4;

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
    if (S < 16 || S > 4096 || S % 16 || STEPS < 1 || STEPS > 1000) {
        fprintf(stderr, "usage: %s [SIZE: 16..4096, multiple of 16] [STEPS: 1..1000]\n", argv[0]);
        return 2;
    }
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "hotspot");
    cl_kernel k = cl_kernel_of(prog, "hotspot_step");
    size_t bytes = (size_t)S * S * 4;
    float *power = malloc(bytes), *t0 = malloc(bytes), *cp = malloc(bytes), *c0 = malloc(bytes),
          *c1 = malloc(bytes), *got = malloc(bytes);
    if (!power || !t0 || !cp || !c0 || !c1 || !got)
        cl_check(CL_OUT_OF_HOST_MEMORY, "malloc");
    for (int i = 0; i < S * S; i++) {
        cp[i] = power[i] = cl_frand();
        c0[i] = t0[i] = 320.0f + 10.0f * cl_frand();
    }
    cl_mem mp = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, power);
    cl_mem m0 = cl_buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, t0);
    cl_mem m1 = cl_buffer(&env, CL_MEM_READ_WRITE, bytes, NULL);
    const float cap = 0.5f, rx = 1.5f, ry = 1.25f, rz = 30.0f, step = 0.01f, amb = 80.0f;
    const float fargs[6] = { cap, rx, ry, rz, step, amb };
    cl_check(clSetKernelArg(k, 0, sizeof mp, &mp), "arg");
    cl_check(clSetKernelArg(k, 3, sizeof S, &S), "arg");
    cl_check(clSetKernelArg(k, 4, sizeof S, &S), "arg");
    for (int i = 0; i < 6; i++)
        cl_check(clSetKernelArg(k, 5 + (cl_uint)i, sizeof(float), &fargs[i]), "arg");
    size_t global[2] = { (size_t)S, (size_t)S }, local[2] = { 16, 16 };
    for (int i = 0; i < STEPS; i++) {
        if (i == 1)
            cgm_roi_begin();
        cl_mem in = i & 1 ? m1 : m0, out = i & 1 ? m0 : m1;
        cl_check(clSetKernelArg(k, 1, sizeof in, &in), "arg");
        cl_check(clSetKernelArg(k, 2, sizeof out, &out), "arg");
        cl_check(clEnqueueNDRangeKernel(env.q, k, 2, NULL, global, local, 0, NULL, NULL),
                 "hotspot_step");
        cpu_step(cp, i & 1 ? c1 : c0, i & 1 ? c0 : c1, cap, rx, ry, rz, step, amb);
    }
    cl_check(clFinish(env.q), "clFinish");
    cgm_roi_end();
    cl_check(clEnqueueReadBuffer(env.q, STEPS & 1 ? m1 : m0, CL_TRUE, 0, bytes, got, 0, NULL,
                                 NULL), "read");
    const float *want = STEPS & 1 ? c1 : c0;
    int ok = cl_close("temperature", got, want, (size_t)S * S, 1e-5f);
    return cl_finish("temperature", got, (size_t)S * S, ok);
}
