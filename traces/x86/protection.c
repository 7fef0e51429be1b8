/* General protection faults a user program meets: vector instructions
 * whose memory operand must be aligned, run on an aligned and on a
 * misaligned address, privileged instructions, and the interrupt
 * instructions. Each runs under a SIGSEGV (SIGILL, SIGTRAP) handler that prints what it was told (signal, si_code, si_addr,
 * trap number, error code, whether the saved RIP is the instruction) and
 * jumps out. Prints the same natively and under tracegen.
 *   protection [align|vex|privileged]   one list (align and privileged when
 *                                       no mode is given; vex needs AVX2)
 *   protection traps                the interrupt instructions: int3, int 3,
 *                                   int1 (icebp), int 4, into, ud2, and int N of
 *                                   a gate closed to user mode; SIGTRAP, SIGILL
 *                                   or SIGSEGV, the saved RIP after a trap
 *   protection hlt | movaps         one fault without a handler: dies of SIGSEGV
 *   protection int3                 a breakpoint without a handler: dies of SIGTRAP */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static sigjmp_buf escape;
static volatile int got_sig, got_code, got_trapno, got_err, rip_ok;
static volatile uintptr_t got_addr, got_rip;
static uintptr_t expected_pc; /* written by each probe just before its instruction */

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = (uintptr_t)si->si_addr;
    got_trapno = (int)uc->uc_mcontext.gregs[REG_TRAPNO];
    got_err = (int)uc->uc_mcontext.gregs[REG_ERR];
    got_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    rip_ok = got_rip == expected_pc;
    siglongjmp(escape, 1);
}

/* A probe runs SETUP, then INSN with rsi and rdi pointing at its memory
 * operand. */
#define PROBE2(fname, setup, insn) \
    static void fname(char *p) \
    { \
        __asm__ volatile(setup \
                         "lea 0f(%%rip), %%r11\n\t" \
                         "mov %%r11, %0\n\t" \
                         "0: " insn \
                         : "=m"(expected_pc) \
                         : "S"(p), "D"(p) \
                         : "rax", "rcx", "rdx", "r11", "xmm0", "xmm1", "memory", "cc"); \
    }
#define PROBE(fname, insn) PROBE2(fname, "", insn)

/* What one run of FN on P did, in a line. */
static void run(const char *what, void (*fn)(char *), char *p)
{
    got_sig = 0;
    if (!sigsetjmp(escape, 1))
        fn(p);
    if (!got_sig)
        printf(" %s: ran", what);
    else
        printf(" %s: signal %d code %#x addr %#lx trapno %d err %d rip %s", what, got_sig,
               (unsigned)got_code, (unsigned long)got_addr, got_trapno, got_err,
               rip_ok ? "at the instruction" : "elsewhere");
}

struct probe {
    const char *name;
    void (*fn)(char *);
    unsigned misalign; /* bytes past an aligned address for the second run */
};

/* ---- vector instructions with a memory operand ---- */

/* moves: the aligned ones fault, the unaligned ones and the scalar and
 * 64-bit ones do not */
