/* Capstone instruction -> pre-decoded form. Capstone is asked once per
 * static instruction; the interpreter never sees capstone structures. */
#include "tracegen/x86/decode.h"

#include <stdio.h>
#include <stdlib.h>

#include "tracegen/x86/interp.h"
#include "tracegen/x86/ops.h"
#include "tracegen/x86/simd.h"

int x86_decoder_open(csh *h)
{
    if (cs_open(CS_ARCH_X86, CS_MODE_64, h) != CS_ERR_OK)
        return -1;
    cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
    return 0;
}

/* Capstone register -> GPR number (| REG_HIGH8), or -1. */
int x86_capstone_gpr(x86_reg r)
{
    static const x86_reg q[16] = { X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
        X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI, X86_REG_R8, X86_REG_R9,
        X86_REG_R10, X86_REG_R11, X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15 };
    static const x86_reg d[16] = { X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
        X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI, X86_REG_R8D, X86_REG_R9D,
        X86_REG_R10D, X86_REG_R11D, X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D };
    static const x86_reg w[16] = { X86_REG_AX, X86_REG_CX, X86_REG_DX, X86_REG_BX,
        X86_REG_SP, X86_REG_BP, X86_REG_SI, X86_REG_DI, X86_REG_R8W, X86_REG_R9W,
        X86_REG_R10W, X86_REG_R11W, X86_REG_R12W, X86_REG_R13W, X86_REG_R14W, X86_REG_R15W };
    static const x86_reg b[16] = { X86_REG_AL, X86_REG_CL, X86_REG_DL, X86_REG_BL,
        X86_REG_SPL, X86_REG_BPL, X86_REG_SIL, X86_REG_DIL, X86_REG_R8B, X86_REG_R9B,
        X86_REG_R10B, X86_REG_R11B, X86_REG_R12B, X86_REG_R13B, X86_REG_R14B, X86_REG_R15B };
    static const x86_reg h[4] = { X86_REG_AH, X86_REG_CH, X86_REG_DH, X86_REG_BH };
    for (int i = 0; i < 16; i++)
        if (r == q[i] || r == d[i] || r == w[i] || r == b[i])
            return i;
    for (int i = 0; i < 4; i++)
        if (r == h[i])
            return i | REG_HIGH8;
    return -1;
}

/* An XMM or YMM register's number (the same architectural register). */
static int xmm_number(x86_reg r)
{
    if (r >= X86_REG_XMM0 && r <= X86_REG_XMM15)
        return r - X86_REG_XMM0;
    if (r >= X86_REG_YMM0 && r <= X86_REG_YMM15)
        return r - X86_REG_YMM0;
    return -1;
}

static int st_number(x86_reg r)
{
    if (r >= X86_REG_ST0 && r <= X86_REG_ST7)
        return r - X86_REG_ST0;
    return -1;
}

static uint8_t scale_shift(int scale)
{
    switch (scale) {
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return 0;
    }
}

/* Fills OUT from a capstone operand. Returns -1 for an operand the
 * interpreter cannot represent. */
