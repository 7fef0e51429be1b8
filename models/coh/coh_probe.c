/* Looking into the caches without a request: what a DMA engine that reads
 * the last-level cache when the block is there needs to know. */
#include "cgm/cache.h"
#include "coh_internal.h"

bool cgm_coh_l3_holds(const struct cgm_coh_sys *s, uint64_t block)
{
    const struct slice *sl = &s->slices[cgm_coh_slice_of(s, block)];
    /* cgm_cache_find reads the array and changes nothing */
    const struct cgm_cache_line *l = cgm_cache_find((struct cgm_cache_array *)&sl->l3.a, block);
    return l != NULL;
}
