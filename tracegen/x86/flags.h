/* Lazy arithmetic flags: the last flag-setting operation is remembered
 * (kind, size, operands, result) and flags are computed only when read. */
#ifndef TRACEGEN_X86_FLAGS_H
#define TRACEGEN_X86_FLAGS_H

#include "tracegen/x86/cpu.h"

static inline uint64_t x86_size_mask(unsigned size)
{
    return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

static inline uint64_t x86_sign_bit(unsigned size)
{
    return 1ull << (size * 8 - 1);
}

static inline int64_t x86_sext(uint64_t v, unsigned size)
{
    unsigned sh = 64 - size * 8;
    return (int64_t)(v << sh) >> sh;
}

static inline void x86_set_lazy(struct x86_cpu *c, uint32_t op, unsigned size,
                                uint64_t a, uint64_t b, uint64_t res)
{
    c->lz_op = op;
    c->lz_size = size;
    c->lz_a = a;
    c->lz_b = b;
    c->lz_res = res;
}

/* The arithmetic flag bits (CF PF AF ZF SF OF) as they are now. */
uint32_t x86_flags_arith(const struct x86_cpu *c);
/* CF alone, as x86_flags_arith computes it (INC and DEC, which keep CF,
 * ask for it at every execution). */
int x86_flags_cf(const struct x86_cpu *c);
/* Folds the lazy state into c->rflags (lz_op becomes LZ_NONE). */
void x86_flags_materialize(struct x86_cpu *c);
/* The whole RFLAGS value (bit 1 set, IF set). */
uint64_t x86_rflags(struct x86_cpu *c);
/* Sets arithmetic bits from V (others of V ignored except DF). */
void x86_set_rflags(struct x86_cpu *c, uint64_t v);
/* Evaluates condition code CC (0..15: O NO B AE E NE BE A S NS P NP L GE LE G). */
int x86_cond_slow(const struct x86_cpu *c, unsigned cc);

/* x86_cond for callers that pass a constant CC and want it inlined (the
 * switch on CC then disappears). */
__attribute__((always_inline)) static inline int x86_cond_inline(const struct x86_cpu *c,
                                                                 unsigned cc)
{
    if (c->lz_op == LZ_SUB) {
        uint64_t a = c->lz_a, b = c->lz_b;
        int64_t sa = x86_sext(a, c->lz_size), sb = x86_sext(b, c->lz_size);
        switch (cc) {
        case 2: return a < b;
        case 3: return a >= b;
        case 4: return a == b;
        case 5: return a != b;
        case 6: return a <= b;
        case 7: return a > b;
        case 12: return sa < sb;
        case 13: return sa >= sb;
        case 14: return sa <= sb;
        case 15: return sa > sb;
        default: break;
        }
    } else if (c->lz_op == LZ_LOGIC) {
        uint64_t r = c->lz_res;
        int sf = (r & x86_sign_bit(c->lz_size)) != 0;
        switch (cc) {
        case 4: return r == 0;
        case 5: return r != 0;
        case 8: case 12: return sf;
        case 9: case 13: return !sf;
        case 14: return r == 0 || sf;
        case 15: return r != 0 && !sf;
        default: break;
        }
    }
    return x86_cond_slow(c, cc);
}

static inline int x86_cond(const struct x86_cpu *c, unsigned cc)
{
    return x86_cond_inline(c, cc);
}

#endif
