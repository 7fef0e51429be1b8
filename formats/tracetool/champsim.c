/* An x86 instruction as ChampSim's input_instr: see champsim.h.
 *
 * Registers come from the static table, renumbered: the stack pointer,
 * the flags and the instruction pointer as ChampSim numbers them, every
 * other register as 32 + its cgm_x86_reg number (never 0 or one of those
 * three). A branch's registers are the ones ChampSim's classification
 * expects of its class (a call reads and writes SP and IP, a conditional
 * branch reads the flags and IP and writes IP, ...), so ChampSim sees the
 * kind the trace recorded; other instructions never name IP. */
#include "formats/tracetool/champsim.h"

#include <string.h>

#include "cgm/codec.h"

struct regs {
    uint8_t r[CGM_X86_REGS_MAX + 3];
    unsigned n, cap;
    uint64_t *dropped;
};

static uint8_t champsim_reg(unsigned reg)
{
    switch (reg) {
    case CGM_X86_REG_RAX + 4: return CHAMPSIM_REG_SP;   /* rsp */
    case CGM_X86_REG_FLAGS: return CHAMPSIM_REG_FLAGS;
    case CGM_X86_REG_RIP: return CHAMPSIM_REG_IP;
    default: return (uint8_t)(32 + reg);
    }
}

static void add(struct regs *s, uint8_t r)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->r[i] == r)
            return;
    if (s->n < s->cap)
        s->r[s->n++] = r;
    else
        (*s->dropped)++;
}

/* The table's registers but SP, the flags and IP, which a branch's class fixes. */
static void add_others(struct regs *s, const uint8_t *list, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t r = champsim_reg(list[i]);
        if (r != CHAMPSIM_REG_SP && r != CHAMPSIM_REG_FLAGS && r != CHAMPSIM_REG_IP)
            add(s, r);
    }
}

static void add_all_but_ip(struct regs *s, const uint8_t *list, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (champsim_reg(list[i]) != CHAMPSIM_REG_IP)
            add(s, champsim_reg(list[i]));
}

/* Fills SRC and DST; returns 1 for a branch. */
static int registers(const struct cgm_x86_static *st, struct regs *src, struct regs *dst)
{
    switch (st->cls) {
    case CGM_X86_BRANCH_COND:
        add(src, CHAMPSIM_REG_FLAGS);
        add(src, CHAMPSIM_REG_IP);
        add_others(src, st->src, st->nsrc);     /* jrcxz, loop: rcx */
        add(dst, CHAMPSIM_REG_IP);
        return 1;
    case CGM_X86_JUMP:
        add(dst, CHAMPSIM_REG_IP);
        return 1;
    case CGM_X86_JUMP_INDIRECT:
        add_others(src, st->src, st->nsrc);
        add(dst, CHAMPSIM_REG_IP);
        return 1;
    case CGM_X86_CALL:
    case CGM_X86_CALL_INDIRECT:
        add(src, CHAMPSIM_REG_SP);
        add(src, CHAMPSIM_REG_IP);
        if (st->cls == CGM_X86_CALL_INDIRECT)
            add_others(src, st->src, st->nsrc);
        add(dst, CHAMPSIM_REG_SP);
        add(dst, CHAMPSIM_REG_IP);
        return 1;
    case CGM_X86_RET:
        add(src, CHAMPSIM_REG_SP);
        add(dst, CHAMPSIM_REG_SP);
        add(dst, CHAMPSIM_REG_IP);
        return 1;
    default:
        add_all_but_ip(src, st->src, st->nsrc);
        add_all_but_ip(dst, st->dst, st->ndst);
        return 0;
    }
}

void champsim_encode(uint8_t out[CHAMPSIM_RECORD_BYTES], const struct cgm_x86_insn *x,
                     uint64_t next_ip, struct champsim_counts *n)
{
    memset(out, 0, CHAMPSIM_RECORD_BYTES);
    const struct cgm_x86_static *st = x->st;
    struct regs src = { .cap = 4, .dropped = &n->regs_dropped };
    struct regs dst = { .cap = 2, .dropped = &n->regs_dropped };
    int branch = registers(st, &src, &dst);
    int taken = branch && (st->cls != CGM_X86_BRANCH_COND ||
                           (next_ip && next_ip != x->ip + st->len));
    cgm_put_le64(out, x->ip);
    out[8] = (uint8_t)branch;
    out[9] = (uint8_t)taken;
    memcpy(out + 10, dst.r, dst.n);
    memcpy(out + 12, src.r, src.n);
    unsigned reads = 0, writes = 0;
    for (uint32_t i = 0; i < x->naccess; i++) {
        const struct cgm_x86_access *a = &x->acc[i];
        if (a->write && writes < 2)
            cgm_put_le64(out + 16 + 8 * writes++, a->addr);
        else if (!a->write && reads < 4)
            cgm_put_le64(out + 32 + 8 * reads++, a->addr);
        else if (a->write)
            n->writes_dropped++;
        else
            n->reads_dropped++;
    }
    n->records++;
    n->branches += branch;
    n->taken += taken;
}
