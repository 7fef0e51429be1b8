/* LU decomposition as a plain OpenCL program: the twin of traces/gpu/lud.c
 * (same kernels and input): the matrix goes to the device with the buffer
 * (CL_MEM_COPY_HOST_PTR) and comes back with one read after 94 launches. */
#include "cl_common.h"

enum { N = 48, T = 16 };

static size_t up(size_t n, size_t m) { return (n + m - 1) / m * m; }

int main(void)
{
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "lud");
    cl_kernel ks = cl_kernel_of(prog, "lud_scale"), ku = cl_kernel_of(prog, "lud_update");
    static float host[N * N], ref[N * N], back[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            ref[i * N + j] = host[i * N + j] = cl_frand() + (i == j ? (float)N : 0.0f);
    cgm_roi_begin();
    cl_mem m = cl_buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host);
    int n = N;
    for (cl_kernel k2 = ks;; k2 = ku) {
        cl_check(clSetKernelArg(k2, 0, sizeof m, &m), "arg");
        cl_check(clSetKernelArg(k2, 1, sizeof n, &n), "arg");
        if (k2 == ku)
            break;
    }
    for (int k = 0; k < N - 1; k++) {
        size_t rest = (size_t)(N - k - 1);
        size_t g1 = up(rest, T), l1 = T, g2[2] = { up(rest, T), up(rest, T) }, l2[2] = { T, T };
        cl_check(clSetKernelArg(ks, 2, sizeof k, &k), "arg");
        cl_check(clSetKernelArg(ku, 2, sizeof k, &k), "arg");
        cl_check(clEnqueueNDRangeKernel(env.q, ks, 1, NULL, &g1, &l1, 0, NULL, NULL), "lud_scale");
        cl_check(clEnqueueNDRangeKernel(env.q, ku, 2, NULL, g2, l2, 0, NULL, NULL), "lud_update");
    }
    cl_check(clEnqueueReadBuffer(env.q, m, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), "read");
    cgm_roi_end();
    for (int k = 0; k < N - 1; k++) {
        for (int i = k + 1; i < N; i++)
            ref[i * N + k] /= ref[k * N + k];
        for (int i = k + 1; i < N; i++)
            for (int j = k + 1; j < N; j++)
                ref[i * N + j] -= ref[i * N + k] * ref[k * N + j];
    }
    int ok = cl_close("lu", back, ref, N * N, 1e-4f);
    return cl_finish("lu", back, N * N, ok);
}
