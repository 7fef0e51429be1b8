/* The operations of the pre-decoded instruction form. One capstone
 * instruction id maps to one operation; condition codes, sizes and
 * sub-operations live in the instruction's fields. The trace records an
 * instruction's operation by its number here: new ones go at the end. */
#ifndef TRACEGEN_X86_OPS_H
#define TRACEGEN_X86_OPS_H

#define X86_OPS(X) \
    X(UNIMPL) X(NOP) X(MOV) X(MOVZX) X(MOVSX) X(LEA) X(PUSH) X(POP) \
    X(XCHG) X(CMPXCHG) X(CMPXCHG16B) X(XADD) X(BSWAP) \
    X(ADD) X(OR) X(ADC) X(SBB) X(AND) X(SUB) X(XOR) X(CMP) X(TEST) \
    X(INC) X(DEC) X(NEG) X(NOT) \
    X(SHL) X(SHR) X(SAR) X(ROL) X(ROR) X(RCL) X(RCR) X(SHLD) X(SHRD) \
    X(MUL) X(IMUL1) X(IMUL) X(DIV) X(IDIV) \
    X(CBW) X(CWDE) X(CDQE) X(CWD) X(CDQ) X(CQO) \
    X(JMP) X(JCC) X(JRCXZ) X(LOOP) X(CALL) X(RET) X(LEAVE) \
    X(CMOV) X(SETCC) \
    X(BT) X(BTS) X(BTR) X(BTC) X(BSF) X(BSR) X(POPCNT) \
    X(CLD) X(STD) X(CLC) X(STC) X(CMC) X(LAHF) X(SAHF) X(PUSHF) X(POPF) \
    X(MOVS) X(STOS) X(LODS) X(CMPS) X(SCAS) \
    X(SYSCALL) X(CPUID) X(RDTSC) X(UD2) X(HLT) X(INT3) X(FENCE) \
    X(SSE) X(X87) \
    X(CRC32) X(MOVBE) X(ANDN) X(BEXTR) X(BLSI) X(BLSMSK) X(BLSR) \
    X(BZHI) X(PDEP) X(PEXT) X(RORX) X(SARX) X(SHLX) X(SHRX) X(MULX) X(XGETBV) \
    X(PRIV)

enum x86_op {
#define X86_OP_ENUM(name) XOP_##name,
    X86_OPS(X86_OP_ENUM)
#undef X86_OP_ENUM
    XOP_COUNT
};

/* What the interpreter dispatches on (x86_dinsn.run): the operation, or
 * one of these specialised forms the decoder picks for frequent operand
 * shapes, so the dispatch itself tells the shape apart instead of branches
 * that mispredict when shapes change from one instruction to the next.
 * The operation (x86_dinsn.op) stays what the trace records. */
enum x86_run_form {
    RUN_MOV_RR = XOP_COUNT, /* MOV 32/64-bit register <- register of that size */
    RUN_MOV_RI,             /* MOV 32/64-bit register <- immediate */
    RUN_MOV_RM8,            /* MOV 64-bit register <- memory */
    RUN_MOV_MR8,            /* MOV memory <- 64-bit register */
    RUN_MOV_RM4,            /* MOV 32-bit register <- memory */
    RUN_MOV_MR4,            /* MOV memory <- 32-bit register */
    RUN_MOVZX_RM8,          /* MOVZX 32/64-bit register <- byte of memory */
    RUN_MOVZX_RM16,         /* MOVZX 32/64-bit register <- word of memory */
    RUN_MOVZX_RR8,          /* MOVZX 32/64-bit register <- low byte register */
    RUN_MOVZX_RR16,         /* MOVZX 32/64-bit register <- 16-bit register */
    RUN_MOVSXD_RM,          /* MOVSX(D) 64-bit register <- 32-bit memory */
    RUN_MOVSXD_RR,          /* MOVSX(D) 64-bit register <- 32-bit register */
    RUN_MOVSD_RR, RUN_MOVSS_RR,       /* scalar SSE moves (sse.c x86_sse_run_form) */
    RUN_MOVSD_LOAD, RUN_MOVSS_LOAD,
    RUN_MOVSD_STORE, RUN_MOVSS_STORE,
    RUN_MOVX_RR, RUN_MOVX_LOAD, RUN_MOVX_STORE, /* 16-byte SSE moves */
    RUN_ADDSD, RUN_SUBSD, RUN_MULSD,  /* scalar SSE arithmetic, XMM destination */
    RUN_ADDSS, RUN_SUBSS, RUN_MULSS,
    RUN_SSE_VEC,                      /* other legacy SSE with an XMM result (sse.c) */
    RUN_SSE_LANE_RR, RUN_SSE_LANE,    /* legacy SSE one-lane operation (simd_lane.h),
                                         x86_dinsn.cond says which; XMM source, other */
    RUN_SSE_COMIS,                    /* (u)comiss/sd with an XMM or memory source */
    RUN_SSE_CVT2SI,                   /* cvt(t)ss/sd2si from an XMM or memory source */
    RUN_VEX_LANE_RR, RUN_VEX_LANE,    /* VEX lane operation (simd_lane.h) in every lane,
                                         x86_dinsn.cond says which; XMM source, other */
    RUN_VEX_STORE,                    /* VEX move of an XMM/YMM register's low end to memory */
    RUN_VEX_FMA_SCALAR, RUN_VEX_FMA,  /* FMA3 (avx.c): scalar, packed */
    RUN_TZCNT, RUN_LZCNT,             /* F3 0F BC/BD: recorded as BSF/BSR (bitops.c) */
    RUN_JCC_FIRST,                    /* JCC with condition code c: RUN_JCC_FIRST + c */
    RUN_JCC_LAST = RUN_JCC_FIRST + 15,
    RUN_COUNT
};

/* Operand shapes of ADD SUB CMP AND OR XOR TEST (x86_dinsn.alu_reg) that
 * the interpreter runs inline; 32 or 64 bits, every operand that size. */
enum alu_form {
    ALU_GENERIC,   /* anything else: exec_alu */
    ALU_REG_REG, ALU_REG_IMM, ALU_REG_MEM, ALU_MEM_REG, ALU_MEM_IMM,
};

const char *x86_op_name(unsigned op);

#endif
