/* Private/shared classification of pages (cgm/page_class.h): per frame,
 * the cores that used it (sticky) and whether the GPU's TLB holds it. */
#include "cgm/page_class.h"
#include "cgm/bits.h"

#include <stdlib.h>

struct page {
    uint64_t cores;   /* bit per core that used it */
    bool gpu;         /* in the GPU's TLB */
};

struct cgm_page_class {
    struct page *p;
    uint64_t frames;
    struct cgm_page_class_stats st;
};

struct cgm_page_class *cgm_page_class_create(uint64_t frames)
{
    struct cgm_page_class *pc = calloc(1, sizeof *pc);
    if (!pc || !(pc->p = calloc(frames ? frames : 1, sizeof *pc->p))) {
        free(pc);
        return NULL;
    }
    pc->frames = frames;
    pc->st.pages[CGM_PAGE_UNUSED] = frames;
    return pc;
}

void cgm_page_class_destroy(struct cgm_page_class *pc)
{
    if (pc)
        free(pc->p);
    free(pc);
}

static enum cgm_page_kind kind_of(const struct page *p)
{
    bool one_core = cgm_pow2(p->cores);
    if (!p->cores)
        return p->gpu ? CGM_PAGE_PRIVATE_GPU : CGM_PAGE_UNUSED;
    return one_core && !p->gpu ? CGM_PAGE_PRIVATE_CPU : CGM_PAGE_SHARED;
}

/* p changes as change does; the counts follow. */
static void reclass(struct cgm_page_class *pc, struct page *p, struct page now)
{
    enum cgm_page_kind was = kind_of(p), is = kind_of(&now);
    *p = now;
    pc->st.pages[was]--;
    pc->st.pages[is]++;
    if (is == CGM_PAGE_SHARED && (was == CGM_PAGE_PRIVATE_CPU || was == CGM_PAGE_PRIVATE_GPU))
        pc->st.to_shared++;
    if (was == CGM_PAGE_SHARED && (is == CGM_PAGE_PRIVATE_CPU || is == CGM_PAGE_PRIVATE_GPU))
        pc->st.to_private++;
}

struct cgm_page_class_touch cgm_page_class_touch(struct cgm_page_class *pc, uint64_t pfn, unsigned agent)
{
    struct cgm_page_class_touch t = { .downgrade = -1 };
    if (pfn >= pc->frames)
        return (struct cgm_page_class_touch){ .shared = true, .downgrade = -1 };
    struct page *p = &pc->p[pfn], now = *p;
    enum cgm_page_kind was = kind_of(p);
    if (agent == CGM_PAGE_AGENT_GPU)
        now.gpu = true;
    else
        now.cores |= 1ull << agent;
    if (was == CGM_PAGE_PRIVATE_CPU && kind_of(&now) == CGM_PAGE_SHARED) {
        t.downgrade = __builtin_ctzll(p->cores);
        pc->st.downgrades++;
    }
    reclass(pc, p, now);
    t.shared = kind_of(p) == CGM_PAGE_SHARED;
    return t;
}

bool cgm_page_class_shared(const struct cgm_page_class *pc, uint64_t pfn)
{
    return pfn >= pc->frames || kind_of(&pc->p[pfn]) == CGM_PAGE_SHARED;
}

void cgm_page_class_gpu_left(struct cgm_page_class *pc, uint64_t pfn)
{
    if (pfn >= pc->frames || !pc->p[pfn].gpu)
        return;
    struct page now = pc->p[pfn];
    now.gpu = false;
    reclass(pc, &pc->p[pfn], now);
}

void cgm_page_class_forget(struct cgm_page_class *pc, uint64_t pfn)
{
    if (pfn < pc->frames)
        reclass(pc, &pc->p[pfn], (struct page){ 0 });
}

enum cgm_page_kind cgm_page_class_kind(const struct cgm_page_class *pc, uint64_t pfn)
{
    return pfn < pc->frames ? kind_of(&pc->p[pfn]) : CGM_PAGE_SHARED;
}

const struct cgm_page_class_stats *cgm_page_class_stats(const struct cgm_page_class *pc) { return &pc->st; }
