/* Metric paths over the statistics JSON (metric.h). */
#include "sweep/metric.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/util.h"

enum func { F_NONE, F_SUM, F_MEAN, F_MIN, F_MAX, F_COUNT };
static const char *const func_names[] = { "", "sum", "mean", "min", "max", "count" };

#define SEL_ALL ((size_t)-1)

struct step {
    char *name;
    struct sel {
        char *text;   /* NULL: by index */
        size_t index; /* SEL_ALL: [*] */
    } *sels;
    size_t nsels;
};

struct term {
    enum func func;
    char *text; /* the term as written, for messages */
    struct step *steps;
    size_t nsteps;
};

struct sweep_metric {
    char *text;   /* the expression */
    char *column; /* its alias, or the expression */
    struct term t[2];
    int nterms;
};

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static bool name_char(char c)
{
    return ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static void free_term(struct term *t)
{
    for (size_t i = 0; i < t->nsteps; i++) {
        for (size_t k = 0; k < t->steps[i].nsels; k++)
            free(t->steps[i].sels[k].text);
        free(t->steps[i].sels);
        free(t->steps[i].name);
    }
    free(t->steps);
    free(t->text);
}

static int parse_path(const char *metric, const char *p, const char *end, struct term *t, char *err, size_t errlen)
{
    if (p == end)
        return fail(err, errlen, "metric '%s': empty path", metric);
    while (p < end) {
        const char *n = p;
        while (p < end && name_char(*p))
            p++;
        if (p == n)
            return fail(err, errlen, "metric '%s': expected a key name at '%.*s'", metric, (int)(end - n), n);
        t->steps = xrealloc(t->steps, (t->nsteps + 1) * sizeof *t->steps);
        struct step *s = &t->steps[t->nsteps++];
        memset(s, 0, sizeof *s);
        s->name = xstrndup(n, (size_t)(p - n));
        while (p < end && *p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            if (!close)
                return fail(err, errlen, "metric '%s': '[' without ']'", metric);
            const char *in = p + 1;
            size_t len = (size_t)(close - in);
            if (!len)
                return fail(err, errlen, "metric '%s': empty [] after %s", metric, s->name);
            s->sels = xrealloc(s->sels, (s->nsels + 1) * sizeof *s->sels);
            struct sel *sel = &s->sels[s->nsels++];
            sel->text = NULL;
            size_t digits = 0;
            while (digits < len && in[digits] >= '0' && in[digits] <= '9')
                digits++;
            if (len == 1 && *in == '*')
                sel->index = SEL_ALL;
            else if (digits == len && len < 10)
                sel->index = (size_t)strtoul(in, NULL, 10);
            else
                sel->text = xstrndup(in, len);
            p = close + 1;
        }
        if (p < end) {
            if (*p != '.')
                return fail(err, errlen, "metric '%s': expected '.' or '[' at '%.*s'", metric, (int)(end - p), p);
            p++;
            if (p == end)
                return fail(err, errlen, "metric '%s': path ends with '.'", metric);
        }
    }
    return 0;
}

static int parse_term(const char *metric, const char *p, const char *end, struct term *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    t->text = xstrndup(p, (size_t)(end - p));
    const char *paren = memchr(p, '(', (size_t)(end - p));
    if (paren) {
        for (int f = F_SUM; f <= F_COUNT; f++)
            if ((size_t)(paren - p) == strlen(func_names[f]) && !strncmp(p, func_names[f], (size_t)(paren - p)))
                t->func = (enum func)f;
        if (t->func == F_NONE)
            return fail(err, errlen, "metric '%s': unknown function '%.*s' (sum, mean, min, max, count)", metric,
                        (int)(paren - p), p);
        if (end[-1] != ')' || end - 1 <= paren)
            return fail(err, errlen, "metric '%s': '(' without ')'", metric);
        p = paren + 1;
        end--;
    }
    return parse_path(metric, p, end, t, err, errlen);
}

/* "NAME = EXPR": NAME names the column. A name is what a key is made of,
 * dots included (l1d.miss_rate); the expression language has no '='. */
static int split_alias(const char *text, char **name, const char **expr, char *err, size_t errlen)
{
    const char *eq = strchr(text, '=');
    *name = NULL;
    *expr = text;
    if (!eq)
        return 0;
    const char *b = text, *e = eq;
    while (*b == ' ' || *b == '\t')
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (b == e)
        return fail(err, errlen, "metric '%s': no column name before '='", text);
    for (const char *c = b; c < e; c++)
        if (!name_char(*c) && *c != '.')
            return fail(err, errlen, "metric '%s': '%.*s' is not a column name (letters, digits, _ - .)", text,
                        (int)(e - b), b);
    *name = xstrndup(b, (size_t)(e - b));
    *expr = eq + 1;
    while (**expr == ' ' || **expr == '\t')
        (*expr)++;
    if (strchr(*expr, '='))
        return fail(err, errlen, "metric '%s': more than one '='", text);
    if (!**expr)
        return fail(err, errlen, "metric '%s': nothing after '='", text);
    return 0;
}

struct sweep_metric *sweep_metric_parse(const char *given, char *err, size_t errlen)
{
    struct sweep_metric *m = xcalloc(1, sizeof *m);
    const char *text;
    if (split_alias(given, &m->column, &text, err, errlen)) {
        free(m->column);
        free(m);
        return NULL;
    }
    while (*text == ' ' || *text == '\t')
        text++;
    m->text = xstrdup(text);
    size_t tl = strlen(m->text);
    while (tl && (m->text[tl - 1] == ' ' || m->text[tl - 1] == '\t'))
        m->text[--tl] = 0;
    if (!m->column)
        m->column = xstrdup(m->text);
    text = m->text;
    const char *end = text + strlen(text);
    const char *slash = strchr(text, '/');
    int rc;
    if (slash) {
        m->nterms = 2;
        rc = parse_term(text, text, slash, &m->t[0], err, errlen);
        if (!rc)
            rc = parse_term(text, slash + 1, end, &m->t[1], err, errlen);
    } else {
        m->nterms = 1;
        rc = parse_term(text, text, end, &m->t[0], err, errlen);
    }
    if (rc) {
        sweep_metric_free(m);
        return NULL;
    }
    return m;
}

void sweep_metric_free(struct sweep_metric *m)
{
    if (!m)
        return;
    for (int i = 0; i < 2; i++)
        free_term(&m->t[i]);
    free(m->text);
    free(m->column);
    free(m);
}

const char *sweep_metric_column(const struct sweep_metric *m)
{
    return m->column;
}

/* The first few member names of an object (or the names and kinds of an
 * array's elements), for a message that says what was there instead. */
static void describe(const cJSON *node, char *buf, size_t len)
{
    buf[0] = 0;
    size_t n = 0, shown = 0;
    const cJSON *c;
    if (cJSON_IsObject(node)) {
        cJSON_ArrayForEach(c, node) {
            if (shown++ == 12) {
                n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", ...");
                break;
            }
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", shown > 1 ? ", " : "keys: ", c->string);
        }
    } else if (cJSON_IsArray(node)) {
        n += (size_t)snprintf(buf, len, "%d elements", cJSON_GetArraySize(node));
        cJSON_ArrayForEach(c, node) {
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(c, "name");
            const cJSON *kd = cJSON_GetObjectItemCaseSensitive(c, "kind");
            if (!cJSON_IsString(nm))
                break;
            if (shown++ == 8) {
                n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", ...");
                break;
            }
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", shown > 1 ? ", " : ": ", nm->valuestring);
            if (cJSON_IsString(kd))
                n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " (%s)", kd->valuestring);
        }
    } else {
        snprintf(buf, len, "a %s", cJSON_IsString(node) ? "string" : cJSON_IsNumber(node) ? "number" : "value");
    }
}