PROBE(p_movaps_ld, "movaps (%%rsi), %%xmm0")
PROBE(p_movaps_st, "movaps %%xmm0, (%%rsi)")
PROBE(p_movapd_ld, "movapd (%%rsi), %%xmm0")
PROBE(p_movapd_st, "movapd %%xmm0, (%%rsi)")
PROBE(p_movdqa_ld, "movdqa (%%rsi), %%xmm0")
PROBE(p_movdqa_st, "movdqa %%xmm0, (%%rsi)")
PROBE(p_movntps, "movntps %%xmm0, (%%rsi)")
PROBE(p_movntpd, "movntpd %%xmm0, (%%rsi)")
PROBE(p_movntdq, "movntdq %%xmm0, (%%rsi)")
PROBE(p_movntdqa, "movntdqa (%%rsi), %%xmm0")
PROBE(p_movups_ld, "movups (%%rsi), %%xmm0")
PROBE(p_movups_st, "movups %%xmm0, (%%rsi)")
PROBE(p_movupd, "movupd (%%rsi), %%xmm0")
PROBE(p_movdqu_ld, "movdqu (%%rsi), %%xmm0")
PROBE(p_movdqu_st, "movdqu %%xmm0, (%%rsi)")
PROBE(p_lddqu, "lddqu (%%rsi), %%xmm0")
PROBE(p_movss, "movss (%%rsi), %%xmm0")
PROBE(p_movsd, "movsd (%%rsi), %%xmm0")
PROBE(p_movsd_st, "movsd %%xmm0, (%%rsi)")
PROBE(p_movq, "movq (%%rsi), %%xmm0")
PROBE(p_movd, "movd (%%rsi), %%xmm0")
PROBE(p_movlps, "movlps (%%rsi), %%xmm0")
PROBE(p_movhps, "movhps (%%rsi), %%xmm0")
PROBE(p_movhps_st, "movhps %%xmm0, (%%rsi)")
PROBE(p_movlpd, "movlpd (%%rsi), %%xmm0")
PROBE(p_movhpd, "movhpd (%%rsi), %%xmm0")
PROBE(p_movddup, "movddup (%%rsi), %%xmm0")
PROBE(p_movshdup, "movshdup (%%rsi), %%xmm0")
PROBE(p_movsldup, "movsldup (%%rsi), %%xmm0")
/* SSE, SSE2 arithmetic and logic: m128 faults, m32/m64 does not */
PROBE(p_addps, "addps (%%rsi), %%xmm0")
PROBE(p_addss, "addss (%%rsi), %%xmm0")
PROBE(p_addpd, "addpd (%%rsi), %%xmm0")
PROBE(p_addsd, "addsd (%%rsi), %%xmm0")
PROBE(p_subps, "subps (%%rsi), %%xmm0")
PROBE(p_mulpd, "mulpd (%%rsi), %%xmm0")
PROBE(p_mulsd, "mulsd (%%rsi), %%xmm0")
PROBE(p_divps, "divps (%%rsi), %%xmm0")
PROBE(p_divss, "divss (%%rsi), %%xmm0")
PROBE(p_sqrtpd, "sqrtpd (%%rsi), %%xmm0")
PROBE(p_sqrtsd, "sqrtsd (%%rsi), %%xmm0")
PROBE(p_maxps, "maxps (%%rsi), %%xmm0")
PROBE(p_minsd, "minsd (%%rsi), %%xmm0")
PROBE(p_rcpps, "rcpps (%%rsi), %%xmm0")
PROBE(p_rsqrtss, "rsqrtss (%%rsi), %%xmm0")
PROBE(p_andps, "andps (%%rsi), %%xmm0")
PROBE(p_andnpd, "andnpd (%%rsi), %%xmm0")
PROBE(p_orps, "orps (%%rsi), %%xmm0")
PROBE(p_xorpd, "xorpd (%%rsi), %%xmm0")
PROBE(p_cmpps, "cmpps $1, (%%rsi), %%xmm0")
PROBE(p_cmpsd, "cmpsd $1, (%%rsi), %%xmm0")
PROBE(p_comiss, "comiss (%%rsi), %%xmm0")
PROBE(p_ucomisd, "ucomisd (%%rsi), %%xmm0")
PROBE(p_shufps, "shufps $0x1b, (%%rsi), %%xmm0")
PROBE(p_unpcklps, "unpcklps (%%rsi), %%xmm0")
PROBE(p_unpckhpd, "unpckhpd (%%rsi), %%xmm0")
PROBE(p_cvtps2pd, "cvtps2pd (%%rsi), %%xmm0")
PROBE(p_cvtpd2ps, "cvtpd2ps (%%rsi), %%xmm0")
PROBE(p_cvtdq2ps, "cvtdq2ps (%%rsi), %%xmm0")
PROBE(p_cvtdq2pd, "cvtdq2pd (%%rsi), %%xmm0")
PROBE(p_cvttps2dq, "cvttps2dq (%%rsi), %%xmm0")
PROBE(p_cvtss2sd, "cvtss2sd (%%rsi), %%xmm0")
PROBE(p_cvtsd2si, "cvtsd2si (%%rsi), %%rax")
PROBE(p_cvtsi2sd, "cvtsi2sdq (%%rsi), %%xmm0")
/* SSE2 integer */
PROBE(p_paddb, "paddb (%%rsi), %%xmm0")
PROBE(p_paddq, "paddq (%%rsi), %%xmm0")
PROBE(p_psubusw, "psubusw (%%rsi), %%xmm0")
PROBE(p_pmullw, "pmullw (%%rsi), %%xmm0")
PROBE(p_pmuludq, "pmuludq (%%rsi), %%xmm0")
PROBE(p_pmaddwd, "pmaddwd (%%rsi), %%xmm0")
PROBE(p_pand, "pand (%%rsi), %%xmm0")
PROBE(p_pxor, "pxor (%%rsi), %%xmm0")
PROBE(p_pcmpeqb, "pcmpeqb (%%rsi), %%xmm0")
PROBE(p_pcmpgtd, "pcmpgtd (%%rsi), %%xmm0")
PROBE(p_pavgb, "pavgb (%%rsi), %%xmm0")
PROBE(p_psadbw, "psadbw (%%rsi), %%xmm0")
PROBE(p_pminub, "pminub (%%rsi), %%xmm0")
PROBE(p_pmaxsw, "pmaxsw (%%rsi), %%xmm0")
PROBE(p_packsswb, "packsswb (%%rsi), %%xmm0")
PROBE(p_packuswb, "packuswb (%%rsi), %%xmm0")
PROBE(p_punpcklbw, "punpcklbw (%%rsi), %%xmm0")
PROBE(p_punpckhqdq, "punpckhqdq (%%rsi), %%xmm0")
PROBE(p_pshufd, "pshufd $0x1b, (%%rsi), %%xmm0")
PROBE(p_pshuflw, "pshuflw $0x1b, (%%rsi), %%xmm0")
PROBE(p_psllw, "psllw (%%rsi), %%xmm0")
PROBE(p_psrad, "psrad (%%rsi), %%xmm0")
PROBE(p_pinsrw, "pinsrw $1, (%%rsi), %%xmm0")
/* SSE3, SSSE3 */
PROBE(p_haddps, "haddps (%%rsi), %%xmm0")
PROBE(p_addsubpd, "addsubpd (%%rsi), %%xmm0")
PROBE(p_pshufb, "pshufb (%%rsi), %%xmm0")
PROBE(p_palignr, "palignr $3, (%%rsi), %%xmm0")
PROBE(p_pabsw, "pabsw (%%rsi), %%xmm0")
PROBE(p_phaddd, "phaddd (%%rsi), %%xmm0")
PROBE(p_pmaddubsw, "pmaddubsw (%%rsi), %%xmm0")
PROBE(p_psignb, "psignb (%%rsi), %%xmm0")
/* SSE4.1 */
PROBE(p_ptest, "ptest (%%rsi), %%xmm0")
PROBE(p_pmulld, "pmulld (%%rsi), %%xmm0")
PROBE(p_pminsd, "pminsd (%%rsi), %%xmm0")
PROBE(p_packusdw, "packusdw (%%rsi), %%xmm0")
PROBE(p_pcmpeqq, "pcmpeqq (%%rsi), %%xmm0")
PROBE(p_blendps, "blendps $5, (%%rsi), %%xmm0")
PROBE(p_blendvpd, "blendvpd %%xmm0, (%%rsi), %%xmm1")
PROBE(p_pblendvb, "pblendvb %%xmm0, (%%rsi), %%xmm1")
PROBE(p_dpps, "dpps $0xff, (%%rsi), %%xmm0")
PROBE(p_mpsadbw, "mpsadbw $0, (%%rsi), %%xmm0")
PROBE(p_phminposuw, "phminposuw (%%rsi), %%xmm0")
PROBE(p_roundps, "roundps $1, (%%rsi), %%xmm0")
PROBE(p_roundsd, "roundsd $1, (%%rsi), %%xmm0")
PROBE(p_insertps, "insertps $0x10, (%%rsi), %%xmm0")
PROBE(p_pinsrd, "pinsrd $1, (%%rsi), %%xmm0")
PROBE(p_pextrq, "pextrq $1, %%xmm0, (%%rsi)")
PROBE(p_extractps, "extractps $1, %%xmm0, (%%rsi)")
PROBE(p_pmovzxbw, "pmovzxbw (%%rsi), %%xmm0")
PROBE(p_pmovsxdq, "pmovsxdq (%%rsi), %%xmm0")
/* SSE4.2: the string compares take any address, pcmpgtq does not */
PROBE(p_pcmpgtq, "pcmpgtq (%%rsi), %%xmm0")
PROBE(p_pcmpistri, "pcmpistri $0x0c, (%%rsi), %%xmm0")
PROBE2(p_pcmpestrm, "mov $16, %%eax\n\tmov $16, %%edx\n\t", "pcmpestrm $0x0c, (%%rsi), %%xmm0")
/* the state saves: fxsave 16 bytes, xsave 64 */
PROBE(p_fxsave, "fxsave (%%rsi)")
PROBE2(p_xsave, "mov $7, %%eax\n\txor %%edx, %%edx\n\t", "xsave (%%rsi)")
PROBE(p_stmxcsr, "stmxcsr (%%rsi)")
/* VEX: only the aligned moves check, by the vector length */
PROBE(p_vmovaps_x, "vmovaps (%%rsi), %%xmm0")
PROBE(p_vmovaps_y, "vmovaps (%%rsi), %%ymm0")
PROBE(p_vmovapd_st_y, "vmovapd %%ymm0, (%%rsi)")
PROBE(p_vmovdqa_x, "vmovdqa %%xmm0, (%%rsi)")
PROBE(p_vmovdqa_y, "vmovdqa (%%rsi), %%ymm0")
PROBE(p_vmovntps_y, "vmovntps %%ymm0, (%%rsi)")
PROBE(p_vmovntpd_x, "vmovntpd %%xmm0, (%%rsi)")
PROBE(p_vmovntdq_y, "vmovntdq %%ymm0, (%%rsi)")
PROBE(p_vmovntdqa_x, "vmovntdqa (%%rsi), %%xmm0")
PROBE(p_vmovntdqa_y, "vmovntdqa (%%rsi), %%ymm0")
PROBE(p_vmovups_y, "vmovups (%%rsi), %%ymm0")
PROBE(p_vaddps_x, "vaddps (%%rsi), %%xmm0, %%xmm0")
PROBE(p_vaddps_y, "vaddps (%%rsi), %%ymm0, %%ymm0")
PROBE(p_vpaddd_y, "vpaddd (%%rsi), %%ymm0, %%ymm0")
PROBE(p_vpshufd_x, "vpshufd $0x1b, (%%rsi), %%xmm0")
PROBE(p_vptest_y, "vptest (%%rsi), %%ymm0")
PROBE(p_vpcmpistri, "vpcmpistri $0x0c, (%%rsi), %%xmm0")
PROBE(p_vbroadcastss, "vbroadcastss (%%rsi), %%ymm0")

