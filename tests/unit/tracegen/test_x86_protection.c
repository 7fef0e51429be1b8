/* General protection faults (traces/x86/protection.c) under tracegen are
 * the processor's and the kernel's: a vector instruction whose memory
 * operand must be aligned faults on a misaligned one and no other does,
 * privileged instructions fault in user mode, and each is SIGSEGV with
 * si_code SI_KERNEL, no address, trap 13 and the saved RIP on the
 * instruction. The native run is the reference. */
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
#include "tests/unit/x86_isa.h"

static char tracegen[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

static const struct run_options within_a_minute = { .timeout = 60 };

static void guest_path(char *path, size_t n, const char *build)
{
    snprintf(path, n, "%s/traces/x86/%s/protection", getenv("CGM_BUILD"), build);
}

/* MODE of the guest built as BUILD prints the same natively and recorded
 * by tracegen, and both exit 0. The native output must show both outcomes
 * (a fault and a run), or the comparison would prove little. */
static void like_native(const char *build, const char *mode)
{
    char guest[4096], trace[64];
    guest_path(guest, sizeof guest, build);
    snprintf(trace, sizeof trace, "/tmp/cgm-protection-%d.cgt", (int)getpid());
    char *nat[] = { guest, (char *)mode, NULL };
    char *emu[] = { tracegen, "--quiet", "-o", trace, "--", guest, (char *)mode, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(n->status, 0);
    assert_non_null(strstr(n->out, "signal 11 code 0x80 addr 0 trapno 13 err 0 rip at the"));
    assert_int_equal(e->status, 0);
    assert_string_equal(n->out, e->out);
    run_result_free(n);
    run_result_free(e);
    remove(trace);
}

static void test_legacy_sse_alignment_musl(void **state)
{
    (void)state;
    like_native("musl", "align");
}

static void test_legacy_sse_alignment_glibc(void **state)
{
    (void)state;
    like_native("glibc", "align");
}

/* VEX: only the aligned moves check, at 16 or 32 bytes. The native run
 * needs AVX2 (vmovntdqa ymm). */
static void test_vex_alignment(void **state)
{
    (void)state;
    if (!x86_isa_host_has(X86_ISA_AVX2)) {
        print_message("skipped: the host processor has no AVX2\n");
        skip();
    }
    like_native("musl", "vex");
}

static void test_privileged_musl(void **state)
{
    (void)state;
    like_native("musl", "privileged");
}

static void test_privileged_glibc_dynamic(void **state)
{
    (void)state;
    like_native("glibc-dyn", "privileged");
}

/* Without a handler the guest dies of SIGSEGV, natively and under
 * tracegen (whose exit status is then 128 + SIGSEGV, as a shell reports
 * the native death). */
static void dies_of_sigsegv(const char *mode)
{
    char guest[4096];
    guest_path(guest, sizeof guest, "musl");
    char *nat[] = { guest, (char *)mode, NULL };
    char *emu[] = { tracegen, "--no-trace", "--", guest, (char *)mode, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(n->status, 128 + SIGSEGV);
    assert_int_equal(e->status, 128 + SIGSEGV);
    assert_non_null(strstr(e->err, "general protection"));
    run_result_free(n);
    run_result_free(e);
}

static void test_hlt_without_handler(void **state)
{
    (void)state;
    dies_of_sigsegv("hlt");
}

static void test_misaligned_movaps_without_handler(void **state)
{
    (void)state;
    dies_of_sigsegv("movaps");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_sse_alignment_musl),
        cmocka_unit_test(test_legacy_sse_alignment_glibc),
        cmocka_unit_test(test_vex_alignment),
        cmocka_unit_test(test_privileged_musl),
        cmocka_unit_test(test_privileged_glibc_dynamic),
        cmocka_unit_test(test_hlt_without_handler),
        cmocka_unit_test(test_misaligned_movaps_without_handler),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
