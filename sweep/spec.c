/* The sweep specification reader: sections and lines. Value lists and
 * ranges are in axis.c; keys and values are checked by replay's table. */
#include "sweep/spec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/config.h"
#include "sweep/axis.h"
#include "sweep/metric.h"
#include "sweep/util.h"

enum section { SEC_NONE, SEC_SWEEP, SEC_BASE, SEC_AXES, SEC_AXIS };

struct parser {
    struct sweep_spec *s;
    struct spec_ctx ctx;
    enum section sec;
    struct sweep_axis *bundle; /* the [axis NAME] being read */
};

/* Cuts a comment: a line starting with ; or #, or one of them after a blank. */
static void strip_comment(char *line)
{
    for (char *p = line; *p; p++)
        if ((*p == ';' || *p == '#') && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
            *p = 0;
            return;
        }
}

static bool is_name(const char *t, bool dots)
{
    if (!*t)
        return false;
    for (; *t; t++)
        if (!(((*t | 32) >= 'a' && (*t | 32) <= 'z') || (*t >= '0' && *t <= '9') || *t == '_' || *t == '-' ||
              (dots && *t == '.')))
            return false;
    return true;
}

static struct sweep_axis *add_axis(struct parser *p, const char *name, enum sweep_axis_kind kind, int line)
{
    struct sweep_spec *s = p->s;
    for (size_t i = 0; i < s->naxes; i++)
        if (!strcmp(s->axes[i].name, name)) {
            spec_error(&p->ctx, line, "axis %s is already defined on line %d", name, s->axes[i].line);
            return NULL;
        }
    s->axes = xrealloc(s->axes, (s->naxes + 1) * sizeof *s->axes);
    struct sweep_axis *a = &s->axes[s->naxes++];
    memset(a, 0, sizeof *a);
    a->name = xstrdup(name);
    a->kind = kind;
    a->line = line;
    return a;
}

static int section_line(struct parser *p, char *t, int line)
{
    size_t n = strlen(t);
    if (t[n - 1] != ']')
        return spec_error(&p->ctx, line, "malformed section header (expected [NAME])");
    t[n - 1] = 0;
    char *name = trim(t + 1);
    p->bundle = NULL;
    if (!strcmp(name, "sweep")) {
        p->sec = SEC_SWEEP;
    } else if (!strcmp(name, "base")) {
        p->sec = SEC_BASE;
    } else if (!strcmp(name, "axes")) {
        p->sec = SEC_AXES;
    } else if (!strncmp(name, "axis", 4) && (name[4] == ' ' || name[4] == '\t')) {
        char *an = trim(name + 5);
        if (!is_name(an, false))
            return spec_error(&p->ctx, line, "[axis %s]: an axis name is letters, digits, '_' and '-'", an);
        p->sec = SEC_AXIS;
        p->bundle = add_axis(p, an, SWEEP_AXIS_BUNDLE, line);
        if (!p->bundle)
            return -1;
    } else {
        return spec_error(&p->ctx, line, "unknown section [%s] (sections: [sweep], [base], [axes], [axis NAME])",
                          name);
    }
    return 0;
}

/* A metric line: checked now, so a typo is reported with its line. */
static int metric_line(struct parser *p, char ***list, size_t *n, const char *value, int line)
{
    char merr[256];
    struct sweep_metric *m = sweep_metric_parse(value, merr, sizeof merr);
    if (!m)
        return spec_error(&p->ctx, line, "%s", merr);
    sweep_metric_free(m);
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = xstrdup(value);
    return 0;
}

