/* ChampSim's trace record (struct input_instr in ChampSim's
 * inc/trace_instruction.h), 64 bytes, little-endian:
 *    0  ip                         u64
 *    8  is_branch, branch_taken    u8 each
 *   10  destination_registers[2]   u8
 *   12  source_registers[4]        u8
 *   16  destination_memory[2]      u64
 *   32  source_memory[4]           u64
 * 0 means "none" in every register and memory slot. ChampSim tells the
 * kind of a branch from the registers alone: the stack pointer (6), the
 * flags (25) and the instruction pointer (26), read or written. */
#ifndef CGM_TRACETOOL_CHAMPSIM_H
#define CGM_TRACETOOL_CHAMPSIM_H

#include <stdint.h>

#include "cgm/x86cursor.h"

#define CHAMPSIM_RECORD_BYTES 64
#define CHAMPSIM_REG_SP    6
#define CHAMPSIM_REG_FLAGS 25
#define CHAMPSIM_REG_IP    26

/* What did not fit ChampSim's record, counted over an export. */
struct champsim_counts {
    uint64_t records, branches, taken;
    uint64_t reads_dropped, writes_dropped;   /* accesses past the 4 reads, 2 writes */
    uint64_t regs_dropped;                    /* registers past the 4 sources, 2 destinations */
};

/* Encodes instruction X into OUT. NEXT_IP is the address of the
 * instruction that ran after it (0 when none: a conditional branch at the
 * end of the stream counts as not taken). */
void champsim_encode(uint8_t out[CHAMPSIM_RECORD_BYTES], const struct cgm_x86_insn *x,
                     uint64_t next_ip, struct champsim_counts *n);

#endif
