/* Needleman-Wunsch as a plain OpenCL program: the twin of traces/gpu/nw.c
 * (same kernel, same inputs at the default size): one launch per
 * anti-diagonal of the score matrix, exact against the CPU recurrence.
 * Usage: nw [N (a multiple of 64, default 64)]. */
#include "cl_set.h"

enum { PENALTY = 10 };

static int imax(int a, int b) { return a > b ? a : b; }

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 64, 64, 8192, 64, 0), w = n + 1;
    size_t bytes = (size_t)w * w * 4;
    int *score = cl_alloc(bytes), *sim = cl_alloc(bytes), *ref = cl_alloc(bytes);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "nw");
    cl_kernel k = cl_kernel_of(prog, "nw_diagonal");
    cgm_roi_begin();
    for (size_t i = 0; i < (size_t)w * w; i++)
        sim[i] = (int)(cl_frand() * 21.0f) - 10;
    for (int i = 0; i < w; i++) {
        ref[(size_t)i * w] = score[(size_t)i * w] = -i * PENALTY;
        ref[i] = score[i] = -i * PENALTY;
    }
    cl_mem ms = cl_buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, score);
    cl_mem mi = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, sim);
    const int penalty = PENALTY;
    CL_ARG(k, 0, ms);
    CL_ARG(k, 1, mi);
    CL_ARG(k, 2, n);
    CL_ARG(k, 4, penalty);
    size_t global = (size_t)n, local = 64;
    for (int diag = 2; diag <= 2 * n; diag++) {
        CL_ARG(k, 3, diag);
        cl_run(&env, k, 1, &global, &local);
    }
    cl_read(&env, ms, bytes, score);
    cgm_roi_end();
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            ref[(size_t)i * w + j] =
                imax(ref[(size_t)(i - 1) * w + j - 1] + sim[(size_t)i * w + j],
                     imax(ref[(size_t)(i - 1) * w + j] - PENALTY, ref[(size_t)i * w + j - 1] - PENALTY));
    int ok = 1;
    for (size_t i = 0; i < (size_t)w * w && ok; i++)
        if (score[i] != ref[i]) {
            printf("score[%zu][%zu]: GPU %d, CPU %d\n", i / w, i % w, score[i], ref[i]);
            ok = 0;
        }
    return cl_finish_exact("score", score, bytes, ok);
}
