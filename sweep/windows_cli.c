/* sweep windows: the window statistics replay writes (--windows N
 * --windows-out FILE: one JSON object per line) as a table, a row per
 * window and a column per metric, read a line at a time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "sweep/csv.h"
#include "sweep/metric.h"
#include "sweep/results.h"
#include "sweep/util.h"

static void windows_usage(FILE *out)
{
    fputs("usage: sweep windows WINDOWS.jsonl --metric PATH... [-o TABLE.csv]\n"
          "\n"
          "Writes the windows replay wrote with --windows N --windows-out WINDOWS.jsonl\n"
          "as a CSV table: the columns window and begin_cycle, then one per metric\n"
          "(the path syntax of the sweep table, e.g. dram.bytes,\n"
          "max(network.switches[*].east_link_busy), sum(gpu.kernels[*].cycles)),\n"
          "evaluated on each window's statistics (counters as their change over the\n"
          "window; \"cycles\" is the window's length).\n"
          "\n"
          "  --metric PATH   a column (repeat for more; at least one)\n"
          "  -o FILE         the table (default: standard output)\n"
          "  -h, --help      this text\n",
          out);
}

int sweep_windows_main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    const char **names = xcalloc((size_t)argc, sizeof *names);
    size_t nm = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            windows_usage(stdout);
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
    struct sweep_metric **m = xcalloc(nm, sizeof *m);
    for (size_t k = 0; k < nm && !rc; k++)
        if (!(m[k] = sweep_metric_parse(names[k], err, sizeof err))) {
            fprintf(stderr, "sweep windows: %s\n", err);
            rc = 1;
        }
    FILE *f = rc ? NULL : fopen(in, "r");
    FILE *o = rc || !f ? NULL : out ? fopen(out, "w") : stdout;
    if (!rc && (!f || !o)) {
        fprintf(stderr, "sweep windows: %s: %s\n", f ? out : in, strerror(errno));
        rc = 1;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    if (!rc) {
        csv_field(o, "window", true);
        csv_field(o, "begin_cycle", false);
        for (size_t k = 0; k < nm; k++)
            csv_field(o, names[k], false);
        fputc('\n', o);
    }
    while (!rc && getline(&line, &cap, f) > 0) {
        lineno++;
        cJSON *w = cJSON_Parse(line);
        const char *place[2] = { "window", "begin_cycle" };
        for (int c = 0; c < 2 && w && !rc; c++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(w, place[c]);
            if (!cJSON_IsNumber(x)) {
                fprintf(stderr, "sweep windows: %s:%zu: no \"%s\": not a window of replay --windows\n", in, lineno,
                        place[c]);
                rc = 1;
            } else {
                char buf[64];
                sweep_format_value(x->valuedouble, buf, sizeof buf);
                csv_field(o, buf, c == 0);
            }
        }
        if (!w) {
            fprintf(stderr, "sweep windows: %s:%zu: not valid JSON\n", in, lineno);
            rc = 1;
        }
        for (size_t k = 0; k < nm && !rc; k++) {
            double v;
            char buf[64];
            if (sweep_metric_eval(m[k], w, &v, err, sizeof err)) {
                fprintf(stderr, "sweep windows: %s:%zu: %s\n", in, lineno, err);
                rc = 1;
                break;
            }
            sweep_format_value(v, buf, sizeof buf);
            csv_field(o, buf, false);
        }
        if (!rc)
            fputc('\n', o);
        cJSON_Delete(w);
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "sweep windows: %s: %s\n", in, strerror(errno));
        rc = 1;
    }
    free(line);
    if (f)
        fclose(f);
    if (o && o != stdout && fclose(o) && !rc) {
        fprintf(stderr, "sweep windows: %s: %s\n", out, strerror(errno));
        rc = 1;
    }
    for (size_t k = 0; k < nm; k++)
        sweep_metric_free(m[k]);
    free(m);
    free(names);
    return rc;
}
