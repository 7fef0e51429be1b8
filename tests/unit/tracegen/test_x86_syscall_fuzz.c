/* The system-call layer under random arguments (tests/unit/sys_fuzz.c):
 * a bounded, seeded run of what the libFuzzer target
 * tests/fuzz/fuzz_x86_syscalls.c explores at length. Under `make
 * check-asan` an out-of-bounds index or overflow anywhere in the layer
 * ends the program; in any build the driver's checks must hold after every
 * call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

#include "tests/unit/sys_fuzz.h"

static uint64_t next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void test_random_calls_keep_the_invariants(void **state)
{
    (void)state;
    struct sys_fuzz *f = sys_fuzz_open();
    assert_non_null(f);
    uint64_t seed = 0x5eed5eed12345ull;
    static uint8_t input[1024];
    /* the GPU driver explains every refused call on stderr */
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    for (int run = 0; run < 3000; run++) {
        size_t n = 16 + next(&seed) % (sizeof input - 16);
        for (size_t i = 0; i < n; i++)
            input[i] = (uint8_t)next(&seed);
        const char *why = sys_fuzz_run(f, input, n);
        if (why)
            dup2(saved, 2);
        if (why)
            print_error("input %d: %s\n", run, why);
        assert_null(why);
    }
    dup2(saved, 2);
    close(saved);
    close(null);
    /* the inputs made calls, not only set-up */
    assert_true(sys_fuzz_calls(f) > 3000 * 4);
    printf("system calls made: %llu\n", (unsigned long long)sys_fuzz_calls(f));
    sys_fuzz_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_calls_keep_the_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
