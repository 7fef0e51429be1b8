/* Decoded basic block cache: see decode_cache.h. */
#include "tracegen/x86/decode_cache.h"

#include <stdlib.h>

#include "cgm/check.h"
#include "tracegen/x86/decode.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/ops.h"

#define HASH_BITS 16
#define HASH_SIZE (1u << HASH_BITS)
#define JUMP_CACHE 4096

struct x86_code_cache {
    csh cs;
    struct gmem *mem;
    struct x86_block *hash[HASH_SIZE];
    struct x86_block *jump[JUMP_CACHE];   /* direct-mapped front of the hash */
    struct x86_block *graveyard;          /* invalidated, freed at next lookup */
    uint64_t *code_pages;                 /* pages marked GPROT_CODE */
    size_t ncode_pages, code_pages_cap;
    uint64_t decoded;
    uint64_t bytes;                       /* of the blocks in the hash */
    void (*on_decode)(void *ctx, const struct x86_block *b);
    void *on_decode_ctx;
    uint32_t next_id;
};

struct x86_code_cache *x86_code_cache_create(struct gmem *m)
{
    struct x86_code_cache *cc = calloc(1, sizeof *cc);
    if (!cc)
        return NULL;
    if (x86_decoder_open(&cc->cs) < 0) {
        free(cc);
        return NULL;
    }
    cc->mem = m;
    return cc;
}

static void free_list(struct x86_block *b)
{
    while (b) {
        struct x86_block *n = b->hash_next;
        free(b);
        b = n;
    }
}

void x86_code_cache_flush(struct x86_code_cache *cc)
{
    for (unsigned i = 0; i < HASH_SIZE; i++) {
        struct x86_block *b = cc->hash[i];
        while (b) {
            struct x86_block *n = b->hash_next;
            b->hash_next = cc->graveyard;
            cc->graveyard = b;
            b = n;
        }
        cc->hash[i] = NULL;
    }
    memset(cc->jump, 0, sizeof cc->jump);
    cc->bytes = 0;
    for (size_t i = 0; i < cc->ncode_pages; i++)
        gmem_set_code(cc->mem, cc->code_pages[i] << GPAGE_SHIFT, 0);
    cc->ncode_pages = 0;
}

void x86_code_cache_forget(struct x86_code_cache *cc, uint64_t addr, uint64_t len)
{
    uint64_t first = addr >> GPAGE_SHIFT;
    uint64_t last = len && addr + len - 1 >= addr ? (addr + len - 1) >> GPAGE_SHIFT : ~0ull;
    if (!len)
        return;
    for (size_t i = 0; i < cc->ncode_pages; i++)
        if (cc->code_pages[i] >= first && cc->code_pages[i] <= last) {
            x86_code_cache_flush(cc);
            return;
        }
}

void x86_code_cache_destroy(struct x86_code_cache *cc)
{
    if (!cc)
        return;
    for (unsigned i = 0; i < HASH_SIZE; i++)
        free_list(cc->hash[i]);
    free_list(cc->graveyard);
    free(cc->code_pages);
    cs_close(&cc->cs);
    free(cc);
}

void x86_code_invalidate(struct x86_cpu *c, uint64_t addr)
{
    struct x86_code_cache *cc = c->code;
    (void)addr;
    x86_code_cache_flush(cc);
    /* The running block was decoded before this write, which may have
     * changed what follows the current instruction: the next one of the
     * block is made to stop it (x86_process_run restarts there, decoding
     * again), as a processor sees its own stores to the code it runs. */
    if (!c->cur || c->restart_at)
        return;
    for (struct x86_block *b = cc->graveyard; b; b = b->hash_next)
        if (c->cur >= b->insn && c->cur < b->insn + b->ninsn) {
            size_t next = (size_t)(c->cur - b->insn) + 1;
            if (next < b->ninsn) {
                b->insn[next].run = XOP_UNIMPL;
                c->restart_at = &b->insn[next];
            }
            return;
        }
}

csh x86_code_cache_capstone(struct x86_code_cache *cc)
{
    return cc->cs;
}

uint64_t x86_code_cache_decoded(const struct x86_code_cache *cc)
{
    return cc->decoded;
}

uint64_t x86_code_cache_bytes(const struct x86_code_cache *cc)
{
    return cc->bytes + cc->code_pages_cap * sizeof *cc->code_pages;
}