#define P(name, misalign) { #name, p_##name, misalign }
static const struct probe vector_probes[] = {
    P(movaps_ld, 8), P(movaps_st, 8), P(movapd_ld, 8), P(movapd_st, 8), P(movdqa_ld, 8),
    P(movdqa_st, 8), P(movntps, 8), P(movntpd, 8), P(movntdq, 8), P(movntdqa, 8),
    P(movups_ld, 8), P(movups_st, 8), P(movupd, 8), P(movdqu_ld, 8), P(movdqu_st, 8),
    P(lddqu, 8), P(movss, 1), P(movsd, 1), P(movsd_st, 1), P(movq, 1), P(movd, 1),
    P(movlps, 1), P(movhps, 1), P(movhps_st, 1), P(movlpd, 1), P(movhpd, 1), P(movddup, 1),
    P(movshdup, 8), P(movsldup, 8),
    P(addps, 8), P(addss, 1), P(addpd, 8), P(addsd, 1), P(subps, 8), P(mulpd, 8),
    P(mulsd, 1), P(divps, 8), P(divss, 1), P(sqrtpd, 8), P(sqrtsd, 1), P(maxps, 8),
    P(minsd, 1), P(rcpps, 8), P(rsqrtss, 1), P(andps, 8), P(andnpd, 8), P(orps, 8),
    P(xorpd, 8), P(cmpps, 8), P(cmpsd, 1), P(comiss, 1), P(ucomisd, 1), P(shufps, 8),
    P(unpcklps, 8), P(unpckhpd, 8), P(cvtps2pd, 1), P(cvtpd2ps, 8), P(cvtdq2ps, 8),
    P(cvtdq2pd, 1), P(cvttps2dq, 8), P(cvtss2sd, 1), P(cvtsd2si, 1), P(cvtsi2sd, 1),
    P(paddb, 8), P(paddq, 8), P(psubusw, 8), P(pmullw, 8), P(pmuludq, 8), P(pmaddwd, 8),
    P(pand, 8), P(pxor, 8), P(pcmpeqb, 8), P(pcmpgtd, 8), P(pavgb, 8), P(psadbw, 8),
    P(pminub, 8), P(pmaxsw, 8), P(packsswb, 8), P(packuswb, 8), P(punpcklbw, 8),
    P(punpckhqdq, 8), P(pshufd, 8), P(pshuflw, 8), P(psllw, 8), P(psrad, 8), P(pinsrw, 1),
    P(haddps, 8), P(addsubpd, 8), P(pshufb, 8), P(palignr, 8), P(pabsw, 8), P(phaddd, 8),
    P(pmaddubsw, 8), P(psignb, 8),
    P(ptest, 8), P(pmulld, 8), P(pminsd, 8), P(packusdw, 8), P(pcmpeqq, 8), P(blendps, 8),
    P(blendvpd, 8), P(pblendvb, 8), P(dpps, 8), P(mpsadbw, 8), P(phminposuw, 8),
    P(roundps, 8), P(roundsd, 1), P(insertps, 1), P(pinsrd, 1), P(pextrq, 1),
    P(extractps, 1), P(pmovzxbw, 1), P(pmovsxdq, 1),
    P(pcmpgtq, 8), P(pcmpistri, 8), P(pcmpestrm, 8),
    P(fxsave, 8), P(xsave, 16), P(stmxcsr, 1),
};

