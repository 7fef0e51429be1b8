/* Saving and restoring the floating-point state: fnstenv/fldenv (28-byte
 * environment), fnsave/frstor (environment and the eight registers),
 * fxsave/fxrstor (x87, MXCSR and XMM state, 512 bytes) and xsave/xrstor
 * (the fxsave layout, a header and the YMM upper halves), in the Intel
 * manual's layouts for 64-bit mode. The instruction and data pointers of
 * the last x87 instruction are not kept by the emulator and read as 0.
 * Each save is one write access and each restore one read access, of the
 * layout's size. */
#include "tracegen/x86/fpenv.h"
#include "tracegen/x86/interp.h"
#include "tracegen/x86/operand.h"

#define ENV_BYTES 28
#define SAVE_BYTES 108
#define FXSAVE_BYTES 416          /* up to the end of XMM15; the rest is left alone */
#define MXCSR_MASK_VALUE 0xffffu  /* every MXCSR bit ldmxcsr accepts, DAZ included */
#define XSAVE_HEADER 512u         /* XSTATE_BV, XCOMP_BV, reserved */
#define XSAVE_AVX 576u            /* the upper halves of ymm0-15 */
#define XCR0 0x7u                 /* x87, SSE and AVX state (bitops.c's xgetbv) */

uint16_t x86_x87_status_word(const struct x86_cpu *c)
{
    return (uint16_t)((c->fsw & ~0x3800u) | ((c->ftop & 7) << 11));
}

static void set_status_word(struct x86_cpu *c, uint16_t sw)
{
    c->fsw = (uint16_t)(sw & ~0x3800u);
    c->ftop = (sw >> 11) & 7;
}

/* The full tag word: two bits per physical register (valid 0, zero 1,
 * special 2, empty 3), classified on the bits (a floating-point compare
 * would raise the denormal exception). */