static int sweep_key(struct parser *p, const char *key, const char *value, int line)
{
    struct sweep_spec *s = p->s;
    if (!*value)
        return spec_error(&p->ctx, line, "%s: empty value", key);
    if (!strcmp(key, "trace")) {
        s->traces = xrealloc(s->traces, (s->ntraces + 1) * sizeof *s->traces);
        struct sweep_trace *t = &s->traces[s->ntraces++];
        t->path = xstrdup(value);
        t->line = line;
        const char *base = strrchr(value, '/');
        base = base ? base + 1 : value;
        size_t n = strlen(base);
        if (n > 4 && !strcmp(base + n - 4, ".cgt"))
            n -= 4;
        t->label = xstrndup(base, n);
        return 0;
    }
    if (!strcmp(key, "config")) {
        if (s->config)
            return spec_error(&p->ctx, line, "config is already given on line %d", s->config_line);
        s->config = xstrdup(value);
        s->config_line = line;
        return 0;
    }
    if (!strcmp(key, "metric"))
        return metric_line(p, &s->metrics, &s->nmetrics, value, line);
    if (!strcmp(key, "window_metric"))
        return metric_line(p, &s->window_metrics, &s->nwindow_metrics, value, line);
    if (!strcmp(key, "windows")) {
        if (s->windows)
            return spec_error(&p->ctx, line, "windows is already given on line %d", s->windows_line);
        char *end;
        errno = 0;
        s->windows = strtoull(value, &end, 10);
        if (errno || *end || !s->windows || value[0] == '-')
            return spec_error(&p->ctx, line, "windows = %s: expected a number of CPU cycles (a whole number above 0)",
                              value);
        s->windows_line = line;
        return 0;
    }
    return spec_error(&p->ctx, line, "unknown key %s in [sweep] (keys: trace, config, metric, windows, window_metric)",
                      key);
}

static int assignment_line(struct parser *p, char *t, int line)
{
    char *eq = strchr(t, '=');
    if (!eq)
        return spec_error(&p->ctx, line, "malformed line (expected NAME = VALUE)");
    *eq = 0;
    char *name = trim(t), *value = trim(eq + 1);
    if (!*name)
        return spec_error(&p->ctx, line, "malformed line (nothing before '=')");
    struct sweep_spec *s = p->s;
    switch (p->sec) {
    case SEC_NONE:
        return spec_error(&p->ctx, line, "%s = ... before any section (start with [sweep])", name);
    case SEC_SWEEP:
        return sweep_key(p, name, value, line);
    case SEC_BASE:
        s->base = xrealloc(s->base, (s->nbase + 1) * sizeof *s->base);
        if (spec_setting(&p->ctx, name, value, line, &s->base[s->nbase]))
            return -1;
        s->nbase++;
        return 0;
    case SEC_AXES: {
        bool key = strchr(name, '.') != NULL;
        if (!is_name(name, key))
            return spec_error(&p->ctx, line, "'%s' is neither a configuration key (section.key) nor a name", name);
        struct sweep_axis *a = add_axis(p, name, key ? SWEEP_AXIS_KEY : SWEEP_AXIS_VAR, line);
        return a ? axis_parse_values(&p->ctx, a, value, line) : -1;
    }
    case SEC_AXIS:
        return axis_add_bundle(&p->ctx, p->bundle, name, value, line);
    }
    return -1;
}

/* Every {name} in a trace path is a variable axis, and every variable axis
 * is used by some trace. */
static int check_templates(struct parser *p)
{
    struct sweep_spec *s = p->s;
    bool *used = xcalloc(s->naxes + 1, sizeof *used);
    int rc = 0;
    for (size_t i = 0; i < s->ntraces && !rc; i++) {
        const char *path = s->traces[i].path;
        for (const char *q = strchr(path, '{'); q && !rc; q = strchr(q + 1, '{')) {
            const char *end = strchr(q, '}');
            if (!end) {
                rc = spec_error(&p->ctx, s->traces[i].line, "trace %s: '{' without '}'", path);
                break;
            }
            char *var = xstrndup(q + 1, (size_t)(end - q - 1));
            size_t k = 0;
            while (k < s->naxes && (s->axes[k].kind != SWEEP_AXIS_VAR || strcmp(s->axes[k].name, var)))
                k++;
            if (k == s->naxes)
                rc = spec_error(&p->ctx, s->traces[i].line, "trace %s: {%s} is not an axis of [axes]", path, var);
            else
                used[k] = true;
            free(var);
        }
    }
    for (size_t k = 0; k < s->naxes && !rc; k++)
        if (s->axes[k].kind == SWEEP_AXIS_VAR && !used[k])
            rc = spec_error(&p->ctx, s->axes[k].line,
                            "axis %s is not a configuration key (section.key) and no trace uses {%s}",
                            s->axes[k].name, s->axes[k].name);
    free(used);
    return rc;
}

