/* sweep windows: the window statistics replay writes (--windows N
 * --windows-out FILE: one JSON object per line) as a table, a row per
 * window and a column per metric, read a line at a time: of one file, or
 * of every point of a sweep whose spec asks for windows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sweep/csv.h"
#include "sweep/metric.h"
#include "sweep/results.h"
#include "sweep/util.h"

void sweep_windows_usage(FILE *out)
{
    fputs("usage: sweep windows WINDOWS.jsonl --metric PATH... [-o TABLE.csv]\n"
          "       sweep windows SPEC.ini [-o DIR] [--metric PATH]... [--replay PATH]\n"
          "\n"
          "Writes the windows replay wrote with --windows N --windows-out WINDOWS.jsonl\n"
          "as a CSV table: the columns window and begin_cycle, then one per metric\n"
          "(the path syntax of the sweep table, e.g. dram.bytes,\n"
          "max(network.switches[*].east_link_busy), sum(gpu.kernels[*].cycles)),\n"
          "evaluated on each window's statistics (counters as their change over the\n"
          "window; \"cycles\" is the window's length).\n"
          "\n"
          "Given a sweep's spec (a name ending in .ini) whose [sweep] section has\n"
          "windows = N, writes DIR/windows.csv: every point's windows, each row\n"
          "starting with the point's axis values. The metrics are the spec's\n"
          "window_metric lines (default: cycles, instructions, ipc). Points without\n"
          "windows yet are reported and have no rows.\n"
          "\n"
          "  --metric PATH   a column (repeat for more; replaces the spec's)\n"
          "  -o FILE|DIR     the table (default: standard output), or with a spec the\n"
          "                  sweep's results folder (default: SPEC's name + .sweep)\n"
          "  --replay PATH   with a spec: the replay program the sweep ran (results\n"
          "                  are keyed by its bytes; default: the one beside sweep)\n"
          "  -h, --help      this text\n"
          "\n"
          "Exit status: 0 done, 1 a bad line or file (named with its line) or, with\n"
          "a spec, a point without windows, 2 bad usage.\n",
          out);
}

int sweep_windows_rows(FILE *in, const char *name, FILE *out, const char *prefix,
                       struct sweep_metric *const *metrics, size_t nmetrics, char *err, size_t errlen)
{
    char *line = NULL, msg[768];
    size_t cap = 0, lineno = 0;
    int rc = 0;
    while (!rc && getline(&line, &cap, in) > 0) {
        lineno++;
        cJSON *w = cJSON_Parse(line);
        if (!w) {
            snprintf(err, errlen, "%s:%zu: not valid JSON", name, lineno);
            rc = -1;
            break;
        }
        fputs(prefix, out);
        const char *place[2] = { "window", "begin_cycle" };
        for (int c = 0; c < 2 && !rc; c++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(w, place[c]);
            char buf[64];
            if (!cJSON_IsNumber(x)) {
                snprintf(err, errlen, "%s:%zu: no \"%s\": not a window of replay --windows", name, lineno, place[c]);
                rc = -1;
            } else {
                sweep_format_value(x->valuedouble, buf, sizeof buf);
                csv_field(out, buf, c == 0);
            }
        }
        for (size_t k = 0; k < nmetrics && !rc; k++) {
            double v;
            char buf[64];
            if (sweep_metric_eval(metrics[k], w, &v, msg, sizeof msg)) {
                snprintf(err, errlen, "%s:%zu: %s", name, lineno, msg);
                rc = -1;
            } else {
                sweep_format_value(v, buf, sizeof buf);
                csv_field(out, buf, false);
            }
        }
        if (!rc)
            fputc('\n', out);
        cJSON_Delete(w);
    }
    if (!rc && ferror(in)) {
        snprintf(err, errlen, "%s: %s", name, strerror(errno));
        rc = -1;
    }
    free(line);
    return rc;
}

/* The header: LEAD (CSV fields and their comma, or ""), then the windows' columns. */
static void header(FILE *out, const char *lead, struct sweep_metric *const *metrics, size_t n)
{
    fputs(lead, out);
    csv_field(out, "window", true);
    csv_field(out, "begin_cycle", false);
    for (size_t k = 0; k < n; k++)
        csv_field(out, sweep_metric_column(metrics[k]), false);
    fputc('\n', out);
}

static struct sweep_metric **parse_metrics(char *const *names, size_t n, char *err, size_t errlen)
{
    struct sweep_metric **m = xcalloc(n + 1, sizeof *m);
    for (size_t k = 0; k < n; k++)
        if (!(m[k] = sweep_metric_parse(names[k], err, errlen))) {
            for (size_t i = 0; i < k; i++)
                sweep_metric_free(m[i]);
            free(m);
            return NULL;
        }
    return m;
}

/* The point's axis values as CSV fields, each followed by its comma. */
static char *axis_fields(const struct sweep_plan *p, size_t i, bool names)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (size_t a = 0; a < p->spec->naxes; a++) {
        csv_field(f, names ? p->spec->axes[a].name : sweep_plan_label(p, i, a), true);
        fputc(',', f);
    }
    fclose(f);
    return text;
}

