/* Loading the x86 static table. */
#include "replay/x86_static.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Static tables are small (one entry per instruction the guest ran); this
 * bounds what a hostile file can make us allocate. */
#define STATIC_SECTION_LIMIT (256u << 20)

unsigned rp_canonical_reg(unsigned trace_reg)
{
    if (trace_reg >= CGM_X86_REG_ST0 && trace_reg < CGM_X86_REG_ST0 + 8)
        return CGM_X86_REG_ST0;
    switch (trace_reg) {
    case CGM_X86_REG_FPU: return CGM_X86_REG_ST0;
    case CGM_X86_REG_RIP: return RP_NO_REG;
    default: return trace_reg < CGM_X86_REG_COUNT ? trace_reg : RP_NO_REG;
    }
}

/* Adds the canonical registers of the trace's LIST to OUT (at most MAX,
 * each once, in the trace's order). */
static void add_regs(uint8_t *out, uint8_t *n, unsigned max, const uint8_t *list, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        unsigned c = rp_canonical_reg(list[i]);
        if (c == RP_NO_REG || memchr(out, (int)c, *n))
            continue;
        if (*n < max)
            out[(*n)++] = (uint8_t)c;
    }
}

static uint64_t hash_addr(uint64_t a) { return (a * 0x9E3779B97F4A7C15ull) >> 17; }

int rp_static_load(struct rp_static *s, struct cgm_reader *r, const char *trace_name, char *err,
                   size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (cgm_reader_find_section(r, CGM_X86_STATIC_SECTION) < 0) {
        snprintf(err, errlen, "%s: no \"%s\" section: not an x86 trace from tracegen", trace_name,
                 CGM_X86_STATIC_SECTION);
        return -1;
    }
    struct cgm_x86_static *e;
    size_t n;
    char why[512];
    if (cgm_x86_static_read(r, STATIC_SECTION_LIMIT, &e, &n, why, sizeof why)) {
        snprintf(err, errlen, "%s: static table: %s", trace_name, why);
        return -1;
    }
    s->insn = calloc(n ? n : 1, sizeof *s->insn);
    if (!s->insn) {
        free(e);
        snprintf(err, errlen, "%s: out of memory", trace_name);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct rp_sinsn *si = &s->insn[s->n++];
        si->addr = e[i].addr;
        si->len = e[i].len;
        si->cls = e[i].cls;
        si->nmem = e[i].nmem;
        add_regs(si->src, &si->nsrc, RP_SRC_MAX, e[i].src, e[i].nsrc);
        add_regs(si->dst, &si->ndst, RP_DST_MAX, e[i].dst, e[i].ndst);
    }
    free(e);
    size_t hsize = 16;
    while (hsize < 2 * s->n)
        hsize *= 2;
    s->hash = calloc(hsize, sizeof *s->hash);
    if (!s->hash) {
        snprintf(err, errlen, "%s: out of memory", trace_name);
        goto fail;
    }
    s->hmask = hsize - 1;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = hash_addr(s->insn[i].addr) & s->hmask;
        while (s->hash[k])
            k = (k + 1) & s->hmask;
        s->hash[k] = (uint32_t)(i + 1);
    }
    return 0;
fail:
    rp_static_free(s);
    return -1;
}

void rp_static_free(struct rp_static *s)
{
    free(s->insn);
    free(s->hash);
    memset(s, 0, sizeof *s);
}

const struct rp_sinsn *rp_static_find(const struct rp_static *s, uint64_t addr)
{
    if (!s->hash)
        return NULL;
    size_t k = hash_addr(addr) & s->hmask;
    while (s->hash[k]) {
        const struct rp_sinsn *si = &s->insn[s->hash[k] - 1];
        if (si->addr == addr)
            return si;
        k = (k + 1) & s->hmask;
    }
    return NULL;
}