static bool selected(const cJSON *el, const struct sel *sel, size_t i)
{
    if (!sel->text)
        return sel->index == SEL_ALL || sel->index == i;
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(el, "name");
    const cJSON *kd = cJSON_GetObjectItemCaseSensitive(el, "kind");
    return (cJSON_IsString(nm) && !strcmp(nm->valuestring, sel->text)) ||
           (cJSON_IsString(kd) && !strcmp(kd->valuestring, sel->text));
}

struct nodes {
    const cJSON **v;
    size_t n;
};

static void push(struct nodes *s, const cJSON *node)
{
    s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    s->v[s->n++] = node;
}

/* Every node the term's path selects. A selector that matches no element
 * is an error unless counting (count() of nothing is 0). CHECKING (the
 * statistics' shape before a run): a selector on lists that are all empty
 * there (histograms' buckets, which the run fills) is taken on trust, and
 * *TRUSTED says so. */
static int select_nodes(const char *metric, const struct term *t, const cJSON *root, bool checking, bool *trusted,
                        struct nodes *out, char *err, size_t errlen)
{
    *trusted = false;
    bool counting = t->func == F_COUNT;
    struct nodes cur = { NULL, 0 };
    push(&cur, root);
    char what[512];
    int rc = 0;
    for (size_t i = 0; i < t->nsteps && !rc; i++) {
        const struct step *s = &t->steps[i];
        struct nodes next = { NULL, 0 };
        for (size_t k = 0; k < cur.n; k++) {
            const cJSON *c = cJSON_IsObject(cur.v[k]) ? cJSON_GetObjectItemCaseSensitive(cur.v[k], s->name) : NULL;
            if (c)
                push(&next, c);
        }
        if (!next.n) {
            describe(cur.v[0], what, sizeof what);
            rc = fail(err, errlen, "metric '%s': no '%s' %s%s (%s)", metric, s->name, i ? "under " : "at the top",
                      i ? t->steps[i - 1].name : "", what);
        }
        for (size_t q = 0; q < s->nsels && !rc; q++) {
            bool all_empty = next.n > 0;
            for (size_t k = 0; k < next.n; k++)
                all_empty &= cJSON_IsArray(next.v[k]) && !cJSON_GetArraySize(next.v[k]);
            if (checking && all_empty) {
                *trusted = true;
                free(next.v);
                next = (struct nodes){ NULL, 0 };
                break;
            }
            struct nodes sel = { NULL, 0 };
            for (size_t k = 0; k < next.n; k++) {
                if (!cJSON_IsArray(next.v[k]))
                    continue;
                size_t idx = 0;
                const cJSON *el;
                cJSON_ArrayForEach(el, next.v[k]) {
                    if (selected(el, &s->sels[q], idx))
                        push(&sel, el);
                    idx++;
                }
            }
            if (!sel.n && !(counting && cJSON_IsArray(next.v[0]))) {
                describe(next.v[0], what, sizeof what);
                const struct sel *x = &s->sels[q];
                if (!cJSON_IsArray(next.v[0]))
                    rc = fail(err, errlen, "metric '%s': %s is not a list (%s)", metric, s->name, what);
                else if (x->text)
                    rc = fail(err, errlen, "metric '%s': %s has no element named or of kind '%s' (%s)", metric,
                              s->name, x->text, what);
                else
                    rc = fail(err, errlen, "metric '%s': %s has no element %zu (%s)", metric, s->name, x->index,
                              what);
            }
            free(next.v);
            next = sel;
        }
        free(cur.v);
        cur = next;
        if (!cur.n)
            break; /* counting nothing, or trusted */
    }
    if (rc) {
        free(cur.v);
        return -1;
    }
    *out = cur;
    return 0;
}

