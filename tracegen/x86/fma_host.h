/* FMA3 on the host's fused multiply-add unit (fma_host.c), for avx.c's
 * FMA instructions when the host has one. SIGNS is the kind: bits 0-1
 * which elements subtract the addend (bit 0 the even ones, bit 1 the odd
 * ones), bit 2 a negated product. A is the multiplicand, B the
 * multiplier, C the addend. */
#ifndef TRACEGEN_X86_FMA_HOST_H
#define TRACEGEN_X86_FMA_HOST_H

#include <stdint.h>

#include "tracegen/x86/cpu.h"

/* 1 when the host has AVX (its state enabled by the OS) and FMA3. */
int x86_fma_host(void);
/* USE 0: the software path from now on, whatever the host has (for the
 * tests that hold it to the host); 1: the host's unit again when it has one. */
void x86_fma_host_use(int use);

/* The scalar forms' element 0. */
uint64_t x86_fma_host_sd(unsigned signs, uint64_t a, uint64_t b, uint64_t c);
uint32_t x86_fma_host_ss(unsigned signs, uint32_t a, uint32_t b, uint32_t c);

/* R = every element of the packed form over VL (16 or 32) bytes, doubles
 * when DBL; at 16 bytes R's upper half is zero. */
void x86_fma_host_packed(unsigned signs, int dbl, unsigned vl, ymm_t *r, const ymm_t *a,
                         const ymm_t *b, const ymm_t *c);

#endif