static const struct probe vex_probes[] = {
    P(vmovaps_x, 8), P(vmovaps_y, 16), P(vmovapd_st_y, 16), P(vmovdqa_x, 8),
    P(vmovdqa_y, 16), P(vmovntps_y, 16), P(vmovntpd_x, 8), P(vmovntdq_y, 16),
    P(vmovntdqa_x, 8), P(vmovntdqa_y, 16), P(vmovups_y, 8), P(vaddps_x, 8), P(vaddps_y, 8),
    P(vpaddd_y, 16), P(vpshufd_x, 8), P(vptest_y, 8), P(vpcmpistri, 8), P(vbroadcastss, 1),
};

/* ---- privileged instructions ---- */
PROBE(p_hlt, "hlt")
PROBE(p_cli, "cli")
PROBE(p_sti, "sti")
PROBE(p_in_imm, "in $0x80, %%al")
PROBE2(p_in_dx, "mov $0x80, %%edx\n\t", "in %%dx, %%eax")
PROBE(p_out_imm, "out %%al, $0x80")
PROBE2(p_out_dx, "mov $0x80, %%edx\n\t", "out %%ax, %%dx")
PROBE2(p_insb, "mov $0x80, %%edx\n\t", "insb")
PROBE2(p_outsl, "mov $0x80, %%edx\n\t", "outsl")
PROBE2(p_rep_insw, "mov $0x80, %%edx\n\tmov $2, %%ecx\n\t", "rep insw")
PROBE(p_lgdt, "lgdt (%%rsi)")
PROBE(p_lidt, "lidt (%%rsi)")
PROBE2(p_lldt, "xor %%eax, %%eax\n\t", "lldt %%ax")
PROBE2(p_ltr, "xor %%eax, %%eax\n\t", "ltr %%ax")
PROBE2(p_lmsw, "xor %%eax, %%eax\n\t", "lmsw %%ax")
PROBE(p_clts, "clts")
PROBE(p_mov_from_cr0, "mov %%cr0, %%rax")
PROBE2(p_mov_to_cr3, "xor %%eax, %%eax\n\t", "mov %%rax, %%cr3")
PROBE(p_mov_from_dr7, "mov %%db7, %%rax")
PROBE2(p_mov_to_dr0, "xor %%eax, %%eax\n\t", "mov %%rax, %%db0")
PROBE2(p_rdmsr, "mov $0x10, %%ecx\n\t", "rdmsr")
PROBE2(p_wrmsr, "mov $0x10, %%ecx\n\txor %%eax, %%eax\n\txor %%edx, %%edx\n\t", "wrmsr")
PROBE(p_invd, "invd")
PROBE(p_wbinvd, "wbinvd")
PROBE(p_invlpg, "invlpg (%%rsi)")
PROBE(p_swapgs, "swapgs")
PROBE(p_sysret, "sysretq")
PROBE2(p_xsetbv, "xor %%ecx, %%ecx\n\tmov $7, %%eax\n\txor %%edx, %%edx\n\t", "xsetbv")