static unsigned hash_of(uint64_t rip)
{
    return (unsigned)((rip * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS));
}

static void mark_code_page(struct x86_code_cache *cc, uint64_t addr)
{
    int prot;
    if (!gmem_page(cc->mem, addr, &prot) || (prot & GPROT_CODE))
        return;
    if (cc->ncode_pages == cc->code_pages_cap) {
        size_t cap = cc->code_pages_cap ? 2 * cc->code_pages_cap : 64;
        uint64_t *p = realloc(cc->code_pages, cap * sizeof *p);
        if (!p)
            cgm_oom("the list of guest code pages");
        cc->code_pages = p;
        cc->code_pages_cap = cap;
    }
    cc->code_pages[cc->ncode_pages++] = addr >> GPAGE_SHIFT;
    gmem_set_code(cc->mem, addr, 1);
}

/* Copies up to 15 instruction bytes at RIP from executable pages.
 * Returns how many were available. */
static size_t fetch(struct x86_code_cache *cc, uint64_t rip, uint8_t *buf)
{
    size_t n = 0;
    while (n < 15) {
        int prot;
        uint8_t *p = gmem_page(cc->mem, rip + n, &prot);
        if (!p || !(prot & GPROT_X))
            break;
        size_t off = (rip + n) & GPAGE_MASK, k = GPAGE_SIZE - off;
        if (k > 15 - n)
            k = 15 - n;
        memcpy(buf + n, p + off, k);
        n += k;
    }
    return n;
}

static struct x86_block *decode_block(struct x86_cpu *c, uint64_t rip)
{
    struct x86_code_cache *cc = c->code;
    struct x86_dinsn insns[X86_BLOCK_MAX_INSNS];
    unsigned n = 0;
    uint64_t pc = rip;
    while (n < X86_BLOCK_MAX_INSNS) {
        uint8_t buf[16];
        size_t avail = fetch(cc, pc, buf);
        if (avail == 0) {
            if (n == 0)
                x86_fault(c, XF_EXEC, pc);
            break;
        }
        struct x86_dinsn *in = &insns[n];
        if (!x86_decode(cc->cs, buf, avail, pc, in)) {
            if (n)
                break;
            /* undecodable (or cut by a non-executable page): stop here */
            memset(in, 0, sizeof *in);
            in->op = avail < 15 ? XOP_UNIMPL : XOP_UD2;
            in->run = (uint8_t)in->op;
            in->len = 1;
            in->next = pc + 1;
            in->aux = 0xff; /* marks "does not decode" */
        }
        mark_code_page(cc, pc);
        mark_code_page(cc, pc + in->len - 1);
        pc = in->next;
        n++;
        cc->decoded++;
        if (x86_insn_ends_block(in))
            break;
    }
    struct x86_block *b = malloc(sizeof *b + n * sizeof(struct x86_dinsn));
    if (!b)
        cgm_oom("a decoded block of guest instructions");
    cc->bytes += sizeof *b + n * sizeof(struct x86_dinsn);
    b->start = rip;
    b->end = pc;
    b->ninsn = n;
    b->id = cc->next_id++;
    memcpy(b->insn, insns, n * sizeof(struct x86_dinsn));
    unsigned h = hash_of(rip);
    b->hash_next = cc->hash[h];
    cc->hash[h] = b;
    if (cc->on_decode)
        cc->on_decode(cc->on_decode_ctx, b);
    return b;
}

struct x86_block *x86_block_get(struct x86_cpu *c, uint64_t rip)
{
    struct x86_code_cache *cc = c->code;
    struct x86_block *b = cc->jump[rip & (JUMP_CACHE - 1)];
    if (b && b->start == rip)
        return b;
    if (cc->graveyard) {
        free_list(cc->graveyard);
        cc->graveyard = NULL;
    }
    for (b = cc->hash[hash_of(rip)]; b; b = b->hash_next)
        if (b->start == rip)
            break;
    if (!b)
        b = decode_block(c, rip);
    cc->jump[rip & (JUMP_CACHE - 1)] = b;
    return b;
}

void x86_code_cache_on_decode(struct x86_code_cache *cc,
                              void (*fn)(void *ctx, const struct x86_block *b), void *ctx)
{
    cc->on_decode = fn;
    cc->on_decode_ctx = ctx;
}