static int eval_term(const char *metric, const struct term *t, const cJSON *root, bool checking, double *out,
                     char *err, size_t errlen)
{
    struct nodes nodes;
    bool trusted;
    if (select_nodes(metric, t, root, checking, &trusted, &nodes, err, errlen))
        return -1;
    int rc = 0;
    if (trusted) {
        *out = 0;
    } else if (t->func == F_COUNT) {
        *out = (double)nodes.n;
    } else if (t->func == F_NONE && nodes.n != 1) {
        rc = fail(err, errlen, "metric '%s': %s selects %zu values; fold them with sum(), mean(), min() or max()",
                  metric, t->text, nodes.n);
    } else {
        double acc = 0;
        for (size_t i = 0; i < nodes.n && !rc; i++) {
            if (!cJSON_IsNumber(nodes.v[i])) {
                char what[512];
                describe(nodes.v[i], what, sizeof what);
                rc = fail(err, errlen, "metric '%s': %s is not a number (%s)", metric, t->text, what);
                break;
            }
            double v = nodes.v[i]->valuedouble;
            if (i == 0 || t->func == F_NONE)
                acc = v;
            else if (t->func == F_MIN)
                acc = fmin(acc, v);
            else if (t->func == F_MAX)
                acc = fmax(acc, v);
            else
                acc += v;
        }
        *out = t->func == F_MEAN ? acc / (double)nodes.n : acc;
    }
    free(nodes.v);
    return rc;
}

static int evaluate(const struct sweep_metric *m, const cJSON *stats, bool checking, double *out, char *err,
                    size_t errlen)
{
    double a, b;
    if (eval_term(m->text, &m->t[0], stats, checking, &a, err, errlen))
        return -1;
    if (m->nterms == 1) {
        *out = a;
        return 0;
    }
    if (eval_term(m->text, &m->t[1], stats, checking, &b, err, errlen))
        return -1;
    if (b == 0 && !checking)
        return fail(err, errlen, "metric '%s': %s is 0", m->text, m->t[1].text);
    *out = b ? a / b : 0;
    return 0;
}

int sweep_metric_eval(const struct sweep_metric *m, const cJSON *stats, double *out, char *err, size_t errlen)
{
    return evaluate(m, stats, false, out, err, errlen);
}

int sweep_metric_check(const struct sweep_metric *m, const cJSON *shape, char *err, size_t errlen)
{
    double v;
    return evaluate(m, shape, true, &v, err, errlen);
}
