/* Collaborative block matrix multiply (seed 000 Sec. 3.3.2.2): C = A * B,
 * the CPU threads take the first rows, the GPU the rest (16 x 16 tiles). */
#include "collab_common.h"
#include "collab_matmul_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    gpu_require();
    long k = gpu_get_kernel("block_matmul", "block_matmul");
    float *a = collab_host(&c, N * N * 4), *b = collab_host(&c, N * N * 4), *m = collab_host(&c, N * N * 4);
    for (int i = 0; i < N * N; i++) {
        a[i] = gpu_frand() - 0.5f;
        b[i] = gpu_frand() - 0.5f;
    }
    int cpu = collab_cpu_units(&c, N, T), gpu = N - cpu;
    cgm_roi_begin();
    float *ga = collab_to_gpu(&c, a, N * N * 4, 1), *gb = collab_to_gpu(&c, b, N * N * 4, 1);
    float *gm = collab_to_gpu(&c, m, N * N * 4, 0);
    if (gpu) {
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, ga); arg_ptr(&g, gb); arg_ptr(&g, gm); arg_int(&g, N); arg_int(&g, cpu);
        gpu_run(k, 2, N, (size_t)gpu, T, T, &g);
    }
    struct job j = { a, b, m };
    collab_cpu(&c, cpu, cpu_rows, &j);
    cgm_gpu_wait();
    collab_from_gpu(&c, m, gm, (size_t)cpu * N * 4, (size_t)gpu * N * 4);
    cgm_roi_end();
    static float ref[N * N];
    struct job r = { a, b, ref };
    cpu_rows(&r, 0, N);
    return gpu_finish(gpu_close("C", m, ref, N * N, 1e-4f));
}
