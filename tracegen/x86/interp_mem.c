/* Guest memory access slow paths: TLB refill, page-crossing accesses,
 * writes to pages holding decoded code, and faults. */
#include <signal.h>

#include "tracegen/x86/cpu.h"
#include "tracegen/x86/decode_cache.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/fpenv.h"

void x86_tlb_flush(struct x86_cpu *c)
{
    for (unsigned i = 0; i < TLB_SIZE; i++) {
        c->tlb_r[i].page = ~0ull;
        c->tlb_w[i].page = ~0ull;
    }
    c->tlb_gen = gmem_generation(c->mem);
}

_Noreturn void x86_fault(struct x86_cpu *c, int kind, uint64_t addr)
{
    c->fault_kind = kind;
    c->fault_addr = addr;
    x86_fpenv_abort(); /* the guest's run leaves the interpreter here */
    longjmp(*c->fault_jmp, 1);
}

/* Host address of one guest byte for reading, refilling the TLB. */
static uint8_t *byte_for_read(struct x86_cpu *c, uint64_t addr)
{
    int prot;
    uint8_t *p = gmem_page(c->mem, addr, &prot);
    if (!p || !(prot & GPROT_R))
        x86_fault(c, XF_READ, addr);
    struct tlb_entry *e = &c->tlb_r[(addr >> GPAGE_SHIFT) & (TLB_SIZE - 1)];
    e->page = addr >> GPAGE_SHIFT;
    e->host = p;
    return p + (addr & GPAGE_MASK);
}

static uint8_t *byte_for_write(struct x86_cpu *c, uint64_t addr)
{
    int prot;
    uint8_t *p = gmem_page(c->mem, addr, &prot);
    if (!p || !(prot & GPROT_W))
        x86_fault(c, XF_WRITE, addr);
    if (prot & GPROT_CODE) {
        /* self-modifying code: forget what was decoded from this page */
        x86_code_invalidate(c, addr);
        p = gmem_page(c->mem, addr, &prot);
    }
    struct tlb_entry *e = &c->tlb_w[(addr >> GPAGE_SHIFT) & (TLB_SIZE - 1)];
    e->page = addr >> GPAGE_SHIFT;
    e->host = p;
    return p + (addr & GPAGE_MASK);
}

void x86_read_bytes_slow(struct x86_cpu *c, uint64_t addr, void *dst, unsigned size)
{
    uint8_t *d = dst;
    if ((addr & GPAGE_MASK) <= GPAGE_SIZE - size) {
        memcpy(d, byte_for_read(c, addr), size);
        return;
    }
    for (unsigned i = 0; i < size; i++)
        d[i] = *byte_for_read(c, addr + i);
}

void x86_write_bytes_slow(struct x86_cpu *c, uint64_t addr, const void *src, unsigned size)
{
    const uint8_t *s = src;
    if ((addr & GPAGE_MASK) <= GPAGE_SIZE - size) {
        memcpy(byte_for_write(c, addr), s, size);
        return;
    }
    /* check every page first so a faulting write changes nothing */
    byte_for_write(c, addr + size - 1);
    for (unsigned i = 0; i < size; i++)
        *byte_for_write(c, addr + i) = s[i];
}

uint64_t x86_read_slow(struct x86_cpu *c, uint64_t addr, unsigned size)
{
    uint8_t buf[8];
    if ((addr & GPAGE_MASK) <= GPAGE_SIZE - size) {
        memcpy(buf, byte_for_read(c, addr), size);
    } else {
        for (unsigned i = 0; i < size; i++)
            buf[i] = *byte_for_read(c, addr + i);
    }
    uint64_t v = 0;
    memcpy(&v, buf, size);
    return v;
}

void x86_write_slow(struct x86_cpu *c, uint64_t addr, unsigned size, uint64_t v)
{
    uint8_t buf[8];
    memcpy(buf, &v, 8);
    if ((addr & GPAGE_MASK) <= GPAGE_SIZE - size) {
        memcpy(byte_for_write(c, addr), buf, size);
        return;
    }
    byte_for_write(c, addr + size - 1);
    for (unsigned i = 0; i < size; i++)
        *byte_for_write(c, addr + i) = buf[i];
}

const char *x86_fault_name(int kind)
{
    switch (kind) {
    case XF_READ: return "invalid read";
    case XF_WRITE: return "invalid write";
    case XF_EXEC: return "invalid instruction fetch";
    case XF_DIVIDE: return "divide error";
    case XF_UNIMPL: return "unimplemented instruction";
    case XF_ILLEGAL: return "illegal instruction";
    case XF_EXIT: return "exit";
    case XF_SYSCALL: return "stopped in a system call";
    case XF_LIMIT: return "instruction limit reached";
    case XF_KILLED: return "killed by a signal";
    case XF_INTERRUPTED: return "interrupted";
    case XF_PROTECTION: return "general protection fault";
    case XF_TRAP: return "breakpoint trap";
    default: return "none";
    }
}

int x86_fault_signal(int kind)
{
    switch (kind) {
    case XF_READ: case XF_WRITE: case XF_EXEC: case XF_PROTECTION: return SIGSEGV;
    case XF_DIVIDE: return SIGFPE;
    case XF_ILLEGAL: return SIGILL;
    case XF_TRAP: return SIGTRAP;
    /* XF_UNIMPL is the emulator's limit, not the guest's fault: no signal */
    default: return 0;
    }
}
