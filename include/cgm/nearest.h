/* "Did you mean": the known name nearest to one a user mistyped, for the
 * messages that refuse an unknown configuration key, section or kernel. */
#ifndef CGM_NEAREST_H
#define CGM_NEAREST_H

#include <stddef.h>

/* The edit distance (insertions, deletions, substitutions) between A and
 * B, counted up to LIMIT + 1 (longer names are not compared further). */
size_t cgm_edit_distance(const char *a, const char *b, size_t limit);

/* The nearest of the candidates offered in turn, among those near enough
 * to suggest: at most a third of GIVEN's letters (at least one) differ.
 * Start from { NULL, 0 }; BEST stays NULL when none is near. Ties go to
 * the first offered. */
struct cgm_nearest {
    const char *best;
    size_t distance;
};
void cgm_nearest_offer(struct cgm_nearest *n, const char *given, const char *candidate);

#endif
