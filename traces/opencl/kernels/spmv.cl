/* Sparse matrix-vector product y = A x (Parboil and SHOC spmv, scalar CSR):
 * one work-item per row walks the row's non-zeros. */
__kernel void spmv_csr(__global const int *row_start, __global const int *cols,
                       __global const float *vals, __global const float *x, __global float *y,
                       int rows)
{
    int r = (int)get_global_id(0);
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int e = row_start[r]; e < row_start[r + 1]; e++)
        acc += vals[e] * x[cols[e]];
    y[r] = acc;
}
