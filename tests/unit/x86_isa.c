#include "tests/unit/x86_isa.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cpuid.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/x86_rand.h"

#define LOAD_REGS(op) \
    op, 0x07, op, 0x4f, 0x20, op, 0x57, 0x40, op, 0x5f, 0x60
static const uint8_t prologue_head[] = {
    0x53,                                       /* push rbx */
    0x48, 0x8d, 0x9f, 0x80, 0x00, 0x00, 0x00,   /* lea rbx, [rdi+128] */
    0x48, 0x8b, 0x87, 0xc0, 0x00, 0x00, 0x00,   /* mov rax, [rdi+192] */
    0x48, 0x8b, 0x8f, 0xc8, 0x00, 0x00, 0x00,   /* mov rcx, [rdi+200] */
    0x48, 0x8b, 0x97, 0xd0, 0x00, 0x00, 0x00,   /* mov rdx, [rdi+208] */
    0x0f, 0xae, 0x97, 0xe8, 0x00, 0x00, 0x00,   /* ldmxcsr [rdi+232] */
    0xff, 0xb7, 0xe0, 0x00, 0x00, 0x00, 0x9d,   /* push qword [rdi+224]; popfq */
};
static const uint8_t epilogue_head[] = {
    0x9c, 0x8f, 0x87, 0xe0, 0x00, 0x00, 0x00,   /* pushfq; pop qword [rdi+224] */
    0x0f, 0xae, 0x9f, 0xe8, 0x00, 0x00, 0x00,   /* stmxcsr [rdi+232] */
    0x48, 0x89, 0x87, 0xc0, 0x00, 0x00, 0x00,   /* mov [rdi+192], rax */
    0x48, 0x89, 0x8f, 0xc8, 0x00, 0x00, 0x00,   /* mov [rdi+200], rcx */
    0x48, 0x89, 0x97, 0xd0, 0x00, 0x00, 0x00,   /* mov [rdi+208], rdx */
    0x5b,                                       /* pop rbx */
};
/* movdqu xmmN, [rdi+32N] / movdqu [rdi+32N], xmmN */
static const uint8_t sse_load[] = { 0xf3, 0x0f, 0x6f, 0x07, 0xf3, 0x0f, 0x6f, 0x4f, 0x20,
                                    0xf3, 0x0f, 0x6f, 0x57, 0x40, 0xf3, 0x0f, 0x6f, 0x5f, 0x60 };
static const uint8_t sse_store[] = { 0xf3, 0x0f, 0x7f, 0x07, 0xf3, 0x0f, 0x7f, 0x4f, 0x20,
                                     0xf3, 0x0f, 0x7f, 0x57, 0x40, 0xf3, 0x0f, 0x7f, 0x5f, 0x60 };
/* vmovdqu ymmN, [rdi+32N] / vmovdqu [rdi+32N], ymmN; vzeroupper */
static const uint8_t avx_load[] = { 0xc5, 0xfe, 0x6f, 0x07, 0xc5, 0xfe, 0x6f, 0x4f, 0x20,
                                    0xc5, 0xfe, 0x6f, 0x57, 0x40, 0xc5, 0xfe, 0x6f, 0x5f, 0x60 };
static const uint8_t avx_store[] = { 0xc5, 0xfe, 0x7f, 0x07, 0xc5, 0xfe, 0x7f, 0x4f, 0x20,
                                     0xc5, 0xfe, 0x7f, 0x57, 0x40, 0xc5, 0xfe, 0x7f, 0x5f, 0x60,
                                     0xc5, 0xf8, 0x77 };

int x86_isa_host_has(enum x86_isa_feature f)
{
    unsigned a, b, c, d, b7 = 0, c81 = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    unsigned c1 = c;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
        b7 = b;
    if (__get_cpuid(0x80000001, &a, &b, &c, &d))
        c81 = c;
    int avx_os = 0;
    if (c1 & (1u << 27)) { /* OSXSAVE: the OS saves the YMM state */
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        avx_os = (lo & 6) == 6;
    }
    int avx = avx_os && (c1 & (1u << 28));
    switch (f) {
    case X86_ISA_SSE3: return (c1 & 1) != 0;
    case X86_ISA_SSSE3: return (c1 >> 9) & 1;
    case X86_ISA_SSE41: return (c1 >> 19) & 1;
    case X86_ISA_SSE42: return (c1 >> 20) & 1;
    case X86_ISA_POPCNT: return (c1 >> 23) & 1;
    case X86_ISA_AVX: return avx;
    case X86_ISA_AVX2: return avx && ((b7 >> 5) & 1);
    case X86_ISA_FMA: return avx && ((c1 >> 12) & 1);
    case X86_ISA_F16C: return avx && ((c1 >> 29) & 1);
    case X86_ISA_BMI1: return (b7 >> 3) & 1;
    case X86_ISA_BMI2: return (b7 >> 8) & 1;
    case X86_ISA_LZCNT: return (c81 >> 5) & 1;
    default: return (c1 >> 22) & 1; /* MOVBE */
    }
}

