/* Static-table details: see static_info.h. */
#include "tracegen/x86/static_info.h"

#include <string.h>

#include "tracegen/x86/cpu.h"
#include "tracegen/x86/decode.h"
#include "tracegen/x86/ops.h"

/* Capstone register -> enum cgm_x86_reg, or -1 for registers the table
 * does not track (segment selectors, debug registers, ...). */
static int arch_reg(x86_reg r)
{
    int g = x86_capstone_gpr(r);
    if (g >= 0)
        return CGM_X86_REG_RAX + (g & 15);
    if (r >= X86_REG_XMM0 && r <= X86_REG_XMM15)
        return CGM_X86_REG_XMM0 + (r - X86_REG_XMM0);
    if (r >= X86_REG_YMM0 && r <= X86_REG_YMM15) /* one architectural register with its XMM */
        return CGM_X86_REG_XMM0 + (r - X86_REG_YMM0);
    if (r >= X86_REG_ST0 && r <= X86_REG_ST7)
        return CGM_X86_REG_ST0 + (r - X86_REG_ST0);
    switch (r) {
    case X86_REG_EFLAGS: return CGM_X86_REG_FLAGS;
    case X86_REG_FPSW: return CGM_X86_REG_FPU;
    case X86_REG_FS: return CGM_X86_REG_FS;
    case X86_REG_GS: return CGM_X86_REG_GS;
    case X86_REG_RIP: case X86_REG_EIP: case X86_REG_IP: return CGM_X86_REG_RIP;
    default: return -1;
    }
}

/* Adds REG to the ascending, duplicate-free LIST of *N entries. */
static void add_reg(uint8_t *list, uint8_t *n, int reg)
{
    if (reg < 0)
        return;
    unsigned i = 0;
    while (i < *n && list[i] < reg)
        i++;
    if (i < *n && list[i] == reg)
        return;
    if (*n == CGM_X86_REGS_MAX)
        return;
    memmove(list + i + 1, list + i, *n - i);
    list[i] = (uint8_t)reg;
    (*n)++;
}

static int pure_move(unsigned op, unsigned id)
{
    switch (op) {
    case XOP_MOV: case XOP_MOVZX: case XOP_MOVSX: case XOP_PUSH: case XOP_POP: case XOP_NOP:
        return 1;
    case XOP_SSE:
        switch (x86_legacy_id(id)) { /* vmovups moves as movups does */
        case X86_INS_MOVAPS: case X86_INS_MOVUPS: case X86_INS_MOVAPD: case X86_INS_MOVUPD:
        case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_MOVSD: case X86_INS_MOVSS:
        case X86_INS_MOVQ: case X86_INS_MOVD: case X86_INS_MOVNTDQ: case X86_INS_MOVNTI:
        case X86_INS_MOVNTPS: case X86_INS_MOVNTPD: case X86_INS_LDDQU:
            return 1;
        default:
            return 0;
        }
    default:
        return 0;
    }
}

int x86_is_gather(unsigned csid)
{
    switch (csid) {
    case X86_INS_VGATHERDPS: case X86_INS_VGATHERDPD: case X86_INS_VGATHERQPS:
    case X86_INS_VGATHERQPD: case X86_INS_VPGATHERDD: case X86_INS_VPGATHERDQ:
    case X86_INS_VPGATHERQD: case X86_INS_VPGATHERQQ:
        return 1;
    default:
        return 0;
    }
}

/* Registers capstone 4 leaves out of an instruction's accesses. */
static void add_missing_regs(const cs_insn *ci, struct cgm_x86_static *s)
{
    const cs_x86 *x = &ci->detail->x86;
    if (x86_is_gather(ci->id)) {
        /* elements the mask leaves out keep the destination's value, and
         * the gather clears the mask as it goes */
        if (x->op_count == 3 && x->operands[0].type == X86_OP_REG &&
            x->operands[2].type == X86_OP_REG) {
            add_reg(s->src, &s->nsrc, arch_reg(x->operands[0].reg));
            add_reg(s->dst, &s->ndst, arch_reg(x->operands[2].reg));
        }
        return;
    }
    switch (ci->id) {
    case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR:
        add_reg(s->dst, &s->ndst, CGM_X86_REG_MXCSR);
        break;
    case X86_INS_STMXCSR: case X86_INS_VSTMXCSR:
        add_reg(s->src, &s->nsrc, CGM_X86_REG_MXCSR);
        break;
    /* The saved state is x87, MXCSR and 16 vector registers, more than a
     * list holds: the control and status registers stand for it. */
    case X86_INS_FXSAVE: case X86_INS_FXSAVE64: case X86_INS_XSAVE: case X86_INS_XSAVE64:
    case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64:
        add_reg(s->src, &s->nsrc, CGM_X86_REG_FPU);
        add_reg(s->src, &s->nsrc, CGM_X86_REG_MXCSR);
        break;
    case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64: case X86_INS_XRSTOR: case X86_INS_XRSTOR64:
        add_reg(s->dst, &s->ndst, CGM_X86_REG_FPU);
        add_reg(s->dst, &s->ndst, CGM_X86_REG_MXCSR);
        break;
    default:
        break;
    }
}

void x86_static_fill(csh h, struct cgm_x86_static *s)
{
    cs_insn *ci = NULL;
    uint8_t twin[15];
    size_t twin_len;
    if (cs_disasm(h, s->bytes, s->len, s->addr, 1, &ci) != 1 &&
        (!(twin_len = x86_gap_twin(s->bytes, s->len, twin)) ||
         cs_disasm(h, twin, twin_len, s->addr, 1, &ci) != 1))
        return;
    const cs_x86 *x = &ci->detail->x86;
    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    if (cs_regs_access(h, ci, rd, &nrd, wr, &nwr) == CS_ERR_OK) {
        for (unsigned i = 0; i < nrd; i++)
            add_reg(s->src, &s->nsrc, arch_reg(rd[i]));
        for (unsigned i = 0; i < nwr; i++)
            add_reg(s->dst, &s->ndst, arch_reg(wr[i]));
    }
    add_missing_regs(ci, s);
    unsigned loads = 0, stores = 0, msize = 0;
    if (s->op != XOP_LEA && s->op != XOP_NOP) {
        for (unsigned i = 0; i < x->op_count; i++) {
            const cs_x86_op *o = &x->operands[i];
            if (o->type != X86_OP_MEM)
                continue;
            /* capstone 4 leaves access 0 for some memory operands: read */
            if ((o->access & CS_AC_READ) || !o->access)
                loads++;
            if (o->access & CS_AC_WRITE)
                stores++;
            if (o->size > msize)
                msize = o->size;
        }
    }
    switch (s->op) { /* implicit stack accesses */
    case XOP_PUSH: case XOP_CALL: case XOP_PUSHF:
        stores++;
        msize = msize < 8 ? 8 : msize;
        break;
    case XOP_POP: case XOP_RET: case XOP_POPF: case XOP_LEAVE:
        loads++;
        msize = msize < 8 ? 8 : msize;
        break;
    default:
        break;
    }
    s->loads = (uint8_t)loads;
    s->stores = (uint8_t)stores;
    s->mem_size = (uint16_t)msize;
    s->uops = (uint8_t)(loads + stores + (pure_move(s->op, ci->id) && loads + stores ? 0 : 1));
    cs_free(ci, 1);
}
