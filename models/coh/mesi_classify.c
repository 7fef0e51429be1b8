/* The halves every cache of the protocol is built from: the arrays with
 * their lines' protocol fields, how a first-level access and a directory
 * request are classified into the substates the tables name, and the
 * write-back queues both keep. */
#include "mesi_internal.h"

#include <stdlib.h>

enum l1_sub l1_classify(const struct cgm_cache_line *l, const struct core_wb *wb, bool wb_writable)
{
    if (l) {
        switch (l->state) {
        case MESI_M: return L1_M;
        case MESI_E: return L1_E;
        case MESI_S: return L1_S;
        case MESI_SM: return L1_S_PENDING_UPGRADE;
        default: break;
        }
    }
    if (wb)
        return wb_writable ? L1_I_WB_WRITABLE : L1_I_WB_NON_WRITABLE;
    return L1_I;
}

bool coh_array_init(struct coh_array *ca, unsigned sets, unsigned ways, unsigned set_shift, unsigned holders)
{
    *ca = (struct coh_array){ .holder_words = holders > 64 ? (holders + 63) / 64 : 1 };
    if (cgm_cache_array_init(&ca->a, sets, ways, 64, set_shift))
        return false;
    size_t n = (size_t)sets * ways;
    ca->line = malloc(n * sizeof *ca->line);
    if (ca->holder_words > 1)
        ca->holders_ext = calloc(n * (ca->holder_words - 1), sizeof *ca->holders_ext);
    if (!ca->line || (ca->holder_words > 1 && !ca->holders_ext)) {
        coh_array_free(ca);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        ca->line[i] = (struct coh_line){ .owner = -1 };
    return true;
}

void coh_array_free(struct coh_array *ca)
{
    cgm_cache_array_free(&ca->a);
    free(ca->line);
    free(ca->holders_ext);
    ca->line = NULL;
    ca->holders_ext = NULL;
}

void coh_line_clear(struct coh_array *ca, struct cgm_cache_line *l)
{
    coh_holders_clear(ca, l);
    *coh_meta(ca, l) = (struct coh_line){ .owner = -1 };
    *l = (struct cgm_cache_line){ 0 };
}

bool wbq_init(struct core_wbq *q, unsigned n)
{
    *q = (struct core_wbq){ .e = calloc(n, sizeof *q->e), .n = n };
    return q->e != NULL;
}

static struct core_wb *wbq_scan(const struct core_wbq *q, uint64_t block)
{
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].used && q->e[i].block == block)
            return &q->e[i];
    return NULL;
}

struct core_wb *wbq_find(const struct core_wbq *q, uint64_t block)
{
    if (!(q->filter & wbq_bit(block))) {
        CGM_CHECK(!wbq_scan(q, block));
        return NULL;
    }
    return wbq_scan(q, block);
}

struct core_wb *wbq_free(const struct core_wbq *q)
{
    for (unsigned i = 0; i < q->n; i++)
        if (!q->e[i].used)
            return &q->e[i];
    return NULL;
}

void wbq_take(struct core_wbq *q, struct core_wb *slot, struct core_wb w)
{
    CGM_CHECK(!slot->used && w.used);
    *slot = w;
    q->filter |= wbq_bit(w.block);
}

void wbq_release(struct core_wbq *q, struct core_wb *w)
{
    w->used = false;
    q->filter = 0;
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].used)
            q->filter |= wbq_bit(q->e[i].block);
}

enum dir_req dir_req_of(uint8_t msg_type)
{
    switch (msg_type) {
    case COH_GETS: return DREQ_FETCH;
    case COH_GET: return DREQ_LOAD;
    case COH_UPGRADE: return DREQ_UPGRADE;
    default: return DREQ_STORE;
    }
}

enum dir_sub dir_held_sub(bool m, bool owned, bool held)
{
    if (owned)
        return m ? DIR_M_OWNED : DIR_E_OWNED;
    if (held)
        return m ? DIR_M_HELD : DIR_E_HELD;
    return m ? DIR_M : DIR_E;
}

enum dir_sub dir_pending_sub(uint8_t st, bool owned)
{
    if (st == MESI_M)
        return owned ? DIR_M_PENDING_OWNED : DIR_M_PENDING;
    if (st == MESI_E)
        return owned ? DIR_E_PENDING_OWNED : DIR_E_PENDING;
    return owned ? DIR_S_PENDING_OWNED : DIR_S_PENDING;
}

bool dwbq_init(struct dir_wbq *q, unsigned n)
{
    *q = (struct dir_wbq){ .e = calloc(n, sizeof *q->e), .n = n };
    return q->e != NULL;
}

static struct dir_wb *dwbq_scan(const struct dir_wbq *q, uint64_t block)
{
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].state && q->e[i].block == block)
            return &q->e[i];
    return NULL;
}

struct dir_wb *dwbq_find(const struct dir_wbq *q, uint64_t block)
{
    if (!(q->filter & wbq_bit(block))) {
        CGM_CHECK(!dwbq_scan(q, block));
        return NULL;
    }
    return dwbq_scan(q, block);
}

struct dir_wb *dwbq_free(const struct dir_wbq *q)
{
    for (unsigned i = 0; i < q->n; i++)
        if (!q->e[i].state)
            return &q->e[i];
    return NULL;
}

void dwbq_take(struct dir_wbq *q, struct dir_wb *slot, uint64_t block, uint8_t state)
{
    CGM_CHECK(!slot->state && state);
    slot->block = block;
    slot->state = state;
    q->filter |= wbq_bit(block);
}

void dwbq_release(struct dir_wbq *q, struct dir_wb *wb)
{
    wb->state = 0;
    q->filter = 0;
    for (unsigned i = 0; i < q->n; i++)
        if (q->e[i].state)
            q->filter |= wbq_bit(q->e[i].block);
}

/* A line that may leave without a flush: settled, nothing pending, no holder. */
static bool quiet(const struct cgm_cache_line *l, void *ctx)
{
    const struct coh_array *a = ctx;
    const struct coh_line *d = coh_meta(a, l);
    return (l->state == MESI_S || l->state == MESI_E || l->state == MESI_M) && !d->pending && d->owner < 0 &&
           coh_holders_empty(a, l);
}

enum dir_sub dir_absent_sub(struct coh_array *a, const struct dir_wb *wb, uint64_t block,
                            struct cgm_cache_line **victim)
{
    if (!wb)
        return DIR_I;
    if (wb->state == DWB_FLUSHING)
        return DIR_I_WB_FLUSH_CONFLICT;
    if (wb->state == DWB_WRITING)
        return DIR_I_WB_NON_WRITABLE;
    struct cgm_cache_line *v = cgm_cache_victim(&a->a, block, quiet, a);
    if (!v || (v->state && !quiet(v, a)))
        return DIR_I_WB_DIR_CONFLICT;
    *victim = v;
    return DIR_I_WB_WRITABLE;
}
