/* The Fetch-and-Replacement Cache's entries (frc.h). */
#include "frc.h"

#include <stdlib.h>

bool frc_init(struct frc *f, unsigned entries, unsigned ways, unsigned set_shift, unsigned low_bits)
{
    *f = (struct frc){ 0 };
    if (!entries)
        return true;
    if (!ways || ways > entries)
        ways = entries;
    if (entries % ways || cgm_cache_array_init(&f->a, entries / ways, ways, 64, set_shift))
        return false;
    cgm_cache_array_keep_low_bits(&f->a, low_bits);
    f->fill = calloc(entries, 1);
    return f->fill != NULL;
}

void frc_free(struct frc *f)
{
    if (frc_on(f))
        cgm_cache_array_free(&f->a);
    free(f->fill);
    *f = (struct frc){ 0 };
}

struct cgm_cache_line *frc_find(struct frc *f, uint64_t block)
{
    return frc_on(f) ? cgm_cache_find(&f->a, block) : NULL;
}

static bool never(const struct cgm_cache_line *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return false;
}

struct cgm_cache_line *frc_take(struct frc *f, uint64_t block, enum frc_state st)
{
    if (!frc_on(f))
        return NULL;
    struct cgm_cache_line *e = cgm_cache_victim(&f->a, block, never, NULL); /* a free entry only */
    if (!e)
        return NULL;
    cgm_cache_insert(&f->a, e, block, CGM_HINT_NORMAL);
    e->state = (uint8_t)st;
    e->dirty = false;
    return e;
}

void frc_retag(struct frc *f, struct cgm_cache_line *e, uint64_t block, enum frc_state st)
{
    cgm_cache_set_block(&f->a, e, block);
    e->state = (uint8_t)st;
}

void frc_release(struct frc *f, struct cgm_cache_line *e)
{
    (void)f;
    e->state = FRC_FREE;
}

unsigned frc_count(const struct frc *f, uint64_t block)
{
    if (!frc_on(f))
        return 0;
    unsigned n = 0;
    for (size_t i = 0; i < (size_t)f->a.sets * f->a.ways; i++)
        n += f->a.lines[i].state && f->a.lines[i].block == block;
    return n;
}
