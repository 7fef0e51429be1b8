/* Cache arrays with their lines' protocol fields (struct coh_array). */
#include "coh_internal.h"

#include <stdlib.h>

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
