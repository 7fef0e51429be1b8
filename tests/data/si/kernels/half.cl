#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/* Half-precision kernels for the emulator's tests (PoCL's CPU device has no
 * cl_khr_fp16, so they live apart from basic.cl). */

/* Half precision: conversion to half (round to nearest even) and back to
 * float; the round-toward-zero packing of two floats. */
__kernel void half_convert(__global const float *restrict in, __global half *restrict h,
                           __global float *restrict back)
{
    size_t i = get_global_id(0);
    h[i] = (half)in[i];
    back[i] = (float)h[i];
}

__kernel void half_pack_rtz(__global const float *restrict in, __global uint *restrict packed)
{
    size_t i = get_global_id(0);
    packed[i] = as_uint(__builtin_amdgcn_cvt_pkrtz(in[i], -in[i] * 0.5f));
}
