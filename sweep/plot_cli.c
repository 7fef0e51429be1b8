/* sweep plot's command line and its gnuplot script (plot.h). */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sweep/plot.h"
#include "sweep/util.h"

extern char **environ;

static void plot_usage(FILE *out)
{
    fputs("usage: sweep plot TABLE.csv --metric COLUMN --x AXIS [--lines AXIS]\n"
          "                  [--where AXIS=VALUE]... [--speedup AXIS=VALUE[,AXIS=VALUE]...]\n"
          "                  [--normalise AXIS=VALUE[,...]] [--style lines|bars] [--logy] [--yzero]\n"
          "                  [--reference FILE] [--title TEXT] [-o PREFIX]\n"
          "\n"
          "Draws one column of a sweep table (DIR/table.csv) against the values of one\n"
          "axis, one line (or bar) per value of another, with gnuplot, to PREFIX.svg\n"
          "and PREFIX.png; PREFIX.dat and PREFIX.gp (the data and the script) stay\n"
          "beside them for retouching, and PREFIX.md holds the drawn values as a\n"
          "markdown table.\n"
          "\n"
          "  --metric COLUMN   the column drawn (a metric of the table)\n"
          "  --x AXIS          the horizontal axis: the column's values in table order\n"
          "  --lines AXIS      one line (or bar) per value of this column\n"
          "  --where A=V       keep the rows whose column A is V (repeat): every\n"
          "                    other axis that varies must be fixed this way\n"
          "  --speedup B       draw baseline / value, the baseline of each point being\n"
          "                    the row with the columns named in B (A=V,A=V) set to\n"
          "                    those values and the point's other coordinates: for\n"
          "                    times and cycles, higher is faster\n"
          "  --normalise B     draw value / baseline\n"
          "  --style S         lines (default) or bars (clustered, one bar per line value)\n"
          "  --logy            logarithmic vertical scale\n"
          "  --yzero           start the vertical scale at zero (bars always do; lines\n"
          "                    are scaled to their values by default)\n"
          "  --reference FILE  values to draw beside the table's (published figures): a\n"
          "                    CSV whose first column holds x values and each other\n"
          "                    column is one more line (hatched bar, dashed line) named\n"
          "                    by its header; empty cells are left out\n"
          "  --title TEXT      the title (default: the metric and the --where conditions)\n"
          "  -o PREFIX         output files' prefix (default: beside the table, named\n"
          "                    after the metric and the axes)\n"
          "  -h, --help        this text\n"
          "\n"
          "Needs gnuplot (Debian: gnuplot-nox). Exit status: 0 drawn, 1 bad table or\n"
          "gnuplot failed, 2 bad usage.\n",
          out);
}

/* "A=V,B=W" into conditions (pointing into TEXT, which is modified). */
static int parse_conds(char *text, struct plot_cond **out, size_t *n, const char *opt)
{
    for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        if (!eq || eq == item) {
            fprintf(stderr, "sweep plot: %s %s: expected COLUMN=VALUE\n", opt, item);
            return -1;
        }
        *eq = 0;
        *out = xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = (struct plot_cond){ item, eq + 1 };
    }
    return 0;
}

/* gnuplot's single-quoted strings: a quote is written twice, nothing else is special. */
static void gp_string(FILE *f, const char *text)
{
    fputc('\'', f);
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputc('\'', f);
        fputc(*p == '\n' || *p == '\t' ? ' ' : *p, f);
    }
    fputc('\'', f);
}

