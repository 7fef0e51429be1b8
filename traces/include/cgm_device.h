/* Device-side support for cgmtrace's OpenCL kernels, in place of the ROCm
 * device libraries: work-item and work-group functions read the AMDHSA
 * dispatch packet and the hardware ids through clang's __builtin_amdgcn_*
 * intrinsics; barrier() is s_barrier between work-group-scope fences; the
 * math functions the workloads use map to LLVM intrinsics that the gfx600
 * backend lowers by itself.
 *
 * Kernels are built with
 *   clang -target amdgcn-amd-amdhsa -mcpu=tahiti -nogpulib -include cgm_device.h
 * which also pulls in clang's OpenCL declarations; the definitions below
 * complete those declarations (same overloadable signatures). */
#ifndef CGM_DEVICE_H
#define CGM_DEVICE_H

#define CGM_DEV static inline __attribute__((overloadable, always_inline))

/* hsa_kernel_dispatch_packet_t, the fields kernels read. */
struct cgm_dispatch_packet {
    ushort header, setup;
    ushort workgroup_size[3];
    ushort reserved0;
    uint grid_size[3];
    uint private_segment_size, group_segment_size;
    ulong kernel_object;
    ulong kernarg_address;
};

static inline __constant struct cgm_dispatch_packet *cgm_packet(void)
{
    return (__constant struct cgm_dispatch_packet *)__builtin_amdgcn_dispatch_ptr();
}

CGM_DEV uint get_work_dim(void)
{
    return cgm_packet()->setup & 3u;
}

CGM_DEV size_t get_local_id(uint d)
{
    switch (d) {
    case 0: return __builtin_amdgcn_workitem_id_x();
    case 1: return __builtin_amdgcn_workitem_id_y();
    case 2: return __builtin_amdgcn_workitem_id_z();
    default: return 0;
    }
}

CGM_DEV size_t get_group_id(uint d)
{
    switch (d) {
    case 0: return __builtin_amdgcn_workgroup_id_x();
    case 1: return __builtin_amdgcn_workgroup_id_y();
    case 2: return __builtin_amdgcn_workgroup_id_z();
    default: return 0;
    }
}

/* The enqueued work-group size (OpenCL 1.2 grids are whole work-groups). */
CGM_DEV size_t get_local_size(uint d)
{
    return d < 3 ? cgm_packet()->workgroup_size[d] : 1;
}

CGM_DEV size_t get_global_size(uint d)
{
    return d < 3 ? cgm_packet()->grid_size[d] : 1;
}

CGM_DEV size_t get_num_groups(uint d)
{
    if (d >= 3)
        return 1;
    size_t wg = cgm_packet()->workgroup_size[d];
    return (cgm_packet()->grid_size[d] + wg - 1) / wg;
}

/* The first hidden kernel arguments are the global offsets x, y, z. */
CGM_DEV size_t get_global_offset(uint d)
{
    __constant ulong *hidden = (__constant ulong *)__builtin_amdgcn_implicitarg_ptr();
    return d < 3 ? hidden[d] : 0;
}

CGM_DEV size_t get_global_id(uint d)
{
    return get_group_id(d) * get_local_size(d) + get_local_id(d) + get_global_offset(d);
}

