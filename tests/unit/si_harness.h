/* Running a compiled Southern Islands kernel on the emulator from a unit
 * test: a block of host memory standing for a window of guest addresses,
 * and the set-up every such run repeats (code image, kernarg segment,
 * dispatch packet, scratch).  Linked into every unit test program, so every
 * name starts with si_test_. */
#ifndef CGM_TESTS_SI_HARNESS_H
#define CGM_TESTS_SI_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "tracegen/si/si_emu.h"

/* Guest addresses [base, base + size) held at mem.  Allocations are 256-byte
 * aligned and zeroed; only allocated bytes are mapped for the emulator. */
struct si_test_arena {
    uint8_t *mem;
    uint64_t base, size, used;
};

void si_test_arena_init(struct si_test_arena *a, uint64_t base, uint64_t size);
void si_test_arena_free(struct si_test_arena *a);
/* Fails the test when the arena has no room for BYTES more. */
uint64_t si_test_alloc(struct si_test_arena *a, uint64_t bytes);
void *si_test_host(const struct si_test_arena *a, uint64_t guest);
struct si_memory si_test_memory(struct si_test_arena *a);

/* Loads $CGM_BUILD/kernels/NAME.co (build/ without the variable); on
 * failure prints the loader's message and returns -1. */
int si_test_load_kernels(const char *name, struct si_program *p);

/* Copies PROG's image into A (code reached through s_getpc reads it there)
 * and returns its guest address, the launch's code_address. */
uint64_t si_test_place_code(struct si_test_arena *a, const struct si_program *prog);

/* Starts L for kernel K of PROG, whose image is at guest address CODE: every
 * other field zero, sizes of 0 in GRID and GROUP taken as 1. */
void si_test_launch_init(struct si_launch *l, const struct si_program *prog,
                         const struct si_kernel *k, uint64_t code, unsigned dims,
                         const uint32_t grid[3], const uint32_t group[3]);

/* Allocates in A the rest of what L's dispatch reads: the kernarg segment
 * (ARGS_BYTES explicit argument bytes, then the hidden arguments; the test
 * fails if they do not fit), the dispatch packet (set L's dynamic_lds
 * first: the packet carries the group segment size) and scratch memory. */
void si_test_launch_place(struct si_launch *l, struct si_test_arena *a, const void *args,
                          size_t args_bytes);

#endif
