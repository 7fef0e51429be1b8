/* Failures no caller can handle.
 *
 * CGM_CHECK(cond): an invariant the code relies on (not a check of input,
 * which gets an error message instead). Checked in the sanitizer build
 * (`make check-asan` defines CGM_CHECKS) and whenever CGM_CHECKS is
 * defined; compiled out otherwise, where the simulator's hot paths cannot
 * pay for it. A failed check names the file, line and condition and
 * aborts, so the sanitizers print the stack. */
#ifndef CGM_CHECK_H
#define CGM_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* Allocation failed where nothing can recover: inside a simulation step or
 * an emulated instruction, with no caller to hand an error to. Says what
 * could not be allocated and aborts. */
static inline _Noreturn void cgm_oom(const char *what)
{
    fprintf(stderr, "cgmtrace: out of memory: %s\n", what);
    abort();
}

#if defined(CGM_CHECKS) && CGM_CHECKS
#define CGM_CHECK(cond)                                                                       \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);       \
            abort();                                                                          \
        }                                                                                     \
    } while (0)
#else
/* The condition stays compiled (names checked, no unused warnings) but is
 * never evaluated. */
#define CGM_CHECK(cond) ((void)(0 && (cond)))
#endif

#endif