static char *safe_name(const char *text)
{
    char *s = xstrdup(text);
    for (char *p = s; *p; p++)
        if (!(((*p | 32) >= 'a' && (*p | 32) <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
            *p = '_';
    return s;
}

static int write_data(const struct plot_data *d, bool bars, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    if (bars) {
        /* One row per x value: its label, then a column per line value. */
        for (size_t x = 0; x < d->nx; x++) {
            fputs(d->xs[x], f);
            for (size_t l = 0; l < d->nl; l++)
                if (isnan(d->v[l * d->nx + x]))
                    fputs("\tNaN", f);
                else
                    fprintf(f, "\t%.17g", d->v[l * d->nx + x]);
            fputc('\n', f);
        }
    } else {
        /* One block per line value (gnuplot's index), a row per x value. */
        for (size_t l = 0; l < d->nl; l++) {
            for (size_t x = 0; x < d->nx; x++) {
                double v = d->v[l * d->nx + x];
                if (isnan(v))
                    fprintf(f, "%zu\tNaN\t%s\n", x, d->xs[x]);
                else
                    fprintf(f, "%zu\t%.17g\t%s\n", x, v, d->xs[x]);
            }
            fputs("\n\n", f);
        }
    }
    return fclose(f);
}

/* Markdown numbers: whole for large values, three decimals for ratios. */
static void md_number(FILE *f, double v)
{
    if (isnan(v))
        fputs(" |", f);
    else
        fprintf(f, fabs(v) >= 1000 ? " %.0f |" : " %.3f |", v);
}

static int write_markdown(const struct plot_data *d, const char *xname, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "| %s |", xname);
    for (size_t l = 0; l < d->nl; l++)
        fprintf(f, " %s |", d->ls[l]);
    fputs("\n|---|", f);
    for (size_t l = 0; l < d->nl; l++)
        fputs("---:|", f);
    fputc('\n', f);
    for (size_t x = 0; x < d->nx; x++) {
        fprintf(f, "| %s |", d->xs[x]);
        for (size_t l = 0; l < d->nl; l++)
            md_number(f, d->v[l * d->nx + x]);
        fputc('\n', f);
    }
    return fclose(f);
}

struct look {
    const char *title, *xlabel, *ylabel, *key_title;
    bool bars, logy, unit_line, yzero;
};

static void write_plot_commands(FILE *f, const struct plot_data *d, const struct look *k, const char *dat)
{
    fputs("set termoption noenhanced\nset datafile separator '\\t'\nset datafile commentschars ''\n"
          "set datafile missing 'NaN'\nset grid ytics lc rgb '#d0d0d0'\nset border 3\nset tics nomirror\n"
          "set key outside right top Left reverse samplen 2 spacing 1.3 width 2 box lc rgb '#a0a0a0'\n"
          "set title font ',15'\n", f);
    fputs("set title ", f);
    gp_string(f, k->title);
    fputs("\nset xlabel ", f);
    gp_string(f, k->xlabel);
    fputs("\nset ylabel ", f);
    gp_string(f, k->ylabel);
    fputs("\nset key title ", f);
    gp_string(f, k->key_title);
    fputc('\n', f);
    if (k->logy)
        fputs("set logscale y\n", f);
    size_t longest = 0;
    for (size_t x = 0; x < d->nx; x++)
        longest = strlen(d->xs[x]) > longest ? strlen(d->xs[x]) : longest;
    if (d->nx > 8 || d->nx * (longest + 2) > 90) /* labels that would run into each other */
        fputs("set xtics rotate by -35\n", f);
    if (k->bars) {
        fputs("set style data histograms\nset style histogram clustered gap 1\n"
              "set style fill solid 0.85 border rgb '#404040'\nset boxwidth 0.9\nset yrange [0:*]\n", f);
    } else {
        /* Autoscaled with a margin: from zero, a few percent of difference would be a flat line. */
        fprintf(f, "set xrange [-0.4:%g]\nset offsets 0, 0, graph 0.08, graph 0.08\n", (double)d->nx - 0.6);
        if (k->yzero && !k->logy)
            fputs("set yrange [0:*]\n", f);
    }
    fputs("plot ", f);
    for (size_t l = 0; l < d->nl; l++) {
        bool ref = l >= d->nl - d->nref;
        if (l)
            fputs(", \\\n     ", f);
        gp_string(f, dat);
        if (k->bars) {
            /* reference bars: hatched in grey, each with its own hatching */
            static const int hatch[] = { 4, 5, 1, 2 };
            fprintf(f, " using %zu%s", l + 2, l ? "" : ":xtic(1)");
            if (ref)
                fprintf(f, " fs pattern %d border lc rgb '#505050' lc rgb '#505050'" /* border, fill */, hatch[(l - (d->nl - d->nref)) % 4]);
        } else
            fprintf(f, " index %zu using 1:2:xtic(3) with linespoints lw 2 pt %zu ps 1.3%s", l, 5 + 2 * (l % 4),
                    ref ? " dt 2" : "");
        fputs(" title ", f);
        gp_string(f, d->ls[l]);
    }
    if (k->unit_line && !k->bars)
        fputs(", \\\n     1 with lines dt 2 lw 1 lc rgb '#808080' notitle", f);
    fputc('\n', f);
}

static int write_script(const struct plot_data *d, const struct look *k, const char *prefix, const char *dat)
{
    char *gp = xasprintf("%s.gp", prefix);
    FILE *f = fopen(gp, "w");
    free(gp);
    if (!f)
        return -1;
    /* Width grows with the number of x values so their labels stay apart. */
    unsigned w = 900 + (unsigned)(d->nx > 10 ? (d->nx - 10) * 40 : 0);
    fprintf(f, "# sweep plot: gnuplot %s.gp redraws %s.svg and %s.png\n", prefix, prefix, prefix);
    fprintf(f, "set terminal svg size %u,560 dynamic noenhanced font 'sans,14' background rgb 'white'\nset output ",
            w);
    char *svg = xasprintf("%s.svg", prefix), *png = xasprintf("%s.png", prefix);
    gp_string(f, svg);
    fputc('\n', f);
    write_plot_commands(f, d, k, dat);
    /* noenhanced again: a new terminal starts enhanced ('_' would be a subscript) */
    fprintf(f, "set terminal pngcairo size %u,560 noenhanced font 'sans,11' background rgb 'white'\nset output ",
            w + w / 10);
    gp_string(f, png);
    fputs("\nreplot\nunset output\n", f);
    free(svg);
    free(png);
    return fclose(f);
}

static int run_gnuplot(const char *prefix)
{
    char *gp = xasprintf("%s.gp", prefix);
    char *argv[] = { "gnuplot", gp, NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ), status = 0;
    if (rc) {
        fprintf(stderr, "sweep plot: cannot run gnuplot: %s (Debian: apt-get install gnuplot-nox); the script is %s\n",
                strerror(rc), gp);
        free(gp);
        return -1;
    }
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "sweep plot: gnuplot failed on %s\n", gp);
        free(gp);
        return -1;
    }
    free(gp);
    return 0;
}

