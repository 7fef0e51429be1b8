/* The interpreter's integer results and flags against the host processor:
 * each instruction sequence runs natively (from an executable buffer) and
 * under the interpreter on the same registers and input flags, over edge
 * and random operands. Flags the manual leaves undefined are masked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/x86_harness.h"
#include "tests/unit/x86_rand.h"
#include "tracegen/x86/flags.h"

#define CF 0x001u
#define PF 0x004u
#define AF 0x010u
#define ZF 0x040u
#define SF 0x080u
#define OF 0x800u
#define ALL (CF | PF | AF | ZF | SF | OF)

struct regs {
    uint64_t rax, rcx, flags, rdx;
};

/* mov rax,[rdi]; mov rcx,[rdi+8]; mov rdx,[rdi+24]; push [rdi+16]; popfq */
static const uint8_t prologue[] = { 0x48, 0x8b, 0x07, 0x48, 0x8b, 0x4f, 0x08, 0x48, 0x8b,
                                    0x57, 0x18, 0xff, 0x77, 0x10, 0x9d };
/* pushfq; pop [rdi+16]; mov [rdi],rax; mov [rdi+8],rcx; mov [rdi+24],rdx */
static const uint8_t epilogue[] = { 0x9c, 0x8f, 0x47, 0x10, 0x48, 0x89, 0x07, 0x48, 0x89,
                                    0x4f, 0x08, 0x48, 0x89, 0x57, 0x18 };
static const struct x86_wrap wrap = { prologue, sizeof prologue, epilogue, sizeof epilogue };

static void run_emulated(struct x86_harness *h, const uint8_t *code, size_t n, struct regs *r)
{
    struct x86_cpu *c = x86_harness_cpu(h);
    c->r[R_RAX] = r->rax;
    c->r[R_RCX] = r->rcx;
    c->r[R_RDX] = r->rdx;
    x86_set_rflags(c, r->flags);
    x86_run_block(h, c, code, n, 4);
    r->rax = c->r[R_RAX];
    r->rcx = c->r[R_RCX];
    r->rdx = c->r[R_RDX];
    r->flags = x86_rflags(c);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_rand(void)
{
    return x86_xorshift64(&rng);
}

static uint64_t operand(void)
{
    static const uint64_t edge[] = { 0, 1, 2, ~0ull, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                     0x7fffffff, 0x80000000, 0xffffffff,
                                     0x7fffffffffffffffull, 0x8000000000000000ull, 0x10, 0xf };
    uint64_t r = next_rand();
    switch (r % 4) {
    case 0: return edge[(r >> 8) % (sizeof edge / sizeof edge[0])];
    case 1: return next_rand() & 0xff;
    default: return next_rand();
    }
}

enum check { CHECK_RAX = 1, CHECK_RCX = 2, CHECK_RDX = 4, CHECK_DL = 8 };

struct case_ {
    const char *name;
    uint8_t code[12];
    uint8_t len;
    unsigned flags_mask;
    unsigned checks;
    int kind; /* 0 plain, 1 shift by cl (bits in `bits`), 2 div, 3 nonzero rcx */
    unsigned bits;
};

#define C(name, mask, checks, kind, bits, ...) \
    { name, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), mask, checks, kind, bits }

