/* k-means on the GPU (seed 000 Sec. 3.3.1, after Rodinia): the feature
 * transpose and the nearest-centre assignment, against the CPU. */
#include "gpu_common.h"

enum { NP = 1024, NF = 4, NC = 5 };

int main(void)
{
    gpu_require();
    long ksw = gpu_get_kernel("kmeans", "kmeans_swap");
    long kas = gpu_get_kernel("kmeans", "kmeans_assign");
    cgm_roi_begin();
    float *f = gpu_buffer(NP * NF * 4), *ft = gpu_buffer(NP * NF * 4), *cl = gpu_buffer(NC * NF * 4);
    int *mem = gpu_buffer(NP * 4);
    for (int i = 0; i < NP * NF; i++) f[i] = gpu_frand();
    for (int i = 0; i < NC * NF; i++) cl[i] = gpu_frand();
    struct gpu_args a = { .n = 0 };
    arg_ptr(&a, f); arg_ptr(&a, ft); arg_int(&a, NP); arg_int(&a, NF);
    gpu_run(ksw, 1, NP, 1, 64, 1, &a);
    struct gpu_args b = { .n = 0 };
    arg_ptr(&b, ft); arg_ptr(&b, cl); arg_ptr(&b, mem);
    arg_int(&b, NP); arg_int(&b, NC); arg_int(&b, NF);
    gpu_run(kas, 1, NP, 1, 64, 1, &b);
    cgm_gpu_wait();
    cgm_roi_end();
    int ok = 1;
    for (int p = 0; p < NP && ok; p++) {
        for (int q = 0; q < NF; q++)
            if (ft[q * NP + p] != f[p * NF + q]) {
                printf("transpose[%d][%d] differs\n", q, p);
                ok = 0;
            }
        int best = 0;
        float bd = 3.4e38f, second = 3.4e38f;
        for (int c = 0; c < NC; c++) {
            float d = 0;
            for (int q = 0; q < NF; q++) {
                float e = f[p * NF + q] - cl[c * NF + q];
                d += e * e;
            }
            if (d < bd) { second = bd; bd = d; best = c; }
            else if (d < second) second = d;
        }
        /* a near tie may go either way under fused multiply-add */
        if (mem[p] != best && second - bd > 1e-5f * (1.0f + bd)) {
            printf("membership[%d]: GPU %d, CPU %d\n", p, mem[p], best);
            ok = 0;
        }
    }
    return gpu_finish(ok);
}
