/* The x86-64 guest CPU: architectural state, the pre-decoded instruction
 * form the interpreter runs, and guest memory access through a small
 * software TLB. */
#ifndef TRACEGEN_X86_CPU_H
#define TRACEGEN_X86_CPU_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "cgm/x86rec.h"
#include "tracegen/x86/mem.h"

enum { R_RAX, R_RCX, R_RDX, R_RBX, R_RSP, R_RBP, R_RSI, R_RDI,
       R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15 };

#define REG_NONE   0xff
#define REG_HIGH8  0x10 /* reg | REG_HIGH8: AH, CH, DH, BH */
#define REG_VSIB   0x80 /* MEM operand's reg: REG_VSIB | vector index register (gathers) */

/* RFLAGS bits. */
#define FL_CF 0x001u
#define FL_PF 0x004u
#define FL_AF 0x010u
#define FL_ZF 0x040u
#define FL_SF 0x080u
#define FL_TF 0x100u
#define FL_IF 0x200u
#define FL_DF 0x400u
#define FL_OF 0x800u
#define FL_ARITH (FL_CF | FL_PF | FL_AF | FL_ZF | FL_SF | FL_OF)

/* How the arithmetic flags are to be computed from the last flag-setting
 * operation (lazy flags). */
enum lazy_op {
    LZ_NONE,   /* flags are in cpu->rflags */
    LZ_ADD, LZ_ADC, LZ_SUB, LZ_SBB, LZ_LOGIC,
    LZ_INC, LZ_DEC,  /* CF taken from lz_cin */
    LZ_NEG,
};

enum opnd_kind { OPK_NONE, OPK_REG, OPK_MEM, OPK_IMM, OPK_XMM, OPK_ST };
enum seg_override { SEG_NONE, SEG_FS, SEG_GS };

struct x86_opnd {
    uint8_t kind;   /* enum opnd_kind */
    uint8_t size;   /* bytes */
    uint8_t reg;    /* GPR (| REG_HIGH8), XMM/YMM or ST(i) number; MEM: REG_VSIB | index */
    uint8_t base;   /* MEM: GPR or REG_NONE */
    uint8_t index;  /* MEM: GPR or REG_NONE */
    uint8_t scale;  /* MEM: shift count 0..3 */
    uint8_t seg;    /* MEM: enum seg_override */
    uint8_t addr32; /* MEM: 32-bit address size */
    int64_t val;    /* MEM: displacement (RIP folded in); IMM: value */
};

struct x86_dinsn {
    uint16_t op;     /* enum x86_op (ops.h) */
    uint16_t csid;   /* capstone instruction id (SSE and x87 dispatch on it) */
    uint8_t len;
    uint8_t nops;
    uint8_t osz;     /* operation size in bytes */
    uint8_t cond;    /* condition code 0..15, or ssecc / sub-op */
    uint8_t rep;     /* 0, 1 (rep/repe), 2 (repne) */
    uint8_t aux;     /* per-op extra (e.g. immediate byte) */
    uint8_t alu_reg; /* ALU op operand shape run inline (enum alu_form, ops.h) */
    uint8_t run;     /* what the interpreter dispatches on: op or a form (ops.h) */
    uint8_t vl;      /* vector instructions: 0 legacy SSE, 16 or 32 VEX (vector bytes) */
    uint8_t nds;     /* VEX: 1 when o[1] is the first source (vvvv), o[2] the second */
    uint8_t imm;     /* vector instructions: the trailing imm8 (or is4 register byte) */
    uint8_t align;   /* vector instructions: mask of the address bits that must be
                        zero in the memory operand (#GP otherwise), vec_align.c */
    uint64_t next;   /* address of the next instruction */
    struct x86_opnd o[3];
};

typedef union {
    uint8_t b[16];
    uint16_t w[8];
    uint32_t d[4];
    uint64_t q[2];
    int8_t sb[16];
    int16_t sw[8];
    int32_t sd[4];
    int64_t sq[2];
    float f[4];
    double fd[2];
} xmm_t;

