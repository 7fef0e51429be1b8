/* A GPU L2 bank's fetches from below, timed (memsys_internal.h). */
#include "memsys_internal.h"

#include <stdlib.h>

#include "cgm/check.h"

static struct open_fetch *find(struct fetch_clock *c, uint64_t block)
{
    for (unsigned i = 0; i < c->n; i++)
        if (c->open[i].block == block)
            return &c->open[i];
    return NULL;
}

void fetch_clock_start(struct fetch_clock *c, uint64_t block, uint64_t now)
{
    if (find(c, block))
        return; /* sent again after a NACK: timed from the first try */
    if (c->n == c->cap) {
        unsigned cap = c->cap ? 2 * c->cap : 16;
        struct open_fetch *o = realloc(c->open, cap * sizeof *o);
        if (!o)
            cgm_oom("memory system: a GPU L2 bank's fetch clock");
        c->open = o;
        c->cap = cap;
    }
    c->open[c->n++] = (struct open_fetch){ block, now };
}

void fetch_clock_stop(struct fetch_clock *c, uint64_t block, uint64_t now)
{
    struct open_fetch *o = find(c, block);
    if (!o)
        return; /* an answer to no fetch of the bank's (a forward's data) */
    uint64_t took = now - o->since;
    c->st.fetches++;
    c->st.fetch_cycles += took;
    if (took > c->st.fetch_max)
        c->st.fetch_max = took;
    *o = c->open[--c->n];
}

void fetch_clock_free(struct fetch_clock *c)
{
    free(c->open);
    c->open = NULL;
    c->n = c->cap = 0;
}

const struct cgm_memsys_gpu_l2_timing *cgm_memsys_gpu_l2_timing(const struct cgm_memsys *m, unsigned bank)
{
    return &m->nodes[cgm_coh_gpu_l2_node(m->coh, (int)bank)].fetch.st;
}
