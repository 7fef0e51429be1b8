#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Small kernels for the Southern Islands emulator's unit tests; each test
 * computes the same result on the CPU and compares. */

__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *c, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

__kernel void saxpy(float alpha, __global const float *x, __global float *y)
{
    size_t i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}

/* Tree reduction in LDS, one atomic per work-group. */
__kernel void reduce_sum(__global const int *in, __global int *out, __local int *tmp)
{
    size_t l = get_local_id(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        atomic_add(out, tmp[0]);
}

/* Divergent loops: each lane runs a different number of iterations. */
__kernel void collatz_steps(__global const uint *start, __global uint *steps)
{
    size_t i = get_global_id(0);
    uint x = start[i], n = 0;
    while (x != 1u && n < 1000u) {
        x = (x & 1u) ? 3u * x + 1u : x / 2u;
        n++;
    }
    steps[i] = n;
}

/* Integer ALU mix: division, remainder, shifts, high multiply, bit counts. */
__kernel void int_mix(__global const int *a, __global const int *b, __global int *out)
{
    size_t i = get_global_id(0);
    int x = a[i], y = b[i] | 1;
    uint ux = (uint)x;
    out[8 * i + 0] = x / y;
    out[8 * i + 1] = x % y;
    out[8 * i + 2] = x >> (y & 31);
    out[8 * i + 3] = (int)(ux >> (y & 31));
    out[8 * i + 4] = mul_hi(x, y);
    out[8 * i + 5] = (int)popcount(ux);
    out[8 * i + 6] = (int)clz(ux);
    out[8 * i + 7] = min(x, y) ^ max(x, y);
}

__kernel void daxpy(double alpha, __global const double *x, __global double *y)
{
    size_t i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}

/* A per-lane array indexed at run time lives in private (scratch) memory. */
__kernel void private_array(__global const uint *seed, __global uint *out)
{
    size_t i = get_global_id(0);
    uint v[32];
    for (int k = 0; k < 32; k++)
        v[k] = seed[i] * (uint)(k + 1);
    uint acc = 0;
    for (int k = 0; k < 32; k++)
        acc += v[(seed[i] + (uint)k * 7u) & 31u];
    out[i] = acc;
}

/* 2-D grid: C = A * B for square matrices of side n. */
__kernel void matmul(__global const float *A, __global const float *B, __global float *C,
                     int n)
{
    int col = (int)get_global_id(0), row = (int)get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}

/* Work-item functions, written out per work-item. */
__kernel void ids(__global uint *out)
{
    size_t g = get_global_id(0) + get_global_id(1) * get_global_size(0);
    out[6 * g + 0] = (uint)get_local_id(0);
    out[6 * g + 1] = (uint)get_local_id(1);
    out[6 * g + 2] = (uint)get_group_id(0);
    out[6 * g + 3] = (uint)get_group_id(1);
    out[6 * g + 4] = (uint)get_num_groups(0);
    out[6 * g + 5] = (uint)get_work_dim();
}

__kernel void float_math(__global const float *x, __global float *out)
{
    size_t i = get_global_id(0);
    float v = x[i];
    out[4 * i + 0] = sqrt(v);
    out[4 * i + 1] = exp(-v);
    out[4 * i + 2] = v / (v + 1.0f);
    out[4 * i + 3] = floor(v * 3.5f);
}

/* Double division and square root: clang expands both into the SI
 * v_div_scale / v_div_fmas / v_div_fixup and v_rsq sequences, which must
 * give IEEE results. */
__kernel void double_div_sqrt(__global const double *x, __global const double *y,
                              __global double *quotient, __global double *root)
{
    size_t i = get_global_id(0);
    quotient[i] = x[i] / y[i];
    root[i] = sqrt(x[i]);
}

/* A real call: s_getpc / s_swappc into a function and s_setpc back, with
 * the callee's frame in private memory. */
__attribute__((noinline)) static uint mix_step(uint x, uint k)
{
    uint a[8];
    for (int i = 0; i < 8; i++)
        a[i] = x * (uint)(i + 3) + k;
    return a[(x ^ k) & 7] ^ (x >> 3);
}

__kernel void call_function(__global const uint *in, __global uint *out)
{
    size_t i = get_global_id(0);
    uint x = in[i];
    for (uint k = 0; k < 4; k++)
        x = mix_step(x, k);
    out[i] = x;
}

/* LDS atomics: a 64-bin histogram per work-group, merged into the global one
 * with global atomics; bins also track the maximum value seen. */
__kernel void histogram(__global const uint *data, __global uint *bins, __global uint *maxima)
{
    __local uint count[64], top[64];
    size_t l = get_local_id(0);
    if (l < 64) {
        count[l] = 0;
        top[l] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint v = data[get_global_id(0)];
    atomic_inc(&count[v & 63]);
    atomic_max(&top[v & 63], v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 64) {
        atomic_add(&bins[l], count[l]);
        atomic_max(&maxima[l], top[l]);
    }
}

/* Operations the compiler expands into longer SI sequences: 64-bit division
 * and remainder, 64-bit multiply, rotates, byte extraction, conversions
 * between 64-bit integers and doubles, float <-> unsigned. */
__kernel void wide_mix(__global const long *a, __global const long *b, __global long *out,
                       __global double *dout)
{
    size_t i = get_global_id(0);
    long x = a[i], y = b[i] | 1;
    ulong ux = (ulong)x, uy = (ulong)y;
    uint lo = (uint)ux;
    out[8 * i + 0] = x / y;
    out[8 * i + 1] = x % y;
    out[8 * i + 2] = (long)(ux / uy);
    out[8 * i + 3] = x * y;
    out[8 * i + 4] = (long)((lo << (i & 31)) | (lo >> ((32 - (i & 31)) & 31)));
    out[8 * i + 5] = (long)((ux >> 8) & 0xffu) + (long)(float)(lo & 0xffffu);
    out[8 * i + 6] = (long)((double)x * 0.5);
    out[8 * i + 7] = (long)(uint)((float)lo * 0.25f);
    dout[2 * i + 0] = (double)x;
    dout[2 * i + 1] = (double)ux;
}