static int convert_operand(const cs_x86_op *op, uint64_t next, int addr32,
                           struct x86_opnd *out)
{
    memset(out, 0, sizeof *out);
    out->size = op->size;
    out->base = out->index = REG_NONE;
    switch (op->type) {
    case X86_OP_REG: {
        int n;
        if ((n = x86_capstone_gpr(op->reg)) >= 0) {
            out->kind = OPK_REG;
        } else if ((n = xmm_number(op->reg)) >= 0) {
            out->kind = OPK_XMM;
        } else if ((n = st_number(op->reg)) >= 0) {
            out->kind = OPK_ST;
        } else {
            return -1;
        }
        out->reg = (uint8_t)n;
        return 0;
    }
    case X86_OP_IMM:
        out->kind = OPK_IMM;
        out->val = op->imm;
        return 0;
    case X86_OP_MEM: {
        out->kind = OPK_MEM;
        out->addr32 = (uint8_t)addr32;
        out->val = op->mem.disp;
        if (op->mem.segment == X86_REG_FS)
            out->seg = SEG_FS;
        else if (op->mem.segment == X86_REG_GS)
            out->seg = SEG_GS;
        if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP) {
            out->val += (int64_t)next;
        } else if (op->mem.base != X86_REG_INVALID) {
            int n = x86_capstone_gpr(op->mem.base);
            if (n < 0 || (n & REG_HIGH8))
                return -1;
            out->base = (uint8_t)n;
        }
        if (xmm_number(op->mem.index) >= 0) {
            /* VSIB (gathers): the vector index is theirs to apply */
            out->reg = (uint8_t)(REG_VSIB | xmm_number(op->mem.index));
            out->scale = scale_shift(op->mem.scale);
        } else if (op->mem.index != X86_REG_INVALID) {
            int n = x86_capstone_gpr(op->mem.index);
            if (n < 0 || (n & REG_HIGH8))
                return -1;
            out->index = (uint8_t)n;
            out->scale = scale_shift(op->mem.scale);
        }
        return 0;
    }
    default:
        return -1;
    }
}

struct simple_map { uint16_t id, op; };

