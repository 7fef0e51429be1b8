/* Random OpenCL C kernels whose results the language defines exactly, for
 * the differential fuzzer (test_si_fuzz): the same source runs on PoCL and,
 * compiled for gfx600, on the SI emulator, and every output bit must agree.
 * Seeded and deterministic: kernel INDEX of SEED is always the same text.
 *
 * What a kernel does: integer arithmetic in unsigned form (no signed
 * overflow), divisions and shifts with their operands made safe, 64-bit
 * integers, float and double +, -, *, fma, min/max, floor/ceil and double
 * division and square root with every value kept 0 or within [2^-16, 2^16]
 * (float) or [2^-30, 2^30] (double) by exact power-of-two scaling, so no
 * result is a denormal, an infinity or a NaN and none depends on a
 * denormal mode; loads at negative and strided offsets, through 64-bit
 * pointer arithmetic and at data-dependent indices (all inside the
 * buffers), private arrays, __local memory between barriers, local and
 * global atomics whose final values do not depend on order, divergent
 * if/else, loops, switch and break, calls, and stores through a pointer
 * to the end of the work-item's slot at negative offsets.  Only functions
 * traces/include/cgm_device.h defines exactly are used; FP_CONTRACT is off.
 *
 * Every kernel has the signature
 *   (__global const int *ia, __global const float *fa, __global const double *da,
 *    __global int *io, __global float *fo, __global double *dout,
 *    __global int *acc, int si, float sf)
 * Linked into every unit test program, so every name starts with si_test_. */
#ifndef CGM_TESTS_SI_KERNEL_GEN_H
#define CGM_TESTS_SI_KERNEL_GEN_H

#include <stddef.h>
#include <stdint.h>

/* Per work-item outputs and the atomic counters. */
enum { SI_TEST_GEN_INTS = 6, SI_TEST_GEN_FLOATS = 3, SI_TEST_GEN_DOUBLES = 2,
       SI_TEST_GEN_ACC = 16 };

struct si_test_gen_kernel {
    char name[32];
    unsigned dims;                /* 1 or 2 */
    uint32_t grid[3], group[3];   /* the third is 1 */
    uint32_t items;               /* grid[0] * grid[1] */
    uint32_t inputs;              /* elements of ia, fa and da (a power of two) */
    int32_t si;                   /* the scalar arguments */
    float sf;
    uint64_t input_seed;          /* for si_test_gen_inputs */
};

/* A growing NUL-terminated string. */
struct si_test_text {
    char *s;
    size_t len, cap;
};

void si_test_text_add(struct si_test_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void si_test_text_free(struct si_test_text *t);

/* The lines every batch source starts with: pragmas and helper functions. */
void si_test_gen_prelude(struct si_test_text *t);

/* Appends kernel INDEX of SEED to T and describes its launch in K. */
void si_test_gen_kernel(uint64_t seed, unsigned index, struct si_test_text *t,
                        struct si_test_gen_kernel *k);

/* The kernel's inputs, in the ranges the generator assumes: ia any int,
 * fa and da 0 or within the ranges above.  Arrays of K->inputs elements. */
void si_test_gen_inputs(const struct si_test_gen_kernel *k, int32_t *ia, float *fa, double *da);

#endif
