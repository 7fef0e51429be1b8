/* What a self-invalidating protocol (cgm_coh_protocol's
 * self_invalidating: vips-g) needs of its environment: the class of the
 * page of every request (cgm/page_class.h, from the requester's use of
 * the page as its TLB would learn it), and before the first request of a
 * page that turns it from private to shared, the previous owner's
 * downgrade of each of the page's blocks (CGM_OP_DOWNGRADE at its core);
 * requests to the page wait until they are all done. */
#include "memsys_internal.h"

#include "cgm/check.h"

#include <stdlib.h>
#include <string.h>

/* Downgrades are tagged apart from request records. */
#define DOWNGRADE_TAG (1ull << 63)

struct memsys_pages {
    struct cgm_page_class *pc;
    unsigned page_shift, blocks_per_page;
    uint32_t *downgrading;        /* [frame]: downgrades in flight or to be issued */
    struct pending { int core; uint64_t block; } *q; /* downgrades a core refused: asked again */
    unsigned nq, capq;
};

bool memsys_pages_create(struct cgm_memsys *m)
{
    if (!cgm_coh_protocol_of(m->coh, CGM_NODE_CORE)->self_invalidating)
        return true;
    struct memsys_pages *p = calloc(1, sizeof *p);
    if (!p)
        return false;
    m->pages = p;
    p->page_shift = 12;
    p->blocks_per_page = (1u << p->page_shift) >> m->block_shift;
    uint64_t frames = m->cfg.mem_bytes >> p->page_shift;
    p->downgrading = calloc(frames ? frames : 1, sizeof *p->downgrading);
    p->pc = cgm_page_class_create(frames);
    return p->downgrading && p->pc;
}

void memsys_pages_free(struct cgm_memsys *m)
{
    struct memsys_pages *p = m->pages;
    if (!p)
        return;
    cgm_page_class_destroy(p->pc);
    free(p->downgrading);
    free(p->q);
    free(p);
    m->pages = NULL;
}

const struct cgm_page_class *cgm_memsys_page_classes(const struct cgm_memsys *m)
{
    return m->pages ? m->pages->pc : NULL;
}

static void ask_downgrade(struct cgm_memsys *m, int core, uint64_t block)
{
    struct memsys_pages *p = m->pages;
    struct cgm_coh_req r = { .block = block, .tag = DOWNGRADE_TAG, .op = CGM_OP_DOWNGRADE };
    if (cgm_coh_access(m->coh, core, &r) >= 0)
        return;
    if (p->nq == p->capq) {
        unsigned cap = p->capq ? 2 * p->capq : 16;
        struct pending *q = realloc(p->q, cap * sizeof *q);
        if (!q) /* bounded by the blocks of the pages in transition */
            cgm_oom("memory system: downgrades to ask again");
        p->q = q;
        p->capq = cap;
    }
    p->q[p->nq++] = (struct pending){ core, block };
}

/* Asks again the downgrades a core refused (its victim queue was full). */
static void ask_again(struct cgm_memsys *m)
{
    struct memsys_pages *p = m->pages;
    unsigned n = p->nq;
    if (!n) /* and p->q may not exist yet */
        return;
    p->nq = 0;
    struct pending q[n];
    memcpy(q, p->q, n * sizeof *q);
    for (unsigned i = 0; i < n; i++)
        ask_downgrade(m, q[i].core, q[i].block);
}

int memsys_pages_request(struct cgm_memsys *m, unsigned agent, struct cgm_coh_req *r)
{
    struct memsys_pages *p = m->pages;
    if (!p || cgm_coh_op_is_sync(r->op))
        return 0;
    uint64_t frame = r->block / p->blocks_per_page;
    if (p->nq)
        ask_again(m);
    if (p->downgrading[frame])
        return -1;
    struct cgm_page_class_touch t = cgm_page_class_touch(p->pc, frame, agent);
    if (t.downgrade >= 0) {
        p->downgrading[frame] = p->blocks_per_page;
        for (unsigned i = 0; i < p->blocks_per_page; i++)
            ask_downgrade(m, t.downgrade, frame * p->blocks_per_page + i);
        if (p->downgrading[frame])
            return -1;
    }
    r->flags = (uint8_t)((r->flags & ~CGM_COH_SHARED) | (t.shared ? CGM_COH_SHARED : 0));
    return 0;
}

bool memsys_pages_downgraded(struct cgm_memsys *m, uint64_t tag, uint64_t block)
{
    if (!(tag & DOWNGRADE_TAG))
        return false;
    struct memsys_pages *p = m->pages;
    uint64_t frame = block / p->blocks_per_page;
    CGM_CHECK(p->downgrading[frame]);
    p->downgrading[frame]--;
    return true;
}
