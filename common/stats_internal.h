/* The registry's nodes, shared by the registry and its JSON writer. */
#ifndef CGM_STATS_INTERNAL_H
#define CGM_STATS_INTERNAL_H

#include "cgm/stats.h"

enum stat_kind {
    STAT_OBJECT, STAT_ARRAY,
    STAT_COUNTER, STAT_COMPUTED, STAT_HISTOGRAM, STAT_PEAK,                /* in the snapshot */
    STAT_LABEL, STAT_ID, STAT_CONSTANT, STAT_RATIO                         /* computed when printed */
};

struct stat_node {
    uint8_t kind;                  /* enum stat_kind */
    char *name;                    /* NULL: an array element, or a hidden constant or ratio */
    cgm_stat parent, first, last, next;
    unsigned count;                /* groups: members */
    size_t slot;                   /* first slot in a snapshot */
    unsigned n;                    /* slots taken */
    const uint64_t *p;             /* counter, peak, histogram */
    cgm_stat_fn fn;                /* computed counter or peak (instead of p) */
    const void *ctx;
    char *text;                    /* label */
    const char *ref;               /* label read when printing (cgm_stat_label_ref) */
    double v;                      /* constant, id */
    cgm_stat num, den;             /* ratio */
    double mul, div;
};

struct cgm_stats {
    struct stat_node *nodes;
    size_t n, cap;
    size_t slots;
    bool failed;
    void **kept;                   /* cgm_stats_keep's copies */
    size_t nkept;
};

cgm_stat stats_node_new(struct cgm_stats *s, cgm_stat parent, enum stat_kind kind, const char *name);

#endif
