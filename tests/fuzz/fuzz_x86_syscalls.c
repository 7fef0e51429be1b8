/* libFuzzer target for tracegen's system-call layer: each input is a
 * sequence of system calls with arguments made of its bytes, run on a
 * fresh guest process by the driver of tests/unit/sys_fuzz.c, which
 * checks after every call that the descriptor table, the memory
 * bookkeeping and the file system outside the allowed directory are
 * intact. A broken check aborts (a finding); so does any sanitizer
 * report. `make test` runs a bounded, seeded share of this. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/sys_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sys_fuzz *driver;

static void close_driver(void)
{
    sys_fuzz_close(driver);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!driver) {
        driver = sys_fuzz_open();
        if (!driver)
            abort();
        atexit(close_driver);
    }
    const char *why = sys_fuzz_run(driver, data, size);
    if (why) {
        fprintf(stderr, "fuzz_x86_syscalls: %s\n", why);
        abort();
    }
    return 0;
}
