/* Micro-kernels for replay's analytical tests: each isolates one part of
 * the compute unit, and comes in pairs that differ in that part only, so a
 * test can derive the difference in time from the configuration. Every
 * kernel takes (out, in, n) and each work-item writes out[id]. */

#define MAD1 x = mad(x, a, b);
#define MAD4 MAD1 MAD1 MAD1 MAD1
#define MAD16 MAD4 MAD4 MAD4 MAD4
#define MAD64 MAD16 MAD16 MAD16 MAD16

/* A chain of dependent vector multiply-adds: 64 or 128 of them. */
__attribute__((amdgpu_flat_work_group_size(1, 1024)))
__kernel void valu_64(__global float *out, __global const float *in, uint n)
{
    size_t i = get_global_id(0);
    float x = in[i], a = in[n - 1], b = in[n - 2];
    MAD64
    out[i] = x;
}

__attribute__((amdgpu_flat_work_group_size(1, 1024)))
__kernel void valu_128(__global float *out, __global const float *in, uint n)
{
    size_t i = get_global_id(0);
    float x = in[i], a = in[n - 1], b = in[n - 2];
    MAD64 MAD64
    out[i] = x;
}

/* LDS writes and reads at a stride of 1 word (each half-wavefront's 32
 * lanes in 32 banks) or 32 words (all in one bank). */
#define LDS1(STRIDE) t[l * STRIDE] = x; x = t[l * STRIDE] + 1.0f;
#define LDS4(S) LDS1(S) LDS1(S) LDS1(S) LDS1(S)
#define LDS16(S) LDS4(S) LDS4(S) LDS4(S) LDS4(S)

__kernel void lds_stride_1(__global float *out, __global const float *in, uint n)
{
    __local float tmp[64 * 32];
    volatile __local float *t = tmp;
    uint l = get_local_id(0);
    float x = in[get_global_id(0)];
    LDS16(1)
    out[get_global_id(0)] = x + (float)n;
}

__kernel void lds_stride_32(__global float *out, __global const float *in, uint n)
{
    __local float tmp[64 * 32];
    volatile __local float *t = tmp;
    uint l = get_local_id(0);
    float x = in[get_global_id(0)];
    LDS16(32)
    out[get_global_id(0)] = x + (float)n;
}

/* Streaming: one load and one store per work-item. */
__kernel void stream_copy(__global float *out, __global const float *in, uint n)
{
    size_t i = get_global_id(0);
    out[i] = in[i] + (float)n;
}

/* 32 multiply-adds, with and without a barrier after each. */
#define STEP_BARRIER MAD1 barrier(CLK_LOCAL_MEM_FENCE);
#define STEP_BARRIER4 STEP_BARRIER STEP_BARRIER STEP_BARRIER STEP_BARRIER
#define STEP_BARRIER32 STEP_BARRIER4 STEP_BARRIER4 STEP_BARRIER4 STEP_BARRIER4 \
                       STEP_BARRIER4 STEP_BARRIER4 STEP_BARRIER4 STEP_BARRIER4

__attribute__((amdgpu_flat_work_group_size(1, 1024)))
__kernel void barrier_32(__global float *out, __global const float *in, uint n)
{
    size_t i = get_global_id(0);
    float x = in[i], a = in[n - 1], b = in[n - 2];
    STEP_BARRIER32
    out[i] = x;
}

__attribute__((amdgpu_flat_work_group_size(1, 1024)))
__kernel void no_barrier_32(__global float *out, __global const float *in, uint n)
{
    size_t i = get_global_id(0);
    float x = in[i], a = in[n - 1], b = in[n - 2];
    MAD16 MAD16
    out[i] = x;
}

/* Stores only: eight per work-item, each instruction's lanes on four
 * consecutive blocks, the eight a stride of 1024 floats apart (n a
 * multiple of 1024). */
#define STORE1(K) out[(i + (K) * 1024) % n] = (float)(K);
__kernel void store_8(__global float *out, __global const float *in, uint n)
{
    size_t i = get_global_id(0);
    (void)in;
    STORE1(0) STORE1(1) STORE1(2) STORE1(3) STORE1(4) STORE1(5) STORE1(6) STORE1(7)
}

/* Stores of 2 bytes per lane: an instruction's 64 lanes cover 128 bytes,
 * two blocks (one per 32 lanes; each 16-lane subwavefront half a block). */
__kernel void store_half(__global float *out, __global const float *in, uint n)
{
    size_t i = get_global_id(0);
    (void)in;
    ((__global ushort *)out)[i] = (ushort)(i + n);
}

/* Sixteen invalidations of the vector L1 (buffer_wbinvl1), each waited
 * for, and no other memory access: what they cost is the kernel's time
 * beside an empty kernel's. */
#define WBINVL1 __asm__ volatile("buffer_wbinvl1\n\ts_waitcnt vmcnt(0)" ::: "memory");
#define WBINVL1_4 WBINVL1 WBINVL1 WBINVL1 WBINVL1
__kernel void wbinvl1_16(__global float *out, __global const float *in, uint n)
{
    (void)out;
    (void)in;
    (void)n;
    WBINVL1_4 WBINVL1_4 WBINVL1_4 WBINVL1_4
}
