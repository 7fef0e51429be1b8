/* A sweep's folder and its table (results.h). */
#include "sweep/results.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/csv.h"
#include "sweep/metric.h"
#include "sweep/util.h"

char *sweep_result_path(const char *dir, const char *key, const char *ext)
{
    return xasprintf("%s/points/%s.%s", dir, key, ext);
}

enum sweep_status sweep_result_status(const struct sweep_plan *p, size_t i, const char *dir)
{
    const char *key = p->points[i].key;
    if (!key[0])
        return SWEEP_NO_TRACE;
    char *json = sweep_result_path(dir, key, "json"), *err = sweep_result_path(dir, key, "err");
    char *windows = p->spec->windows ? sweep_result_path(dir, key, SWEEP_WINDOWS_EXT) : NULL;
    bool done = file_exists(json) && (!windows || file_exists(windows));
    enum sweep_status s = done ? SWEEP_DONE : file_exists(err) ? SWEEP_FAILED : SWEEP_PENDING;
    free(json);
    free(err);
    free(windows);
    return s;
}

const char *sweep_status_name(enum sweep_status s)
{
    static const char *const names[] = { "done", "failed", "pending", "no trace" };
    return names[s];
}

static const struct sweep_plan *by_key_plan;

static int by_key(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int d = strcmp(by_key_plan->points[a].key, by_key_plan->points[b].key);
    return d ? d : (a > b) - (a < b);
}

static int by_index(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

/* Partial files of local runs whose sweep has died (NAME.tmp.PID with no
 * process PID). Those of Slurm tasks (.tmp.slurmID) may belong to running
 * tasks and are left alone. */
static void remove_stale(const char *dir)
{
    char *points = xasprintf("%s/points", dir);
    DIR *d = opendir(points);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *tmp = strstr(e->d_name, ".tmp.");
        if (!tmp || tmp[5] < '0' || tmp[5] > '9')
            continue;
        char *end;
        long pid = strtol(tmp + 5, &end, 10);
        if (*end || (pid > 0 && pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)))
            continue;
        char *path = xasprintf("%s/%s", points, e->d_name);
        unlink(path);
        free(path);
    }
    if (d)
        closedir(d);
    free(points);
}

long sweep_prepare(const struct sweep_plan *p, const char *dir, bool rerun, size_t **todo, char *err, size_t errlen)
{
    char *points = xasprintf("%s/points", dir);
    int rc = make_dirs(points, err, errlen);
    free(points);
    if (rc)
        return -1;
    remove_stale(dir);
    /* Each key once (two points may share a configuration), in point order. */
    size_t *idx = xcalloc(p->npoints, sizeof *idx), n = 0;
    for (size_t i = 0; i < p->npoints; i++)
        idx[i] = i;
    by_key_plan = p;
    qsort(idx, p->npoints, sizeof *idx, by_key);
    for (size_t k = 0; k < p->npoints; k++) {
        size_t i = idx[k];
        if (!p->points[i].key[0] || (k && !strcmp(p->points[idx[k - 1]].key, p->points[i].key)))
            continue;
        if (!rerun && sweep_result_status(p, i, dir) == SWEEP_DONE)
            continue;
        idx[n++] = i;
    }
    qsort(idx, n, sizeof *idx, by_index);
    for (size_t k = 0; k < n && !rc; k++) {
        struct rp_config cfg;
        sweep_plan_config(p, idx[k], &cfg);
        char *ini = sweep_config_ini(&cfg), *path = sweep_result_path(dir, p->points[idx[k]].key, "ini");
        rc = write_file_atomic(path, ini, strlen(ini), err, errlen);
        free(ini);
        free(path);
    }
    if (rc) {
        free(idx);
        *todo = NULL;
        return -1;
    }
    *todo = idx;
    return (long)n;
}

char *sweep_failure_message(const char *dir, const char *key)
{
    char *path = sweep_result_path(dir, key, "err"), err[256];
    size_t len;
    char *text = read_file(path, &len, err, sizeof err);
    free(path);
    if (!text)
        return xstrdup("(no messages)");
    char *last = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (*trim(line))
            last = trim(line);
    char *out = xstrdup(last ? last : "(no messages)");
    free(text);
    return out;
}

