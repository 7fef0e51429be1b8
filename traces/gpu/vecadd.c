/* Vector addition (seed 004 Sec. 6.4.2, Fig. 6.7: two 8 M-element vectors):
 * the CPU writes A and B, the GPU adds them into C, the CPU reads C.
 *   vecadd [N (default 65536, a multiple of 64)] [share|copy (default share)]
 * share: the buffers are used by pointer and the copy protocol moves them;
 * copy: host arrays and explicit copies. The region of interest is the
 * whole program after the allocations: producing A and B (where rolling
 * update's eager transfers overlap the CPU), the kernel and consuming C;
 * its consumer is the check (C[i] against the inputs' formula, so A and B
 * are not read back). */
#include "movement_common.h"

static float a_of(long i) { return (float)(i & 1023); }
static float b_of(long i) { return 0.5f * (float)((i * 7) & 511); }

int main(int argc, char **argv)
{
    gpu_require();
    long n = argc > 1 ? atol(argv[1]) : 65536;
    int share = argc > 2 ? mv_mode(argv[2]) : 1;
    if (argc > 3 || n < 64 || n % 64 || share < 0) {
        puts("FAIL: usage: vecadd [N (a multiple of 64)] [share|copy]");
        return 1;
    }
    long k = gpu_get_kernel("vecadd", "vecadd");
    size_t bytes = (size_t)n * sizeof(float);
    struct mv_buffer A, B, C;
    float *a = mv_alloc(&A, bytes, share), *b = mv_alloc(&B, bytes, share), *c = mv_alloc(&C, bytes, share);
    cgm_roi_begin();
    for (long i = 0; i < n; i++)
        a[i] = a_of(i);
    for (long i = 0; i < n; i++)
        b[i] = b_of(i);
    mv_to_gpu(&A, bytes);
    mv_to_gpu(&B, bytes);
    struct gpu_args g = { .n = 0 };
    arg_ptr(&g, A.dev);
    arg_ptr(&g, B.dev);
    arg_ptr(&g, C.dev);
    arg_int(&g, (int)n);
    gpu_run(k, 1, (size_t)n, 1, 64, 1, &g);
    if (cgm_gpu_wait() < 0)
        gpu_die("wait", 0);
    mv_to_cpu(&C);
    long bad = -1;
    for (long i = 0; i < n; i++)
        if (c[i] != a_of(i) + b_of(i) && bad < 0)
            bad = i;
    cgm_roi_end();
    if (bad >= 0)
        printf("c[%ld]: GPU %.9g, CPU %.9g\n", bad, (double)c[bad], (double)(a_of(bad) + b_of(bad)));
    return gpu_finish(bad < 0);
}
