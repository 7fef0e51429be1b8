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

/* The values to draw: nlines x nx, NAN where a point has no value. */
struct plot_data {
    char **xs, **ls;
    size_t nx, nl;
    double *v;
};

/* Selects and scales the table's values (speedup: baseline / value;
 * normalise: value / baseline). Returns 0 or -1 with a message. */
int sweep_plot_data(const struct csv *t, const struct plot_opts *o, struct plot_data *d, char *err, size_t errlen);
void sweep_plot_data_free(struct plot_data *d);

/* The command line: sweep plot TABLE.csv --metric ... */
int sweep_plot_main(int argc, char **argv);

#endif
