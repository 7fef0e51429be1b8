/* LU decomposition on the GPU (seed 000 Sec. 3.3.1): per elimination step a
 * column scale and a trailing-matrix update; the matrix goes to the GPU and
 * back by cgm_gpu_copy.  Checked against the same steps on the CPU, after
 * the region of interest (first buffer to the copy back, as seed 000 Sec.
 * 3.4.1 times the parallel section). */
#include "gpu_common.h"

enum { N = 48, T = 16 };

static size_t up(size_t n, size_t m) { return (n + m - 1) / m * m; }

int main(void)
{
    gpu_require();
    long ks = gpu_get_kernel("lud", "lud_scale"), ku = gpu_get_kernel("lud", "lud_update");
    static float host[N * N], ref[N * N], back[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            ref[i * N + j] = host[i * N + j] = gpu_frand() + (i == j ? (float)N : 0.0f);
    cgm_roi_begin();
    float *m = gpu_buffer(sizeof host);
    if (cgm_gpu_copy(m, host, sizeof host) < 0)
        gpu_die("copy in", 0);
    for (int k = 0; k < N - 1; k++) {
        size_t rest = (size_t)(N - k - 1);
        struct gpu_args a = { .n = 0 };
        arg_ptr(&a, m); arg_int(&a, N); arg_int(&a, k);
        gpu_run(ks, 1, up(rest, T), 1, T, 1, &a);
        gpu_run(ku, 2, up(rest, T), up(rest, T), T, T, &a);
    }
    cgm_gpu_wait();
    if (cgm_gpu_copy(back, m, sizeof back) < 0)
        gpu_die("copy out", 0);
    cgm_roi_end();
    for (int k = 0; k < N - 1; k++) {
        for (int i = k + 1; i < N; i++)
            ref[i * N + k] /= ref[k * N + k];
        for (int i = k + 1; i < N; i++)
            for (int j = k + 1; j < N; j++)
                ref[i * N + j] -= ref[i * N + k] * ref[k * N + j];
    }
    return gpu_finish(gpu_close("lu", back, ref, N * N, 1e-4f));
}
