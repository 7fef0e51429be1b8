/* Southern Islands (GCN1, gfx600) instruction set: decoder and disassembler.
 *
 * si_decode() turns the bytes of one instruction into a struct si_inst whose
 * fields are the encoding's fields, named once here so that the disassembler,
 * the emulator and the recorder never pick bits themselves.  si_disasm()
 * prints the instruction in LLVM's AMDGPU assembler syntax (as printed by
 * `llvm-mc -arch=amdgcn -mcpu=tahiti -show-encoding`).
 */
#ifndef CGM_SI_ISA_H
#define CGM_SI_ISA_H

#include <stddef.h>
#include <stdint.h>

enum si_format {
    SI_FMT_INVALID = 0,
    SI_FMT_SOP2, SI_FMT_SOPK, SI_FMT_SOP1, SI_FMT_SOPC, SI_FMT_SOPP, SI_FMT_SMRD,
    SI_FMT_VOP2, SI_FMT_VOP1, SI_FMT_VOPC, SI_FMT_VOP3,
    SI_FMT_VINTRP, SI_FMT_DS, SI_FMT_MUBUF, SI_FMT_MTBUF, SI_FMT_MIMG, SI_FMT_EXP,
    SI_FMT_COUNT
};

/* Operand codes of the 9-bit source fields (SSRC/SRC0/SRC1/SRC2). */
enum {
    SI_OP_SGPR_LAST  = 103,
    SI_OP_VCC_LO     = 106, SI_OP_VCC_HI = 107,
    SI_OP_TBA_LO     = 108, SI_OP_TBA_HI = 109,
    SI_OP_TMA_LO     = 110, SI_OP_TMA_HI = 111,
    SI_OP_TTMP0      = 112, SI_OP_TTMP11 = 123,
    SI_OP_M0         = 124,
    SI_OP_EXEC_LO    = 126, SI_OP_EXEC_HI = 127,
    SI_OP_ZERO       = 128,            /* 129..192 are 1..64 */
    SI_OP_INT_POS_LAST = 192,
    SI_OP_INT_NEG_FIRST = 193,         /* 193..208 are -1..-16 */
    SI_OP_INT_NEG_LAST = 208,
    SI_OP_HALF       = 240, SI_OP_NEG_HALF = 241,
    SI_OP_ONE        = 242, SI_OP_NEG_ONE = 243,
    SI_OP_TWO        = 244, SI_OP_NEG_TWO = 245,
    SI_OP_FOUR       = 246, SI_OP_NEG_FOUR = 247,
    SI_OP_VCCZ       = 251, SI_OP_EXECZ = 252, SI_OP_SCC = 253,
    SI_OP_LDS_DIRECT = 254,
    SI_OP_LITERAL    = 255,
    SI_OP_VGPR0      = 256             /* 256..511 are v0..v255 */
};

/* VOP3 opcode space: VOPC opcodes as is, VOP2 at +256, VOP1 at +384. */
enum { SI_VOP3_FROM_VOP2 = 256, SI_VOP3_FROM_VOP1 = 384, SI_VOP3_ONLY_FIRST = 320 };

/* One decoded instruction.  Fields not used by a format are zero. */
struct si_inst {
    uint8_t  fmt;          /* enum si_format */
    uint8_t  size;         /* bytes, literal included: 4, 8 or 12 */
    uint16_t op;           /* opcode within the format (VOP3: 9 bits) */
    uint32_t literal;      /* the 32-bit constant after the words, if any */
    uint8_t  has_literal;

    /* ALU operands: operand codes as in the enum above. */
    uint16_t dst;          /* SDST/VDST (VGPR destinations as 256+n) */
    uint16_t src[3];       /* SSRC0/SSRC1, SRC0/VSRC1/SRC2 */
    uint8_t  sdst;         /* VOP3b scalar destination (carry out) */
    uint8_t  abs, neg;     /* VOP3a per-source bit masks */
    uint8_t  clamp, omod;  /* VOP3a */
    int32_t  simm16;       /* SOPK/SOPP immediate, sign-extended */

    /* SMRD */
    uint8_t  smrd_imm;     /* offset is an immediate (dwords) or an SGPR */
    uint8_t  smrd_offset;
    uint8_t  sbase;        /* SGPR number (even) */

    /* Memory: DS, MUBUF, MTBUF, MIMG, EXP, VINTRP */
    uint16_t offset;       /* MUBUF/MTBUF 12-bit; DS offset1:offset0 */
    uint8_t  offset0, offset1;
    uint8_t  gds;
    uint8_t  vaddr, vdata, data0, data1, vdst;
    uint8_t  srsrc, ssamp; /* SGPR numbers (multiple of 4) */
    uint16_t soffset;      /* operand code */
    uint8_t  offen, idxen, addr64, glc, slc, lds, tfe;
    uint8_t  dfmt, nfmt;
    uint8_t  dmask, unorm, da, r128, lwe;
    uint8_t  exp_en, exp_tgt, exp_compr, exp_done, exp_vm;
    uint8_t  vsrc[4];
    uint8_t  attr, attrchan;

    /* Register widths in dwords of dst and src[0..2] (see si_inst_widths). */
    uint8_t  width[4];
};

/* Register widths (in dwords) of an instruction's operands. */
struct si_widths {
    uint8_t dst, src[3];
};

/* Decodes one instruction from bytes[0..avail).  Returns its size in bytes,
 * or 0 when the bytes are not a valid Southern Islands instruction (unknown
 * format or opcode, or the instruction runs past avail). */
size_t si_decode(const uint8_t *bytes, size_t avail, struct si_inst *out);

/* The mnemonic of fmt/op without encoding suffix, or NULL if there is none. */
const char *si_opcode_name(enum si_format fmt, unsigned op);

/* Operand widths of a decoded instruction (for VOP3, of its base opcode). */
struct si_widths si_inst_widths(const struct si_inst *inst);

/* Writes LLVM's text for the instruction (no leading tab, no newline).
 * Returns the length it needed, like snprintf. */
int si_disasm(const struct si_inst *inst, char *buf, size_t size);

#endif
