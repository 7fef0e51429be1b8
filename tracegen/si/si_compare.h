/* Internal to the Southern Islands emulator: what a vector compare
 * compares.  The ISA lays the VOPC opcode field out as fields (SI ISA 12.8,
 * the VOPC opcode table): bits 3..0 the condition, bit 4 the X forms that
 * also write EXEC, bits 7..5 the operand type, where bit 3 of the integer
 * groups 4 and 5 marks v_cmp_class instead.  si_compare_of reads those
 * fields once; the executor dispatches on the names. */
#ifndef CGM_TRACEGEN_SI_COMPARE_H
#define CGM_TRACEGEN_SI_COMPARE_H

/* The conditions in opcode order.  Floats use all sixteen (the N forms are
 * true when the operands are unordered); integers use the first seven and
 * TRU, with LG meaning "not equal" (LLVM spells it ne) and TRU as t. */
enum si_cmp_cond {
    SI_CMP_F, SI_CMP_LT, SI_CMP_EQ, SI_CMP_LE, SI_CMP_GT, SI_CMP_LG, SI_CMP_GE,
    SI_CMP_O, SI_CMP_U, SI_CMP_NGE, SI_CMP_NLG, SI_CMP_NGT, SI_CMP_NLE,
    SI_CMP_NEQ, SI_CMP_NLT, SI_CMP_TRU
};

/* The operand types, the signaling v_cmps forms folded into the quiet ones
 * (no exceptions are modelled, so they compute the same bits). */
enum si_cmp_type {
    SI_CMP_TYPE_F32, SI_CMP_TYPE_F64, SI_CMP_TYPE_I32, SI_CMP_TYPE_I64,
    SI_CMP_TYPE_U32, SI_CMP_TYPE_U64, SI_CMP_TYPE_CLASS_F32, SI_CMP_TYPE_CLASS_F64
};

struct si_compare {
    enum si_cmp_type type;
    enum si_cmp_cond cond;     /* SI_CMP_F for the class tests (unused) */
    int writes_exec;           /* v_cmpx, v_cmpsx, v_cmpx_class */
};

/* CODE is a VOPC opcode field (0..255). */
struct si_compare si_compare_of(unsigned code);

/* The condition on two floats, NaN making every ordered relation false. */
int si_compare_float(enum si_cmp_cond cond, double a, double b);

/* The condition on two integers that compared LT (a < b) and EQ (a == b). */
int si_compare_int(enum si_cmp_cond cond, int lt, int eq);

#endif
