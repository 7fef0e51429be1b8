/* `sweep plot`: one metric of a sweep table against one axis, one line (or
 * bar) per value of another, the other axes fixed by --where, optionally as
 * speedups over (or normalised to) a baseline point; drawn by gnuplot to
 * SVG and PNG. The data and the gnuplot script are kept beside them. */
#ifndef SWEEP_PLOT_H
#define SWEEP_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep/csv.h"

struct plot_cond {
    const char *column, *value;
};

enum plot_scale { PLOT_RAW, PLOT_SPEEDUP, PLOT_NORMALISE };

struct plot_opts {
    const char *metric, *x, *lines;
    struct plot_cond *where;   /* rows kept */
    size_t nwhere;
    struct plot_cond *base;    /* the baseline: these columns replaced in each cell's own coordinates */
    size_t nbase;
    enum plot_scale scale;
};

/* The values to draw: nlines x nx, NAN where a point has no value. The
 * last NREF lines are reference values (published figures), not the table's. */
struct plot_data {
    char **xs, **ls;
    size_t nx, nl, nref;
    double *v;
};

/* Selects and scales the table's values (speedup: baseline / value;
 * normalise: value / baseline). Returns 0 or -1 with a message. */
int sweep_plot_data(const struct csv *t, const struct plot_opts *o, struct plot_data *d, char *err, size_t errlen);
void sweep_plot_data_free(struct plot_data *d);

/* Appends the reference table REF (named NAME in messages) as lines: its
 * first column holds x values, each other column is a line named by its
 * header. An x value the plot does not have, a repeated one, or a cell
 * that is neither empty nor a number is an error (-1 with a message); x
 * values the reference lacks are NAN. */
int sweep_plot_reference(struct plot_data *d, const struct csv *ref, const char *name, char *err, size_t errlen);

/* The command line: sweep plot TABLE.csv --metric ... */
int sweep_plot_main(int argc, char **argv);

#endif
