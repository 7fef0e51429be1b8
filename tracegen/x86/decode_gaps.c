/* Encodings capstone 4 does not decode, or decodes as another instruction,
 * recognised from the bytes before it is asked:
 *   - the hint-NOP space 0F 18-1F (NOP r/m on every processor since the
 *     P6; capstone refuses some forms, among them RDSSPD/RDSSPQ, F3 0F 1E /1,
 *     which libgcc's unwinder runs: without shadow stacks it leaves its
 *     register unchanged);
 *   - the other shadow-stack instructions of a processor without CET
 *     enabled, as no-ops: F3 0F 01 /5 (RSTORSSP, SETSSBSY, SAVEPREVSSP) and
 *     F3 0F AE /6 with memory (CLRSSBSY, which capstone calls XSAVEOPT);
 *     software reaches them only after RDSSP reported a shadow stack;
 *   - VEX.256 0F38 5A (VBROADCASTI128): decoded as VBROADCASTF128, whose
 *     encoding differs only in the opcode byte and which does the same. */
#include "tracegen/x86/decode.h"

#include <capstone/capstone.h>

#include "tracegen/x86/ops.h"

/* The offset of the opcode after legacy prefixes and REX, and in *REP
 * whether an F3 prefix was among them. */
static size_t skip_prefixes(const uint8_t *b, size_t n, int *rep)
{
    size_t i = 0;
    *rep = 0;
    while (i < n && i < 14) {
        switch (b[i]) {
        case 0xf3: *rep = 1; /* fall through */
        case 0x66: case 0x67: case 0xf2: case 0xf0: case 0x2e: case 0x36: case 0x3e:
        case 0x26: case 0x64: case 0x65:
            i++;
            continue;
        default:
            break;
        }
        break;
    }
    if (i < n && (b[i] & 0xf0) == 0x40)
        i++; /* REX */
    return i;
}

/* Bytes of a ModRM operand (ModRM, SIB, displacement) at B, or 0 when they
 * run past N. */
static size_t modrm_length(const uint8_t *b, size_t n)
{
    if (n < 1)
        return 0;
    unsigned mod = b[0] >> 6, rm = b[0] & 7;
    size_t len = 1;
    if (mod == 3)
        return 1;
    if (rm == 4) {
        if (n < 2)
            return 0;
        len++;
        if (mod == 0 && (b[1] & 7) == 5)
            len += 4;
    } else if (mod == 0 && rm == 5) {
        len += 4; /* RIP-relative */
    }
    len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
    return len <= n ? len : 0;
}

static unsigned nop(struct x86_dinsn *out, uint64_t addr, size_t len)
{
    memset(out, 0, sizeof *out);
    out->op = XOP_NOP;
    out->run = XOP_NOP;
    out->len = (uint8_t)len;
    out->next = addr + len;
    return (unsigned)len;
}

unsigned x86_decode_gap(csh h, const uint8_t *bytes, size_t n, uint64_t addr,
                        struct x86_dinsn *out, int capstone_failed)
{
    int rep;
    size_t i = skip_prefixes(bytes, n, &rep);
    if (i + 2 < n && bytes[i] == 0x0f) {
        uint8_t op = bytes[i + 1], modrm = bytes[i + 2];
        size_t ml = modrm_length(bytes + i + 2, n - i - 2);
        if (ml && capstone_failed && op >= 0x18 && op <= 0x1f)
            return nop(out, addr, i + 2 + ml);
        if (ml && rep && op == 0x01 && ((modrm >> 3) & 7) == 5)
            return nop(out, addr, i + 2 + ml);
        if (ml && rep && op == 0xae && ((modrm >> 3) & 7) == 6 && (modrm >> 6) != 3)
            return nop(out, addr, i + 2 + ml);
    }
    uint8_t patched[15];
    size_t k;
    if (capstone_failed && (k = x86_gap_twin(bytes, n, patched)))
        return x86_decode(h, patched, k, addr, out);
    return 0;
}

size_t x86_gap_twin(const uint8_t *bytes, size_t n, uint8_t patched[15])
{
    if (n < 5 || bytes[0] != 0xc4 || (bytes[1] & 0x1f) != 2 || (bytes[2] & 0x87) != 0x05 ||
        bytes[3] != 0x5a || (bytes[4] >> 6) == 3)
        return 0;
    size_t k = n < 15 ? n : 15;
    memcpy(patched, bytes, k);
    patched[3] = 0x1a; /* VBROADCASTI128 -> VBROADCASTF128 */
    return k;
}
