/* The guest's floating-point environment on the host: see fpenv.h. */
#include "tracegen/x86/fpenv.h"

#include <xmmintrin.h>

#define FCW_DEFAULT 0x037fu
#define FSW_EXCEPTIONS 0x003fu

_Thread_local struct x86_cpu *x86_fpenv_owner;

/* The guest's MXCSR as the host may hold it: every exception masked. */
static unsigned host_form(uint32_t guest)
{
    return (guest & MXCSR_WRITABLE) | MXCSR_MASKS;
}

static void save_flags(struct x86_cpu *c)
{
    c->mxcsr = (c->mxcsr & ~MXCSR_FLAGS) | (_mm_getcsr() & MXCSR_FLAGS);
}

void x86_fpenv_take(struct x86_cpu *c)
{
    if (x86_fpenv_owner)
        save_flags(x86_fpenv_owner);
    _mm_setcsr(host_form(c->mxcsr));
    x86_fpenv_owner = c;
}

void x86_fpenv_leave(void)
{
    if (!x86_fpenv_owner)
        return;
    save_flags(x86_fpenv_owner);
    _mm_setcsr(MXCSR_DEFAULT);
    x86_fpenv_owner = NULL;
}

void x86_fpenv_abort(void)
{
    uint16_t cw = FCW_DEFAULT;
    x86_fpenv_leave();
    __asm__ volatile("fnclex\n\tfldcw %0" : : "m"(cw) : "memory");
}

void x86_fpenv_forget(void)
{
    _mm_setcsr(MXCSR_DEFAULT);
    x86_fpenv_owner = NULL;
}

uint32_t x86_fpenv_mxcsr(struct x86_cpu *c)
{
    if (c == x86_fpenv_owner)
        save_flags(c);
    return c->mxcsr;
}

void x86_fpenv_set_mxcsr(struct x86_cpu *c, uint32_t v)
{
    c->mxcsr = v & MXCSR_WRITABLE;
    if (c == x86_fpenv_owner)
        _mm_setcsr(host_form(c->mxcsr));
}

unsigned x86_x87_enter(const struct x86_cpu *c)
{
    uint16_t cw = (uint16_t)(c->fcw | FSW_EXCEPTIONS);
    unsigned changed = cw != FCW_DEFAULT;
    if (changed)
        __asm__ volatile("fldcw %0" : : "m"(cw) : "memory");
    __asm__ volatile("fnclex" : : : "memory");
    return changed;
}

void x86_x87_leave(struct x86_cpu *c, unsigned entered)
{
    uint16_t sw, cw = FCW_DEFAULT;
    __asm__ volatile("fnstsw %0" : "=m"(sw) : : "memory");
    c->fsw |= (uint16_t)(sw & FSW_EXCEPTIONS);
    if (entered)
        __asm__ volatile("fldcw %0" : : "m"(cw) : "memory");
}
