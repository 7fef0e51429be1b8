/* Weighted sums of counters: see energy_sum.h. Unsigned arithmetic wraps,
 * so a sum that ends non-negative is exact whatever the order of its terms
 * (a core's committing cycles taken from its cycles). */
#include "replay/energy_sum.h"

#include <stdlib.h>

#include "cgm/check.h"

struct term {
    cgm_stat node;
    uint64_t weight;   /* femtojoules (two's complement when taken away) */
};

struct rp_esum {
    const struct cgm_stats *reg;
    unsigned n, cap;
    struct term t[];
};

static uint64_t read_sum(const void *ctx)
{
    const struct rp_esum *s = ctx;
    uint64_t v = 0;
    for (unsigned i = 0; i < s->n; i++)
        v += cgm_stats_read_one(s->reg, s->t[i].node) * s->t[i].weight;
    return v;
}

struct rp_esum *rp_esum_new(const struct cgm_stats *reg, unsigned cap)
{
    struct rp_esum *s = calloc(1, sizeof *s + cap * sizeof s->t[0]);
    if (!s)
        cgm_oom("the energy statistics");
    s->reg = reg;
    s->cap = cap;
    return s;
}

void rp_esum_add(struct rp_esum *s, cgm_stat node, int64_t weight)
{
    if (node < 0 || !weight)
        return;
    CGM_CHECK(s->n < s->cap);
    s->t[s->n++] = (struct term){ node, (uint64_t)weight };
}

void rp_esum_add_path(struct rp_esum *s, cgm_stat group, const char *path, int64_t weight)
{
    rp_esum_add(s, cgm_stats_find(s->reg, group, path), weight);
}

cgm_stat rp_esum_put(struct cgm_stats *reg, cgm_stat group, const char *name, struct rp_esum *s)
{
    const void *kept = cgm_stats_keep(reg, s, sizeof *s + s->n * sizeof s->t[0]);
    free(s);
    return kept ? cgm_stat_computed(reg, group, name, read_sum, kept) : -1;
}
