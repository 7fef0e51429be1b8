/* Loading the x86 static table and deriving register dependencies. */
#include "replay/x86_static.h"

#include <capstone/capstone.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/x86rec.h"

/* Static tables are small (one entry per instruction the guest ran); this
 * bounds what a hostile file can make us allocate. */
#define STATIC_SECTION_LIMIT (256u << 20)

static uint8_t canon[X86_REG_ENDING];
static pthread_once_t canon_once = PTHREAD_ONCE_INIT;

/* Full-register name of a capstone register name. */
static void family(const char *name, char *out, size_t len)
{
    static const char *const legacy[][6] = {
        { "rax", "eax", "ax", "al", "ah", NULL }, { "rbx", "ebx", "bx", "bl", "bh", NULL },
        { "rcx", "ecx", "cx", "cl", "ch", NULL }, { "rdx", "edx", "dx", "dl", "dh", NULL },
        { "rsi", "esi", "si", "sil", NULL, NULL }, { "rdi", "edi", "di", "dil", NULL, NULL },
        { "rbp", "ebp", "bp", "bpl", NULL, NULL }, { "rsp", "esp", "sp", "spl", NULL, NULL },
        { "rip", "eip", "ip", NULL, NULL, NULL }, { "flags", "eflags", "rflags", NULL, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++)
        for (size_t j = 0; legacy[i][j]; j++)
            if (!strcmp(name, legacy[i][j])) {
                snprintf(out, len, "%s", legacy[i][0]);
                return;
            }
    unsigned n;
    char suffix[4] = "";
    if (sscanf(name, "r%u%3s", &n, suffix) >= 1 && n >= 8 && n <= 15) {
        snprintf(out, len, "r%u", n);           /* r8d, r8w, r8b -> r8 */
        return;
    }
    if ((sscanf(name, "xmm%u", &n) == 1 || sscanf(name, "ymm%u", &n) == 1 ||
         sscanf(name, "zmm%u", &n) == 1) && n < 32) {
        snprintf(out, len, "xmm%u", n);
        return;
    }
    /* The x87 stack renames by position: treat it as one register, which
     * serialises x87 code as its top-of-stack dependencies mostly do. */
    if (!strncmp(name, "st", 2) || !strncmp(name, "fp", 2))
        snprintf(out, len, "x87");
    else
        snprintf(out, len, "%s", name);
}

static void build_canon(void)
{
    csh h;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
        return;
    char names[RP_REGS_MAX][16];
    unsigned count = 0;
    for (unsigned r = 1; r < X86_REG_ENDING; r++) {
        const char *nm = cs_reg_name(h, r);
        char f[16];
        family(nm ? nm : "?", f, sizeof f);
        unsigned id = 0;
        while (id < count && strcmp(names[id], f))
            id++;
        if (id == count) {
            if (count < RP_REGS_MAX - 1)
                snprintf(names[count++], sizeof names[0], "%s", f);
            else
                id = RP_REGS_MAX - 1;
        }
        canon[r] = (uint8_t)id;
    }
    cs_close(&h);
}

unsigned rp_canonical_reg(unsigned capstone_reg)
{
    pthread_once(&canon_once, build_canon);
    return capstone_reg < X86_REG_ENDING ? canon[capstone_reg] : RP_REGS_MAX - 1;
}

static void add_reg(uint8_t *list, uint8_t *n, unsigned max, unsigned reg)
{
    for (unsigned i = 0; i < *n; i++)
        if (list[i] == reg)
            return;
    if (*n < max)
        list[(*n)++] = (uint8_t)reg;
}

static void derive_regs(csh h, cs_insn *ci, struct rp_sinsn *s, unsigned *undecodable,
                        const uint8_t *bytes)
{
    const uint8_t *code = bytes;
    size_t size = s->len;
    uint64_t addr = s->addr;
    if (!cs_disasm_iter(h, &code, &size, &addr, ci)) {
        (*undecodable)++;
        return;
    }
    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    if (cs_regs_access(h, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK) {
        (*undecodable)++;
        return;
    }
    unsigned rip = rp_canonical_reg(X86_REG_RIP);
    for (unsigned i = 0; i < nrd; i++) {
        unsigned c = rp_canonical_reg(rd[i]);
        if (c != rip) /* the PC is known at fetch: not a data dependency */
            add_reg(s->src, &s->nsrc, RP_SRC_MAX, c);
    }
    for (unsigned i = 0; i < nwr; i++) {
        unsigned c = rp_canonical_reg(wr[i]);
        if (c != rip)
            add_reg(s->dst, &s->ndst, RP_DST_MAX, c);
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
    uint8_t *data;
    size_t len;
    char why[512];
    if (cgm_reader_read_section(r, CGM_X86_STATIC_SECTION, STATIC_SECTION_LIMIT, &data, &len, why,
                                sizeof why)) {
        snprintf(err, errlen, "%s: static table: %s", trace_name, why);
        return -1;
    }
    /* Each entry takes at least 5 bytes: an upper bound for the array. */
    size_t cap = len / 5 + 1;
    s->insn = calloc(cap, sizeof *s->insn);
    csh h;
    cs_insn *ci = NULL;
    if (!s->insn || cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
        free(data);
        free(s->insn);
        snprintf(err, errlen, "%s: out of memory or capstone unavailable", trace_name);
        return -1;
    }
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    ci = cs_malloc(h);
    const uint8_t *p = data, *end = data + len;
    uint64_t prev = 0, last = 0;
    int rc = 0;
    while (p < end) {
        struct cgm_x86_static e;
        size_t at = (size_t)(p - data);
        if (cgm_x86_static_decode(&p, end, &prev, &e)) {
            snprintf(err, errlen, "%s: static table: malformed entry at byte %zu of the section",
                     trace_name, at);
            rc = -1;
            break;
        }
        if (s->n && e.addr <= last) {
            snprintf(err, errlen, "%s: static table: entry at byte %zu (address 0x%llx) is out of order",
                     trace_name, at, (unsigned long long)e.addr);
            rc = -1;
            break;
        }
        last = e.addr;
        struct rp_sinsn *si = &s->insn[s->n++];
        si->addr = e.addr;
        si->len = e.len;
        si->cls = e.cls;
        si->nmem = e.nmem;
        derive_regs(h, ci, si, &s->undecodable, e.bytes);
    }
    cs_free(ci, 1);
    cs_close(&h);
    free(data);
    if (rc)
        goto fail;
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
