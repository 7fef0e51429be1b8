/* Operand access for the interpreter units (header-only for inlining). */
#ifndef TRACEGEN_X86_OPERAND_H
#define TRACEGEN_X86_OPERAND_H

#include "tracegen/x86/cpu.h"
#include "tracegen/x86/flags.h"

__attribute__((always_inline)) static inline uint64_t op_ea(const struct x86_cpu *c, const struct x86_opnd *o)
{
    uint64_t a = (uint64_t)o->val;
    if (o->base != REG_NONE)
        a += c->r[o->base];
    if (o->index != REG_NONE)
        a += c->r[o->index] << o->scale;
    if (o->addr32)
        a = (uint32_t)a;
    if (o->seg)
        a += o->seg == SEG_FS ? c->fs_base : c->gs_base;
    return a;
}

static inline uint64_t reg_get(const struct x86_cpu *c, unsigned reg, unsigned size)
{
    if (reg & REG_HIGH8)
        return (c->r[reg & 3] >> 8) & 0xff;
    return c->r[reg] & x86_size_mask(size);
}

static inline void reg_set(struct x86_cpu *c, unsigned reg, unsigned size, uint64_t v)
{
    switch (size) {
    case 8: c->r[reg] = v; break;
    case 4: c->r[reg] = (uint32_t)v; break;
    case 2: c->r[reg] = (c->r[reg] & ~0xffffull) | (v & 0xffff); break;
    default:
        if (reg & REG_HIGH8)
            c->r[reg & 3] = (c->r[reg & 3] & ~0xff00ull) | ((v & 0xff) << 8);
        else
            c->r[reg] = (c->r[reg] & ~0xffull) | (v & 0xff);
        break;
    }
}

__attribute__((always_inline)) static inline uint64_t op_read(struct x86_cpu *c, const struct x86_opnd *o, unsigned size)
{
    switch (o->kind) {
    case OPK_REG: return reg_get(c, o->reg, size);
    case OPK_IMM: return (uint64_t)o->val & x86_size_mask(size);
    case OPK_MEM: return x86_read(c, op_ea(c, o), size);
    case OPK_XMM: return c->xmm[o->reg].q[0] & x86_size_mask(size);
    default: return 0;
    }
}

__attribute__((always_inline)) static inline void op_write(struct x86_cpu *c, const struct x86_opnd *o, unsigned size, uint64_t v)
{
    if (o->kind == OPK_REG)
        reg_set(c, o->reg, size, v);
    else if (o->kind == OPK_MEM)
        x86_write(c, op_ea(c, o), size, v);
}

static inline void push64(struct x86_cpu *c, uint64_t v)
{
    c->r[R_RSP] -= 8;
    x86_write(c, c->r[R_RSP], 8, v);
}

static inline uint64_t pop64(struct x86_cpu *c)
{
    uint64_t v = x86_read(c, c->r[R_RSP], 8);
    c->r[R_RSP] += 8;
    return v;
}

#endif
