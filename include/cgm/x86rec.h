/* x86 records: the static code table and the dynamic per-thread records.
 *
 * Static table: section "x86.static", one entry per static instruction
 * (in address order in version 1 traces, in the order the code was
 * decoded from version 2 on): address (zigzag delta from the previous
 * entry's, across the section's records), length, class, operation, memory
 * operand count, the instruction bytes (so a consumer can disassemble it),
 * then its micro-op breakdown (total, loads, stores), the largest memory
 * operand size, and the registers it reads and writes (enum cgm_x86_reg,
 * flags included), each list as a count and register bytes. Class numbers
 * never change; new ones are appended (a reader refuses a class it does not
 * know, naming the entry).
 *
 * Dynamic records (in a thread's stream, between event records):
 *   0x40 BLOCK    a basic block ran: start (zigzag delta from the previous
 *                 block record's start), instructions retired, access count,
 *                 then each access
 *   0x41 PARTIAL  accesses of a block still running (long rep-string
 *                 instructions); the same fields with 0 instructions; the
 *                 block's final BLOCK record follows
 * An access is a varint header (instruction index in the block << 4 |
 * write << 3 | size code) and the zigzag delta of its address from the last
 * address seen in the same slot (a hash of block start, index and
 * direction over CGM_X86_SLOTS entries the encoder and decoder keep alike).
 * Size codes 0..5 are 1, 2, 4, 8, 16 and 10 bytes; 7 is followed by a
 * varint size. */
#ifndef CGM_X86REC_H
#define CGM_X86REC_H

#include <stddef.h>
#include <stdint.h>

#define CGM_X86_REC_BLOCK    0x40
#define CGM_X86_REC_PARTIAL  0x41
#define CGM_X86_STATIC_SECTION "x86.static"
#define CGM_X86_SLOTS        4096u
#define CGM_X86_ACCESS_MAX   4096u   /* accesses per record */
#define CGM_X86_BLOCK_INSNS_MAX 64u
/* Largest encoded record: type, start, count, naccess + accesses. */
#define CGM_X86_RECORD_BYTES_MAX (1 + 3 * 10 + CGM_X86_ACCESS_MAX * 30)
#define CGM_X86_REGS_MAX     16u     /* registers per list in a static entry */
#define CGM_X86_STATIC_BYTES_MAX (10 + 1 + 1 + 3 + 1 + 15 + 3 + 3 + 2 * (1 + CGM_X86_REGS_MAX))

/* Architectural registers of the static table; partial registers (eax,
 * ah) name their whole register. */
enum cgm_x86_reg {
    CGM_X86_REG_RAX = 0,       /* 0..15: rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
    CGM_X86_REG_XMM0 = 16,     /* 16..31 */
    CGM_X86_REG_ST0 = 32,      /* 32..39: x87 stack, relative to the top */
    CGM_X86_REG_FLAGS = 40,    /* rflags */
    CGM_X86_REG_FPU = 41,      /* x87 status and control */
    CGM_X86_REG_MXCSR = 42,
    CGM_X86_REG_FS = 43,       /* fs/gs bases */
    CGM_X86_REG_GS = 44,
    CGM_X86_REG_RIP = 45,
    CGM_X86_REG_COUNT
};

const char *cgm_x86_reg_name(unsigned reg);

enum cgm_x86_class {
    CGM_X86_INT = 0,       /* integer ALU, moves */
    CGM_X86_MUL,
    CGM_X86_DIV,
    CGM_X86_FP,            /* x87 */
    CGM_X86_SIMD,          /* SSE/SSE2 */
    CGM_X86_BRANCH_COND,
    CGM_X86_JUMP,          /* direct unconditional */
    CGM_X86_JUMP_INDIRECT,
    CGM_X86_CALL,
    CGM_X86_CALL_INDIRECT,
    CGM_X86_RET,
    CGM_X86_SYSCALL,
    CGM_X86_FENCE,
    CGM_X86_ATOMIC,        /* lock-prefixed or xchg with memory */
    CGM_X86_STRING,        /* movs/stos/cmps/scas/lods, rep or not */
    CGM_X86_NOP,
    CGM_X86_OTHER,
    CGM_X86_GATHER,        /* AVX2 gathers: a load per element the mask selects */
    CGM_X86_CLASS_COUNT
};

const char *cgm_x86_class_name(unsigned cls);

struct cgm_x86_static {
    uint64_t addr;
    uint8_t len;             /* 1..15 */
    uint8_t cls;             /* enum cgm_x86_class */
    uint16_t op;             /* tracegen's operation number */
    uint8_t nmem;            /* memory operands */
    uint8_t bytes[15];
    uint8_t uops;            /* micro-ops: loads + stores + 1 unless a pure move */
    uint8_t loads, stores;   /* load and store micro-ops (per iteration for rep) */
    uint16_t mem_size;       /* largest memory operand in bytes, 0 without */
    uint8_t nsrc, ndst;
    uint8_t src[CGM_X86_REGS_MAX];  /* enum cgm_x86_reg, ascending */
    uint8_t dst[CGM_X86_REGS_MAX];
};

struct cgm_reader;

/* Reads the x86.static section of R: every entry, sorted by address. The
 * section's records joined are one chain of entries (address deltas from
 * the previous entry); version 1 wrote them in ascending address order,
 * version 2 in any order, each address once. A section larger than LIMIT
 * bytes is refused. Returns 0 with *OUT (free with free(); NULL when
 * empty) and *N, or -1 with ERR naming the section, the entry and the
 * fault. */
int cgm_x86_static_read(struct cgm_reader *r, size_t limit, struct cgm_x86_static **out,
                        size_t *n, char *err, size_t errlen);

/* Encodes S at OUT (CGM_X86_STATIC_BYTES_MAX bytes), address delta from
 * *PREV. Returns the length. */
size_t cgm_x86_static_encode(uint8_t *out, uint64_t *prev, const struct cgm_x86_static *s);
/* Decodes one entry from *P. Returns 0, or -1 on a malformed entry. */
int cgm_x86_static_decode(const uint8_t **p, const uint8_t *end, uint64_t *prev,
                          struct cgm_x86_static *s);

struct cgm_x86_access {
    uint64_t addr;
    uint32_t size;
    uint8_t insn;            /* index of the instruction in its block */
    uint8_t write;
};

/* Encoder and decoder state of one stream (zero it to start). */
struct cgm_x86_codec {
    uint64_t prev_start;
    uint64_t slot[CGM_X86_SLOTS];
};

/* Encodes a BLOCK or PARTIAL record into OUT (CGM_X86_RECORD_BYTES_MAX
 * bytes). N must be at most CGM_X86_ACCESS_MAX. Returns the length. */
size_t cgm_x86_block_encode(struct cgm_x86_codec *st, uint8_t *out, uint8_t type,
                            uint64_t start, uint32_t ninsn,
                            const struct cgm_x86_access *acc, uint32_t n);

struct cgm_x86_block_rec {
    uint8_t type;
    uint64_t start;
    uint32_t ninsn;
    uint32_t naccess;
};

/* Decodes a BLOCK or PARTIAL record; ACC must hold CGM_X86_ACCESS_MAX
 * entries. Returns 0, or -1 when the record is malformed (then ST is
 * unchanged only up to the fault; stop decoding the stream). */
int cgm_x86_block_decode(struct cgm_x86_codec *st, const uint8_t *rec, size_t len,
                         struct cgm_x86_block_rec *out, struct cgm_x86_access *acc);

#endif