int sweep_windows_table(const struct sweep_plan *p, const char *dir, char *const *metrics, size_t nmetrics,
                        FILE *report, char *err, size_t errlen)
{
    if (!p->spec->windows) {
        snprintf(err, errlen, "%s: no windows = N in [sweep]: its points have no windows", p->spec->file);
        return -1;
    }
    struct sweep_metric **m = parse_metrics(metrics, nmetrics, err, errlen);
    if (!m)
        return -1;
    char *path = xasprintf("%s/windows.csv", dir), *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    int rc = 0;
    size_t missing = 0, rows = 0;
    /* the points without windows are reported at the end, and not at all
     * when an error stops the table */
    char *notes = NULL;
    size_t notes_len = 0;
    FILE *later = report ? open_memstream(&notes, &notes_len) : NULL;
    if (!out) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        rc = -1;
    } else {
        char *lead = axis_fields(p, 0, true);
        header(out, lead, m, nmetrics);
        free(lead);
    }
    for (size_t i = 0; i < p->npoints && !rc; i++) {
        enum sweep_status st = sweep_result_status(p, i, dir);
        if (st != SWEEP_DONE) {
            missing++;
            if (later) {
                char *d = sweep_plan_describe(p, i);
                fprintf(later, "sweep: point %zu (%s) has no windows: %s\n", i, d, sweep_status_name(st));
                free(d);
            }
            continue;
        }
        char *file = sweep_result_path(dir, p->points[i].key, SWEEP_WINDOWS_EXT);
        FILE *in = fopen(file, "r");
        if (!in) {
            snprintf(err, errlen, "%s: %s", file, strerror(errno));
            rc = -1;
        } else {
            char *lead = axis_fields(p, i, false);
            rc = sweep_windows_rows(in, file, out, lead, m, nmetrics, err, errlen);
            free(lead);
            fclose(in);
            rows++;
        }
        free(file);
    }
    if (out && fclose(out) && !rc) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (!rc && rename(tmp, path)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (later)
        fclose(later);
    if (rc)
        unlink(tmp);
    else if (report)
        fprintf(report, "%ssweep: windows of %zu of %zu points; table %s\n", notes ? notes : "", rows,
                p->npoints, path);
    free(notes);
    for (size_t k = 0; k < nmetrics; k++)
        sweep_metric_free(m[k]);
    free(m);
    free(path);
    free(tmp);
    return rc ? -1 : missing ? 1 : 0;
}

/* Copies the table written to T (an unnamed temporary file) to standard
 * output. */
static int publish_stdout(FILE *t)
{
    char buf[65536];
    size_t n;
    if (fflush(t) || fseek(t, 0, SEEK_SET))
        return -1;
    while ((n = fread(buf, 1, sizeof buf, t)) > 0)
        if (fwrite(buf, 1, n, stdout) != n)
            return -1;
    return ferror(t) || fflush(stdout) ? -1 : 0;
}

int sweep_windows_main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    char **names = xcalloc((size_t)argc, sizeof *names);
    size_t nm = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            sweep_windows_usage(stdout);
            free(names);
            return 0;
        }
        if ((!strcmp(a, "--metric") || !strcmp(a, "-o")) && i + 1 < argc) {
            if (!strcmp(a, "-o"))
                out = argv[++i];
            else
                names[nm++] = argv[++i];
        } else if (a[0] == '-' || in) {
            fprintf(stderr, "sweep windows: %s %s (see sweep windows --help)\n",
                    a[0] == '-' ? "unknown option" : "a second file:", a);
            free(names);
            return 2;
        } else {
            in = a;
        }
    }
    if (!in || !nm) {
        fprintf(stderr, "sweep windows: needs a windows file and at least one --metric (see sweep windows --help)\n");
        free(names);
        return 2;
    }
    char err[1024];
    int rc = 0;
    struct sweep_metric **m = parse_metrics(names, nm, err, sizeof err);
    if (!m) {
        fprintf(stderr, "sweep windows: %s\n", err);
        rc = 1;
    }
    /* The table goes to a file of its own first (-o's name + .tmp.PID, or
     * an unnamed one for standard output) and is published whole: a bad
     * line stops the run with nothing written. */
    FILE *f = rc ? NULL : fopen(in, "r");
    char *tmp = out ? xasprintf("%s.tmp.%ld", out, (long)getpid()) : NULL;
    FILE *o = rc || !f ? NULL : tmp ? fopen(tmp, "w") : tmpfile();
    if (!rc && (!f || !o)) {
        fprintf(stderr, "sweep windows: %s: %s\n", !f ? in : tmp ? tmp : "a temporary file", strerror(errno));
        rc = 1;
    }
    if (!rc) {
        header(o, "", m, nm);
        if (sweep_windows_rows(f, in, o, "", m, nm, err, sizeof err)) {
            fprintf(stderr, "sweep windows: %s\n", err);
            rc = 1;
        }
    }
    if (f)
        fclose(f);
    if (!rc && !tmp && publish_stdout(o)) {
        fprintf(stderr, "sweep windows: writing standard output: %s\n", strerror(errno));
        rc = 1;
    }
    if (o && fclose(o) && !rc) {
        fprintf(stderr, "sweep windows: %s: %s\n", tmp ? tmp : "a temporary file", strerror(errno));
        rc = 1;
    }
    if (tmp && !rc && rename(tmp, out)) {
        fprintf(stderr, "sweep windows: %s: %s\n", out, strerror(errno));
        rc = 1;
    }
    if (tmp && rc)
        unlink(tmp);
    free(tmp);
    for (size_t k = 0; m && k < nm; k++)
        sweep_metric_free(m[k]);
    free(m);
    free(names);
    return rc;
}
