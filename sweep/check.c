/* The metrics checked against the statistics' shape (check.h). */
#include "sweep/check.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep/metric.h"
#include "sweep/util.h"

extern char **environ;

struct wanted {
    struct sweep_metric *m;
    bool window;       /* checked against a window's tree */
    bool found;
    char why[768];     /* the first point's reason it is not there */
};

/* Runs REPLAY --list-stats on point I into DIR/shape.json; the tree, or
 * NULL with WHY (replay's last message). */
static cJSON *list_stats(const struct sweep_plan *p, size_t i, const char *replay, const char *dir, char *why,
                         size_t whylen)
{
    struct rp_config cfg;
    sweep_plan_config(p, i, &cfg);
    char *ini_text = sweep_config_ini(&cfg), *ini = xasprintf("%s/point.ini", dir);
    char *json = xasprintf("%s/shape.json", dir), *errf = xasprintf("%s/list.err", dir);
    cJSON *tree = NULL;
    char msg[512];
    unlink(json);
    if (write_file_atomic(ini, ini_text, strlen(ini_text), msg, sizeof msg)) {
        snprintf(why, whylen, "%s", msg);
        goto out;
    }
    char *argv[] = { (char *)replay, "--list-stats", "-q", "-c", ini, "-o", json,
                     p->traces[p->points[i].trace].path, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errf, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    pid_t pid;
    int rc = strchr(replay, '/') ? posix_spawn(&pid, replay, &fa, NULL, argv, environ)
                                 : posix_spawnp(&pid, replay, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int st = 0;
    if (rc) {
        snprintf(why, whylen, "cannot run %s: %s", replay, strerror(rc));
        goto out;
    }
    while (waitpid(pid, &st, 0) < 0)
        ;
    size_t len;
    char *text = WIFEXITED(st) && !WEXITSTATUS(st) ? read_file(json, &len, msg, sizeof msg) : NULL;
    if (text && !(tree = cJSON_ParseWithLength(text, len)))
        snprintf(why, whylen, "replay --list-stats wrote no valid JSON");
    if (!text) {
        char *e = read_file(errf, &len, msg, sizeof msg), *last = NULL;
        for (char *line = e ? strtok(e, "\n") : NULL; line; line = strtok(NULL, "\n"))
            if (*trim(line))
                last = trim(line);
        snprintf(why, whylen, "%s", last ? last : "replay --list-stats failed");
        free(e);
    }
    free(text);
out:
    unlink(ini);
    unlink(json);
    unlink(errf);
    free(ini_text);
    free(ini);
    free(json);
    free(errf);
    return tree;
}

/* A window's tree from the run's: the registry's, with the window's place. */
static cJSON *window_shape(const cJSON *run)
{
    cJSON *w = cJSON_Duplicate(run, 1);
    if (!w)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(w, "roi");
    cJSON_DeleteItemFromObjectCaseSensitive(w, "trace");
    cJSON_AddNumberToObject(w, "window", 0);
    cJSON_AddNumberToObject(w, "begin_cycle", 0);
    return w;
}

int sweep_check_metrics(const struct sweep_plan *p, const char *replay, char *const *metrics, size_t nmetrics,
                        char *const *window_metrics, size_t nwindow_metrics, FILE *report, char *err,
                        size_t errlen)
{
    size_t nw = p->spec->windows ? nwindow_metrics : 0, n = nmetrics + nw, left = n;
    struct wanted *w = xcalloc(n + 1, sizeof *w);
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        w[k].window = k >= nmetrics;
        if (!(w[k].m = sweep_metric_parse(w[k].window ? window_metrics[k - nmetrics] : metrics[k], err, errlen)))
            rc = -1;
    }
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/cgm_sweep_check_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    bool made = !rc && mkdtemp(dir);
    if (!rc && !made) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        rc = -1;
    }
    size_t listed = 0, refused = 0;
    char first_refusal[800] = "";
    for (size_t i = 0; i < p->npoints && left && !rc; i++) {
        if (!p->points[i].key[0])
            continue; /* its trace is missing */
        char why[700];
        cJSON *run = list_stats(p, i, replay, dir, why, sizeof why);
        if (!run) {
            if (!refused++)
                snprintf(first_refusal, sizeof first_refusal, "point %zu: %s", i, why);
            continue;
        }
        listed++;
        cJSON *win = nw ? window_shape(run) : NULL;
        for (size_t k = 0; k < n; k++) {
            if (w[k].found)
                continue;
            const cJSON *shape = w[k].window ? win : run;
            char msg[768];
            if (shape && !sweep_metric_check(w[k].m, shape, msg, sizeof msg)) {
                w[k].found = true;
                left--;
            } else if (!w[k].why[0]) {
                snprintf(w[k].why, sizeof w[k].why, "%s", shape ? msg : "out of memory");
            }
        }
        cJSON_Delete(win);
        cJSON_Delete(run);
    }
    if (!rc && refused && report)
        fprintf(report, "sweep: note: %zu point%s could not list %s statistics (%s)%s\n", refused,
                refused == 1 ? "" : "s", refused == 1 ? "its" : "their", first_refusal,
                listed ? "" : "; the metrics are not checked before the run");
    for (size_t k = 0; k < n && !rc && listed; k++)
        if (!w[k].found) {
            const char *col = sweep_metric_column(w[k].m), *expr = strchr(w[k].why, '\'');
            bool alias = expr && strncmp(expr + 1, col, strlen(col));
            snprintf(err, errlen, "checked before running, against the statistics of %zu point%s: %s%s%s%s", listed,
                     listed == 1 ? "" : "s", alias ? "column " : "", alias ? col : "", alias ? ": " : "",
                     w[k].window ? "window_" : "");
            size_t used = strlen(err);
            snprintf(err + used, errlen - used, "%s", w[k].why);
            rc = -1;
        }
    if (made)
        rmdir(dir);
    free(dir);
    for (size_t k = 0; k < n; k++)
        sweep_metric_free(w[k].m);
    free(w);
    return rc;
}