/* Several trace lines make an axis of their own, first in the table. */
static int add_trace_axis(struct parser *p)
{
    struct sweep_spec *s = p->s;
    if (s->ntraces < 2)
        return 0;
    if (sweep_spec_axis(s, "trace"))
        return spec_error(&p->ctx, sweep_spec_axis(s, "trace")->line,
                          "the name 'trace' is taken by the traces' own axis");
    struct sweep_axis a = { .name = xstrdup("trace"), .kind = SWEEP_AXIS_TRACE, .line = s->traces[0].line };
    a.values = xcalloc(s->ntraces, sizeof *a.values);
    a.nvalues = s->ntraces;
    for (size_t i = 0; i < s->ntraces; i++) {
        a.values[i].label = xstrdup(s->traces[i].label);
        a.values[i].line = s->traces[i].line;
    }
    s->axes = xrealloc(s->axes, (s->naxes + 1) * sizeof *s->axes);
    memmove(s->axes + 1, s->axes, s->naxes * sizeof *s->axes);
    s->axes[0] = a;
    s->naxes++;
    return axis_check_unique(&p->ctx, &s->axes[0], "a trace named");
}

/* Two axes may not set the same key: which one wins would be hidden. */
static int check_disjoint(struct parser *p)
{
    struct sweep_spec *s = p->s;
    struct axis_keys *keys = xcalloc(s->naxes + 1, sizeof *keys);
    int rc = 0;
    for (size_t a = 0; a < s->naxes; a++)
        axis_keys(&s->axes[a], &keys[a]);
    for (size_t a = 0; a < s->naxes && !rc; a++)
        for (size_t b = a + 1; b < s->naxes && !rc; b++)
            for (size_t i = 0; i < keys[a].n && !rc; i++)
                for (size_t j = 0; j < keys[b].n && !rc; j++) {
                    const struct sweep_setting *u = keys[a].set[i], *v = keys[b].set[j];
                    if (!strcmp(u->section, v->section) &&
                        !strcmp(rp_config_key_name(u->section, u->key), rp_config_key_name(v->section, v->key)))
                        rc = spec_error(&p->ctx, v->line, "%s.%s is set by axis %s (line %d) and by axis %s",
                                        v->section, v->key, s->axes[a].name, u->line, s->axes[b].name);
                }
    for (size_t a = 0; a < s->naxes; a++)
        free(keys[a].set);
    free(keys);
    return rc;
}

/* The column a metric line (parsed once already) names. */
static char *column_of(const char *text)
{
    char merr[256];
    struct sweep_metric *m = sweep_metric_parse(text, merr, sizeof merr);
    char *c = xstrdup(m ? sweep_metric_column(m) : text);
    sweep_metric_free(m);
    return c;
}

/* A metric is a column of the table (window_metric of the windows table)
 * beside the axes' and the table's own: one name, one column. */
static int check_columns(struct parser *p)
{
    static const char *const table_own[] = { "status", "result", "windows", NULL };
    static const char *const windows_own[] = { "window", "begin_cycle", NULL };
    struct sweep_spec *s = p->s;
    for (int w = 0; w < 2; w++) {
        char **m = w ? s->window_metrics : s->metrics;
        size_t n = w ? s->nwindow_metrics : s->nmetrics;
        const char *const *own = w ? windows_own : table_own;
        const char *key = w ? "window_metric" : "metric";
        char **col = xcalloc(n + 1, sizeof *col);
        int rc = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            col[i] = column_of(m[i]);
            for (size_t a = 0; a < s->naxes && !rc; a++)
                if (!strcmp(col[i], s->axes[a].name))
                    rc = spec_error(&p->ctx, s->axes[a].line, "%s %s has the name of axis %s: one column each",
                                    key, col[i], col[i]);
            for (size_t k = 0; own[k] && !rc; k++)
                if (!strcmp(col[i], own[k]))
                    rc = spec_error(&p->ctx, 0, "%s %s has the name of the table's own column", key, col[i]);
            for (size_t j = 0; j < i && !rc; j++)
                if (!strcmp(col[i], col[j]))
                    rc = spec_error(&p->ctx, 0, "%s %s is given twice (%s%s%s)", key, col[i], m[j],
                                    strcmp(m[j], m[i]) ? ", " : "", strcmp(m[j], m[i]) ? m[i] : "");
        }
        for (size_t i = 0; i < n; i++)
            free(col[i]);
        free(col);
        if (rc)
            return rc;
    }
    return 0;
}

