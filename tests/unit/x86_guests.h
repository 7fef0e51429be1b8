/* What the tests of x86 guest programs run: bin/tracegen (the directory
 * CGM_BIN names) and the guest workloads of traces/x86 built under
 * CGM_BUILD (`make x86-guests`). Linked into every unit test. */
#ifndef TESTS_UNIT_X86_GUESTS_H
#define TESTS_UNIT_X86_GUESTS_H

#include <stddef.h>

/* A cmocka group setup: fails (-1) when CGM_BUILD or CGM_BIN is not set,
 * as when a test is run by hand outside `make test`. */
int x86_guests_setup(void **state);

/* The path of bin/tracegen. */
char *x86_tracegen_path(void);

/* Writes to PATH (N bytes) the path of guest NAME as BUILD built it
 * (musl, glibc, musl-dyn or glibc-dyn). */
void x86_guest_build_path(char *path, size_t n, const char *build, const char *name);

#endif