/* A YMM register or 256-bit value: two 128-bit lanes. */
typedef union {
    uint8_t b[32];
    uint16_t w[16];
    uint32_t d[8];
    uint64_t q[4];
    int8_t sb[32];
    int16_t sw[16];
    int32_t sd[8];
    int64_t sq[4];
    float f[8];
    double fd[4];
    xmm_t x[2];
} ymm_t;

/* The processor CPUID describes (tracegen --cpu): the x86-64 levels of
 * the psABI, and a Haswell (x86-64-v3 with ERMS, its caches and topology,
 * as valgrind's virtual CPU describes it). Instructions of every level run
 * whatever the choice; it decides what a program's feature checks find
 * (glibc's string functions, for one). */
enum x86_cpu_level { X86_CPU_BASELINE, X86_CPU_V2, X86_CPU_V3, X86_CPU_HASWELL };

#define TLB_SIZE 256

struct tlb_entry {
    uint64_t page;   /* guest page number, or ~0 */
    uint8_t *host;   /* host address of the page */
};

struct x86_thread;

struct x86_cpu {
    uint64_t r[16];
    uint64_t rip;
    uint64_t fs_base, gs_base;
    uint64_t rflags;           /* non-arithmetic bits; arithmetic ones when lz_op == LZ_NONE */
    uint64_t lz_res, lz_a, lz_b;
    uint32_t lz_op, lz_size, lz_cin;
    xmm_t xmm[16];
    xmm_t yhi[16];             /* upper halves of ymm0..15 (legacy SSE keeps them) */
    uint32_t mxcsr;            /* while the CPU owns the host's MXCSR, flags are there (fpenv.h) */
    long double st[8];         /* x87 registers by physical number */
    unsigned ftop;             /* x87 stack top */
    uint8_t ftag;              /* bit i: physical register i is full */
    uint16_t fcw, fsw;
    uint8_t level;             /* enum x86_cpu_level, for CPUID */

    struct gmem *mem;
    uint64_t tlb_gen;
    struct tlb_entry tlb_r[TLB_SIZE];
    struct tlb_entry tlb_w[TLB_SIZE];

    /* fault reporting */
    jmp_buf *fault_jmp;
    uint64_t fault_addr;
    int fault_kind;            /* enum x86_fault (interp.h) */

    /* the recorder's access log for the running block (NULL: not recording) */
    struct cgm_x86_access *log;
    uint32_t log_n, log_cap;
    const struct x86_dinsn *log_base;         /* first instruction of the block */
    void (*log_full)(struct x86_cpu *c);      /* empties the log when it is full */
    void *access_ctx;

    const struct x86_dinsn *cur; /* instruction being executed */
    const struct x86_dinsn *restart_at; /* made to stop the block: the code after a
                                           store to it is decoded again */
    uint64_t icount;            /* instructions retired (at block granularity) */
    uint64_t rep_extra;         /* rep-string iterations beyond the first, since the
                                   process last collected them */
    uint64_t rep_room;          /* with rep_bounded: such iterations allowed before
                                   the run's instruction limit */
    int rep_bounded;
    struct x86_code_cache *code;
    struct x86_thread *thread;
};

/* Appends an access to the recorder's log (inline: it runs per access). */
__attribute__((always_inline)) static inline void x86_log_access(struct x86_cpu *c, uint64_t addr,
                                                                 unsigned size, int write)
{
    if (__builtin_expect(c->log != NULL, 0)) {
        if (c->log_n == c->log_cap)
            c->log_full(c);
        struct cgm_x86_access *a = &c->log[c->log_n++];
        a->addr = addr;
        a->size = size;
        a->insn = (uint8_t)(c->cur - c->log_base);
        a->write = (uint8_t)write;
    }
}

/* Slow paths in interp_mem.c (they refill the TLB; the caller has logged
 * the access already). */