static char *default_prefix(const char *table, const struct plot_opts *o)
{
    const char *slash = strrchr(table, '/');
    char *m = safe_name(o->metric), *x = safe_name(o->x), *l = o->lines ? safe_name(o->lines) : NULL;
    char *p = xasprintf("%.*s%s-%s%s%s%s", slash ? (int)(slash - table + 1) : 0, table, m,
                        o->scale == PLOT_SPEEDUP ? "speedup-" : o->scale == PLOT_NORMALISE ? "normalised-" : "", x,
                        l ? "-by-" : "", l ? l : "");
    free(m);
    free(x);
    free(l);
    return p;
}

static char *conds_text(const struct plot_cond *c, size_t n)
{
    char *s = xstrdup("");
    for (size_t i = 0; i < n; i++) {
        char *t = xasprintf("%s%s%s=%s", s, i ? ", " : "", c[i].column, c[i].value);
        free(s);
        s = t;
    }
    return s;
}

/* Appends the reference file's columns to D (plot.h). */
static int add_reference(struct plot_data *d, const char *path)
{
    char err[1024];
    size_t len;
    char *text = read_file(path, &len, err, sizeof err);
    struct csv ref;
    int rc = !text || csv_parse(&ref, path, text, len, err, sizeof err) ? -1 : 0;
    free(text);
    if (!rc) {
        rc = sweep_plot_reference(d, &ref, path, err, sizeof err);
        csv_free(&ref);
    }
    if (rc)
        fprintf(stderr, "sweep plot: --reference %s\n", err);
    return rc;
}

static int draw(const char *table, const struct plot_opts *o, const char *style, const char *title, const char *out,
                const char *reference, bool logy, bool yzero)
{
    char err[1024];
    size_t len;
    char *text = read_file(table, &len, err, sizeof err);
    struct csv t;
    if (!text || csv_parse(&t, table, text, len, err, sizeof err)) {
        fprintf(stderr, "sweep plot: %s\n", err);
        free(text);
        return 1;
    }
    free(text);
    struct plot_data d;
    if (sweep_plot_data(&t, o, &d, err, sizeof err)) {
        fprintf(stderr, "sweep plot: %s: %s\n", table, err);
        csv_free(&t);
        return 1;
    }
    if (reference && add_reference(&d, reference)) {
        sweep_plot_data_free(&d);
        csv_free(&t);
        return 1;
    }
    char *prefix = out ? xstrdup(out) : default_prefix(table, o);
    char *where = conds_text(o->where, o->nwhere), *base = conds_text(o->base, o->nbase);
    char *what = o->scale == PLOT_SPEEDUP     ? xasprintf("Speedup in %s over %s", o->metric, base)
                 : o->scale == PLOT_NORMALISE ? xasprintf("%s normalised to %s", o->metric, base)
                                              : xstrdup(o->metric);
    char *ttl = title ? xstrdup(title) : xasprintf("%s%s%s%s", what, *where ? " (" : "", where, *where ? ")" : "");
    /* a long metric is named once, in the title, so the label fits beside the plot */
    bool short_label = strlen(o->metric) > 24;
    char *ylabel = o->scale == PLOT_SPEEDUP ? short_label ? xstrdup("speedup (baseline / value)")
                                                          : xasprintf("speedup (baseline %s / %s)", o->metric, o->metric)
                   : o->scale == PLOT_NORMALISE ? short_label ? xstrdup("value / baseline")
                                                              : xasprintf("%s / baseline %s", o->metric, o->metric)
                                                : xstrdup(o->metric);
    free(what);
    struct look k = { ttl, o->x, ylabel, o->lines ? o->lines : "", !strcmp(style, "bars"), logy,
                      o->scale != PLOT_RAW, yzero };
    char *dat = xasprintf("%s.dat", prefix), *md = xasprintf("%s.md", prefix);
    int rc = write_data(&d, k.bars, dat) || write_script(&d, &k, prefix, dat) || write_markdown(&d, o->x, md) ? 1 : 0;
    if (rc)
        fprintf(stderr, "sweep plot: cannot write %s.dat / .gp / .md: %s\n", prefix, strerror(errno));
    else if (run_gnuplot(prefix))
        rc = 1;
    else
        printf("%s.svg\n%s.png\n%s\n", prefix, prefix, md);
    free(dat);
    free(md);
    free(ttl);
    free(ylabel);
    free(where);
    free(base);
    free(prefix);
    sweep_plot_data_free(&d);
    csv_free(&t);
    return rc;
}

