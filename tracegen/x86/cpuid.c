/* CPUID: a family 6 Intel processor (a Haswell's signature) at the level
 * the CPU was given (cpu.h): baseline (SSE2), x86-64-v2 (SSE3 to SSE4.2,
 * POPCNT, CX16) or x86-64-v3 (AVX, AVX2, BMI1, BMI2, FMA, F16C, LZCNT,
 * MOVBE, and XSAVE with the OS enabling x87, SSE and AVX state, which is
 * what C libraries check before they use AVX), with no hyper-threading and
 * no caches described (C libraries then use their defaults); or haswell:
 * x86-64-v3 and what else of a Haswell decides a C library's choices, as
 * valgrind 3.19's virtual CPU (a Core i7-4910MQ) reports it: fast rep
 * movsb/stosb (ERMS), the caches (leaves 2 and 4: 32 KiB L1, 256 KiB L2,
 * 8 MiB L3) and the topology (leaves 1 and 0xb: 2 threads a core, 8
 * logical processors). With the same answers, glibc picks the same string
 * functions and copy thresholds under tracegen and under valgrind, so
 * their instruction counts can be compared. */
#include "tracegen/x86/interp.h"

/* CPUID.1:ECX */
#define ECX_SSE3    (1u << 0)
#define ECX_SSSE3   (1u << 9)
#define ECX_FMA     (1u << 12)
#define ECX_CX16    (1u << 13)
#define ECX_SSE41   (1u << 19)
#define ECX_SSE42   (1u << 20)
#define ECX_MOVBE   (1u << 22)
#define ECX_POPCNT  (1u << 23)
#define ECX_XSAVE   (1u << 26)
#define ECX_OSXSAVE (1u << 27)
#define ECX_AVX     (1u << 28)
#define ECX_F16C    (1u << 29)
/* CPUID.7.0:EBX */
#define EBX7_BMI1 (1u << 3)
#define EBX7_AVX2 (1u << 5)
#define EBX7_BMI2 (1u << 8)
#define EBX7_ERMS (1u << 9)
/* CPUID.1:EDX */
#define EDX_BASE 0x078bfbffu   /* fpu..sse2 */
#define EDX_HTT  (1u << 28)
/* CPUID.80000001:ECX */
#define ECX81_LAHF  (1u << 0)
#define ECX81_LZCNT (1u << 5)

#define V2_ECX (ECX_SSE3 | ECX_SSSE3 | ECX_CX16 | ECX_SSE41 | ECX_SSE42 | ECX_POPCNT)
#define V3_ECX (ECX_FMA | ECX_MOVBE | ECX_XSAVE | ECX_OSXSAVE | ECX_AVX | ECX_F16C)

/* The Haswell's leaf 2 (descriptor 0xff: see leaf 4), leaf 4 (L1 data,
 * L1 instruction, L2, L3: type and level, ways, sets) and leaf 0xb (SMT:
 * 2 threads, core: 8), rows of eax, ebx, ecx, edx. */
static const uint32_t hsw_leaf2[4] = { 0x76036301, 0x00f0b6ff, 0x00000000, 0x00c10000 };
static const uint32_t hsw_leaf4[4][4] = {
    { 0x1c004121, 0x01c0003f, 0x0000003f, 0x00000000 },
    { 0x1c004122, 0x01c0003f, 0x0000003f, 0x00000000 },
    { 0x1c004143, 0x01c0003f, 0x000001ff, 0x00000000 },
    { 0x1c03c163, 0x03c0003f, 0x00001fff, 0x00000006 },
};
static const uint32_t hsw_leafb[2][4] = {
    { 0x00000001, 0x00000002, 0x00000100, 0x00000002 },
    { 0x00000004, 0x00000008, 0x00000201, 0x00000002 },
};

static void set4(uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d, const uint32_t v[4])
{
    *a = v[0];
    *b = v[1];
    *c = v[2];
    *d = v[3];
}

/* The XSAVE area of x87, SSE and AVX state: the legacy 512 bytes, the
 * 64-byte header and the upper halves of the YMM registers at 576. */
#define XSAVE_AVX_OFFSET 576u
#define XSAVE_AVX_BYTES 256u

void x86_cpuid(struct x86_cpu *c)
{
    uint32_t leaf = (uint32_t)c->r[R_RAX], sub = (uint32_t)c->r[R_RCX];
    uint32_t a = 0, b = 0, cc = 0, d = 0;
    int v2 = c->level >= X86_CPU_V2, v3 = c->level >= X86_CPU_V3;
    int hsw = c->level >= X86_CPU_HASWELL;
    switch (leaf) {
    case 0:
        a = 0xd;
        b = 0x756e6547; d = 0x49656e69; cc = 0x6c65746e; /* GenuineIntel */
        break;
    case 1:
        a = 0x000306c3;            /* family 6 */
        /* clflush size 8*8; haswell: 16 logical processors, initial APIC id 2 */
        b = hsw ? 0x02100800 : 0x00000800;
        cc = (v2 ? V2_ECX : 0) | (v3 ? V3_ECX : 0);
        d = EDX_BASE | (hsw ? EDX_HTT : 0);
        break;
    case 2:
        if (hsw)
            set4(&a, &b, &cc, &d, hsw_leaf2);
        break;
    case 4:
        if (hsw && sub < 4)
            set4(&a, &b, &cc, &d, hsw_leaf4[sub]);
        break;
    case 7:
        if (sub == 0 && v3)
            b = EBX7_BMI1 | EBX7_AVX2 | EBX7_BMI2 | (hsw ? EBX7_ERMS : 0);
        break;
    case 0xb:
        if (hsw && sub < 2)
            set4(&a, &b, &cc, &d, hsw_leafb[sub]);
        else if (hsw)
            cc = sub;              /* level type 0: no more levels */
        break;
    case 0xd:
        if (!v3)
            break;
        if (sub == 0) {
            a = 0x7;               /* x87, SSE, AVX */
            b = cc = XSAVE_AVX_OFFSET + XSAVE_AVX_BYTES;
        } else if (sub == 2) {
            a = XSAVE_AVX_BYTES;
            b = XSAVE_AVX_OFFSET;
        }
        break;
    case 0x80000000:
        a = 0x80000008;
        break;
    case 0x80000001:
        cc = ECX81_LAHF | (v3 ? ECX81_LZCNT : 0);
        d = 0x20100800;            /* syscall, NX, long mode */
        break;
    case 0x80000008:
        a = 0x3030;                /* 48-bit virtual and physical addresses */
        break;
    default:
        break;
    }
    c->r[R_RAX] = a;
    c->r[R_RBX] = b;
    c->r[R_RCX] = cc;
    c->r[R_RDX] = d;
}
