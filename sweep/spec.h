/* A sweep specification: the traces, the base configuration and the axes
 * whose product is the set of points. Parsed from text (the format is in
 * sweep/README.md); every key and value is checked against replay's
 * configuration table (rp_config_apply), so errors name the spec file, the
 * line and the key. */
#ifndef SWEEP_SPEC_H
#define SWEEP_SPEC_H

#include <stddef.h>

/* Bounds that keep a hostile or mistyped spec from allocating without limit. */
#define SWEEP_MAX_VALUES 10000   /* values of one axis */
#define SWEEP_MAX_POINTS 100000  /* points of the product */

/* One configuration assignment, its value in canonical text (numbers as
 * --print-config writes them, so 2000MHz reads 2GHz). */
struct sweep_setting {
    char *section, *key, *value;
    int line;
};

enum sweep_axis_kind {
    SWEEP_AXIS_KEY,    /* one configuration key: cache.l2.size = 128KiB..1MiB *2 */
    SWEEP_AXIS_VAR,    /* a name a trace template uses: workload = bfs, nw */
    SWEEP_AXIS_BUNDLE, /* [axis NAME]: named points, each a group of settings */
    SWEEP_AXIS_TRACE,  /* several trace lines: one value per trace */
};

struct sweep_value {
    char *label;                 /* what the table shows */
    struct sweep_setting *set;   /* what the value sets (KEY: one; BUNDLE: any) */
    size_t nset;
    int line;
};

struct sweep_axis {
    char *name;
    enum sweep_axis_kind kind;
    struct sweep_value *values;
    size_t nvalues;
    int line;
};

struct sweep_trace {
    char *path;   /* as written: relative paths are to the spec's folder; may hold {var} */
    char *label;  /* its file name without .cgt (the trace axis' value) */
    int line;
};

struct sweep_spec {
    char *file;                  /* the spec as named on the command line, for messages */
    char *dir;                   /* its folder */
    char *config;                /* base configuration as written, or NULL */
    int config_line;
    struct sweep_setting *base;  /* [base] */
    size_t nbase;
    struct sweep_trace *traces;
    size_t ntraces;
    char **metrics;              /* [sweep] metric = ... in order */
    size_t nmetrics;
    unsigned long long windows;  /* [sweep] windows = N: each point also writes its statistics
                                    every N CPU cycles (replay --windows N); 0: no windows */
    int windows_line;
    char **window_metrics;       /* [sweep] window_metric = ...: the columns of `sweep windows SPEC` */
    size_t nwindow_metrics;
    struct sweep_axis *axes;     /* in table order; the last varies fastest */
    size_t naxes;
    size_t npoints;              /* product of the axes' sizes */
};

/* Parses TEXT (LEN bytes; need not end in a NUL) read from FILE. On error
 * returns -1 with "FILE:LINE: message" in err and leaves *s empty. */
int sweep_spec_parse(struct sweep_spec *s, const char *file, const char *text, size_t len, char *err,
                     size_t errlen);

/* Reads and parses FILE. */
int sweep_spec_load(struct sweep_spec *s, const char *file, char *err, size_t errlen);

void sweep_spec_free(struct sweep_spec *s);

/* The axis called NAME, or NULL. */
const struct sweep_axis *sweep_spec_axis(const struct sweep_spec *s, const char *name);

/* The value index of each axis for point P (digits has naxes entries). */
void sweep_spec_digits(const struct sweep_spec *s, size_t p, size_t *digits);

#endif
