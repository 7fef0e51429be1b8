/* What the differential fuzzer found, as minimised kernels
 * (tests/data/si/kernels/fuzz_found.cl), each checked against values worked
 * out by hand from the instructions clang emitted (its listing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracegen/si/si_emu.h"
#include "tests/unit/si_files.h"
#include "tests/unit/si_harness.h"

/* The listing of fuzz_found.cl holds every line of NEEDLES. */
static void listing_has(const char *const *needles)
{
    const char *b = getenv("CGM_BUILD");
    char path[1024];
    snprintf(path, sizeof path, "%s/kernels/test/fuzz_found.s", b ? b : "build");
    char *s = si_test_read_file(path, NULL);
    assert_non_null(s);
    for (const char *const *n = needles; *n; n++)
        if (!strstr(s, *n))
            fail_msg("%s has no \"%s\": clang's code changed, the case needs a new look", path,
                     *n);
    free(s);
}

/* clang's 24-bit unsigned division shortcut on a clamped value: v_cvt_f32_u32
 * rounds 2^32 - 683 to the nearest float, 2^32 - 768 (spacing 256 there);
 * times v_rcp_iflag_f32(32) = 2^-5 exactly gives 134217704, v_trunc and
 * v_cvt_u32 keep it, the v_mad_f32 remainder 0 adds nothing, and
 * v_and_b32 0x7ff leaves 134217704 mod 2048 = 2024.  The other lanes are
 * small enough for the float path to be exact. */
static void udiv_of_clamped(void **state)
{
    (void)state;
    const char *code[] = { "v_cvt_f32_u32_e32", "v_rcp_iflag_f32_e32", "v_trunc_f32_e32",
                           "v_and_b32_e32 v2, 0x7ff, v2", NULL };
    listing_has(code);
    enum { N = 64 };
    static const int32_t x[] = { -683, -5000, 1000, 1563, 0, 7 };
    static const uint32_t d[] = { 32, 96, 7, 1, 5, 64 };   /* & 63: 32, 32, 7, 1, 5, 0 */
    static const uint32_t want[] = { 2024, 2024, 142, 1563, 0, 7 };
    struct si_program p;
    assert_int_equal(si_test_load_kernels("test/fuzz_found", &p), 0);
    struct si_test_arena a;
    si_test_arena_init(&a, 0x7f0000000000ull, 1 << 20);
    uint64_t code_at = si_test_place_code(&a, &p);
    uint64_t in = si_test_alloc(&a, N * 4), div = si_test_alloc(&a, N * 4),
             out = si_test_alloc(&a, N * 4);
    int32_t *hin = si_test_host(&a, in);
    uint32_t *hdiv = si_test_host(&a, div);
    for (int i = 0; i < N; i++) {
        hin[i] = x[i % 6];
        hdiv[i] = d[i % 6];
    }
    const struct si_kernel *k = si_program_kernel(&p, "udiv_of_clamped");
    assert_non_null(k);
    struct si_launch l;
    const uint32_t grid[3] = { N }, group[3] = { N };
    si_test_launch_init(&l, &p, k, code_at, 1, grid, group);
    struct { uint64_t in, div, out; } args = { in, div, out };
    si_test_launch_place(&l, &a, &args, sizeof args);
    struct si_memory mem = si_test_memory(&a);
    char err[512];
    if (si_run(&l, &mem, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    const uint32_t *o = si_test_host(&a, out);
    for (int i = 0; i < N; i++)
        assert_int_equal(o[i], want[i % 6]);
    si_test_arena_free(&a);
    si_program_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(udiv_of_clamped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