static int finish(struct parser *p)
{
    struct sweep_spec *s = p->s;
    if (!s->ntraces)
        return spec_error(&p->ctx, 0, "no trace (add trace = FILE.cgt to [sweep])");
    if (s->nwindow_metrics && !s->windows)
        return spec_error(&p->ctx, 0, "window_metric without windows (add windows = N to [sweep])");
    for (size_t i = 0; i < s->naxes; i++) {
        if (!s->axes[i].nvalues)
            return spec_error(&p->ctx, s->axes[i].line, "axis %s has no values", s->axes[i].name);
        if (s->axes[i].kind == SWEEP_AXIS_BUNDLE && axis_check_unique(&p->ctx, &s->axes[i], "point"))
            return -1;
    }
    if (check_templates(p) || add_trace_axis(p) || check_disjoint(p) || check_columns(p))
        return -1;
    s->npoints = 1;
    for (size_t i = 0; i < s->naxes; i++) {
        if (s->npoints > SWEEP_MAX_POINTS / s->axes[i].nvalues)
            return spec_error(&p->ctx, s->axes[i].line, "more than %d points", SWEEP_MAX_POINTS);
        s->npoints *= s->axes[i].nvalues;
    }
    return 0;
}

int sweep_spec_parse(struct sweep_spec *s, const char *file, const char *text, size_t len, char *err,
                     size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->file = xstrdup(file);
    const char *slash = strrchr(file, '/');
    s->dir = slash ? xstrndup(file, (size_t)(slash - file) + (slash == file)) : xstrdup(".");
    struct parser p = { .s = s, .ctx = { .file = file, .err = err, .errlen = errlen } };
    int rc = 0, line = 0;
    for (size_t at = 0; at < len && !rc;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - text - at) : len - at;
        line++;
        if (memchr(text + at, 0, n)) {
            rc = spec_error(&p.ctx, line, "NUL byte (not a text file?)");
            break;
        }
        char *buf = xstrndup(text + at, n);
        strip_comment(buf);
        char *t = trim(buf);
        if (*t == '[')
            rc = section_line(&p, t, line);
        else if (*t)
            rc = assignment_line(&p, t, line);
        free(buf);
        at += n + 1;
    }
    if (!rc)
        rc = finish(&p);
    if (rc) {
        sweep_spec_free(s);
        return -1;
    }
    return 0;
}

int sweep_spec_load(struct sweep_spec *s, const char *file, char *err, size_t errlen)
{
    size_t len;
    char *text = read_file(file, &len, err, errlen);
    if (!text)
        return -1;
    int rc = sweep_spec_parse(s, file, text, len, err, errlen);
    free(text);
    return rc;
}

static void free_settings(struct sweep_setting *set, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(set[i].section);
        free(set[i].key);
        free(set[i].value);
    }
    free(set);
}

void sweep_spec_free(struct sweep_spec *s)
{
    free(s->file);
    free(s->dir);
    free(s->config);
    free_settings(s->base, s->nbase);
    for (size_t i = 0; i < s->ntraces; i++) {
        free(s->traces[i].path);
        free(s->traces[i].label);
    }
    free(s->traces);
    for (size_t i = 0; i < s->nmetrics; i++)
        free(s->metrics[i]);
    free(s->metrics);
    for (size_t i = 0; i < s->nwindow_metrics; i++)
        free(s->window_metrics[i]);
    free(s->window_metrics);
    for (size_t i = 0; i < s->naxes; i++) {
        for (size_t v = 0; v < s->axes[i].nvalues; v++) {
            free(s->axes[i].values[v].label);
            free_settings(s->axes[i].values[v].set, s->axes[i].values[v].nset);
        }
        free(s->axes[i].values);
        free(s->axes[i].name);
    }
    free(s->axes);
    memset(s, 0, sizeof *s);
}

const struct sweep_axis *sweep_spec_axis(const struct sweep_spec *s, const char *name)
{
    for (size_t i = 0; i < s->naxes; i++)
        if (!strcmp(s->axes[i].name, name))
            return &s->axes[i];
    return NULL;
}

void sweep_spec_digits(const struct sweep_spec *s, size_t p, size_t *digits)
{
    for (size_t i = s->naxes; i-- > 0;) {
        digits[i] = p % s->axes[i].nvalues;
        p /= s->axes[i].nvalues;
    }
}
