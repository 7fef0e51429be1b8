/* Needleman-Wunsch on the GPU (seed 000 Sec. 3.3.1): one launch per
 * anti-diagonal of the score matrix, exact against the CPU recurrence. */
#include "gpu_common.h"

enum { N = 64, PENALTY = 10, W = N + 1 };

static int imax(int a, int b) { return a > b ? a : b; }

int main(void)
{
    gpu_require();
    long k = gpu_get_kernel("nw", "nw_diagonal");
    cgm_roi_begin();
    int *score = gpu_buffer(W * W * 4), *sim = gpu_buffer(W * W * 4);
    static int ref[W * W];
    for (int i = 0; i < W * W; i++)
        sim[i] = (int)(gpu_frand() * 21.0f) - 10;
    for (int i = 0; i < W; i++) {
        ref[i * W] = score[i * W] = -i * PENALTY;
        ref[i] = score[i] = -i * PENALTY;
    }
    for (int diag = 2; diag <= 2 * N; diag++) {
        struct gpu_args a = { .n = 0 };
        arg_ptr(&a, score); arg_ptr(&a, sim); arg_int(&a, N); arg_int(&a, diag);
        arg_int(&a, PENALTY);
        gpu_run(k, 1, N, 1, N, 1, &a);
    }
    cgm_gpu_wait();
    cgm_roi_end();
    for (int i = 1; i <= N; i++)
        for (int j = 1; j <= N; j++)
            ref[i * W + j] = imax(ref[(i - 1) * W + j - 1] + sim[i * W + j],
                                  imax(ref[(i - 1) * W + j] - PENALTY, ref[i * W + j - 1] - PENALTY));
    for (int i = 0; i < W * W; i++)
        if (score[i] != ref[i]) {
            printf("score[%d][%d]: GPU %d, CPU %d\n", i / W, i % W, score[i], ref[i]);
            return gpu_finish(0);
        }
    return gpu_finish(1);
}