void sweep_format_value(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static cJSON *load_stats(const char *dir, const char *key, char *err, size_t errlen)
{
    char *path = sweep_result_path(dir, key, "json");
    size_t len;
    char *text = read_file(path, &len, err, errlen);
    cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
    if (text && !root)
        snprintf(err, errlen, "%s: not valid JSON", path);
    free(text);
    free(path);
    return root;
}

struct metric_col {
    struct sweep_metric *m;
    size_t failed;     /* done points without a value */
    char first[768];   /* the first such point's reason */
};

int sweep_table_write(const struct sweep_plan *p, const char *dir, char *const *metrics, size_t nmetrics,
                      FILE *report, char *err, size_t errlen)
{
    const struct sweep_spec *s = p->spec;
    struct metric_col *cols = xcalloc(nmetrics, sizeof *cols);
    int rc = 0;
    for (size_t m = 0; m < nmetrics && !rc; m++)
        if (!(cols[m].m = sweep_metric_parse(metrics[m], err, errlen)))
            rc = -1;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    for (size_t a = 0; a < s->naxes; a++)
        csv_field(out, s->axes[a].name, a == 0);
    for (size_t m = 0; m < nmetrics; m++)
        csv_field(out, cols[m].m ? sweep_metric_column(cols[m].m) : metrics[m], false);
    fputs(s->windows ? ",status,result,windows\n" : ",status,result\n", out);
    size_t count[4] = { 0 };
    for (size_t i = 0; i < p->npoints && !rc; i++) {
        const char *key = p->points[i].key;
        enum sweep_status st = sweep_result_status(p, i, dir);
        char msg[768];
        cJSON *stats = st == SWEEP_DONE ? load_stats(dir, key, msg, sizeof msg) : NULL;
        if (st == SWEEP_DONE && !stats) {
            snprintf(err, errlen, "%s", msg);
            rc = -1;
            break;
        }
        count[st]++;
        for (size_t a = 0; a < s->naxes; a++)
            csv_field(out, sweep_plan_label(p, i, a), a == 0);
        for (size_t m = 0; m < nmetrics; m++) {
            char cell[64] = "";
            double v = 0;
            if (stats && !sweep_metric_eval(cols[m].m, stats, &v, msg, sizeof msg))
                sweep_format_value(v, cell, sizeof cell);
            else if (stats && !cols[m].failed++)
                snprintf(cols[m].first, sizeof cols[m].first, "%s", msg);
            csv_field(out, cell, false);
        }
        csv_field(out, sweep_status_name(st), false);
        char *res = st == SWEEP_DONE ? xasprintf("points/%s.json", key) : xstrdup("");
        csv_field(out, res, false);
        free(res);
        if (s->windows) {
            res = st == SWEEP_DONE ? xasprintf("points/%s.%s", key, SWEEP_WINDOWS_EXT) : xstrdup("");
            csv_field(out, res, false);
            free(res);
        }
        fputc('\n', out);
        cJSON_Delete(stats);
    }
    fclose(out);
    size_t done = count[SWEEP_DONE];
    /* A metric no result has leaves its column empty: the table is still
     * written, with what the others give, and the run fails naming it. */
    size_t unmatched = 0;
    char first_unmatched[1024] = "";
    for (size_t m = 0; m < nmetrics && !rc; m++) {
        if (done && cols[m].failed == done) {
            if (!unmatched++)
                snprintf(first_unmatched, sizeof first_unmatched, "%s", cols[m].first);
        } else if (cols[m].failed && report) {
            fprintf(report, "sweep: warning: %zu of %zu points have no value for %s (%s)\n", cols[m].failed, done,
                    sweep_metric_column(cols[m].m), cols[m].first);
        }
    }
    if (!rc) {
        char *path = xasprintf("%s/table.csv", dir);
        rc = write_file_atomic(path, text, len, err, errlen);
        if (!rc && report)
            fprintf(report, "sweep: %zu points: %zu done, %zu failed, %zu not run%s; table %s\n", p->npoints, done,
                    count[SWEEP_FAILED], count[SWEEP_PENDING] + count[SWEEP_NO_TRACE],
                    count[SWEEP_NO_TRACE] ? " (trace missing)" : "", path);
        free(path);
    }
    for (size_t i = 0; i < p->npoints && !rc && report; i++)
        if (sweep_result_status(p, i, dir) == SWEEP_FAILED) {
            char *d = sweep_plan_describe(p, i), *why = sweep_failure_message(dir, p->points[i].key);
            fprintf(report, "sweep: point %zu failed (%s): %s [%s/points/%s.err]\n", i, d, why, dir,
                    p->points[i].key);
            free(d);
            free(why);
        }
    free(text);
    for (size_t m = 0; m < nmetrics; m++)
        sweep_metric_free(cols[m].m);
    free(cols);
    if (rc)
        return -1;
    if (unmatched) {
        snprintf(err, errlen, "%s%s; its column of the table is empty", first_unmatched,
                 unmatched > 1 ? " (and other metrics match nothing either)" : "");
        return -1;
    }
    return done == p->npoints ? 0 : 1;
}