static const struct simple_map simple[] = {
    { X86_INS_NOP, XOP_NOP }, { X86_INS_ENDBR64, XOP_NOP }, { X86_INS_ENDBR32, XOP_NOP },
    { X86_INS_PAUSE, XOP_NOP }, { X86_INS_WAIT, XOP_NOP }, /* exceptions stay masked */
    { X86_INS_PREFETCH, XOP_NOP }, { X86_INS_PREFETCHNTA, XOP_NOP },
    { X86_INS_PREFETCHT0, XOP_NOP }, { X86_INS_PREFETCHT1, XOP_NOP },
    { X86_INS_PREFETCHT2, XOP_NOP }, { X86_INS_PREFETCHW, XOP_NOP },
    { X86_INS_MOV, XOP_MOV }, { X86_INS_MOVABS, XOP_MOV },
    { X86_INS_MOVZX, XOP_MOVZX }, { X86_INS_MOVSX, XOP_MOVSX }, { X86_INS_MOVSXD, XOP_MOVSX },
    { X86_INS_LEA, XOP_LEA }, { X86_INS_PUSH, XOP_PUSH }, { X86_INS_POP, XOP_POP },
    { X86_INS_XCHG, XOP_XCHG }, { X86_INS_CMPXCHG, XOP_CMPXCHG },
    { X86_INS_CMPXCHG16B, XOP_CMPXCHG16B }, { X86_INS_XADD, XOP_XADD },
    { X86_INS_BSWAP, XOP_BSWAP },
    { X86_INS_ADD, XOP_ADD }, { X86_INS_OR, XOP_OR }, { X86_INS_ADC, XOP_ADC },
    { X86_INS_SBB, XOP_SBB }, { X86_INS_AND, XOP_AND }, { X86_INS_SUB, XOP_SUB },
    { X86_INS_XOR, XOP_XOR }, { X86_INS_CMP, XOP_CMP }, { X86_INS_TEST, XOP_TEST },
    { X86_INS_INC, XOP_INC }, { X86_INS_DEC, XOP_DEC }, { X86_INS_NEG, XOP_NEG },
    { X86_INS_NOT, XOP_NOT },
    { X86_INS_SHL, XOP_SHL }, { X86_INS_SAL, XOP_SHL }, { X86_INS_SHR, XOP_SHR },
    { X86_INS_SAR, XOP_SAR }, { X86_INS_ROL, XOP_ROL }, { X86_INS_ROR, XOP_ROR },
    { X86_INS_RCL, XOP_RCL }, { X86_INS_RCR, XOP_RCR }, { X86_INS_SHLD, XOP_SHLD },
    { X86_INS_SHRD, XOP_SHRD },
    { X86_INS_MUL, XOP_MUL }, { X86_INS_IMUL, XOP_IMUL }, { X86_INS_DIV, XOP_DIV },
    { X86_INS_IDIV, XOP_IDIV },
    { X86_INS_CBW, XOP_CBW }, { X86_INS_CWDE, XOP_CWDE }, { X86_INS_CDQE, XOP_CDQE },
    { X86_INS_CWD, XOP_CWD }, { X86_INS_CDQ, XOP_CDQ }, { X86_INS_CQO, XOP_CQO },
    { X86_INS_JMP, XOP_JMP }, { X86_INS_JRCXZ, XOP_JRCXZ }, { X86_INS_JECXZ, XOP_JRCXZ },
    { X86_INS_LOOP, XOP_LOOP }, { X86_INS_CALL, XOP_CALL }, { X86_INS_RET, XOP_RET },
    { X86_INS_LEAVE, XOP_LEAVE },
    { X86_INS_BT, XOP_BT }, { X86_INS_BTS, XOP_BTS }, { X86_INS_BTR, XOP_BTR },
    { X86_INS_BTC, XOP_BTC }, { X86_INS_BSF, XOP_BSF }, { X86_INS_BSR, XOP_BSR },
    /* F3-prefixed bsf/bsr run as tzcnt/lzcnt whatever CPUID reports, as on
     * the host (code for older processors uses tzcnt only where bsf gives
     * the same result); the trace records them as bsf/bsr, the same class
     * and operands (run_form) */
    { X86_INS_TZCNT, XOP_BSF }, { X86_INS_LZCNT, XOP_BSR },
    { X86_INS_POPCNT, XOP_POPCNT }, { X86_INS_CRC32, XOP_CRC32 }, { X86_INS_MOVBE, XOP_MOVBE },
    { X86_INS_ANDN, XOP_ANDN }, { X86_INS_BEXTR, XOP_BEXTR }, { X86_INS_BLSI, XOP_BLSI },
    { X86_INS_BLSMSK, XOP_BLSMSK }, { X86_INS_BLSR, XOP_BLSR }, { X86_INS_BZHI, XOP_BZHI },
    { X86_INS_PDEP, XOP_PDEP }, { X86_INS_PEXT, XOP_PEXT }, { X86_INS_RORX, XOP_RORX },
    { X86_INS_SARX, XOP_SARX }, { X86_INS_SHLX, XOP_SHLX }, { X86_INS_SHRX, XOP_SHRX },
    { X86_INS_MULX, XOP_MULX }, { X86_INS_XGETBV, XOP_XGETBV },
    { X86_INS_CLD, XOP_CLD }, { X86_INS_STD, XOP_STD }, { X86_INS_CLC, XOP_CLC },
    { X86_INS_STC, XOP_STC }, { X86_INS_CMC, XOP_CMC }, { X86_INS_LAHF, XOP_LAHF },
    { X86_INS_SAHF, XOP_SAHF }, { X86_INS_PUSHFQ, XOP_PUSHF }, { X86_INS_POPFQ, XOP_POPF },
    { X86_INS_MOVSB, XOP_MOVS }, { X86_INS_MOVSW, XOP_MOVS }, { X86_INS_MOVSQ, XOP_MOVS },
    { X86_INS_STOSB, XOP_STOS }, { X86_INS_STOSW, XOP_STOS }, { X86_INS_STOSD, XOP_STOS },
    { X86_INS_STOSQ, XOP_STOS },
    { X86_INS_LODSB, XOP_LODS }, { X86_INS_LODSW, XOP_LODS }, { X86_INS_LODSD, XOP_LODS },
    { X86_INS_LODSQ, XOP_LODS },
    { X86_INS_CMPSB, XOP_CMPS }, { X86_INS_CMPSW, XOP_CMPS }, { X86_INS_CMPSQ, XOP_CMPS },
    { X86_INS_SCASB, XOP_SCAS }, { X86_INS_SCASW, XOP_SCAS }, { X86_INS_SCASD, XOP_SCAS },
    { X86_INS_SCASQ, XOP_SCAS },
    { X86_INS_SYSCALL, XOP_SYSCALL }, { X86_INS_CPUID, XOP_CPUID }, { X86_INS_RDTSC, XOP_RDTSC },
    { X86_INS_UD2, XOP_UD2 }, { X86_INS_HLT, XOP_HLT }, { X86_INS_INT3, XOP_INT3 },
    { X86_INS_INT1, XOP_INT3 }, { X86_INS_INT, XOP_INT3 }, /* signal.c tells them apart */
    { X86_INS_MFENCE, XOP_FENCE }, { X86_INS_LFENCE, XOP_FENCE }, { X86_INS_SFENCE, XOP_FENCE },
};

