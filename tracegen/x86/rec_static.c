/* The x86.static section: see rec_static.h. */
#include "tracegen/x86/rec_static.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/trace.h"
#include "tracegen/x86/ops.h"
#include "tracegen/x86/recorder.h"
#include "tracegen/x86/static_info.h"

#define STATIC_SECTION_ID 0x7fff0001u

struct rec_static {
    struct cgm_writer *w;
    struct cgm_wstream *s;
    struct x86_code_cache *cc;
    struct gmem *mem;
    uint64_t prev;               /* the delta chain's last address */
    uint64_t *seen;              /* addresses described, + 1 (0: empty slot) */
    size_t nseen, seen_cap;      /* open addressing, power-of-two capacity */
    uint8_t *buf;                /* the record being built */
    size_t buf_cap;
    int failed;
};

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

/* Adds ADDR to the described set; 0 when it was there already, -1 when
 * out of memory. */
static int mark_seen(struct rec_static *t, uint64_t addr)
{
    if (2 * (t->nseen + 1) > t->seen_cap) {
        size_t cap = t->seen_cap ? 2 * t->seen_cap : 4096;
        uint64_t *v = calloc(cap, sizeof *v);
        if (!v)
            return -1;
        for (size_t i = 0; i < t->seen_cap; i++)
            if (t->seen[i]) {
                size_t k = slot_of(t->seen[i], cap);
                while (v[k])
                    k = (k + 1) & (cap - 1);
                v[k] = t->seen[i];
            }
        free(t->seen);
        t->seen = v;
        t->seen_cap = cap;
    }
    uint64_t key = addr + 1;
    size_t k = slot_of(key, t->seen_cap);
    while (t->seen[k]) {
        if (t->seen[k] == key)
            return 0;
        k = (k + 1) & (t->seen_cap - 1);
    }
    t->seen[k] = key;
    t->nseen++;
    return 1;
}

static void describe(struct rec_static *t, const struct x86_dinsn *in, struct cgm_x86_static *e)
{
    memset(e, 0, sizeof *e);
    e->addr = in->next - in->len;
    e->len = in->len;
    e->cls = (uint8_t)x86_insn_class(in);
    e->op = in->op;
    for (int k = 0; k < in->nops; k++)
        if (in->o[k].kind == OPK_MEM && in->op != XOP_LEA && in->op != XOP_NOP)
            e->nmem++;
    gmem_copy_in(t->mem, e->bytes, e->addr, e->len, NULL);
    x86_static_fill(x86_code_cache_capstone(t->cc), e);
}

/* A block was decoded: its new instructions become one record. */
static void on_decode(void *ctx, const struct x86_block *b)
{
    struct rec_static *t = ctx;
    if (t->failed)
        return;
    size_t need = (size_t)b->ninsn * CGM_X86_STATIC_BYTES_MAX;
    if (need > t->buf_cap) {
        uint8_t *nb = realloc(t->buf, need);
        if (!nb) {
            t->failed = 1;
            return;
        }
        t->buf = nb;
        t->buf_cap = need;
    }
    size_t len = 0;
    for (uint32_t i = 0; i < b->ninsn; i++) {
        const struct x86_dinsn *in = &b->insn[i];
        int fresh = mark_seen(t, in->next - in->len);
        if (fresh < 0) {
            t->failed = 1;
            return;
        }
        if (!fresh)
            continue;
        struct cgm_x86_static e;
        describe(t, in, &e);
        len += cgm_x86_static_encode(t->buf + len, &t->prev, &e);
    }
    if (len && cgm_wstream_append(t->s, t->buf, len, 0) != 0)
        t->failed = 1;
}

/* Another stream's chunk is about to be handed over: the entries of the
 * instructions it ran go first. */
static void before_chunk(void *ctx, const struct cgm_wstream *s)
{
    struct rec_static *t = ctx;
    if (s != t->s && !t->failed && cgm_wstream_flush(t->s) != 0)
        t->failed = 1;
}

struct rec_static *rec_static_open(struct cgm_writer *w, struct x86_code_cache *cc,
                                   struct gmem *m)
{
    struct rec_static *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    struct cgm_stream_info info = { .id = STATIC_SECTION_ID, .kind = CGM_STREAM_SECTION };
    snprintf(info.name, sizeof info.name, "%s", CGM_X86_STATIC_SECTION);
    t->s = cgm_writer_open_stream(w, &info);
    if (!t->s) {
        free(t);
        return NULL;
    }
    t->w = w;
    t->cc = cc;
    t->mem = m;
    x86_code_cache_on_decode(cc, on_decode, t);
    cgm_writer_on_chunk(w, before_chunk, t);
    return t;
}

int rec_static_close(struct rec_static *t)
{
    x86_code_cache_on_decode(t->cc, NULL, NULL);
    cgm_writer_on_chunk(t->w, NULL, NULL);
    int rc = cgm_wstream_close(t->s) || t->failed ? -1 : 0;
    free(t->seen);
    free(t->buf);
    free(t);
    return rc;
}
