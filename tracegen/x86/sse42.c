/* SSE4.2's packed string compares (pcmpistri, pcmpistrm, pcmpestri,
 * pcmpestrm), after the Intel manual's description (vol. 1 ch. 4.1): the
 * imm8 chooses the element format, the aggregation (equal any, ranges,
 * equal each, equal ordered), the polarity and the output; strings end at
 * a zero element (implicit length) or at |EAX| and |EDX| elements
 * (explicit length). */
#include <capstone/capstone.h>

#include "tracegen/x86/flags.h"
#include "tracegen/x86/operand.h"
#include "tracegen/x86/simd.h"

/* Element I of V in the format of IMM bits 0-1 (signed formats extended). */
static int element(const ymm_t *v, unsigned i, unsigned imm)
{
    switch (imm & 3) {
    case 0: return v->b[i];
    case 1: return v->w[i];
    case 2: return v->sb[i];
    default: return v->sw[i];
    }
}

static unsigned implicit_length(const ymm_t *v, unsigned n, unsigned imm)
{
    unsigned i = 0;
    while (i < n && element(v, i, imm) != 0)
        i++;
    return i;
}

static unsigned explicit_length(uint64_t reg, int wide, unsigned n)
{
    int64_t v = wide ? (int64_t)reg : (int64_t)(int32_t)reg;
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    return mag > n ? n : (unsigned)mag;
}

/* The aggregated result IntRes1 over the N elements of B (the second
 * operand) against A (the first), valid up to LA and LB elements. */
static uint32_t aggregate(const ymm_t *a, const ymm_t *b, unsigned n, unsigned la, unsigned lb,
                          unsigned imm)
{
    uint32_t res = 0;
    switch ((imm >> 2) & 3) {
    case 0: /* equal any: B[j] is one of A's elements */
        for (unsigned j = 0; j < lb; j++)
            for (unsigned i = 0; i < la; i++)
                if (element(b, j, imm) == element(a, i, imm))
                    res |= 1u << j;
        break;
    case 1: /* ranges: A holds pairs of bounds */
        for (unsigned j = 0; j < lb; j++) {
            int v = element(b, j, imm);
            for (unsigned i = 0; i + 1 < la; i += 2)
                if (v >= element(a, i, imm) && v <= element(a, i + 1, imm))
                    res |= 1u << j;
        }
        break;
    case 2: /* equal each: past both ends counts as equal */
        for (unsigned j = 0; j < n; j++) {
            int va = j < la, vb = j < lb;
            int eq = va && vb ? element(a, j, imm) == element(b, j, imm) : !va && !vb;
            if (eq)
                res |= 1u << j;
        }
        break;
    default: /* equal ordered: A occurs in B at j (A's end matches anything) */
        for (unsigned j = 0; j < n; j++) {
            int match = 1;
            for (unsigned k = 0; k < n - j && match; k++) {
                if (k >= la)
                    break;
                if (j + k >= lb || element(a, k, imm) != element(b, j + k, imm))
                    match = 0;
            }
            if (match)
                res |= 1u << j;
        }
        break;
    }
    return res;
}

void x86_sse42_string(struct x86_cpu *c, const struct x86_dinsn *in, const ymm_t *a,
                      const ymm_t *b)
{
    unsigned imm = in->imm, n = (imm & 1) ? 8 : 16;
    int explicit_len = in->csid == X86_INS_PCMPESTRI || in->csid == X86_INS_PCMPESTRM;
    unsigned la, lb;
    if (explicit_len) {
        la = explicit_length(c->r[R_RAX], in->aux, n);
        lb = explicit_length(c->r[R_RDX], in->aux, n);
    } else {
        la = implicit_length(a, n, imm);
        lb = implicit_length(b, n, imm);
    }
    uint32_t all = (1u << n) - 1;
    uint32_t res = aggregate(a, b, n, la, lb, imm);
    switch ((imm >> 4) & 3) {
    case 1: res ^= all; break;
    case 3: res ^= (1u << lb) - 1; break;
    default: break;
    }
    if (in->csid == X86_INS_PCMPISTRI || in->csid == X86_INS_PCMPESTRI) {
        unsigned idx = n;
        if (res)
            idx = (imm & 0x40) ? 31u - (unsigned)__builtin_clz(res) : (unsigned)__builtin_ctz(res);
        reg_set(c, R_RCX, 4, idx);
    } else {
        xmm_t m;
        memset(&m, 0, sizeof m);
        if (imm & 0x40) {
            unsigned esize = 16 / n;
            for (unsigned i = 0; i < n; i++)
                if ((res >> i) & 1)
                    memset(m.b + i * esize, 0xff, esize);
        } else {
            m.d[0] = res;
        }
        c->xmm[0] = m;
        if (in->vl)
            memset(&c->yhi[0], 0, sizeof c->yhi[0]);
    }
    c->lz_op = LZ_NONE;
    c->rflags = (c->rflags & ~(uint64_t)FL_ARITH) | (res ? FL_CF : 0) | (lb < n ? FL_ZF : 0) |
                (la < n ? FL_SF : 0) | ((res & 1) ? FL_OF : 0);
}