uint64_t x86_read_slow(struct x86_cpu *c, uint64_t addr, unsigned size);
void x86_write_slow(struct x86_cpu *c, uint64_t addr, unsigned size, uint64_t v);
void x86_read_bytes_slow(struct x86_cpu *c, uint64_t addr, void *dst, unsigned size);
void x86_write_bytes_slow(struct x86_cpu *c, uint64_t addr, const void *src, unsigned size);
void x86_tlb_flush(struct x86_cpu *c);
_Noreturn void x86_fault(struct x86_cpu *c, int kind, uint64_t addr);

/* Set asynchronously (by tracegen's signal handlers) to the signal that
 * asks the emulator to stop at its next check: between blocks, after a
 * system call, and every few thousand iterations of a rep-string
 * instruction. */
extern volatile sig_atomic_t x86_interrupt;

/* The host address of [ADDR, ADDR+SIZE) when TLB maps its page and the
 * access stays inside it, else NULL (then the slow path decides). */
__attribute__((always_inline)) static inline uint8_t *x86_tlb_host(const struct tlb_entry *tlb,
                                                                   uint64_t addr, unsigned size)
{
    uint64_t pn = addr >> GPAGE_SHIFT;
    const struct tlb_entry *e = &tlb[pn & (TLB_SIZE - 1)];
    if (__builtin_expect(e->page == pn && (addr & GPAGE_MASK) <= GPAGE_SIZE - size, 1))
        return e->host + (addr & GPAGE_MASK);
    return NULL;
}

__attribute__((always_inline)) static inline uint64_t x86_read(struct x86_cpu *c, uint64_t addr, unsigned size)
{
    uint64_t pn = addr >> GPAGE_SHIFT;
    struct tlb_entry *e = &c->tlb_r[pn & (TLB_SIZE - 1)];
    x86_log_access(c, addr, size, 0);
    if (__builtin_expect(e->page == pn && (addr & GPAGE_MASK) <= GPAGE_SIZE - size, 1)) {
        const uint8_t *p = e->host + (addr & GPAGE_MASK);
        switch (size) {
        case 1: return *p;
        case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
        case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
        default: { uint64_t v; memcpy(&v, p, 8); return v; }
        }
    }
    return x86_read_slow(c, addr, size);
}

__attribute__((always_inline)) static inline void x86_write(struct x86_cpu *c, uint64_t addr, unsigned size, uint64_t v)
{
    uint64_t pn = addr >> GPAGE_SHIFT;
    struct tlb_entry *e = &c->tlb_w[pn & (TLB_SIZE - 1)];
    x86_log_access(c, addr, size, 1);
    if (__builtin_expect(e->page == pn && (addr & GPAGE_MASK) <= GPAGE_SIZE - size, 1)) {
        uint8_t *p = e->host + (addr & GPAGE_MASK);
        switch (size) {
        case 1: *p = (uint8_t)v; return;
        case 2: { uint16_t t = (uint16_t)v; memcpy(p, &t, 2); return; }
        case 4: { uint32_t t = (uint32_t)v; memcpy(p, &t, 4); return; }
        default: memcpy(p, &v, 8); return;
        }
    }
    x86_write_slow(c, addr, size, v);
}

/* Accesses of any size (SSE's 16 bytes, x87's 10) through the same TLB. */
__attribute__((always_inline)) static inline void x86_read_bytes(struct x86_cpu *c, uint64_t addr,
                                                                 void *dst, unsigned size)
{
    x86_log_access(c, addr, size, 0);
    const uint8_t *p = x86_tlb_host(c->tlb_r, addr, size);
    if (__builtin_expect(p != NULL, 1))
        memcpy(dst, p, size);
    else
        x86_read_bytes_slow(c, addr, dst, size);
}

__attribute__((always_inline)) static inline void x86_write_bytes(struct x86_cpu *c, uint64_t addr,
                                                                  const void *src, unsigned size)
{
    x86_log_access(c, addr, size, 1);
    uint8_t *p = x86_tlb_host(c->tlb_w, addr, size);
    if (__builtin_expect(p != NULL, 1))
        memcpy(p, src, size);
    else
        x86_write_bytes_slow(c, addr, src, size);
}

#endif
