/* Which vector instructions demand an aligned memory operand (Intel SDM
 * vol. 2, 2.4 "Memory alignment" and the exception classes of 2.5; AMD
 * APM vol. 4 likewise). Legacy SSE: every 16-byte memory operand must be
 * 16-byte aligned, except those of the unaligned moves and the string
 * compares; 4- and 8-byte operands may lie anywhere. VEX: only the
 * aligned and non-temporal moves check, by their vector length. fxsave
 * and fxrstor want 16 bytes, the xsave family 64. The decoder stores the
 * answer in the instruction (x86_dinsn.align) and the units check it
 * before the access (x86_vec_check_align). */
#include <capstone/capstone.h>

#include "tracegen/x86/simd.h"

/* Legacy SSE instructions whose 16-byte operand may be misaligned. */
static int legacy_unaligned(unsigned id)
{
    switch (id) {
    case X86_INS_MOVUPS: case X86_INS_MOVUPD: case X86_INS_MOVDQU: case X86_INS_LDDQU:
    case X86_INS_PCMPESTRI: case X86_INS_PCMPESTRM: case X86_INS_PCMPISTRI:
    case X86_INS_PCMPISTRM:
        return 1;
    default:
        return 0;
    }
}

/* The moves that check alignment in their VEX form too. */
static int aligned_move(unsigned id)
{
    switch (id) {
    case X86_INS_MOVAPS: case X86_INS_MOVAPD: case X86_INS_MOVDQA: case X86_INS_MOVNTPS:
    case X86_INS_MOVNTPD: case X86_INS_MOVNTDQ: case X86_INS_MOVNTDQA:
        return 1;
    default:
        return 0;
    }
}

uint8_t x86_vec_align_mask(unsigned id, unsigned vl, unsigned mem_size)
{
    switch (id) {
    case X86_INS_FXSAVE: case X86_INS_FXSAVE64: case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
        return 15;
    case X86_INS_XSAVE: case X86_INS_XSAVE64: case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64:
    case X86_INS_XRSTOR: case X86_INS_XRSTOR64:
        return 63;
    default:
        break;
    }
    if (vl)
        return aligned_move(id) ? (uint8_t)(vl - 1) : 0;
    return mem_size == 16 && !legacy_unaligned(id) ? 15 : 0;
}
