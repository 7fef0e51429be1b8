/* Shared writable file mappings (traces/x86/shared_map.c) are the file's
 * own pages under tracegen, as natively: stores reach read() and pread()
 * at once, pwrite reaches the mapping, two mappings see each other, and
 * the file holds what was stored after the run. The native run is the
 * reference. What tracegen does not emulate it refuses with a message: a
 * mapping past the file's end (EACCES), a file truncated under a mapping
 * (the run stops with SIGBUS's status, as the native guest dies). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/run_program.h"
#include "tests/unit/x86_guests.h"

static const struct run_options within_a_minute = { .timeout = 60 };

struct runs {
    struct run_result *n, *e;
};

/* The guest built as BUILD in a fresh directory of its own natively, and
 * under tracegen with --allow-write on another, given MODE (NULL: the
 * checks). */
static struct runs run_both(const char *build, const char *mode)
{
    char guest[4096], nat_dir[] = "/tmp/cgm_shmap_n_XXXXXX", emu_dir[] = "/tmp/cgm_shmap_e_XXXXXX";
    x86_guest_build_path(guest, sizeof guest, build, "shared_map");
    assert_non_null(mkdtemp(nat_dir));
    assert_non_null(mkdtemp(emu_dir));
    char *nat[] = { guest, nat_dir, (char *)mode, NULL };
    char *emu[] = { x86_tracegen_path(), "--no-trace", "--allow-write", emu_dir, "--", guest,
                    emu_dir, (char *)mode, NULL };
    struct runs r = { run_program(nat, &within_a_minute), run_program(emu, &within_a_minute) };
    rmdir(nat_dir);
    rmdir(emu_dir);
    return r;
}

static void like_native(const char *build)
{
    struct runs r = run_both(build, NULL);
    assert_int_equal(r.n->status, 0);
    assert_int_equal(r.e->status, 0);
    /* the native run shows the sharing, or the comparison proves little */
    assert_non_null(strstr(r.n->out, "pread after a store: stored\n"));
    assert_non_null(strstr(r.n->out, "first mapping: through two\n"));
    assert_string_equal(r.n->out, r.e->out);
    run_result_free(r.n);
    run_result_free(r.e);
}

static void test_like_native_musl(void **state) { (void)state; like_native("musl"); }
static void test_like_native_glibc(void **state) { (void)state; like_native("glibc"); }

/* Past the file's end a page would raise SIGBUS in tracegen itself: the
 * mapping is refused (natively it is made). */
static void test_past_end_refused(void **state)
{
    (void)state;
    struct runs r = run_both("musl", "past_end");
    assert_string_equal(r.n->out, "mapped\n");
    assert_string_equal(r.e->out, "Permission denied\n");
    assert_non_null(strstr(r.e->err, "reaches past the end of the file"));
    run_result_free(r.n);
    run_result_free(r.e);
}

/* A file truncated under its mapping: the native guest dies of SIGBUS at
 * the page past the end; tracegen stops with the same status and says
 * why. */
static void test_truncated_under_mapping(void **state)
{
    (void)state;
    struct runs r = run_both("musl", "truncated");
    assert_int_equal(r.n->status, 128 + SIGBUS);
    assert_int_equal(r.e->status, 128 + SIGBUS);
    assert_non_null(strstr(r.e->err, "truncated under the mapping"));
    run_result_free(r.n);
    run_result_free(r.e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_like_native_musl),
        cmocka_unit_test(test_like_native_glibc),
        cmocka_unit_test(test_past_end_refused),
        cmocka_unit_test(test_truncated_under_mapping),
    };
    return cmocka_run_group_tests(tests, x86_guests_setup, NULL);
}
