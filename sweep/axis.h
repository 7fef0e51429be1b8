/* The values of an axis: lists and ranges of one key or name, named groups
 * of settings; each setting checked by replay's configuration table. Used
 * by the spec reader (spec.c). */
#ifndef SWEEP_AXIS_H
#define SWEEP_AXIS_H

#include <stddef.h>

#include "sweep/spec.h"

/* Where a spec is being read from, and where its first error goes. */
struct spec_ctx {
    const char *file;
    char *err;
    size_t errlen;
};

/* Formats "FILE:LINE: message" (LINE 0: "FILE: message"); returns -1. */
int spec_error(struct spec_ctx *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* NAME (section.key) = VALUE checked against the configuration table;
 * fills OUT with the value in canonical text. */
int spec_setting(struct spec_ctx *c, const char *name, const char *value, int line, struct sweep_setting *out);

/* Appends the values of TEXT ("1GHz, 2GHz", "128KiB..1MiB *2", "1..8 +1")
 * to axis A (a key or a variable). */
int axis_parse_values(struct spec_ctx *c, struct sweep_axis *a, const char *text, int line);

/* Appends the value LABEL = "key=value, key=value" to bundle axis A. */
int axis_add_bundle(struct spec_ctx *c, struct sweep_axis *a, const char *label, const char *settings, int line);

/* Refuses two values of A with the same label ("WHAT LABEL appears twice"). */
int axis_check_unique(struct spec_ctx *c, const struct sweep_axis *a, const char *what);

/* The distinct keys an axis sets (pointers into its values). */
struct axis_keys {
    const struct sweep_setting **set;
    size_t n;
};
void axis_keys(const struct sweep_axis *a, struct axis_keys *out);

#endif