/* The instructions a user-mode program may not execute: each raises #GP
 * (SIGSEGV under Linux) at privilege level 3 whatever its operands, as
 * the processor checks the privilege level (or IOPL, 0 under Linux) first.
 * Left out: what Linux may allow or emulate (rdpmc, sgdt, sidt, sldt,
 * smsw, str) and what is #UD instead of #GP at level 3 on some processors
 * (clac, stac, monitor, mwait, sysexit, invpcid, invlpga, xsaves). */
static const uint16_t privileged_ids[] = {
    X86_INS_HLT, X86_INS_CLI, X86_INS_STI, X86_INS_IN, X86_INS_OUT, X86_INS_INSB,
    X86_INS_INSW, X86_INS_INSD, X86_INS_OUTSB, X86_INS_OUTSW, X86_INS_OUTSD, X86_INS_LGDT,
    X86_INS_LIDT, X86_INS_LLDT, X86_INS_LTR, X86_INS_LMSW, X86_INS_CLTS, X86_INS_RDMSR,
    X86_INS_WRMSR, X86_INS_INVD, X86_INS_WBINVD, X86_INS_INVLPG, X86_INS_SWAPGS,
    X86_INS_SYSRET, X86_INS_XSETBV,
};

static const uint16_t jcc_ids[16] = { X86_INS_JO, X86_INS_JNO, X86_INS_JB, X86_INS_JAE,
    X86_INS_JE, X86_INS_JNE, X86_INS_JBE, X86_INS_JA, X86_INS_JS, X86_INS_JNS,
    X86_INS_JP, X86_INS_JNP, X86_INS_JL, X86_INS_JGE, X86_INS_JLE, X86_INS_JG };
static const uint16_t cmov_ids[16] = { X86_INS_CMOVO, X86_INS_CMOVNO, X86_INS_CMOVB,
    X86_INS_CMOVAE, X86_INS_CMOVE, X86_INS_CMOVNE, X86_INS_CMOVBE, X86_INS_CMOVA,
    X86_INS_CMOVS, X86_INS_CMOVNS, X86_INS_CMOVP, X86_INS_CMOVNP, X86_INS_CMOVL,
    X86_INS_CMOVGE, X86_INS_CMOVLE, X86_INS_CMOVG };
static const uint16_t set_ids[16] = { X86_INS_SETO, X86_INS_SETNO, X86_INS_SETB,
    X86_INS_SETAE, X86_INS_SETE, X86_INS_SETNE, X86_INS_SETBE, X86_INS_SETA,
    X86_INS_SETS, X86_INS_SETNS, X86_INS_SETP, X86_INS_SETNP, X86_INS_SETL,
    X86_INS_SETGE, X86_INS_SETLE, X86_INS_SETG };

static uint16_t op_table[X86_INS_ENDING];
static uint8_t cond_table[X86_INS_ENDING];
static uint16_t vex_twin[X86_INS_ENDING]; /* VEX id -> the legacy SSE id of its name */
static uint8_t privileged[X86_INS_ENDING];
static int tables_ready;

struct name_id { const char *name; unsigned id; };

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct name_id *)a)->name, ((const struct name_id *)b)->name);
}

/* vaddps runs as addps over the VEX vector length: pairs every "vNAME"
 * with "NAME" by capstone's mnemonics, so the table cannot drift from the
 * decoder. */
