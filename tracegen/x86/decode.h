/* Capstone instruction -> pre-decoded form (cpu.h). */
#ifndef TRACEGEN_X86_DECODE_H
#define TRACEGEN_X86_DECODE_H

#include <capstone/capstone.h>
#include <stddef.h>

#include "tracegen/x86/cpu.h"

/* csid of cmpPREDss/sd/ps/pd (aux: 1 ss, 2 sd, 3 ps, 4 pd; cond: predicate 0..7). */
#define X86_SSE_CMP_ID 0xffff

/* Opens capstone for x86-64 with operand detail. Returns 0 or -1. */
int x86_decoder_open(csh *h);

/* Decodes the instruction at BYTES[0..N) located at ADDR. Returns the
 * instruction length, or 0 when the bytes do not decode. */
unsigned x86_decode(csh h, const uint8_t *bytes, size_t n, uint64_t addr,
                    struct x86_dinsn *out);

/* The encodings capstone 4 lacks or misreads (decode_gaps.c): fills OUT
 * and returns the length, or returns 0 to leave the bytes to capstone.
 * CAPSTONE_FAILED: capstone has refused them already. */
unsigned x86_decode_gap(csh h, const uint8_t *bytes, size_t n, uint64_t addr,
                        struct x86_dinsn *out, int capstone_failed);

/* For an encoding capstone refuses but decodes under another opcode that
 * does the same (decode_gaps.c): that encoding in PATCHED and its length,
 * else 0. */
size_t x86_gap_twin(const uint8_t *bytes, size_t n, uint8_t patched[15]);

/* For the message of an unimplemented instruction (isa_ext.c): in OUT,
 * " (EXTENSION, ...)" saying whether it lies beyond x86-64-v3, or "" when
 * capstone names no extension. */
void x86_unimplemented_note(csh h, const uint8_t *bytes, size_t n, char *out, size_t outlen);

/* The legacy SSE instruction a VEX one runs as (vaddps: addps), or ID
 * itself; known once the first instruction has been decoded. */
unsigned x86_legacy_id(unsigned id);

/* Capstone register -> GPR number (| REG_HIGH8 for ah..bh), or -1. */
int x86_capstone_gpr(x86_reg r);

/* 1 when the instruction ends a basic block. */
int x86_insn_ends_block(const struct x86_dinsn *in);

/* Formats "ADDR: BYTES  MNEMONIC OPERANDS" for error messages. */
void x86_disasm_line(csh h, const uint8_t *bytes, size_t n, uint64_t addr,
                     char *out, size_t outlen);

#endif