int sweep_plot_main(int argc, char **argv)
{
    struct plot_opts o = { 0 };
    const char *table = NULL, *style = "lines", *title = NULL, *out = NULL, *reference = NULL;
    bool logy = false, yzero = false;
    int rc = 0;
    char **copies = xcalloc((size_t)argc, sizeof *copies); /* conditions point into these */
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        bool arg = !strcmp(a, "--metric") || !strcmp(a, "--x") || !strcmp(a, "--lines") || !strcmp(a, "--where") ||
                   !strcmp(a, "--speedup") || !strcmp(a, "--normalise") || !strcmp(a, "--style") ||
                   !strcmp(a, "--title") || !strcmp(a, "--reference") || !strcmp(a, "-o");
        if (arg && i + 1 >= argc) {
            fprintf(stderr, "sweep plot: %s needs an argument\n", a);
            rc = 2;
            break;
        }
        const char *v = arg ? argv[++i] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            plot_usage(stdout);
            rc = -1;
        } else if (!strcmp(a, "--metric")) {
            o.metric = v;
        } else if (!strcmp(a, "--x")) {
            o.x = v;
        } else if (!strcmp(a, "--lines")) {
            o.lines = v;
        } else if (!strcmp(a, "--where")) {
            copies[i] = xstrdup(v);
            rc = parse_conds(copies[i], &o.where, &o.nwhere, a) ? 2 : 0;
        } else if (!strcmp(a, "--speedup") || !strcmp(a, "--normalise")) {
            if (o.scale != PLOT_RAW) {
                fprintf(stderr, "sweep plot: one of --speedup and --normalise, once\n");
                rc = 2;
                break;
            }
            o.scale = !strcmp(a, "--speedup") ? PLOT_SPEEDUP : PLOT_NORMALISE;
            copies[i] = xstrdup(v);
            rc = parse_conds(copies[i], &o.base, &o.nbase, a) ? 2 : 0;
        } else if (!strcmp(a, "--style")) {
            style = v;
            if (strcmp(v, "lines") && strcmp(v, "bars")) {
                fprintf(stderr, "sweep plot: --style %s: lines or bars\n", v);
                rc = 2;
            }
        } else if (!strcmp(a, "--title")) {
            title = v;
        } else if (!strcmp(a, "--reference")) {
            reference = v;
        } else if (!strcmp(a, "-o")) {
            out = v;
        } else if (!strcmp(a, "--logy")) {
            logy = true;
        } else if (!strcmp(a, "--yzero")) {
            yzero = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "sweep plot: unknown option %s (see sweep plot --help)\n", a);
            rc = 2;
        } else if (table) {
            fprintf(stderr, "sweep plot: more than one table given (%s, %s)\n", table, a);
            rc = 2;
        } else {
            table = a;
        }
    }
    if (!rc && (!table || !o.metric || !o.x)) {
        fprintf(stderr, "sweep plot: a table, --metric and --x are needed (see sweep plot --help)\n");
        rc = 2;
    }
    if (!rc)
        rc = draw(table, &o, style, title, out, reference, logy, yzero);
    for (int i = 0; i < argc; i++)
        free(copies[i]);
    free(copies);
    free(o.where);
    free(o.base);
    return rc < 0 ? 0 : rc;
}
