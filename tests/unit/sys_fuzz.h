/* Drives tracegen's system-call layer with system calls made of arbitrary
 * bytes, for the fuzz target (tests/fuzz/fuzz_x86_syscalls.c) and its
 * bounded run in `make test`. Each input runs on a fresh guest process
 * (a tiny static program, guest memory holding paths and the input's
 * bytes), may write only under a scratch --allow-write directory, and is
 * checked after every call: the descriptor table holds only open host
 * descriptors, the memory bookkeeping stays in bounds, and a canary file
 * beside the allowed directory is unchanged. Linked into every unit test. */
#ifndef TESTS_UNIT_SYS_FUZZ_H
#define TESTS_UNIT_SYS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

struct sys_fuzz;

/* Makes the scratch directories and the guest image; NULL on failure. */
struct sys_fuzz *sys_fuzz_open(void);
void sys_fuzz_close(struct sys_fuzz *f);

/* Runs the calls DATA describes. Returns NULL, or what went wrong. */
const char *sys_fuzz_run(struct sys_fuzz *f, const uint8_t *data, size_t size);

/* Calls made by all runs so far. */
uint64_t sys_fuzz_calls(const struct sys_fuzz *f);

#endif
