/* Runs x86 instruction bytes two ways, for the tests that hold the
 * interpreter to the host processor: natively, from an executable page
 * between a test's own prologue and epilogue (which move the test's
 * register frame in from and back out to the memory at rdi), and under
 * the interpreter as one decoded block. Linked into every unit test. */
#ifndef TESTS_UNIT_X86_HARNESS_H
#define TESTS_UNIT_X86_HARNESS_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

#include "tracegen/x86/cpu.h"

/* The bytes around the code under test. */
struct x86_wrap {
    const uint8_t *prologue;
    size_t prologue_len;
    const uint8_t *epilogue;
    size_t epilogue_len;
};

/* Writes prologue, CODE[0..N) and epilogue to OUT, which holds CAP bytes
 * (the test fails if they do not fit). Returns the length written. */
size_t x86_wrap_code(uint8_t *out, size_t cap, const struct x86_wrap *w, const uint8_t *code,
                     size_t n);

/* A page the host may execute, or NULL. */
uint8_t *x86_host_page_open(void);
void x86_host_page_close(uint8_t *page);

/* Runs the wrapped CODE natively from PAGE, as a function given FRAME in
 * rdi. The host's MXCSR and x87 control word are restored afterwards. */
void x86_host_run(uint8_t *page, const struct x86_wrap *w, const uint8_t *code, size_t n,
                  void *frame);

struct x86_harness {
    uint8_t *page;          /* for x86_host_run */
    csh cs;                 /* for x86_run_block */
    struct x86_cpu *cpu;    /* handed out zeroed by x86_harness_cpu */
};

/* cmocka group fixtures; the tests get the struct x86_harness as their state. */
int x86_harness_setup(void **state);
int x86_harness_teardown(void **state);

/* The harness's processor, all zero, as a fresh calloc'd one would be. */
struct x86_cpu *x86_harness_cpu(struct x86_harness *h);

/* Decodes CODE[0..N) into one block of at most MAX_INSNS instructions and
 * runs it on C. The test fails if the bytes do not decode into that many
 * instructions or the block faults. */
void x86_run_block(struct x86_harness *h, struct x86_cpu *c, const uint8_t *code, size_t n,
                   unsigned max_insns);

/* Guest memory for code that accesses memory through rdi: code at
 * X86_GUEST_CODE, the frame at X86_GUEST_DATA (8 KiB, the stack at its
 * end). */
#define X86_GUEST_CODE 0x400000ull
#define X86_GUEST_DATA 0x600000ull
#define X86_GUEST_DATA_BYTES 8192u

struct x86_guest {
    struct gmem *mem;
    struct x86_code_cache *cache;
};

int x86_guest_open(struct x86_guest *g);
void x86_guest_close(struct x86_guest *g);

/* cmocka group fixtures for tests that run code both ways through memory:
 * the state is a struct x86_guest_pair. */
struct x86_guest_pair {
    uint8_t *page;          /* for x86_host_run */
    struct x86_guest guest; /* for x86_guest_run */
};
int x86_guest_pair_setup(void **state);
int x86_guest_pair_teardown(void **state);

/* Runs the wrapped CODE under the emulator from guest memory, FRAME (SIZE
 * bytes) copied to X86_GUEST_DATA (rdi) before and back after; the run
 * ends at a hlt appended to the code (any other stop fails the test).
 * Returns the CPU (the caller frees it) for checks beyond the frame. */
struct x86_cpu *x86_guest_run(struct x86_guest *g, const struct x86_wrap *w,
                              const uint8_t *code, size_t n, void *frame, size_t size);

#endif
