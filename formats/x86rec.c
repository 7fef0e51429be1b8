/* x86 record codec: see cgm/x86rec.h. */
#include "cgm/x86rec.h"

#include <string.h>

#include "cgm/codec.h"

const char *cgm_x86_class_name(unsigned cls)
{
    static const char *const names[CGM_X86_CLASS_COUNT] = {
        "int", "mul", "div", "fp", "simd", "branch", "jump", "jump-indirect", "call",
        "call-indirect", "ret", "syscall", "fence", "atomic", "string", "nop", "other",
        "gather",
    };
    return cls < CGM_X86_CLASS_COUNT ? names[cls] : "?";
}

const char *cgm_x86_reg_name(unsigned reg)
{
    static const char *const gpr[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                         "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
    static const char *const xmm[16] = { "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                                         "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
                                         "xmm13", "xmm14", "xmm15" };
    static const char *const st[8] = { "st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7" };
    static const char *const other[6] = { "flags", "fpu", "mxcsr", "fs", "gs", "rip" };
    if (reg < 16)
        return gpr[reg];
    if (reg < 32)
        return xmm[reg - 16];
    if (reg < 40)
        return st[reg - 32];
    if (reg < CGM_X86_REG_COUNT)
        return other[reg - 40];
    return "?";
}

size_t cgm_x86_static_encode(uint8_t *out, uint64_t *prev, const struct cgm_x86_static *s)
{
    size_t n = cgm_put_delta(out, prev, s->addr);
    out[n++] = s->len;
    out[n++] = s->cls;
    n += cgm_put_varint(out + n, s->op);
    out[n++] = s->nmem;
    memcpy(out + n, s->bytes, s->len);
    n += s->len;
    out[n++] = s->uops;
    out[n++] = s->loads;
    out[n++] = s->stores;
    n += cgm_put_varint(out + n, s->mem_size);
    out[n++] = s->nsrc;
    memcpy(out + n, s->src, s->nsrc);
    n += s->nsrc;
    out[n++] = s->ndst;
    memcpy(out + n, s->dst, s->ndst);
    return n + s->ndst;
}

/* Reads a register list (count, then registers) into REGS. */
static int get_regs(const uint8_t **p, const uint8_t *end, uint8_t *count, uint8_t *regs)
{
    if (end - *p < 1)
        return -1;
    *count = *(*p)++;
    if (*count > CGM_X86_REGS_MAX || end - *p < *count)
        return -1;
    for (unsigned i = 0; i < *count; i++)
        if ((*p)[i] >= CGM_X86_REG_COUNT)
            return -1;
    memcpy(regs, *p, *count);
    *p += *count;
    return 0;
}

int cgm_x86_static_decode(const uint8_t **p, const uint8_t *end, uint64_t *prev,
                          struct cgm_x86_static *s)
{
    uint64_t op;
    memset(s, 0, sizeof *s);
    if (cgm_get_delta(p, end, prev, &s->addr) || end - *p < 2)
        return -1;
    s->len = *(*p)++;
    s->cls = *(*p)++;
    if (s->len == 0 || s->len > 15 || s->cls >= CGM_X86_CLASS_COUNT)
        return -1;
    if (cgm_get_varint(p, end, &op) || op > 0xffff || end - *p < 1 + s->len)
        return -1;
    s->op = (uint16_t)op;
    s->nmem = *(*p)++;
    memcpy(s->bytes, *p, s->len);
    *p += s->len;
    uint64_t msize;
    if (end - *p < 3)
        return -1;
    s->uops = *(*p)++;
    s->loads = *(*p)++;
    s->stores = *(*p)++;
    if (cgm_get_varint(p, end, &msize) || msize > 0xffff)
        return -1;
    s->mem_size = (uint16_t)msize;
    if (get_regs(p, end, &s->nsrc, s->src) || get_regs(p, end, &s->ndst, s->dst))
        return -1;
    return 0;
}

static unsigned size_code(uint32_t size)
{
    switch (size) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    case 10: return 5;
    default: return 7;
    }
}

static const uint32_t code_size[6] = { 1, 2, 4, 8, 16, 10 };

static unsigned slot_of(uint64_t start, unsigned insn, unsigned write)
{
    uint64_t h = (start * 0x9E3779B97F4A7C15ull) >> 40;
    return (unsigned)(h + insn * 2u + write) & (CGM_X86_SLOTS - 1);
}

size_t cgm_x86_block_encode(struct cgm_x86_codec *st, uint8_t *out, uint8_t type,
                            uint64_t start, uint32_t ninsn,
                            const struct cgm_x86_access *acc, uint32_t n)
{
    size_t k = 0;
    out[k++] = type;
    k += cgm_put_delta(out + k, &st->prev_start, start);
    k += cgm_put_varint(out + k, ninsn);
    k += cgm_put_varint(out + k, n);
    for (uint32_t i = 0; i < n; i++) {
        unsigned sc = size_code(acc[i].size);
        k += cgm_put_varint(out + k, ((uint64_t)acc[i].insn << 4) |
                                     ((uint64_t)(acc[i].write != 0) << 3) | sc);
        if (sc == 7)
            k += cgm_put_varint(out + k, acc[i].size);
        k += cgm_put_delta(out + k, &st->slot[slot_of(start, acc[i].insn, acc[i].write != 0)],
                           acc[i].addr);
    }
    return k;
}

int cgm_x86_block_decode(struct cgm_x86_codec *st, const uint8_t *rec, size_t len,
                         struct cgm_x86_block_rec *out, struct cgm_x86_access *acc)
{
    const uint8_t *p = rec, *end = rec + len;
    uint64_t ninsn, n;
    if (len < 1 || (rec[0] != CGM_X86_REC_BLOCK && rec[0] != CGM_X86_REC_PARTIAL))
        return -1;
    out->type = *p++;
    if (cgm_get_delta(&p, end, &st->prev_start, &out->start) ||
        cgm_get_varint(&p, end, &ninsn) || cgm_get_varint(&p, end, &n) ||
        ninsn > CGM_X86_BLOCK_INSNS_MAX || n > CGM_X86_ACCESS_MAX)
        return -1;
    out->ninsn = (uint32_t)ninsn;
    out->naccess = (uint32_t)n;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h, size;
        if (cgm_get_varint(&p, end, &h) || (h >> 4) >= CGM_X86_BLOCK_INSNS_MAX)
            return -1;
        unsigned sc = (unsigned)(h & 7);
        if (sc == 7) {
            if (cgm_get_varint(&p, end, &size) || size == 0 || size > 4096)
                return -1;
        } else if (sc < 6) {
            size = code_size[sc];
        } else {
            return -1;
        }
        acc[i].insn = (uint8_t)(h >> 4);
        acc[i].write = (uint8_t)((h >> 3) & 1);
        acc[i].size = (uint32_t)size;
        if (cgm_get_delta(&p, end, &st->slot[slot_of(out->start, acc[i].insn, acc[i].write)],
                          &acc[i].addr))
            return -1;
    }
    return p == end ? 0 : -1;
}
