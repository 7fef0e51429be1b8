/* The general-register extensions of x86-64-v3 against the host processor
 * (x86_isa.h): BMI1 (andn, bextr, blsi, blsmsk, blsr), BMI2 (bzhi, pdep,
 * pext, rorx, sarx, shlx, shrx, mulx), LZCNT, TZCNT and MOVBE in 16-, 32-
 * and 64-bit forms, with eax/rax the destination, ecx and edx the sources
 * and [rbx] a memory operand; and the hint-space NOPs of CET (rdsspd/q,
 * endbr32/64, 0F 19-1F forms capstone does not decode), which leave every
 * register alone on a processor without shadow stacks. RFLAGS bits the
 * manual leaves undefined are not compared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tests/unit/x86_isa.h"

#define C X86_ISA_CASE
#define U X86_ISA_CASE_UNDEF
#define I X86_ISA_INT
#define AF 0x010
#define PF 0x004
#define SF 0x080
#define OF 0x800

static const struct x86_isa_case cases[] = {
    U("andn eax, ecx, edx", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0x70, 0xf2, 0xc2),
    U("andn rax, rcx, rdx", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0xf0, 0xf2, 0xc2),
    U("bextr eax, ecx, edx", I, X86_ISA_BMI1, AF | SF | PF, 0xc4, 0xe2, 0x68, 0xf7, 0xc1),
    U("bextr rax, [rbx], rdx", I, X86_ISA_BMI1, AF | SF | PF, 0xc4, 0xe2, 0xe8, 0xf7, 0x03),
    U("blsi eax, ecx", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0x78, 0xf3, 0xd9),
    U("blsi rax, rcx", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0xf8, 0xf3, 0xd9),
    U("blsmsk eax, ecx", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0x78, 0xf3, 0xd1),
    U("blsmsk rax, [rbx]", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0xf8, 0xf3, 0x13),
    U("blsr eax, ecx", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0x78, 0xf3, 0xc9),
    U("blsr rax, rcx", I, X86_ISA_BMI1, AF | PF, 0xc4, 0xe2, 0xf8, 0xf3, 0xc9),
    U("tzcnt eax, ecx", I, X86_ISA_BMI1, OF | SF | PF | AF, 0xf3, 0x0f, 0xbc, 0xc1),
    U("tzcnt rax, rcx", I, X86_ISA_BMI1, OF | SF | PF | AF, 0xf3, 0x48, 0x0f, 0xbc, 0xc1),
    U("tzcnt ax, cx", I, X86_ISA_BMI1, OF | SF | PF | AF, 0x66, 0xf3, 0x0f, 0xbc, 0xc1),
    U("bzhi eax, ecx, edx", I, X86_ISA_BMI2, AF | PF, 0xc4, 0xe2, 0x68, 0xf5, 0xc1),
    U("bzhi rax, rcx, rdx", I, X86_ISA_BMI2, AF | PF, 0xc4, 0xe2, 0xe8, 0xf5, 0xc1),
    C("pdep eax, ecx, edx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0x73, 0xf5, 0xc2),
    C("pdep rax, rcx, [rbx]", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0xf3, 0xf5, 0x03),
    C("pext eax, ecx, edx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0x72, 0xf5, 0xc2),
    C("pext rax, rcx, rdx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0xf2, 0xf5, 0xc2),
    C("rorx eax, ecx, imm", I, X86_ISA_BMI2, 0xff, 0xc4, 0xe3, 0x7b, 0xf0, 0xc1, 0),
    C("rorx rax, [rbx], imm", I, X86_ISA_BMI2, 0xff, 0xc4, 0xe3, 0xfb, 0xf0, 0x03, 0),
    C("sarx eax, ecx, edx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0x6a, 0xf7, 0xc1),
    C("sarx rax, rcx, rdx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0xea, 0xf7, 0xc1),
    C("shlx eax, ecx, edx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0x69, 0xf7, 0xc1),
    C("shlx rax, [rbx], rdx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0xe9, 0xf7, 0x03),
    C("shrx eax, ecx, edx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0x6b, 0xf7, 0xc1),
    C("shrx rax, rcx, rdx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0xeb, 0xf7, 0xc1),
    C("mulx eax, ecx, edx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0x73, 0xf6, 0xc2),
    C("mulx rax, rcx, rdx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0xf3, 0xf6, 0xc2),
    C("mulx eax, eax, ecx", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0x7b, 0xf6, 0xc1),
    C("mulx rax, rcx, [rbx]", I, X86_ISA_BMI2, 0, 0xc4, 0xe2, 0xf3, 0xf6, 0x03),
    U("lzcnt eax, ecx", I, X86_ISA_LZCNT, OF | SF | PF | AF, 0xf3, 0x0f, 0xbd, 0xc1),
    U("lzcnt rax, rcx", I, X86_ISA_LZCNT, OF | SF | PF | AF, 0xf3, 0x48, 0x0f, 0xbd, 0xc1),
    U("lzcnt ax, [rbx]", I, X86_ISA_LZCNT, OF | SF | PF | AF, 0x66, 0xf3, 0x0f, 0xbd, 0x03),
    C("movbe eax, [rbx]", I, X86_ISA_MOVBE, 0, 0x0f, 0x38, 0xf0, 0x03),
    C("movbe rax, [rbx]", I, X86_ISA_MOVBE, 0, 0x48, 0x0f, 0x38, 0xf0, 0x03),
    C("movbe ax, [rbx]", I, X86_ISA_MOVBE, 0, 0x66, 0x0f, 0x38, 0xf0, 0x03),
    C("movbe [rbx], ecx", I, X86_ISA_MOVBE, 0, 0x0f, 0x38, 0xf1, 0x0b),
    C("movbe [rbx], rcx", I, X86_ISA_MOVBE, 0, 0x48, 0x0f, 0x38, 0xf1, 0x0b),
    C("rdsspq rax", I, X86_ISA_SSE3, 0, 0xf3, 0x48, 0x0f, 0x1e, 0xc8),
    C("rdsspd eax", I, X86_ISA_SSE3, 0, 0xf3, 0x0f, 0x1e, 0xc8),
    C("endbr64; endbr32", I, X86_ISA_SSE3, 0, 0xf3, 0x0f, 0x1e, 0xfa, 0xf3, 0x0f, 0x1e, 0xfb),
    C("nop hints 0f 1e, f3 0f 1f, 0f 19 [rbx]", I, X86_ISA_SSE3, 0,
      0x0f, 0x1e, 0xc8, 0xf3, 0x0f, 0x1f, 0xc8, 0x0f, 0x19, 0x03),
};

static void test_bmi_matches_host(void **state)
{
    (void)state;
    assert_int_equal(x86_isa_run(cases, sizeof cases / sizeof cases[0], 0, 300), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bmi_matches_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
