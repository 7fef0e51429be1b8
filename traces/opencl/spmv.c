/* Sparse matrix-vector product on a generated ROWS x ROWS CSR matrix with 1
 * to 15 non-zeros per row in random columns, against the CPU.
 * Usage: spmv [ROWS]. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int rows = cl_size_arg(argc, argv, 2048, 64, 1 << 22, 64, 0);
    int *start = cl_alloc(((size_t)rows + 1) * 4);
    for (int r = 0; r < rows; r++)
        start[r + 1] = start[r] + 1 + (int)(cl_urand() % 15);
    size_t nnz = (size_t)start[rows];
    int *cols = cl_alloc(nnz * 4);
    float *vals = cl_alloc(nnz * 4), *x = cl_alloc((size_t)rows * 4);
    float *y = cl_alloc((size_t)rows * 4), *want = cl_alloc((size_t)rows * 4);
    for (size_t e = 0; e < nnz; e++) {
        cols[e] = (int)(cl_urand() % (uint32_t)rows);
        vals[e] = cl_frand() - 0.5f;
    }
    for (int i = 0; i < rows; i++)
        x[i] = cl_frand();
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "spmv");
    cl_kernel k = cl_kernel_of(prog, "spmv_csr");
    cgm_roi_begin();
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    cl_mem ms = cl_buffer(&env, in, ((size_t)rows + 1) * 4, start);
    cl_mem mc = cl_buffer(&env, in, nnz * 4, cols), mv = cl_buffer(&env, in, nnz * 4, vals);
    cl_mem mx = cl_buffer(&env, in, (size_t)rows * 4, x);
    cl_mem my = cl_buffer(&env, CL_MEM_WRITE_ONLY, (size_t)rows * 4, NULL);
    CL_ARG(k, 0, ms);
    CL_ARG(k, 1, mc);
    CL_ARG(k, 2, mv);
    CL_ARG(k, 3, mx);
    CL_ARG(k, 4, my);
    CL_ARG(k, 5, rows);
    size_t global = (size_t)rows, local = 64;
    cl_run(&env, k, 1, &global, &local);
    cl_read(&env, my, (size_t)rows * 4, y);
    cgm_roi_end();
    for (int r = 0; r < rows; r++) {
        float acc = 0.0f;
        for (int e = start[r]; e < start[r + 1]; e++)
            acc += vals[e] * x[cols[e]];
        want[r] = acc;
    }
    printf("%zu non-zeros\n", nnz);
    return cl_finish("y", y, (size_t)rows, cl_close("y", y, want, (size_t)rows, 1e-5f));
}
