/* General protection faults (traces/x86/protection.c) under tracegen are
 * the processor's and the kernel's: a vector instruction whose memory
 * operand must be aligned faults on a misaligned one and no other does,
 * privileged instructions fault in user mode, and each is SIGSEGV with
 * si_code SI_KERNEL, no address, trap 13 and the saved RIP on the
 * instruction; the interrupt instructions (int3, int1, int N, into, ud2)
 * raise what Linux makes of their vectors. The native run is the
 * reference. */
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
#include "tests/unit/x86_isa.h"

static const struct run_options within_a_minute = { .timeout = 60 };

/* What the kernel reports for #GP: SIGSEGV, SI_KERNEL, no address, trap
 * 13, the error code 0 of a fault that names no descriptor, and the saved
 * RIP on the instruction. */
static const char gp_fault[] = "signal 11 code 0x80 addr 0 trapno 13 err 0 rip at the";

/* MODE of the guest built as BUILD prints the same natively and recorded
 * by tracegen, and both exit 0. The native output must show EXPECT (a
 * fault, among instructions that run), or the comparison would prove
 * little. */
static void like_native(const char *build, const char *mode, const char *expect)
{
    char guest[4096], trace[64];
    x86_guest_build_path(guest, sizeof guest, build, "protection");
    snprintf(trace, sizeof trace, "/tmp/cgm-protection-%d.cgt", (int)getpid());
    char *nat[] = { guest, (char *)mode, NULL };
    char *emu[] = { x86_tracegen_path(), "--quiet", "-o", trace, "--", guest, (char *)mode, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(n->status, 0);
    assert_non_null(strstr(n->out, expect));
    assert_int_equal(e->status, 0);
    assert_string_equal(n->out, e->out);
    run_result_free(n);
    run_result_free(e);
    remove(trace);
}

static void test_legacy_sse_alignment_musl(void **state)
{
    (void)state;
    like_native("musl", "align", gp_fault);
}

static void test_legacy_sse_alignment_glibc(void **state)
{
    (void)state;
    like_native("glibc", "align", gp_fault);
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
    like_native("musl", "vex", gp_fault);
}

static void test_privileged_musl(void **state)
{
    (void)state;
    like_native("musl", "privileged", gp_fault);
}

static void test_privileged_glibc_dynamic(void **state)
{
    (void)state;
    like_native("glibc-dyn", "privileged", gp_fault);
}

/* The interrupt instructions: int3 and `int 3` raise #BP (SIGTRAP,
 * SI_KERNEL, no address, trap 3, RIP after the instruction: a trap), int1
 * #DB (SIGTRAP, TRAP_BRKPT at the next instruction), `int 4` #OF (SIGSEGV,
 * a trap), `int N` of a gate closed to user mode #GP with the error code
 * N * 8 + 2 (the IDT entry), into and ud2 #UD (SIGILL, ILL_ILLOPN at the
 * instruction). The native output must show int3's SIGTRAP. */
static const char int3_trap[] = "int3: signal 5 code 0x80 addr 0 trapno 3 err 0 rip insn+1";

static void test_traps_musl(void **state)
{
    (void)state;
    like_native("musl", "traps", int3_trap);
}

static void test_traps_glibc(void **state)
{
    (void)state;
    like_native("glibc", "traps", int3_trap);
}

/* Without a handler the guest dies of SIG, natively and under tracegen
 * (whose exit status is then 128 + SIG, as a shell reports the native
 * death), and tracegen says why: WHY. */
static void dies_of(const char *mode, int sig, const char *why)
{
    char guest[4096];
    x86_guest_build_path(guest, sizeof guest, "musl", "protection");
    char *nat[] = { guest, (char *)mode, NULL };
    char *emu[] = { x86_tracegen_path(), "--no-trace", "--", guest, (char *)mode, NULL };
    struct run_result *n = run_program(nat, &within_a_minute);
    struct run_result *e = run_program(emu, &within_a_minute);
    assert_int_equal(n->status, 128 + sig);
    assert_int_equal(e->status, 128 + sig);
    assert_non_null(strstr(e->err, why));
    run_result_free(n);
    run_result_free(e);
}

static void test_hlt_without_handler(void **state)
{
    (void)state;
    dies_of("hlt", SIGSEGV, "general protection");
}

static void test_misaligned_movaps_without_handler(void **state)
{
    (void)state;
    dies_of("movaps", SIGSEGV, "general protection");
}

static void test_int3_without_handler(void **state)
{
    (void)state;
    dies_of("int3", SIGTRAP, "breakpoint trap");
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
        cmocka_unit_test(test_traps_musl),
        cmocka_unit_test(test_traps_glibc),
        cmocka_unit_test(test_int3_without_handler),
    };
    return cmocka_run_group_tests(tests, x86_guests_setup, NULL);
}
