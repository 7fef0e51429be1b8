/* Kernels the differential fuzzer (test_si_fuzz) found PoCL and the
 * emulator disagreeing on, minimised; test_si_fuzz_found runs each. */

/* Seed 2, kernel 45: clang 14 divides c = (uint)clamp(x, -683, 1563) by a
 * divisor below 64 through its 24-bit float shortcut, judging c's width by
 * its sign bits although the division is unsigned, and masks the quotient
 * to 11 bits (LLVM issue 194829).  For x <= -683 the code computes 2024,
 * not 134217706: the emulator runs what the code says, as the GPU would. */
__kernel void udiv_of_clamped(__global const int *in, __global const uint *div,
                              __global uint *out)
{
    size_t i = get_global_id(0);
    uint c = (uint)clamp(in[i], -683, 1563);
    uint d = div[i] & 63;
    out[i] = d ? c / d : c;
}
