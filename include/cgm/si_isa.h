/* Southern Islands (GCN1, gfx600) instruction set: decoder, disassembler and
 * opcode table (formats/si_*.c), read by tracegen's emulator and by tracetool.
 *
 * cgm/si_opcodes.def lists every opcode once: mnemonic, encoding, operand
 * widths, memory access.  Here it becomes enum cgm_si_opcode, which the
 * decoder sets and the emulator switches on, and the table cgm_si_opcodes.
 * cgm_si_decode() turns the bytes of one instruction into a struct
 * cgm_si_inst whose fields are the encoding's fields, named once here so that
 * the disassembler, the emulator and the recorder never pick bits themselves.
 * cgm_si_disasm() prints the instruction in LLVM's AMDGPU assembler syntax (as
 * printed by `llvm-mc -arch=amdgcn -mcpu=tahiti -show-encoding`).
 */
#ifndef CGM_SI_ISA_H
#define CGM_SI_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/sirec.h"

enum cgm_si_format {
    CGM_SI_FMT_INVALID = 0,
    CGM_SI_FMT_SOP2, CGM_SI_FMT_SOPK, CGM_SI_FMT_SOP1, CGM_SI_FMT_SOPC, CGM_SI_FMT_SOPP,
    CGM_SI_FMT_SMRD,
    CGM_SI_FMT_VOP2, CGM_SI_FMT_VOP1, CGM_SI_FMT_VOPC, CGM_SI_FMT_VOP3,
    CGM_SI_FMT_VINTRP, CGM_SI_FMT_DS, CGM_SI_FMT_MUBUF, CGM_SI_FMT_MTBUF, CGM_SI_FMT_MIMG,
    CGM_SI_FMT_EXP,
    CGM_SI_FMT_COUNT
};

/* Operand codes of the 9-bit source fields (SSRC/SRC0/SRC1/SRC2). */
enum {
    CGM_SI_OP_SGPR_LAST  = 103,
    CGM_SI_OP_VCC_LO     = 106, CGM_SI_OP_VCC_HI = 107,
    CGM_SI_OP_TBA_LO     = 108, CGM_SI_OP_TBA_HI = 109,
    CGM_SI_OP_TMA_LO     = 110, CGM_SI_OP_TMA_HI = 111,
    CGM_SI_OP_TTMP0      = 112, CGM_SI_OP_TTMP11 = 123,
    CGM_SI_OP_M0         = 124,
    CGM_SI_OP_EXEC_LO    = 126, CGM_SI_OP_EXEC_HI = 127,
    CGM_SI_OP_ZERO       = 128,            /* 129..192 are 1..64 */
    CGM_SI_OP_INT_POS_LAST = 192,
    CGM_SI_OP_INT_NEG_FIRST = 193,         /* 193..208 are -1..-16 */
    CGM_SI_OP_INT_NEG_LAST = 208,
    CGM_SI_OP_HALF       = 240, CGM_SI_OP_NEG_HALF = 241,
    CGM_SI_OP_ONE        = 242, CGM_SI_OP_NEG_ONE = 243,
    CGM_SI_OP_TWO        = 244, CGM_SI_OP_NEG_TWO = 245,
    CGM_SI_OP_FOUR       = 246, CGM_SI_OP_NEG_FOUR = 247,
    CGM_SI_OP_VCCZ       = 251, CGM_SI_OP_EXECZ = 252, CGM_SI_OP_SCC = 253,
    CGM_SI_OP_LDS_DIRECT = 254,
    CGM_SI_OP_LITERAL    = 255,
    CGM_SI_OP_VGPR0      = 256             /* 256..511 are v0..v255 */
};

/* VOP3 opcode space: VOPC opcodes as is, VOP2 at +256, VOP1 at +384. */
enum { CGM_SI_VOP3_FROM_VOP2 = 256, CGM_SI_VOP3_FROM_VOP1 = 384, CGM_SI_VOP3_ONLY_FIRST = 320 };

/* Every instruction, named CGM_SI_<mnemonic> (CGM_SI_v_add_f32): one value
 * whichever encoding carries it (v_add_f32 is VOP2 opcode 3 and VOP3 259). */
enum cgm_si_opcode {
    CGM_SI_OPCODE_INVALID = 0,
#define CGM_SI_OPCODE(name, ...) CGM_SI_##name,
#include "cgm/si_opcodes.def"
#undef CGM_SI_OPCODE
    CGM_SI_OPCODE_COUNT
};

/* Register widths (in dwords) of an instruction's operands; 0: none. */
struct cgm_si_widths {
    uint8_t dst, src[3];
};

/* One row of cgm/si_opcodes.def. */
struct cgm_si_opcode_info {
    const char *name;              /* LLVM's mnemonic; NULL for CGM_SI_OPCODE_INVALID */
    uint8_t fmt;                   /* enum cgm_si_format of the row (VOP3 twins not listed) */
    uint16_t code;                 /* the opcode field in that format */
    struct cgm_si_widths widths;
    uint8_t access;                /* enum cgm_si_access (cgm/sirec.h) */
    uint8_t bytes;                 /* per lane of one access (SMRD: per wavefront) */
    uint8_t branch;                /* 1: may change the program counter (s_branch, s_cbranch_*, s_setpc_b64, ...) */
};

extern const struct cgm_si_opcode_info cgm_si_opcodes[CGM_SI_OPCODE_COUNT];

/* The opcode that FMT encodes as CODE (VOP3: its 9-bit opcode space), or
 * CGM_SI_OPCODE_INVALID. */
enum cgm_si_opcode cgm_si_opcode_of(enum cgm_si_format fmt, unsigned code);

/* VOP3b: the VOP3 form writes a scalar carry or flag mask to SDST (the adds
 * with carry, v_div_scale) instead of having ABS and CLAMP fields. */
int cgm_si_is_vop3b(enum cgm_si_opcode op);

/* DS instructions with two addresses (read2, write2, wrxchg2) count OFFSET0
 * and OFFSET1 in elements, or in 64 elements (the st64 forms): returns that
 * stride, or 0 for the instructions with one address. */
unsigned cgm_si_ds_pair_stride(enum cgm_si_opcode op);

/* One decoded instruction.  Fields not used by a format are zero. */
struct cgm_si_inst {
    uint8_t  fmt;          /* enum cgm_si_format */
    uint8_t  size;         /* bytes, literal included: 4, 8 or 12 */
    uint16_t opcode;       /* enum cgm_si_opcode */
    uint16_t code;         /* the opcode field as encoded (VOP3: 9 bits) */
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
};

/* The opcode-table row of a decoded instruction. */
static inline const struct cgm_si_opcode_info *cgm_si_info(const struct cgm_si_inst *in)
{
    return &cgm_si_opcodes[in->opcode];
}

/* Decodes one instruction from bytes[0..avail).  Returns its size in bytes,
 * or 0 when the bytes are not a valid Southern Islands instruction (unknown
 * format or opcode, or the instruction runs past avail). */
size_t cgm_si_decode(const uint8_t *bytes, size_t avail, struct cgm_si_inst *out);

/* Writes LLVM's text for the instruction (no leading tab, no newline).
 * Returns the length it needed, like snprintf. */
int cgm_si_disasm(const struct cgm_si_inst *inst, char *buf, size_t size);

#endif