static void build_vex_twins(csh h)
{
    static struct name_id names[X86_INS_ENDING];
    unsigned n = 0;
    for (unsigned id = 1; id < X86_INS_ENDING; id++) {
        const char *nm = cs_insn_name(h, id);
        if (nm)
            names[n++] = (struct name_id){ nm, id };
    }
    qsort(names, n, sizeof names[0], by_name);
    for (unsigned i = 0; i < n; i++) {
        if (names[i].name[0] != 'v')
            continue;
        struct name_id key = { names[i].name + 1, 0 };
        const struct name_id *t = bsearch(&key, names, n, sizeof names[0], by_name);
        if (t)
            vex_twin[names[i].id] = (uint16_t)t->id;
    }
}

unsigned x86_legacy_id(unsigned id)
{
    return id < X86_INS_ENDING && vex_twin[id] ? vex_twin[id] : id;
}

static void build_tables(csh h)
{
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        op_table[simple[i].id] = simple[i].op;
    for (int c = 0; c < 16; c++) {
        op_table[jcc_ids[c]] = XOP_JCC;
        cond_table[jcc_ids[c]] = (uint8_t)c;
        op_table[cmov_ids[c]] = XOP_CMOV;
        cond_table[cmov_ids[c]] = (uint8_t)c;
        op_table[set_ids[c]] = XOP_SETCC;
        cond_table[set_ids[c]] = (uint8_t)c;
    }
    for (size_t i = 0; i < sizeof privileged_ids / sizeof privileged_ids[0]; i++)
        privileged[privileged_ids[i]] = 1;
    build_vex_twins(h);
    tables_ready = 1;
}

static int has_xmm_operand(const cs_x86 *x)
{
    for (int i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_REG && xmm_number(x->operands[i].reg) >= 0)
            return 1;
    return 0;
}

/* 1 for a privileged instruction: one of privileged_ids, or a move to or
 * from a control or debug register. */
static int is_privileged(unsigned id, const cs_x86 *x)
{
    if (id < X86_INS_ENDING && privileged[id])
        return 1;
    for (int i = 0; i < x->op_count; i++) {
        x86_reg r = x->operands[i].type == X86_OP_REG ? x->operands[i].reg : X86_REG_INVALID;
        if ((r >= X86_REG_CR0 && r <= X86_REG_CR15) || (r >= X86_REG_DR0 && r <= X86_REG_DR15))
            return 1;
    }
    return 0;
}

/* The SSE and AVX instructions that may name no XMM register: state saves
 * and MXCSR, movnti, and conversions of memory to a general register. */
static int vector_without_xmm_operand(unsigned id)
{
    switch (id) {
    case X86_INS_LDMXCSR: case X86_INS_STMXCSR: case X86_INS_VLDMXCSR: case X86_INS_VSTMXCSR:
    case X86_INS_MOVNTI: case X86_INS_FXSAVE: case X86_INS_FXRSTOR: case X86_INS_FXSAVE64:
    case X86_INS_FXRSTOR64: case X86_INS_EMMS: case X86_INS_VZEROUPPER: case X86_INS_VZEROALL:
    case X86_INS_XSAVE: case X86_INS_XSAVE64: case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64:
    case X86_INS_XRSTOR: case X86_INS_XRSTOR64:
    case X86_INS_CVTSD2SI: case X86_INS_CVTTSD2SI: case X86_INS_CVTSS2SI: case X86_INS_CVTTSS2SI:
    case X86_INS_VCVTSD2SI: case X86_INS_VCVTTSD2SI: case X86_INS_VCVTSS2SI:
    case X86_INS_VCVTTSS2SI:
        return 1;
    default:
        return 0;
    }
}

static int is_x87_opcode(const cs_x86 *x)
{
    return x->opcode[0] >= 0xd8 && x->opcode[0] <= 0xdf;
}