#define Q(name) { #name, p_##name, 0 }
static const struct probe privileged_probes[] = {
    Q(hlt), Q(cli), Q(sti), Q(in_imm), Q(in_dx), Q(out_imm), Q(out_dx), Q(insb), Q(outsl),
    Q(rep_insw), Q(lgdt), Q(lidt), Q(lldt), Q(ltr), Q(lmsw), Q(clts), Q(mov_from_cr0),
    Q(mov_to_cr3), Q(mov_from_dr7), Q(mov_to_dr0), Q(rdmsr), Q(wrmsr), Q(invd), Q(wbinvd),
    Q(invlpg), Q(swapgs), Q(sysret), Q(xsetbv),
};

/* 64-byte aligned, large enough for xsave's image at any misalignment */
static char area[4096] __attribute__((aligned(64)));

/* ---- interrupt instructions ---- */

PROBE(p_int3, "int3")
PROBE(p_int_3, ".byte 0xcd, 0x03")      /* the two-byte form (gas writes int3 for int $3) */
PROBE(p_icebp, ".byte 0xf1")
PROBE(p_int_4, ".byte 0xcd, 0x04")
PROBE(p_into, ".byte 0xce")             /* invalid in 64-bit mode */
PROBE(p_ud2, "ud2")
PROBE(p_int_1, ".byte 0xcd, 0x01")      /* the #DB gate is closed to user mode */
PROBE(p_int_0x41, "int $0x41")

