/* The x86 tests' operand stream: Marsaglia's xorshift64 (13, 7, 17), so a
 * seed fixes every operand a test draws. Linked into every unit test. */
#ifndef TESTS_UNIT_X86_RAND_H
#define TESTS_UNIT_X86_RAND_H

#include <stdint.h>

/* Advances *STATE (never zero) and returns the new value. */
uint64_t x86_xorshift64(uint64_t *state);

#endif