/* The run form of a MOVZX or MOVSX to a 32/64-bit register, or its op. */
static uint8_t extend_form(const struct x86_dinsn *in)
{
    const struct x86_opnd *s = &in->o[1];
    int mem = s->kind == OPK_MEM, reg = s->kind == OPK_REG && !(s->reg & REG_HIGH8);
    if (in->op == XOP_MOVZX) {
        if (s->size == 1)
            return mem ? RUN_MOVZX_RM8 : reg ? RUN_MOVZX_RR8 : XOP_MOVZX;
        if (s->size == 2)
            return mem ? RUN_MOVZX_RM16 : reg ? RUN_MOVZX_RR16 : XOP_MOVZX;
        return XOP_MOVZX;
    }
    if (in->osz == 8 && s->size == 4)
        return mem ? RUN_MOVSXD_RM : reg ? RUN_MOVSXD_RR : XOP_MOVSX;
    return XOP_MOVSX;
}

/* The form the interpreter runs IN as (enum x86_run_form), or its op. */
static uint8_t run_form(struct x86_dinsn *in)
{
    const struct x86_opnd *d = &in->o[0], *s = &in->o[1];
    if (in->op == XOP_SSE)
        return (uint8_t)x86_sse_run_form(in);
    if (in->op == XOP_JCC && in->cond < 16)
        return (uint8_t)(RUN_JCC_FIRST + in->cond);
    if (in->csid == X86_INS_TZCNT || in->csid == X86_INS_LZCNT)
        return in->csid == X86_INS_TZCNT ? RUN_TZCNT : RUN_LZCNT;
    if ((in->op == XOP_MOVZX || in->op == XOP_MOVSX) && d->kind == OPK_REG &&
        (in->osz == 8 || in->osz == 4) && d->size == in->osz)
        return extend_form(in);
    if (in->op != XOP_MOV || (in->osz != 8 && in->osz != 4) || d->size != in->osz)
        return (uint8_t)in->op;
    int wide = in->osz == 8;
    if (d->kind == OPK_REG && s->kind == OPK_REG && s->size == in->osz)
        return RUN_MOV_RR;
    if (d->kind == OPK_REG && s->kind == OPK_IMM)
        return RUN_MOV_RI;
    if (d->kind == OPK_REG && s->kind == OPK_MEM && s->size == in->osz)
        return wide ? RUN_MOV_RM8 : RUN_MOV_RM4;
    if (d->kind == OPK_MEM && s->kind == OPK_REG && s->size == in->osz)
        return wide ? RUN_MOV_MR8 : RUN_MOV_MR4;
    return (uint8_t)in->op;
}

/* The interpreter's inline ALU path (x86_dinsn.alu_reg): ADD SUB CMP AND
 * OR XOR TEST of 32 or 64 bits between registers, immediates and memory. */
static uint8_t alu_reg_form(const struct x86_dinsn *in)
{
    switch (in->op) {
    case XOP_ADD: case XOP_SUB: case XOP_CMP: case XOP_AND: case XOP_OR: case XOP_XOR:
    case XOP_TEST:
        break;
    default:
        return ALU_GENERIC;
    }
    const struct x86_opnd *d = &in->o[0], *s = &in->o[1];
    if ((in->osz != 8 && in->osz != 4) || d->size != in->osz)
        return ALU_GENERIC;
    int s_reg = s->kind == OPK_REG && s->size == in->osz, s_imm = s->kind == OPK_IMM;
    if (d->kind == OPK_REG)
        return s_reg ? ALU_REG_REG : s_imm ? ALU_REG_IMM
               : s->kind == OPK_MEM && s->size == in->osz ? ALU_REG_MEM : ALU_GENERIC;
    if (d->kind == OPK_MEM)
        return s_reg ? ALU_MEM_REG : s_imm ? ALU_MEM_IMM : ALU_GENERIC;
    return ALU_GENERIC;
}

/* 1 for the shifts by an immediate, whose VEX form names the destination
 * in vvvv and the shifted register in ModRM (one operand more than SSE's). */
static int shifts_by_immediate(unsigned legacy_id)
{
    switch (legacy_id) {
    case X86_INS_PSLLW: case X86_INS_PSLLD: case X86_INS_PSLLQ: case X86_INS_PSRLW:
    case X86_INS_PSRLD: case X86_INS_PSRLQ: case X86_INS_PSRAW: case X86_INS_PSRAD:
    case X86_INS_PSLLDQ: case X86_INS_PSRLDQ:
        return 1;
    default:
        return 0;
    }
}

