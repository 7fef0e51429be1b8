/* k-means as a plain OpenCL program: the twin of traces/gpu/kmeans.c (same
 * kernels, same inputs at the default size): the feature transpose and the
 * nearest-centre assignment, both results read back and checked on the CPU.
 * Usage: kmeans [POINTS (a multiple of 64, default 1024)]. */
#include "cl_set.h"

enum { NF = 4, NC = 5 };

int main(int argc, char **argv)
{
    int np = cl_size_arg(argc, argv, 1024, 64, 1 << 22, 64, 0);
    size_t fbytes = (size_t)np * NF * 4;
    float *f = cl_alloc(fbytes), *ft = cl_alloc(fbytes), cl[NC * NF];
    int *mem = cl_alloc((size_t)np * 4);
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "kmeans");
    cl_kernel ksw = cl_kernel_of(prog, "kmeans_swap"), kas = cl_kernel_of(prog, "kmeans_assign");
    cgm_roi_begin();
    for (size_t i = 0; i < (size_t)np * NF; i++) f[i] = cl_frand();
    for (int i = 0; i < NC * NF; i++) cl[i] = cl_frand();
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    cl_mem mf = cl_buffer(&env, in, fbytes, f), mft = cl_buffer(&env, CL_MEM_READ_WRITE, fbytes, NULL);
    cl_mem mc = cl_buffer(&env, in, sizeof cl, cl);
    cl_mem mm = cl_buffer(&env, CL_MEM_WRITE_ONLY, (size_t)np * 4, NULL);
    const int nf = NF, nc = NC;
    CL_ARG(ksw, 0, mf);
    CL_ARG(ksw, 1, mft);
    CL_ARG(ksw, 2, np);
    CL_ARG(ksw, 3, nf);
    size_t global = (size_t)np, local = 64;
    cl_run(&env, ksw, 1, &global, &local);
    CL_ARG(kas, 0, mft);
    CL_ARG(kas, 1, mc);
    CL_ARG(kas, 2, mm);
    CL_ARG(kas, 3, np);
    CL_ARG(kas, 4, nc);
    CL_ARG(kas, 5, nf);
    cl_run(&env, kas, 1, &global, &local);
    cl_read(&env, mft, fbytes, ft);
    cl_read(&env, mm, (size_t)np * 4, mem);
    cgm_roi_end();
    int ok = 1;
    for (int p = 0; p < np && ok; p++) {
        for (int q = 0; q < NF; q++)
            if (ft[(size_t)q * np + p] != f[(size_t)p * NF + q]) {
                printf("transpose[%d][%d] differs\n", q, p);
                ok = 0;
            }
        int best = 0;
        float bd = 3.4e38f, second = 3.4e38f;
        for (int c = 0; c < NC; c++) {
            float d = 0;
            for (int q = 0; q < NF; q++) {
                float e = f[(size_t)p * NF + q] - cl[c * NF + q];
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
    return cl_finish_exact("membership", mem, (size_t)np * 4, ok);
}