static uint16_t tag_word(const struct x86_cpu *c)
{
    uint16_t tw = 0;
    for (unsigned p = 0; p < 8; p++) {
        uint64_t sig;
        uint16_t se;
        memcpy(&sig, &c->st[p], 8);
        memcpy(&se, (const uint8_t *)&c->st[p] + 8, 2);
        unsigned exp = se & 0x7fff, t;
        if (!(c->ftag & (1u << p)))
            t = 3;
        else if (exp == 0 && sig == 0)
            t = 1;
        else if (exp != 0 && exp != 0x7fff && (sig >> 63))
            t = 0;
        else
            t = 2;
        tw |= (uint16_t)(t << (2 * p));
    }
    return tw;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* The environment in the 32-bit protected-mode layout 64-bit mode uses;
 * the unused upper halves of the first three doublewords read as ones, as
 * the processor stores them. */
static void env_store(const struct x86_cpu *c, uint8_t *e)
{
    memset(e, 0, ENV_BYTES);
    put32(e, 0xffff0000u | c->fcw);
    put32(e + 4, 0xffff0000u | x86_x87_status_word(c));
    put32(e + 8, 0xffff0000u | tag_word(c));
}

static void env_load(struct x86_cpu *c, const uint8_t *e)
{
    c->fcw = get16(e);
    set_status_word(c, get16(e + 4));
    uint16_t tw = get16(e + 8);
    c->ftag = 0;
    for (unsigned p = 0; p < 8; p++)
        if (((tw >> (2 * p)) & 3) != 3)
            c->ftag |= (uint8_t)(1u << p);
}

static void reg_store(const struct x86_cpu *c, unsigned i, uint8_t *out)
{
    memcpy(out, &c->st[(c->ftop + i) & 7], 10);
}

static void reg_load(struct x86_cpu *c, unsigned i, const uint8_t *in)
{
    long double v = 0;
    memcpy(&v, in, 10);
    c->st[(c->ftop + i) & 7] = v;
}

static void finit(struct x86_cpu *c)
{
    c->fcw = 0x037f;
    c->fsw = 0;
    c->ftop = 0;
    c->ftag = 0;
}

void x86_fnstenv(struct x86_cpu *c, uint64_t addr)
{
    uint8_t e[ENV_BYTES];
    env_store(c, e);
    x86_write_bytes(c, addr, e, ENV_BYTES);
    c->fcw |= 0x3f; /* fnstenv masks every exception after storing */
}

void x86_fldenv(struct x86_cpu *c, uint64_t addr)
{
    uint8_t e[ENV_BYTES];
    x86_read_bytes(c, addr, e, ENV_BYTES);
    env_load(c, e);
}

void x86_fnsave(struct x86_cpu *c, uint64_t addr)
{
    uint8_t s[SAVE_BYTES];
    env_store(c, s);
    for (unsigned i = 0; i < 8; i++)
        reg_store(c, i, s + ENV_BYTES + 10 * i);
    x86_write_bytes(c, addr, s, SAVE_BYTES);
    finit(c);
}

void x86_frstor(struct x86_cpu *c, uint64_t addr)
{
    uint8_t s[SAVE_BYTES];
    x86_read_bytes(c, addr, s, SAVE_BYTES);
    env_load(c, s);
    for (unsigned i = 0; i < 8; i++)
        reg_load(c, i, s + ENV_BYTES + 10 * i);
}

/* The legacy region's parts: x87 (bytes 0-23 and the registers 32-159),
 * MXCSR and its mask (24-31), XMM registers (160-415). */
static void fx_x87_store(const struct x86_cpu *c, uint8_t *s)
{
    memset(s, 0, 24);
    put16(s, c->fcw);
    put16(s + 2, x86_x87_status_word(c));
    s[4] = c->ftag;
    for (unsigned i = 0; i < 8; i++) {
        memset(s + 32 + 16 * i, 0, 16);
        reg_store(c, i, s + 32 + 16 * i);
    }
}

static void fx_x87_load(struct x86_cpu *c, const uint8_t *s)
{
    c->fcw = get16(s);
    set_status_word(c, get16(s + 2));
    c->ftag = s[4];
    for (unsigned i = 0; i < 8; i++)
        reg_load(c, i, s + 32 + 16 * i);
}

static void fx_mxcsr_store(struct x86_cpu *c, uint8_t *s)
{
    put32(s + 24, x86_fpenv_mxcsr(c));
    put32(s + 28, MXCSR_MASK_VALUE);
}

void x86_fxsave(struct x86_cpu *c, uint64_t addr, int wide)
{
    uint8_t s[FXSAVE_BYTES];
    (void)wide; /* both layouts hold zero pointers */
    fx_x87_store(c, s);
    fx_mxcsr_store(c, s);
    memcpy(s + 160, c->xmm, 16 * 16);
    x86_write_bytes(c, addr, s, FXSAVE_BYTES);
}

void x86_fxrstor(struct x86_cpu *c, uint64_t addr, int wide)
{
    uint8_t s[FXSAVE_BYTES];
    (void)wide;
    x86_read_bytes(c, addr, s, FXSAVE_BYTES);
    fx_x87_load(c, s);
    x86_fpenv_set_mxcsr(c, get32(s + 24));
    memcpy(c->xmm, s + 160, 16 * 16);
}

/* xsave (and xsaveopt, the same here): the components of EDX:EAX & XCR0,
 * each written where the standard layout puts it (one access per part),
 * and their bits of XSTATE_BV set (every component counts as in use). */
void x86_xsave(struct x86_cpu *c, uint64_t addr, uint64_t rfbm)
{
    uint8_t s[FXSAVE_BYTES];
    rfbm &= XCR0;
    if (rfbm & 1) {
        fx_x87_store(c, s);
        x86_write_bytes(c, addr, s, 24);
        x86_write_bytes(c, addr + 32, s + 32, 128);
    }
    if (rfbm & 6) {
        fx_mxcsr_store(c, s);
        x86_write_bytes(c, addr + 24, s + 24, 8);
    }
    if (rfbm & 2)
        x86_write_bytes(c, addr + 160, c->xmm, 16 * 16);
    if (rfbm & 4)
        x86_write_bytes(c, addr + XSAVE_AVX, c->yhi, 16 * 16);
    uint64_t bv = x86_read(c, addr + XSAVE_HEADER, 8);
    x86_write(c, addr + XSAVE_HEADER, 8, (bv & ~rfbm) | rfbm);
}

/* xrstor: the components of EDX:EAX & XCR0 from the area where XSTATE_BV
 * says they were saved, in their initial state otherwise; MXCSR whenever
 * SSE or AVX state is asked for. */
void x86_xrstor(struct x86_cpu *c, uint64_t addr, uint64_t rfbm)
{
    uint8_t s[FXSAVE_BYTES];
    rfbm &= XCR0;
    uint64_t bv = x86_read(c, addr + XSAVE_HEADER, 8);
    if (rfbm & 1) {
        if (bv & 1) {
            x86_read_bytes(c, addr, s, 24);
            x86_read_bytes(c, addr + 32, s + 32, 128);
            fx_x87_load(c, s);
        } else {
            finit(c);
            memset(c->st, 0, sizeof c->st);
        }
    }
    if (rfbm & 6)
        x86_fpenv_set_mxcsr(c, (uint32_t)x86_read(c, addr + 24, 4));
    if (rfbm & 2) {
        if (bv & 2)
            x86_read_bytes(c, addr + 160, c->xmm, 16 * 16);
        else
            memset(c->xmm, 0, sizeof c->xmm);
    }
    if (rfbm & 4) {
        if (bv & 4)
            x86_read_bytes(c, addr + XSAVE_AVX, c->yhi, 16 * 16);
        else
            memset(c->yhi, 0, sizeof c->yhi);
    }
}
