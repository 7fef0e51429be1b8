/* Instruction-set extension tests against the host processor (SSE3 to
 * SSE4.2, AVX, AVX2, FMA, F16C, BMI): each case is one instruction's bytes
 * run natively and under the emulator on the same registers, flags, MXCSR
 * and memory operand, with operands drawn at random by kind, and every
 * byte of the state afterwards must be equal. A case whose extension the
 * host lacks is skipped with a message. Linked into every unit test. */
#ifndef TESTS_UNIT_X86_ISA_H
#define TESTS_UNIT_X86_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "tests/unit/x86_harness.h"

/* The state both runs start from and end with; rdi points at it and rbx
 * at its memory operand (X86_ISA_MEM). */
struct x86_isa_frame {
    uint8_t y[4][32];   /* +0: ymm0-ymm3 (xmm0-xmm3 in SSE runs) */
    uint8_t mem[64];    /* +128: the memory operand */
    uint64_t rax, rcx, rdx, unused; /* +192, +200, +208 */
    uint64_t flags;     /* +224 */
    uint32_t mxcsr, pad; /* +232 */
} __attribute__((aligned(32)));

enum x86_isa_kind {
    X86_ISA_INT, X86_ISA_DOUBLE, X86_ISA_FLOAT, X86_ISA_STR8, X86_ISA_STR16,
    X86_ISA_INDEX,      /* integers, and element indices 0..7 in ymm2 (gathers) */
    X86_ISA_HALF,       /* half-precision values (F16C) */
};

enum x86_isa_feature {
    X86_ISA_SSE3, X86_ISA_SSSE3, X86_ISA_SSE41, X86_ISA_SSE42, X86_ISA_POPCNT,
    X86_ISA_AVX, X86_ISA_AVX2, X86_ISA_FMA, X86_ISA_F16C, X86_ISA_BMI1, X86_ISA_BMI2,
    X86_ISA_LZCNT, X86_ISA_MOVBE,
};

struct x86_isa_case {
    const char *name;
    uint8_t code[16];
    uint8_t len;
    uint8_t kind;       /* enum x86_isa_kind */
    uint8_t feature;    /* enum x86_isa_feature */
    uint8_t imm_mask;   /* nonzero: the last code byte is random & imm_mask */
    uint16_t undefined; /* RFLAGS bits the manual leaves undefined: not compared */
};

#define X86_ISA_CASE(name, kind, feature, imm_mask, ...) \
    { name, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), kind, feature, imm_mask, 0 }
/* A case whose RFLAGS bits UNDEFINED are left out of the comparison. */
#define X86_ISA_CASE_UNDEF(name, kind, feature, undefined, ...) \
    { name, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), kind, feature, 0, undefined }

/* ModRM of a memory operand [rbx] with register field R. */
#define X86_ISA_MEM(r) (uint8_t)(0x03 | ((r) << 3))

/* 1 when the host processor (and its OS, for AVX state) has F. */
int x86_isa_host_has(enum x86_isa_feature f);

/* Runs every case ITERATIONS times with fresh operands, SSE-sized (YMM 0:
 * the frame's xmm halves are loaded and stored with SSE moves) or AVX-sized
 * (the whole ymm registers). Prints each difference; returns the number of
 * failing runs (at most 10 are run past the first). Skips the test when no
 * case could run. */
int x86_isa_run(const struct x86_isa_case *cases, size_t n, int ymm, int iterations);

#endif
