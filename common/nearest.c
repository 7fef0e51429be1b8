/* Names near a mistyped one (cgm/nearest.h). */
#include "cgm/nearest.h"

#include <string.h>

enum { NAME_MAX_COMPARED = 128 };

size_t cgm_edit_distance(const char *a, const char *b, size_t limit)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > NAME_MAX_COMPARED || nb > NAME_MAX_COMPARED)
        return limit + 1;
    if ((na > nb ? na - nb : nb - na) > limit)
        return limit + 1;
    /* one row of the Wagner-Fischer table at a time */
    size_t row[NAME_MAX_COMPARED + 1];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
    }
    return row[nb] > limit ? limit + 1 : row[nb];
}

void cgm_nearest_offer(struct cgm_nearest *n, const char *given, const char *candidate)
{
    size_t limit = strlen(given) / 3;
    if (limit < 1)
        limit = 1;
    if (n->best) {
        if (n->distance == 0)
            return;
        if (n->distance - 1 < limit)
            limit = n->distance - 1; /* only a nearer one replaces it */
    }
    size_t d = cgm_edit_distance(given, candidate, limit);
    if (d <= limit) {
        n->best = candidate;
        n->distance = d;
    }
}