static const char *feature_name(enum x86_isa_feature f)
{
    static const char *const names[] = { "SSE3", "SSSE3", "SSE4.1", "SSE4.2", "POPCNT", "AVX",
                                         "AVX2", "FMA", "F16C", "BMI1", "BMI2", "LZCNT", "MOVBE" };
    return names[f];
}

static uint64_t rng = 0x5eed5eed12345678ull;

static uint64_t next_rand(void)
{
    return x86_xorshift64(&rng);
}

static double some_double(void)
{
    static const double special[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.5, 1e308, -1e308,
                                      4.9e-324, DBL_MIN, 2147483647.5, -2147483648.5,
                                      9.3e18, -9.3e18, 123456.789, 0x1p-1030, 65504.0, 1e-6 };
    uint64_t r = next_rand();
    switch (r % 7) {
    case 0: return special[(r >> 8) % (sizeof special / sizeof special[0])];
    case 1: return (r & 0x100) ? INFINITY : -INFINITY;
    case 2: { /* quiet or signaling NaN with a payload */
        uint64_t u = 0x7ff0000000000000ull | (next_rand() & 0x000fffffffffffffull) | 1;
        if (r & 0x200)
            u |= 1ull << 63;
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    default: return ((double)(int64_t)(next_rand() >> 20) / 4096.0) * ((r & 0x400) ? 1e-3 : 1.0);
    }
}

/* N bytes of operands of KIND; REG: which register (the index kind keeps
 * ymm2 a vector of indices 0..7, whether read as dwords or as qwords). */
static void fill(uint8_t *x, size_t n, enum x86_isa_kind kind, int reg)
{
    for (size_t at = 0; at < n; at += 16) {
        uint8_t *p = x + at;
        switch (kind) {
        case X86_ISA_DOUBLE: {
            double d[2] = { some_double(), some_double() };
            memcpy(p, d, 16);
            break;
        }
        case X86_ISA_FLOAT: {
            for (int i = 0; i < 4; i++) {
                double d = some_double();
                float f = (float)d;
                if (isnan(d)) { /* keep the NaN's kind in single precision */
                    uint32_t u = 0x7f800001u | (uint32_t)(next_rand() & 0x7fffff) |
                                 (uint32_t)(next_rand() & 0x80000000u);
                    memcpy(&f, &u, 4);
                }
                memcpy(p + 4 * i, &f, 4);
            }
            break;
        }
        case X86_ISA_STR8: case X86_ISA_STR16: {
            /* a string over "abcd", zero-terminated somewhere or not */
            unsigned esize = kind == X86_ISA_STR8 ? 1 : 2, cnt = 16 / esize;
            unsigned end = (unsigned)(next_rand() % (cnt + 4));
            memset(p, 0, 16);
            for (unsigned i = 0; i < cnt && i < end; i++) {
                unsigned v = 'a' + (unsigned)(next_rand() % 4);
                if (next_rand() % 16 == 0)
                    v |= 0x80; /* negative as a signed element */
                memcpy(p + i * esize, &v, esize);
            }
            break;
        }
        case X86_ISA_HALF:
            for (int i = 0; i < 8; i++) {
                uint16_t h = (uint16_t)next_rand();
                if (next_rand() % 4 == 0)
                    h &= 0x83ff; /* zero or denormal */
                memcpy(p + 2 * i, &h, 2);
            }
            break;
        default: {
            uint64_t a = next_rand(), b = next_rand();
            if (kind == X86_ISA_INDEX && reg == 2) {
                a &= 7;
                b &= 7;
            } else if (next_rand() % 4 == 0) {
                a &= 0x00ff00ff00ff00ffull;
            }
            if (kind != X86_ISA_INDEX && next_rand() % 4 == 0)
                b |= 0x8000800080008000ull;
            memcpy(p, &a, 8);
            memcpy(p + 8, &b, 8);
            break;
        }
        }
    }
}

/* A random MXCSR: any rounding mode, sometimes FTZ and DAZ, some flags
 * already set, every exception masked. */
static uint32_t some_mxcsr(void)
{
    uint64_t r = next_rand();
    uint32_t m = 0x1f80 | (uint32_t)((r & 3) << 13);
    if (r & 0x10)
        m |= 0x8000;
    if (r & 0x20)
        m |= 0x0040;
    if (r & 0x40)
        m |= (uint32_t)((r >> 8) & 0x3f);
    return m;
}

static void dump(const char *what, const struct x86_isa_frame *f)
{
    char line[1024];
    size_t k = 0;
    for (int r = 0; r < 4; r++) {
        k += (size_t)snprintf(line + k, sizeof line - k, "y%d ", r);
        for (int i = 31; i >= 0; i--)
            k += (size_t)snprintf(line + k, sizeof line - k, "%02x%s", f->y[r][i],
                                  i == 16 ? "_" : "");
        k += (size_t)snprintf(line + k, sizeof line - k, " ");
    }
    print_error("  %s: %s\n    mem ", what, line);
    for (int i = 63; i >= 0; i--)
        print_error("%02x", f->mem[i]);
    print_error(" rax %llx rcx %llx rdx %llx fl %llx mxcsr %x\n", (unsigned long long)f->rax,
                (unsigned long long)f->rcx, (unsigned long long)f->rdx,
                (unsigned long long)f->flags, f->mxcsr);
}

int x86_isa_run(const struct x86_isa_case *cases, size_t n, int ymm, int iterations)
{
    uint8_t pro[128], epi[128];
    size_t pl = 0, el = 0;
    memcpy(pro, prologue_head, sizeof prologue_head);
    pl = sizeof prologue_head;
    memcpy(pro + pl, ymm ? avx_load : sse_load, sizeof sse_load);
    pl += sizeof sse_load;
    memcpy(epi, ymm ? avx_store : sse_store, ymm ? sizeof avx_store : sizeof sse_store);
    el = ymm ? sizeof avx_store : sizeof sse_store;
    memcpy(epi + el, epilogue_head, sizeof epilogue_head);
    el += sizeof epilogue_head;
    const struct x86_wrap wrap = { pro, pl, epi, el };

    void *state = NULL;
    assert_int_equal(x86_guest_pair_setup(&state), 0);
    struct x86_guest_pair *both = state;
    int failures = 0, ran = 0;
    for (size_t i = 0; i < n; i++) {
        const struct x86_isa_case *k = &cases[i];
        if (!x86_isa_host_has((enum x86_isa_feature)k->feature)) {
            print_message("skipped %s: the host processor lacks %s\n", k->name,
                          feature_name((enum x86_isa_feature)k->feature));
            continue;
        }
        ran++;
        uint8_t code[16];
        memcpy(code, k->code, k->len);
        for (int it = 0; it < iterations && failures < 10; it++) {
            struct x86_isa_frame in, h, e;
            memset(&in, 0, sizeof in);
            for (int r = 0; r < 4; r++)
                fill(in.y[r], ymm ? 32 : 16, (enum x86_isa_kind)k->kind, r);
            fill(in.mem, sizeof in.mem, (enum x86_isa_kind)k->kind, -1);
            in.rax = next_rand();
            in.rcx = next_rand();
            in.rdx = next_rand();
            if (k->kind == X86_ISA_STR8 || k->kind == X86_ISA_STR16) {
                in.rax = (uint64_t)((int64_t)(next_rand() % 41) - 20);
                in.rdx = (uint64_t)((int64_t)(next_rand() % 41) - 20);
            } else if (next_rand() % 4 == 0) {
                in.rcx &= 0xffff; /* counts and control words in range */
            }
            in.flags = 0x202 | (next_rand() & 0x8d5);
            in.mxcsr = some_mxcsr();
            if (k->imm_mask)
                code[k->len - 1] = (uint8_t)(next_rand() & k->imm_mask);
            h = in;
            e = in;
            x86_host_run(both->page, &wrap, code, k->len, &h);
            free(x86_guest_run(&both->guest, &wrap, code, k->len, &e, sizeof e));
            h.flags &= ~(uint64_t)k->undefined;
            e.flags &= ~(uint64_t)k->undefined;
            if (memcmp(&h, &e, sizeof h) != 0) {
                failures++;
                print_error("%s (last byte %02x) differs\n", k->name, code[k->len - 1]);
                dump("input", &in);
                dump("host", &h);
                dump("emulated", &e);
            }
        }
    }
    x86_guest_pair_teardown(&state);
    if (!ran)
        skip();
    return failures;
}