static const struct case_ cases[] = {
    C("add r64", ALL, CHECK_RAX, 0, 0, 0x48, 0x01, 0xc8),
    C("or r64", ALL & ~AF, CHECK_RAX, 0, 0, 0x48, 0x09, 0xc8),
    C("adc r64", ALL, CHECK_RAX, 0, 0, 0x48, 0x11, 0xc8),
    C("sbb r64", ALL, CHECK_RAX, 0, 0, 0x48, 0x19, 0xc8),
    C("and r64", ALL & ~AF, CHECK_RAX, 0, 0, 0x48, 0x21, 0xc8),
    C("sub r64", ALL, CHECK_RAX, 0, 0, 0x48, 0x29, 0xc8),
    C("xor r64", ALL & ~AF, CHECK_RAX, 0, 0, 0x48, 0x31, 0xc8),
    C("cmp r64", ALL, CHECK_RAX, 0, 0, 0x48, 0x39, 0xc8),
    C("test r64", ALL & ~AF, CHECK_RAX, 0, 0, 0x48, 0x85, 0xc8),
    C("add r32", ALL, CHECK_RAX, 0, 0, 0x01, 0xc8),
    C("adc r32", ALL, CHECK_RAX, 0, 0, 0x11, 0xc8),
    C("sub r32", ALL, CHECK_RAX, 0, 0, 0x29, 0xc8),
    C("sbb r32", ALL, CHECK_RAX, 0, 0, 0x19, 0xc8),
    C("add r16", ALL, CHECK_RAX, 0, 0, 0x66, 0x01, 0xc8),
    C("sub r16", ALL, CHECK_RAX, 0, 0, 0x66, 0x29, 0xc8),
    C("add r8", ALL, CHECK_RAX, 0, 0, 0x00, 0xc8),
    C("sub r8", ALL, CHECK_RAX, 0, 0, 0x28, 0xc8),
    C("adc r8", ALL, CHECK_RAX, 0, 0, 0x10, 0xc8),
    C("add ah,cl", ALL, CHECK_RAX, 0, 0, 0x00, 0xcc),
    C("xor ah,cl", ALL & ~AF, CHECK_RAX, 0, 0, 0x30, 0xcc),
    C("add rax,imm8", ALL, CHECK_RAX, 0, 0, 0x48, 0x83, 0xc0, 0xff),
    C("and eax,imm8", ALL & ~AF, CHECK_RAX, 0, 0, 0x83, 0xe0, 0xf0),
    C("inc r64", ALL, CHECK_RAX, 0, 0, 0x48, 0xff, 0xc0),
    C("dec r64", ALL, CHECK_RAX, 0, 0, 0x48, 0xff, 0xc8),
    C("inc r32", ALL, CHECK_RAX, 0, 0, 0xff, 0xc0),
    C("dec r16", ALL, CHECK_RAX, 0, 0, 0x66, 0xff, 0xc8),
    C("inc r8", ALL, CHECK_RAX, 0, 0, 0xfe, 0xc0),
    C("neg r64", ALL, CHECK_RAX, 0, 0, 0x48, 0xf7, 0xd8),
    C("neg r32", ALL, CHECK_RAX, 0, 0, 0xf7, 0xd8),
    C("neg r8", ALL, CHECK_RAX, 0, 0, 0xf6, 0xd8),
    C("not r64", ALL, CHECK_RAX, 0, 0, 0x48, 0xf7, 0xd0),
    C("shl r64,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 64, 0x48, 0xd3, 0xe0),
    C("shr r64,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 64, 0x48, 0xd3, 0xe8),
    C("sar r64,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 64, 0x48, 0xd3, 0xf8),
    C("shl r32,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 32, 0xd3, 0xe0),
    C("shr r32,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 32, 0xd3, 0xe8),
    C("sar r32,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 32, 0xd3, 0xf8),
    C("shl r8,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 8, 0xd2, 0xe0),
    C("shr r16,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 16, 0x66, 0xd3, 0xe8),
    C("sar r8,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 8, 0xd2, 0xf8),
    C("shl r64,1", CF | PF | ZF | SF | OF, CHECK_RAX, 0, 0, 0x48, 0xd1, 0xe0),
    C("shr r32,1", CF | PF | ZF | SF | OF, CHECK_RAX, 0, 0, 0xd1, 0xe8),
    C("sar r64,1", CF | PF | ZF | SF | OF, CHECK_RAX, 0, 0, 0x48, 0xd1, 0xf8),
    C("rol r64,cl", CF, CHECK_RAX, 1, 64, 0x48, 0xd3, 0xc0),
    C("ror r64,cl", CF, CHECK_RAX, 1, 64, 0x48, 0xd3, 0xc8),
    C("rol r8,cl", CF, CHECK_RAX, 1, 8, 0xd2, 0xc0),
    C("ror r16,cl", CF, CHECK_RAX, 1, 16, 0x66, 0xd3, 0xc8),
    C("rol r32,1", CF | OF, CHECK_RAX, 0, 0, 0xd1, 0xc0),
    C("ror r64,1", CF | OF, CHECK_RAX, 0, 0, 0x48, 0xd1, 0xc8),
    C("rcl r64,cl", CF, CHECK_RAX, 1, 64, 0x48, 0xd3, 0xd0),
    C("rcr r32,cl", CF, CHECK_RAX, 1, 32, 0xd3, 0xd8),
    C("rcl r8,cl", CF, CHECK_RAX, 1, 8, 0xd2, 0xd0),
    C("shld r64,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 64, 0x48, 0x0f, 0xa5, 0xc8),
    C("shrd r64,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 64, 0x48, 0x0f, 0xad, 0xc8),
    C("shrd r32,cl", CF | PF | ZF | SF, CHECK_RAX, 1, 32, 0x0f, 0xad, 0xc8),
    C("imul r64", CF | OF, CHECK_RAX, 0, 0, 0x48, 0x0f, 0xaf, 0xc1),
    C("imul r32", CF | OF, CHECK_RAX, 0, 0, 0x0f, 0xaf, 0xc1),
    C("imul r16", CF | OF, CHECK_RAX, 0, 0, 0x66, 0x0f, 0xaf, 0xc1),
    C("imul r64,imm", CF | OF, CHECK_RAX, 0, 0, 0x48, 0x6b, 0xc1, 0xf5),
    C("mul r64", CF | OF, CHECK_RAX | CHECK_RDX, 0, 0, 0x48, 0xf7, 0xe1),
    C("imul1 r64", CF | OF, CHECK_RAX | CHECK_RDX, 0, 0, 0x48, 0xf7, 0xe9),
    C("mul r32", CF | OF, CHECK_RAX | CHECK_RDX, 0, 0, 0xf7, 0xe1),
    C("imul1 r8", CF | OF, CHECK_RAX | CHECK_RDX, 0, 0, 0xf6, 0xe9),
    C("mul r16", CF | OF, CHECK_RAX | CHECK_RDX, 0, 0, 0x66, 0xf7, 0xe1),
    C("div r64", 0, CHECK_RAX | CHECK_RDX, 2, 64, 0x48, 0xf7, 0xf1),
    C("idiv r64 (cqo)", 0, CHECK_RAX | CHECK_RDX, 2, 65, 0x48, 0x99, 0x48, 0xf7, 0xf9),
    C("div r32", 0, CHECK_RAX | CHECK_RDX, 2, 32, 0xf7, 0xf1),
    C("idiv r32 (cdq)", 0, CHECK_RAX | CHECK_RDX, 2, 33, 0x99, 0xf7, 0xf9),
    C("div r8", 0, CHECK_RAX, 2, 8, 0xf6, 0xf1),
    C("bsf r64", ZF, CHECK_RAX, 3, 0, 0x48, 0x0f, 0xbc, 0xc1),
    C("bsr r64", ZF, CHECK_RAX, 3, 0, 0x48, 0x0f, 0xbd, 0xc1),
    C("bt r64", CF, CHECK_RAX, 0, 0, 0x48, 0x0f, 0xa3, 0xc8),
    C("bts r64", CF, CHECK_RAX, 0, 0, 0x48, 0x0f, 0xab, 0xc8),
    C("btr r32", CF, CHECK_RAX, 0, 0, 0x0f, 0xb3, 0xc8),
    C("btc r64", CF, CHECK_RAX, 0, 0, 0x48, 0x0f, 0xbb, 0xc8),
    C("bt r64,imm", CF, CHECK_RAX, 0, 0, 0x48, 0x0f, 0xba, 0xe0, 0x2b),
    C("xadd r64", ALL, CHECK_RAX | CHECK_RCX, 0, 0, 0x48, 0x0f, 0xc1, 0xc8),
    C("cmpxchg r64", ALL, CHECK_RAX | CHECK_RCX | CHECK_RDX, 0, 0, 0x48, 0x0f, 0xb1, 0xd1),
    C("cmpxchg r32", ALL, CHECK_RAX | CHECK_RCX | CHECK_RDX, 0, 0, 0x0f, 0xb1, 0xd1),
    C("bswap r64", ALL, CHECK_RAX, 0, 0, 0x48, 0x0f, 0xc8),
    C("bswap r32", ALL, CHECK_RAX, 0, 0, 0x0f, 0xc8),
    C("movsx r64,r8", ALL, CHECK_RAX, 0, 0, 0x48, 0x0f, 0xbe, 0xc1),
    C("movzx r32,r16", ALL, CHECK_RAX, 0, 0, 0x0f, 0xb7, 0xc1),
    C("movsxd", ALL, CHECK_RAX, 0, 0, 0x48, 0x63, 0xc1),
    C("cbw cwde cdqe", ALL, CHECK_RAX, 0, 0, 0x66, 0x98, 0x98, 0x48, 0x98),
    C("cwd", ALL, CHECK_RAX | CHECK_RDX, 0, 0, 0x66, 0x99),
    C("lea scaled", ALL, CHECK_RAX, 0, 0, 0x48, 0x8d, 0x04, 0x48),
    C("lea 32-bit", ALL, CHECK_RAX, 0, 0, 0x8d, 0x44, 0x48, 0x07),
    C("xchg r8", ALL, CHECK_RAX | CHECK_RCX, 0, 0, 0x86, 0xcc),
    C("cmc", ALL, 0, 0, 0, 0xf5),
    C("stc clc", ALL, 0, 0, 0, 0xf9, 0xf8),
    C("lahf", ALL, CHECK_RAX, 0, 0, 0x9f),
    C("sahf", ALL, CHECK_RAX, 0, 0, 0x9e),
};

/* cmp/sub/and/inc/adc/shl followed by setcc dl or cmovcc rdx,rcx for every
 * condition: exercises the lazy condition paths. */
/* Each producer's flags compared: AF is undefined after logical operations and
 * shifts (Intel SDM and AMD APM), and AMD processors set it where Intel's clear
 * it; imul leaves SF, ZF, AF and PF undefined. */
static const struct {
    const char *name;
    uint8_t code[4];
    uint8_t len;
    unsigned defined;
} producers[] = {
    { "cmp r64", { 0x48, 0x39, 0xc8 }, 3, ALL },
    { "cmp r8", { 0x38, 0xc8 }, 2, ALL },
    { "sub r32", { 0x29, 0xc8 }, 2, ALL },
    { "and r64", { 0x48, 0x21, 0xc8 }, 3, ALL & ~AF },
    { "test r16", { 0x66, 0x85, 0xc8 }, 3, ALL & ~AF },
    { "inc r64", { 0x48, 0xff, 0xc0 }, 3, ALL },
    { "dec r8", { 0xfe, 0xc8 }, 2, ALL },
    { "adc r64", { 0x48, 0x11, 0xc8 }, 3, ALL },
    { "sbb r32", { 0x19, 0xc8 }, 2, ALL },
    { "neg r64", { 0x48, 0xf7, 0xd8 }, 3, ALL },
    { "shl r64,1", { 0x48, 0xd1, 0xe0 }, 3, ALL & ~AF },
    { "imul r32", { 0x0f, 0xaf, 0xc1 }, 3, CF | OF },
    { "popf'd flags", { 0x90 }, 1, ALL },
};

static void input(struct regs *r, const struct case_ *k)
{
    r->rax = operand();
    r->rcx = operand();
    r->rdx = operand();
    r->flags = 0x202 | (next_rand() & ALL);
    if (k->kind == 1) {
        /* keep counts where CF is defined (below the operand width) */
        r->rcx = (r->rcx & ~0xffull) | (next_rand() % k->bits);
    } else if (k->kind == 2) {
        unsigned bits = k->bits & ~1u;
        uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;
        if ((r->rcx & m) == 0)
            r->rcx |= 1;
        if (k->bits == 64 || k->bits == 32)
            r->rdx = (r->rcx & m) > 1 ? next_rand() % (r->rcx & m) : 0; /* quotient fits */
        if (k->bits == 8)
            r->rax = (r->rax & ~0xffffull) | ((r->rcx & 0xff) * (next_rand() % 256)) % 0xffff;
        if (k->bits == 65 || k->bits == 33) {
            int64_t d = bits == 64 ? (int64_t)r->rcx : (int32_t)r->rcx;
            if (d == -1)
                r->rcx = 3;
        }
    } else if (k->kind == 3 && r->rcx == 0) {
        r->rcx = 0x100;
    }
}

static int compare_one(struct x86_harness *harness, const char *name, const uint8_t *code,
                       size_t len, const struct regs *in, unsigned mask, unsigned checks)
{
    struct regs h = *in, e = *in;
    x86_host_run(harness->page, &wrap, code, len, &h);
    run_emulated(harness, code, len, &e);
    int bad = ((h.flags ^ e.flags) & mask) != 0;
    if ((checks & CHECK_RAX) && h.rax != e.rax)
        bad = 1;
    if ((checks & CHECK_RCX) && h.rcx != e.rcx)
        bad = 1;
    if ((checks & CHECK_RDX) && h.rdx != e.rdx)
        bad = 1;
    if ((checks & CHECK_DL) && (h.rdx & 0xff) != (e.rdx & 0xff))
        bad = 1;
    if (bad)
        print_error("%s: in rax=%llx rcx=%llx rdx=%llx fl=%llx; host rax=%llx rdx=%llx fl=%llx; "
                    "emulated rax=%llx rdx=%llx fl=%llx (mask %x)\n", name,
                    (unsigned long long)in->rax, (unsigned long long)in->rcx,
                    (unsigned long long)in->rdx, (unsigned long long)in->flags,
                    (unsigned long long)h.rax, (unsigned long long)h.rdx,
                    (unsigned long long)h.flags, (unsigned long long)e.rax,
                    (unsigned long long)e.rdx, (unsigned long long)e.flags, mask);
    return bad;
}

/* Whether condition code cc reads only flags in `defined`. */
static int condition_defined(unsigned cc, unsigned defined)
{
    static const unsigned reads[8] = { OF, CF, ZF, CF | ZF, SF, PF, SF | OF, ZF | SF | OF };
    return (reads[cc >> 1] & ~defined) == 0;
}

static void test_integer_ops_match_host(void **state)
{
    struct x86_harness *h = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct case_ *k = &cases[i];
        for (int n = 0; n < 3000 && failures < 10; n++) {
            struct regs in;
            input(&in, k);
            unsigned mask = k->flags_mask;
            if (k->kind == 1 && (in.rcx & 0xff) == 1 && (k->flags_mask & CF))
                mask |= OF; /* OF is defined for one-bit shifts and rotates */
            failures += compare_one(h, k->name, k->code, k->len, &in, mask, k->checks);
        }
    }
    assert_int_equal(failures, 0);
}

static void test_conditions_match_host(void **state)
{
    struct x86_harness *h = *state;
    int failures = 0;
    for (size_t p = 0; p < sizeof producers / sizeof producers[0]; p++)
        for (unsigned cc = 0; cc < 16; cc++)
            for (int n = 0; n < 300 && failures < 10; n++) {
                uint8_t code[12];
                size_t len = producers[p].len;
                memcpy(code, producers[p].code, len);
                struct regs in;
                in.rax = operand();
                in.rcx = operand();
                in.rdx = operand();
                in.flags = 0x202 | (next_rand() & ALL);
                if (n & 1) { /* setcc dl */
                    code[len++] = 0x0f;
                    code[len++] = (uint8_t)(0x90 + cc);
                    code[len++] = 0xc2;
                } else { /* cmovcc rdx, rcx */
                    code[len++] = 0x48;
                    code[len++] = 0x0f;
                    code[len++] = (uint8_t)(0x40 + cc);
                    code[len++] = 0xd1;
                }
                /* conditions that read an undefined flag are not compared */
                if (!condition_defined(cc, producers[p].defined))
                    continue;
                failures += compare_one(h, producers[p].name, code, len, &in,
                                        producers[p].defined, CHECK_RDX);
            }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_ops_match_host),
        cmocka_unit_test(test_conditions_match_host),
    };
    return cmocka_run_group_tests(tests, x86_harness_setup, x86_harness_teardown);
}
