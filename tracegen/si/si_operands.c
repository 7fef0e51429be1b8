/* Operand access shared by the emulator's instruction files: scalar sources
 * (registers, inline constants, the literal), scalar destinations, memory
 * mapping, and the fault message. */
#include "tracegen/si/si_wave.h"

#include <stdarg.h>
#include <stdio.h>

/* Inline float constants 240..247 as f32 and f64 bit patterns. */
static const uint32_t fconst32[8] = { 0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000,
                                      0x40000000, 0xc0000000, 0x40800000, 0xc0800000 };
static const uint64_t fconst64[8] = { 0x3fe0000000000000ull, 0xbfe0000000000000ull,
                                      0x3ff0000000000000ull, 0xbff0000000000000ull,
                                      0x4000000000000000ull, 0xc000000000000000ull,
                                      0x4010000000000000ull, 0xc010000000000000ull };

uint32_t si_read_scalar(const struct si_ctx *c, const struct si_wave *w,
                        const struct cgm_si_inst *in, unsigned code)
{
    (void)c;
    if (code < SI_SREGS)
        return w->s[code];
    if (code <= CGM_SI_OP_INT_POS_LAST)
        return code - CGM_SI_OP_ZERO;
    if (code <= CGM_SI_OP_INT_NEG_LAST)
        return (uint32_t)(CGM_SI_OP_INT_POS_LAST - (int)code);
    if (code >= CGM_SI_OP_HALF && code <= CGM_SI_OP_NEG_FOUR)
        return fconst32[code - CGM_SI_OP_HALF];
    switch (code) {
    case CGM_SI_OP_VCCZ:    return si_vcc(w) == 0;
    case CGM_SI_OP_EXECZ:   return si_exec(w) == 0;
    case CGM_SI_OP_SCC:     return (uint32_t)w->scc;
    case CGM_SI_OP_LITERAL: return in->literal;
    default:            return 0;
    }
}

/* 64-bit sources: register pairs; integer constants sign-extend; float
 * constants are doubles for f64 operations; a literal is the high half of a
 * double for f64 operations and zero-extended otherwise. */
uint64_t si_read_scalar64(const struct si_ctx *c, const struct si_wave *w,
                          const struct cgm_si_inst *in, unsigned code, int is_f64)
{
    if (code < SI_SREGS)
        return (uint64_t)w->s[code] | (uint64_t)w->s[(code + 1) & (SI_SREGS - 1)] << 32;
    if (code >= CGM_SI_OP_HALF && code <= CGM_SI_OP_NEG_FOUR)
        return is_f64 ? fconst64[code - CGM_SI_OP_HALF] : fconst32[code - CGM_SI_OP_HALF];
    if (code == CGM_SI_OP_LITERAL)
        return is_f64 ? (uint64_t)in->literal << 32 : in->literal;
    if (code >= CGM_SI_OP_ZERO && code <= CGM_SI_OP_INT_NEG_LAST)
        return (uint64_t)(int64_t)(int32_t)si_read_scalar(c, w, in, code);
    return si_read_scalar(c, w, in, code);
}

int si_write_scalar(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in,
                    unsigned code, uint32_t value)
{
    if (code <= CGM_SI_OP_SGPR_LAST || (code >= CGM_SI_OP_VCC_LO && code <= CGM_SI_OP_EXEC_HI &&
                                    code != 125)) {
        w->s[code] = value;
        return 0;
    }
    return si_fault(c, w, in, -1, "destination operand %u is not writable", code);
}

int si_fault(struct si_ctx *c, const struct si_wave *w, const struct cgm_si_inst *in, int lane,
             const char *fmt, ...)
{
    char why[256], text[128] = "?";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (in)
        cgm_si_disasm(in, text, sizeof text);
    char where[64] = "";
    if (lane >= 0 && w) {
        /* The work-item's local id from its lane and wave. */
        const uint32_t *g = c->l->group;
        unsigned item = w->index * SI_LANES + (unsigned)lane;
        snprintf(where, sizeof where, ", work-item (%u,%u,%u)", item % g[0],
                 (item / g[0]) % g[1], item / (g[0] * g[1]));
    }
    if (c->errlen)
        snprintf(c->err, c->errlen,
                 "kernel %s, work-group (%u,%u,%u), wave %u%s, pc 0x%llx: %s: %s",
                 c->l->kernel->name, c->group_id[0], c->group_id[1], c->group_id[2],
                 w ? w->index : 0, where, (unsigned long long)(w ? w->pc : 0), text, why);
    return -1;
}

uint8_t *si_map(struct si_ctx *c, const struct si_wave *w, const struct cgm_si_inst *in, int lane,
                uint64_t addr, size_t len, int write)
{
    uint8_t *p = c->mem->map(c->mem->ctx, addr, len, write);
    if (!p)
        si_fault(c, w, in, lane, "%s of %zu bytes at unmapped address 0x%llx",
                 write ? "write" : "read", len, (unsigned long long)addr);
    return p;
}