CGM_DEV void barrier(cl_mem_fence_flags flags)
{
    (void)flags;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

CGM_DEV void mem_fence(cl_mem_fence_flags flags)
{
    (void)flags;
    __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
}

/* ---- atomics (OpenCL 1.1 atomic_* on 32-bit integers) ---------------------- */
#define CGM_ATOMIC_RMW(name, builtin, as, T) \
    CGM_DEV T name(volatile as T *p, T v) { return builtin((as T *)p, v, __ATOMIC_RELAXED); }
#define CGM_ATOMICS(as, T)                                                          \
    CGM_ATOMIC_RMW(atomic_add, __atomic_fetch_add, as, T)                           \
    CGM_ATOMIC_RMW(atomic_sub, __atomic_fetch_sub, as, T)                           \
    CGM_ATOMIC_RMW(atomic_and, __atomic_fetch_and, as, T)                           \
    CGM_ATOMIC_RMW(atomic_or, __atomic_fetch_or, as, T)                             \
    CGM_ATOMIC_RMW(atomic_xor, __atomic_fetch_xor, as, T)                           \
    CGM_ATOMIC_RMW(atomic_min, __atomic_fetch_min, as, T)                           \
    CGM_ATOMIC_RMW(atomic_max, __atomic_fetch_max, as, T)                           \
    CGM_ATOMIC_RMW(atomic_xchg, __atomic_exchange_n, as, T)                         \
    CGM_DEV T atomic_inc(volatile as T *p) { return atomic_add(p, (T)1); }          \
    CGM_DEV T atomic_dec(volatile as T *p) { return atomic_sub(p, (T)1); }          \
    CGM_DEV T atomic_cmpxchg(volatile as T *p, T cmp, T v)                          \
    {                                                                               \
        __atomic_compare_exchange_n((as T *)p, &cmp, v, 0, __ATOMIC_RELAXED,        \
                                    __ATOMIC_RELAXED);                              \
        return cmp;                                                                 \
    }
CGM_ATOMICS(__global, int)
CGM_ATOMICS(__global, uint)
CGM_ATOMICS(__local, int)
CGM_ATOMICS(__local, uint)
#undef CGM_ATOMICS
#undef CGM_ATOMIC_RMW

/* ---- integer functions ------------------------------------------------------ */
CGM_DEV int  min(int a, int b)   { return a < b ? a : b; }
CGM_DEV uint min(uint a, uint b) { return a < b ? a : b; }
CGM_DEV int  max(int a, int b)   { return a > b ? a : b; }
CGM_DEV uint max(uint a, uint b) { return a > b ? a : b; }
CGM_DEV float min(float a, float b) { return __builtin_fminf(a, b); }
CGM_DEV float max(float a, float b) { return __builtin_fmaxf(a, b); }
CGM_DEV int  abs(int x) { return x < 0 ? -x : x; }
CGM_DEV int  mul_hi(int a, int b)   { return (int)(((long)a * (long)b) >> 32); }
CGM_DEV uint mul_hi(uint a, uint b) { return (uint)(((ulong)a * (ulong)b) >> 32); }
CGM_DEV int  mul24(int a, int b)    { return ((a << 8) >> 8) * ((b << 8) >> 8); }
CGM_DEV uint mul24(uint a, uint b)  { return (a & 0xffffffu) * (b & 0xffffffu); }
CGM_DEV int  mad24(int a, int b, int c)    { return mul24(a, b) + c; }
CGM_DEV uint mad24(uint a, uint b, uint c) { return mul24(a, b) + c; }
CGM_DEV uint popcount(uint x) { return (uint)__builtin_popcount(x); }
CGM_DEV int  popcount(int x)  { return __builtin_popcount((uint)x); }
CGM_DEV uint clz(uint x) { return x ? (uint)__builtin_clz(x) : 32u; }
CGM_DEV int  clz(int x)  { return x ? __builtin_clz((uint)x) : 32; }
CGM_DEV int  clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
CGM_DEV float clamp(float x, float lo, float hi) { return __builtin_fminf(__builtin_fmaxf(x, lo), hi); }

/* ---- math ----------------------------------------------------------------- */
#define CGM_LOG2E 1.44269504088896340736f
#define CGM_LN2   0.69314718055994530942f

CGM_DEV float  fabs(float x)  { return __builtin_fabsf(x); }
CGM_DEV double fabs(double x) { return __builtin_fabs(x); }
CGM_DEV float  sqrt(float x)  { return __builtin_sqrtf(x); }
CGM_DEV double sqrt(double x) { return __builtin_sqrt(x); }
CGM_DEV float  rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
CGM_DEV float  floor(float x) { return __builtin_floorf(x); }
CGM_DEV float  ceil(float x)  { return __builtin_ceilf(x); }
CGM_DEV float  fmin(float a, float b) { return __builtin_fminf(a, b); }
CGM_DEV float  fmax(float a, float b) { return __builtin_fmaxf(a, b); }
CGM_DEV float  fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
CGM_DEV float  mad(float a, float b, float c) { return a * b + c; }
CGM_DEV float  exp2(float x)  { return __builtin_exp2f(x); }
CGM_DEV float  log2(float x)  { return __builtin_log2f(x); }
CGM_DEV float  exp(float x)   { return __builtin_exp2f(x * CGM_LOG2E); }
CGM_DEV float  log(float x)   { return __builtin_log2f(x) * CGM_LN2; }
CGM_DEV float  pow(float x, float y) { return __builtin_exp2f(y * __builtin_log2f(x)); }

#undef CGM_DEV
#endif