/* The vector fields of an SSE or AVX instruction (simd.h): the legacy id
 * a VEX instruction runs as, vector length, first-source operand, imm8,
 * REX.W in aux (cmpPRED: the type there instead). */
static void decode_vector(const cs_insn *ci, const uint8_t *bytes, struct x86_dinsn *out)
{
    const cs_x86 *x = &ci->detail->x86;
    int vex = x->opcode[0] == 0xc4 || x->opcode[0] == 0xc5;
    unsigned regs = 0, has_imm = 0;
    for (int i = 0; i < x->op_count; i++) {
        if (x->operands[i].type == X86_OP_IMM)
            has_imm = 1;
        else
            regs++;
    }
    out->aux = (x->rex & 8) ? 1 : 0;
    if (vex) {
        unsigned vl = 16;
        for (int i = 0; i < x->op_count; i++)
            if (x->operands[i].type == X86_OP_REG && x->operands[i].size == 32)
                vl = 32;
        if (x->opcode[0] == 0xc4 ? (x->opcode[2] & 4) : (x->opcode[1] & 4))
            vl = 32; /* VEX.L: vzeroall, and ymm memory forms */
        out->vl = (uint8_t)vl;
        if (vex_twin[ci->id])
            out->csid = vex_twin[ci->id];
        out->nds = regs >= 3 || (regs == 2 && has_imm && shifts_by_immediate(out->csid));
        if (x86_fma_shape(ci->mnemonic, &out->aux))
            out->cond = X86_VEC_FMA;
    }
    int cmp = !strncmp(ci->mnemonic, vex ? "vcmp" : "cmp", vex ? 4 : 3) &&
              (vex ? x->avx_cc != X86_AVX_CC_INVALID : x->sse_cc != X86_SSE_CC_INVALID);
    if (has_imm || cmp || x->op_count > 3)
        out->imm = bytes[ci->size - 1]; /* imm8, or the is4 register byte */
    if (cmp) {
        /* cmpPREDss/sd/ps/pd: one operation, type from the suffix */
        const char *sfx = ci->mnemonic + strlen(ci->mnemonic) - 2;
        out->csid = X86_SSE_CMP_ID;
        out->aux = !strcmp(sfx, "ss") ? 1 : !strcmp(sfx, "sd") ? 2 : !strcmp(sfx, "ps") ? 3 : 4;
    }
    for (int i = 0; i < out->nops; i++) {
        struct x86_opnd *m = &out->o[i];
        if (m->kind != OPK_MEM)
            continue;
        /* capstone 4 gives (v)comiss's and (v)comisd's scalar as 16 bytes */
        if (out->csid == X86_INS_COMISS || out->csid == X86_INS_COMISD)
            m->size = out->csid == X86_INS_COMISS ? 4 : 8;
        out->align = x86_vec_align_mask(out->csid, out->vl, m->size);
    }
}

unsigned x86_decode(csh h, const uint8_t *bytes, size_t n, uint64_t addr,
                    struct x86_dinsn *out)
{
    if (!tables_ready)
        build_tables(h);
    unsigned gap = x86_decode_gap(h, bytes, n, addr, out, 0);
    if (gap)
        return gap;
    cs_insn *ci = cs_malloc(h);
    const uint8_t *code = bytes;
    size_t size = n;
    uint64_t a = addr;
    if (!ci)
        return 0;
    if (!cs_disasm_iter(h, &code, &size, &a, ci)) {
        cs_free(ci, 1);
        return x86_decode_gap(h, bytes, n, addr, out, 1);
    }
    const cs_x86 *x = &ci->detail->x86;
    memset(out, 0, sizeof *out);
    out->len = (uint8_t)ci->size;
    out->next = addr + ci->size;
    out->csid = (uint16_t)ci->id;
    unsigned id = ci->id;
    int addr32 = x->addr_size == 4;

