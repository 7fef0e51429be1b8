/* Metrics: a small path syntax over replay's statistics JSON.
 *
 *   metric := term | term '/' term
 *   term   := path | FUNC '(' path ')'        FUNC: sum mean min max count
 *   path   := step ('.' step)*
 *   step   := NAME ('[' SEL ']')*
 *   SEL    := INDEX | '*' | TEXT    TEXT: the elements whose "name" or "kind" is TEXT
 *
 * cycles, dram.row_hits, cores[0].ipc, caches[core0.l1d].misses,
 * roi.cycles, sum(caches[l2].misses)/sum(caches[l2].accesses).
 * A bare path must select exactly one number; a function folds several.
 *
 *   column := metric | NAME '=' metric   NAME: letters, digits, _ - .
 *
 * l1d_miss = sum(caches[l1d].misses)/sum(caches[l1d].accesses): NAME is the
 * column's name in the table instead of the expression. */
#ifndef SWEEP_METRIC_H
#define SWEEP_METRIC_H

#include <stddef.h>

#include <cJSON.h>

struct sweep_metric;

/* Compiles TEXT, or NULL with a message naming the metric and the place. */
struct sweep_metric *sweep_metric_parse(const char *text, char *err, size_t errlen);

/* The metric's value in STATS, or -1 with a message that says which step
 * matched nothing and what was there instead. */
int sweep_metric_eval(const struct sweep_metric *m, const cJSON *stats, double *out, char *err, size_t errlen);

/* Whether M can be evaluated on statistics shaped as SHAPE (replay
 * --list-stats -o: the tree a run will report, every counter 0): each step
 * is there and a bare path selects one number. A selector on lists that
 * are empty before the run (histograms' buckets) is taken on trust, and a
 * zero divisor is no error. 0, or -1 with the message evaluating gives. */
int sweep_metric_check(const struct sweep_metric *m, const cJSON *shape, char *err, size_t errlen);

/* The table column's name: the alias, or the expression as written. */
const char *sweep_metric_column(const struct sweep_metric *m);

void sweep_metric_free(struct sweep_metric *m);

#endif
