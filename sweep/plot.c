/* sweep plot (plot.h). */
#include "sweep/plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sweep/util.h"

extern char **environ;

static long column(const struct csv *t, const char *name, const char *what, char *err, size_t errlen)
{
    long c = csv_column(t, name);
    if (c < 0) {
        size_t n = (size_t)snprintf(err, errlen, "%s: no column '%s' in the table (columns:", what, name);
        for (size_t i = 0; i < t->ncols; i++)
            n += (size_t)snprintf(err + n, n < errlen ? errlen - n : 0, "%s %s", i ? "," : "", t->header[i]);
        snprintf(err + n, n < errlen ? errlen - n : 0, ")");
    }
    return c;
}

/* Index of TEXT in the list, appended when new. */
static size_t intern(char ***list, size_t *n, const char *text)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i], text))
            return i;
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[*n] = xstrdup(text);
    return (*n)++;
}

struct match {
    long col;
    const char *value;
};

/* The rows matching every condition: how many, and the first. */
static size_t find_rows(const struct csv *t, const struct match *m, size_t nm, size_t *first)
{
    size_t count = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        size_t k = 0;
        while (k < nm && !strcmp(t->rows[r][m[k].col], m[k].value))
            k++;
        if (k == nm && !count++)
            *first = r;
    }
    return count;
}

static double cell_value(const struct csv *t, size_t r, long col, long status, char *err, size_t errlen, int *rc)
{
    const char *v = t->rows[r][col];
    if (!*v || (status >= 0 && strcmp(t->rows[r][status], "done")))
        return NAN;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (*end || errno) {
        snprintf(err, errlen, "row %zu: %s value '%s' is not a number", r + 2, t->header[col], v);
        *rc = -1;
    }
    return x;
}

static void describe_match(const struct csv *t, const struct match *m, size_t nm, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t k = 0; k < nm; k++)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s", k ? ", " : "", t->header[m[k].col],
                              m[k].value);
}

/* Row R passes every --where condition (WC: their columns). */
static bool kept(const struct csv *t, size_t r, const struct plot_opts *o, const long *wc)
{
    for (size_t k = 0; k < o->nwhere; k++)
        if (strcmp(t->rows[r][wc[k]], o->where[k].value))
            return false;
    return true;
}

/* Conditions that pick a cell's baseline: the cell's own coordinates
 * (where, x, lines) with the baseline's columns replaced. */
static size_t baseline_match(const struct csv *t, const struct plot_opts *o, const long *wc, long xc, long lc,
                             const long *bc, size_t row, struct match *m)
{
    size_t n = 0;
    for (size_t k = 0; k < o->nbase; k++)
        m[n++] = (struct match){ bc[k], o->base[k].value };
    const long own[2] = { xc, lc };
    for (size_t k = 0; k < o->nwhere + 2; k++) {
        long c = k < o->nwhere ? wc[k] : own[k - o->nwhere];
        if (c < 0)
            continue;
        size_t q = 0;
        while (q < n && m[q].col != c)
            q++;
        if (q == n)
            m[n++] = (struct match){ c, k < o->nwhere ? o->where[k].value : t->rows[row][c] };
    }
    return n;
}

