/* Internal to the Southern Islands emulator: the state of a wavefront and of
 * the dispatch it belongs to, and the helpers the instruction files share. */
#ifndef CGM_TRACEGEN_SI_WAVE_H
#define CGM_TRACEGEN_SI_WAVE_H

#include <stdint.h>
#include <string.h>

#include "tracegen/si/si_emu.h"

enum { SI_LANES = 64, SI_SREGS = 128 };

/* Memory addresses are 48 bits wide (a buffer resource's base field): the
 * address arithmetic of scalar and vector memory instructions wraps there,
 * which compilers rely on when they fold a negative offset into a base. */
#define SI_ADDRESS_MASK ((1ull << 48) - 1)

enum si_wave_status { SI_WAVE_RUNNING, SI_WAVE_BARRIER, SI_WAVE_DONE };

struct si_wave {
    uint32_t s[SI_SREGS];      /* indexed by operand code: s0..s103, vcc, m0, exec, ... */
    uint32_t *v;               /* vgprs * 64 lanes, v[reg * 64 + lane] */
    unsigned vgprs;
    uint64_t pc;               /* guest address of the instruction executing */
    uint64_t next_pc;          /* where execution continues; branches change it */
    int scc;
    uint32_t mode;             /* the MODE hardware register */
    unsigned index;            /* within the work-group */
    enum si_wave_status status;
};

/* One dispatch being run. */
struct si_ctx {
    const struct si_launch *l;
    const struct si_memory *mem;
    const struct si_observer *obs;
    struct si_run_stats *stats;
    char *err;
    size_t errlen;
    uint8_t *lds;
    uint32_t lds_size;
    uint32_t group_id[3];
    /* per-instruction access record for the observer */
    uint64_t addr[SI_LANES];
    struct si_step step;
};

static inline uint64_t si_exec(const struct si_wave *w)
{
    return (uint64_t)w->s[CGM_SI_OP_EXEC_LO] | (uint64_t)w->s[CGM_SI_OP_EXEC_HI] << 32;
}

static inline void si_set_exec(struct si_wave *w, uint64_t e)
{
    w->s[CGM_SI_OP_EXEC_LO] = (uint32_t)e;
    w->s[CGM_SI_OP_EXEC_HI] = (uint32_t)(e >> 32);
}

static inline uint64_t si_vcc(const struct si_wave *w)
{
    return (uint64_t)w->s[CGM_SI_OP_VCC_LO] | (uint64_t)w->s[CGM_SI_OP_VCC_HI] << 32;
}

static inline uint32_t si_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float si_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t si_d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double si_u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* Scalar value of a source operand code (32 or 64 bits wide). */
uint32_t si_read_scalar(const struct si_ctx *c, const struct si_wave *w,
                        const struct cgm_si_inst *in, unsigned code);
uint64_t si_read_scalar64(const struct si_ctx *c, const struct si_wave *w,
                          const struct cgm_si_inst *in, unsigned code, int is_f64);
/* Writes an SGPR-class destination (s0..s103, vcc, m0, exec, ttmp...). */
int si_write_scalar(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in,
                    unsigned code, uint32_t value);

/* Stops the run: formats "kernel K, work-group (x,y,z), wave W[, lane L],
 * pc 0x..: <disassembly>: <why>" into the context's error buffer; returns -1. */
int si_fault(struct si_ctx *c, const struct si_wave *w, const struct cgm_si_inst *in, int lane,
             const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Maps len bytes of guest memory or faults with the address. */
uint8_t *si_map(struct si_ctx *c, const struct si_wave *w, const struct cgm_si_inst *in, int lane,
                uint64_t addr, size_t len, int write);

/* Executors by instruction family; each returns 0 or -1 (fault recorded). */
int si_exec_scalar(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in);
int si_exec_smrd(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in);
int si_exec_valu(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in);
int si_exec_ds(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in);
int si_exec_buffer(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in);

#endif
