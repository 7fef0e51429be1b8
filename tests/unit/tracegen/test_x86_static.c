/* The registers the static table records for instructions beyond SSE2
 * (replay takes its dependencies from them), against the operands the
 * Intel SDM lists for each: explicit ones, implicit ones (pcmpistri's ECX,
 * mulx's EDX, cpuid's four), a gather's merged destination and cleared
 * mask, MXCSR for ldmxcsr/stmxcsr, YMM registers as their XMM number, and
 * an encoding capstone refuses (vbroadcasti128). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tracegen/x86/decode.h"
#include "tracegen/x86/static_info.h"

#define NONE 0xff
#define G(n) (CGM_X86_REG_RAX + (n)) /* rax rcx rdx rbx rsp rbp rsi rdi */
#define X(n) (CGM_X86_REG_XMM0 + (n))
#define FL CGM_X86_REG_FLAGS
#define FPU CGM_X86_REG_FPU
#define MX CGM_X86_REG_MXCSR

struct expect {
    const char *text;
    uint8_t bytes[15];
    uint8_t len;
    uint8_t src[8], dst[8]; /* ascending, ended by NONE */
};

#define E(text, src, dst, ...) \
    { text, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), src, dst }
#define L(...) { __VA_ARGS__, NONE }

static const struct expect cases[] = {
    E("vaddps ymm3, ymm1, ymm2", L(X(1), X(2)), L(X(3)), 0xc5, 0xf4, 0x58, 0xda),
    E("vfmadd231ps ymm0, ymm1, ymm2", L(X(0), X(1), X(2)), L(X(0)),
      0xc4, 0xe2, 0x75, 0xb8, 0xc2),
    E("vpblendvb ymm0, ymm1, ymm2, ymm3", L(X(1), X(2), X(3)), L(X(0)),
      0xc4, 0xe3, 0x75, 0x4c, 0xc2, 0x30),
    E("vcvtph2ps ymm0, xmm1", L(X(1)), L(X(0)), 0xc4, 0xe2, 0x7d, 0x13, 0xc1),
    E("vpgatherdd ymm0, [rax+ymm2*4], ymm1", L(G(0), X(0), X(1), X(2)), L(X(0), X(1)),
      0xc4, 0xe2, 0x75, 0x90, 0x04, 0x90),
    E("vgatherdps ymm0, [rax+ymm2*4], ymm1", L(G(0), X(0), X(1), X(2)), L(X(0), X(1)),
      0xc4, 0xe2, 0x75, 0x92, 0x04, 0x90),
    E("vbroadcasti128 ymm4, [rdi]", L(G(7)), L(X(4)), 0xc4, 0xe2, 0x7d, 0x5a, 0x27),
    E("pcmpistri xmm1, xmm2, 0x1a", L(X(1), X(2)), L(G(1), FL),
      0x66, 0x0f, 0x3a, 0x63, 0xca, 0x1a),
    E("crc32 rax, rbx", L(G(0), G(3)), L(G(0)), 0xf2, 0x48, 0x0f, 0x38, 0xf1, 0xc3),
    E("lzcnt eax, ebx", L(G(3)), L(G(0), FL), 0xf3, 0x0f, 0xbd, 0xc3),
    E("mulx eax, ebx, ecx", L(G(1), G(2)), L(G(0), G(3)), 0xc4, 0xe2, 0x63, 0xf6, 0xc1),
    E("cpuid", L(G(0), G(1)), L(G(0), G(1), G(2), G(3)), 0x0f, 0xa2),
    E("xgetbv", L(G(1)), L(G(0), G(2)), 0x0f, 0x01, 0xd0),
    E("ldmxcsr [rdi]", L(G(7)), L(MX), 0x0f, 0xae, 0x17),
    E("vstmxcsr [rdi]", L(G(7), MX), { NONE }, 0xc5, 0xf8, 0xae, 0x1f),
    /* xsave's state stands as its control and status registers */
    E("xsave [rdi]", L(G(0), G(2), G(7), FPU, MX), { NONE }, 0x0f, 0xae, 0x27),
    E("xrstor [rdi]", L(G(0), G(2), G(7)), L(FPU, MX), 0x0f, 0xae, 0x2f),
};

static void expect_list(const char *text, const char *which, const uint8_t *got, unsigned n,
                        const uint8_t *want)
{
    unsigned k = 0;
    while (want[k] != NONE)
        k++;
    if (n != k || memcmp(got, want, k)) {
        print_error("%s: %s:", text, which);
        for (unsigned i = 0; i < n; i++)
            print_error(" %u", got[i]);
        print_error(" (want");
        for (unsigned i = 0; i < k; i++)
            print_error(" %u", want[i]);
        print_error(")\n");
        fail();
    }
}

static void test_registers_match_the_manual(void **state)
{
    (void)state;
    csh h;
    assert_int_equal(x86_decoder_open(&h), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct expect *e = &cases[i];
        struct cgm_x86_static s;
        memset(&s, 0, sizeof s);
        memcpy(s.bytes, e->bytes, e->len);
        s.len = e->len;
        s.addr = 0x401000;
        struct x86_dinsn d;
        unsigned len = x86_decode(h, s.bytes, s.len, s.addr, &d);
        if (!len)
            len = x86_decode_gap(h, s.bytes, s.len, s.addr, &d, 1);
        if (len != e->len)
            fail_msg("%s: decoded %u bytes of %u", e->text, len, e->len);
        s.op = d.op;
        x86_static_fill(h, &s);
        expect_list(e->text, "sources", s.src, s.nsrc, e->src);
        expect_list(e->text, "destinations", s.dst, s.ndst, e->dst);
    }
    cs_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registers_match_the_manual),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