int sweep_plot_data(const struct csv *t, const struct plot_opts *o, struct plot_data *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    long mc = column(t, o->metric, "--metric", err, errlen);
    long xc = mc < 0 ? -1 : column(t, o->x, "--x", err, errlen);
    long lc = -1, status = csv_column(t, "status");
    if (mc < 0 || xc < 0 || (o->lines && (lc = column(t, o->lines, "--lines", err, errlen)) < 0))
        return -1;
    long *wc = xcalloc(o->nwhere + 1, sizeof *wc), *bc = xcalloc(o->nbase + 1, sizeof *bc);
    int rc = 0;
    for (size_t k = 0; k < o->nwhere && !rc; k++)
        if ((wc[k] = column(t, o->where[k].column, "--where", err, errlen)) < 0)
            rc = -1;
    for (size_t k = 0; k < o->nbase && !rc; k++)
        if ((bc[k] = column(t, o->base[k].column, "baseline", err, errlen)) < 0)
            rc = -1;
    size_t *cell_row = NULL;
    for (size_t r = 0; r < t->nrows && !rc; r++) {
        if (!kept(t, r, o, wc))
            continue;
        intern(&d->xs, &d->nx, t->rows[r][xc]);
        intern(&d->ls, &d->nl, lc >= 0 ? t->rows[r][lc] : o->metric);
    }
    if (!rc && !d->nx) {
        snprintf(err, errlen, "no row of the table matches the --where conditions");
        rc = -1;
    }
    if (!rc) {
        d->v = xmalloc(d->nx * d->nl * sizeof *d->v);
        cell_row = xmalloc(d->nx * d->nl * sizeof *cell_row);
        for (size_t i = 0; i < d->nx * d->nl; i++) {
            d->v[i] = NAN;
            cell_row[i] = (size_t)-1;
        }
    }
    for (size_t r = 0; r < t->nrows && !rc; r++) {
        if (!kept(t, r, o, wc))
            continue;
        size_t xi = intern(&d->xs, &d->nx, t->rows[r][xc]);
        size_t li = intern(&d->ls, &d->nl, lc >= 0 ? t->rows[r][lc] : o->metric);
        size_t *at = &cell_row[li * d->nx + xi];
        if (*at != (size_t)-1) {
            size_t c = 0;
            while (c < t->ncols && !strcmp(t->rows[r][c], t->rows[*at][c]))
                c++;
            snprintf(err, errlen, "rows %zu and %zu both give %s=%s%s%s%s: column %s differs; choose one with --where "
                     "%s=VALUE", *at + 2, r + 2, o->x, t->rows[r][xc], lc >= 0 ? ", " : "", lc >= 0 ? o->lines : "",
                     lc >= 0 ? "=" : "", c < t->ncols ? t->header[c] : "?", c < t->ncols ? t->header[c] : "?");
            rc = -1;
            break;
        }
        *at = r;
        d->v[li * d->nx + xi] = cell_value(t, r, mc, status, err, errlen, &rc);
    }
    struct match *m = xcalloc(o->nbase + o->nwhere + 2, sizeof *m);
    for (size_t i = 0; i < d->nx * d->nl && !rc && o->scale != PLOT_RAW; i++) {
        if (cell_row[i] == (size_t)-1)
            continue;
        size_t nm = baseline_match(t, o, wc, xc, lc, bc, cell_row[i], m), first = 0;
        size_t found = find_rows(t, m, nm, &first);
        if (found != 1) {
            char what[512];
            describe_match(t, m, nm, what, sizeof what);
            snprintf(err, errlen, found ? "several rows are the baseline of %s: fix the other axes with --where or "
                                          "name them in the baseline"
                                        : "no row is the baseline (%s)",
                     what);
            rc = -1;
            break;
        }
        double b = cell_value(t, first, mc, status, err, errlen, &rc);
        d->v[i] = o->scale == PLOT_SPEEDUP ? b / d->v[i] : d->v[i] / b;
        if (!isfinite(d->v[i]))
            d->v[i] = NAN;
    }
    free(m);
    free(cell_row);
    free(wc);
    free(bc);
    if (rc)
        sweep_plot_data_free(d);
    return rc;
}

void sweep_plot_data_free(struct plot_data *d)
{
    for (size_t i = 0; i < d->nx; i++)
        free(d->xs[i]);
    for (size_t i = 0; i < d->nl; i++)
        free(d->ls[i]);
    free(d->xs);
    free(d->ls);
    free(d->v);
    memset(d, 0, sizeof *d);
}

int sweep_plot_reference(struct plot_data *d, const struct csv *ref, const char *name, char *err, size_t errlen)
{
    if (ref->ncols < 2) {
        snprintf(err, errlen, "%s: needs an x column and at least one column of values", name);
        return -1;
    }
    size_t nl = d->nl + ref->ncols - 1;
    double *v = xmalloc(nl * d->nx * sizeof *v);
    memcpy(v, d->v, d->nl * d->nx * sizeof *v);
    for (size_t i = d->nl * d->nx; i < nl * d->nx; i++)
        v[i] = NAN;
    bool *seen = xcalloc(d->nx + 1, sizeof *seen);
    int rc = 0;
    for (size_t r = 0; r < ref->nrows && !rc; r++) {
        size_t x = 0;
        while (x < d->nx && strcmp(d->xs[x], ref->rows[r][0]))
            x++;
        if (x == d->nx || seen[x]) {
            snprintf(err, errlen, "%s:%zu: %s '%s' %s", name, r + 2, ref->header[0], ref->rows[r][0],
                     x == d->nx ? "is not among the plot's x values" : "appears twice");
            rc = -1;
            break;
        }
        seen[x] = true;
        for (size_t c = 1; c < ref->ncols && !rc; c++) {
            const char *text = ref->rows[r][c];
            if (!*text)
                continue;
            char *end;
            errno = 0;
            double value = strtod(text, &end);
            if (*end || errno || !isfinite(value)) {
                snprintf(err, errlen, "%s:%zu: %s value '%s' is not a number", name, r + 2, ref->header[c], text);
                rc = -1;
            }
            v[(d->nl + c - 1) * d->nx + x] = value;
        }
    }
    free(seen);
    if (rc) {
        free(v);
        return -1;
    }
    free(d->v);
    d->v = v;
    d->ls = xrealloc(d->ls, nl * sizeof *d->ls);
    for (size_t c = 1; c < ref->ncols; c++)
        d->ls[d->nl + c - 1] = xstrdup(ref->header[c]);
    d->nref += ref->ncols - 1;
    d->nl = nl;
    return 0;
}