    if (x->prefix[0] == X86_PREFIX_REP)
        out->rep = 1;
    else if (x->prefix[0] == X86_PREFIX_REPNE)
        out->rep = 2;

    int ok = 1;
    out->nops = x->op_count > 3 ? 3 : x->op_count;
    for (int i = 0; i < out->nops; i++)
        if (convert_operand(&x->operands[i], out->next, addr32, &out->o[i]) < 0)
            ok = 0;
    out->osz = out->nops ? out->o[0].size : 8;

    if (is_x87_opcode(x)) {
        out->op = XOP_X87;
        out->aux = x->opcode[0];
        out->cond = x->modrm;
    } else if (id < X86_INS_ENDING && op_table[id]) {
        out->op = op_table[id];
        out->cond = cond_table[id];
    } else if (id == X86_INS_MOVSD && !has_xmm_operand(x)) {
        out->op = XOP_MOVS;
    } else if (id == X86_INS_CMPSD && !has_xmm_operand(x)) {
        out->op = XOP_CMPS;
    } else if (has_xmm_operand(x) || vector_without_xmm_operand(id)) {
        out->op = XOP_SSE;
        decode_vector(ci, bytes, out);
    } else {
        out->op = XOP_UNIMPL;
    }
    switch (out->op) {
    case XOP_MOVS: case XOP_STOS: case XOP_LODS: case XOP_CMPS: case XOP_SCAS:
        /* element size from the mnemonic's last letter */
        switch (ci->mnemonic[strlen(ci->mnemonic) - 1]) {
        case 'b': out->osz = 1; break;
        case 'w': out->osz = 2; break;
        case 'd': out->osz = 4; break;
        default: out->osz = 8; break;
        }
        break;
    case XOP_IMUL:
        if (out->nops == 1)
            out->op = XOP_IMUL1;
        break;
    case XOP_CBW: out->osz = 2; break;
    case XOP_CWDE: case XOP_CDQ: out->osz = 4; break;
    case XOP_CWD: out->osz = 2; break;
    case XOP_CDQE: case XOP_CQO: out->osz = 8; break;
    default:
        break;
    }
    if (!ok && out->op != XOP_NOP)
        out->op = XOP_UNIMPL;
    if (is_privileged(id, x))
        out->op = XOP_PRIV;
    out->alu_reg = alu_reg_form(out);
    out->run = run_form(out);
    cs_free(ci, 1);
    return out->len;
}

int x86_insn_ends_block(const struct x86_dinsn *in)
{
    switch (in->op) {
    case XOP_JMP: case XOP_JCC: case XOP_JRCXZ: case XOP_LOOP: case XOP_CALL:
    case XOP_RET: case XOP_SYSCALL: case XOP_UD2: case XOP_HLT: case XOP_INT3:
    case XOP_UNIMPL: case XOP_PRIV:
        return 1;
    default:
        return 0;
    }
}

void x86_disasm_line(csh h, const uint8_t *bytes, size_t n, uint64_t addr,
                     char *out, size_t outlen)
{
    cs_insn *ci = NULL;
    size_t k = cs_disasm(h, bytes, n, addr, 1, &ci);
    char hex[64] = "";
    size_t len = k ? ci->size : (n < 15 ? n : 15);
    for (size_t i = 0; i < len && 3 * i + 3 < sizeof hex; i++)
        snprintf(hex + 3 * i, 4, "%02x ", bytes[i]);
    if (k)
        snprintf(out, outlen, "0x%llx: %s %s %s", (unsigned long long)addr, hex,
                 ci->mnemonic, ci->op_str);
    else
        snprintf(out, outlen, "0x%llx: %s(does not decode)", (unsigned long long)addr, hex);
    if (k)
        cs_free(ci, k);
}

const char *x86_op_name(unsigned op)
{
    static const char *const names[] = {
#define X86_OP_NAME(name) #name,
        X86_OPS(X86_OP_NAME)
#undef X86_OP_NAME
    };
    return op < XOP_COUNT ? names[op] : "?";
}