static const struct probe trap_probes[] = {
    Q(int3), Q(int_3), Q(icebp), Q(int_4), Q(into), Q(ud2), Q(int_1), Q(int_0x41),
};

/* An address as an offset from the probed instruction, or 0. */
static void print_near(const char *what, uintptr_t a)
{
    if (a)
        printf(" %s insn%+ld", what, (long)(a - expected_pc));
    else
        printf(" %s 0", what);
}

static void traps(void)
{
    for (size_t i = 0; i < sizeof trap_probes / sizeof trap_probes[0]; i++) {
        got_sig = 0;
        if (!sigsetjmp(escape, 1))
            trap_probes[i].fn(area);
        printf("%s:", trap_probes[i].name);
        if (!got_sig) {
            printf(" ran\n");
            continue;
        }
        printf(" signal %d code %#x", got_sig, (unsigned)got_code);
        print_near("addr", got_addr);
        printf(" trapno %d err %d", got_trapno, got_err);
        print_near("rip", got_rip);
        printf("\n");
    }
}


static void vectors(const struct probe *probes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct probe *pr = &probes[i];
        printf("%s:", pr->name);
        run("aligned", pr->fn, area);
        run("misaligned", pr->fn, area + pr->misalign);
        printf("\n");
    }
}

static void privileged(void)
{
    for (size_t i = 0; i < sizeof privileged_probes / sizeof privileged_probes[0]; i++) {
        printf("%s:", privileged_probes[i].name);
        run("user mode", privileged_probes[i].fn, area);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "hlt")) {
        p_hlt(area);
        return 0;
    }
    if (!strcmp(mode, "movaps")) {
        p_movaps_ld(area + 8);
        return 0;
    }
    if (!strcmp(mode, "int3")) {
        p_int3(area);
        return 0;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGTRAP, &sa, NULL);
    if (!*mode || !strcmp(mode, "align"))
        vectors(vector_probes, sizeof vector_probes / sizeof vector_probes[0]);
    if (!strcmp(mode, "vex"))
        vectors(vex_probes, sizeof vex_probes / sizeof vex_probes[0]);
    if (!*mode || !strcmp(mode, "privileged"))
        privileged();
    if (!strcmp(mode, "traps"))
        traps();
    return 0;
}
