/* Axis values: lists, ranges and named groups of settings (axis.h). */
#include "sweep/axis.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/config.h"
#include "sweep/util.h"

int spec_error(struct spec_ctx *c, int line, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(c->err, c->errlen, "%s:%d: %s", c->file, line, msg);
    else
        snprintf(c->err, c->errlen, "%s: %s", c->file, msg);
    return -1;
}

/* Splits "cache.l2.size" at its last dot. */
static int split_key(struct spec_ctx *c, const char *name, int line, char **section, char **key)
{
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name || !dot[1])
        return spec_error(c, line, "'%s' is not a configuration key (section.key)", name);
    *section = xstrndup(name, (size_t)(dot - name));
    *key = xstrdup(dot + 1);
    return 0;
}

/* Replay's own messages carry "FILE:LINE: "; ours add nothing to them. */
static int config_message(struct spec_ctx *c, const char *msg)
{
    snprintf(c->err, c->errlen, "%s", msg);
    return -1;
}

int spec_setting(struct spec_ctx *c, const char *name, const char *value, int line, struct sweep_setting *out)
{
    char *section, *key;
    if (split_key(c, name, line, &section, &key))
        return -1;
    char msg[768], canon[64];
    struct rp_config scratch;
    memset(&scratch, 0, sizeof scratch);
    uint64_t v;
    int rc = rp_config_apply(&scratch, section, key, value, c->file, line, msg, sizeof msg);
    if (!rc && !rp_config_format(section, key, 0, canon, sizeof canon)) {
        /* A number: written the one way --print-config writes it. */
        rc = rp_config_number(section, key, value, &v, c->file, line, msg, sizeof msg);
        if (!rc)
            rp_config_format(section, key, v, canon, sizeof canon);
    } else {
        snprintf(canon, sizeof canon, "%s", value);
    }
    if (rc) {
        free(section);
        free(key);
        return config_message(c, msg);
    }
    out->section = section;
    out->key = key;
    out->value = xstrdup(canon);
    out->line = line;
    return 0;
}

static struct sweep_value *add_value(struct spec_ctx *c, struct sweep_axis *a, int line)
{
    if (a->nvalues >= SWEEP_MAX_VALUES) {
        spec_error(c, line, "axis %s has more than %d values", a->name, SWEEP_MAX_VALUES);
        return NULL;
    }
    a->values = xrealloc(a->values, (a->nvalues + 1) * sizeof *a->values);
    struct sweep_value *v = &a->values[a->nvalues++];
    memset(v, 0, sizeof *v);
    v->line = line;
    return v;
}

/* One value of a key axis or a variable, from its text. */
static int add_single(struct spec_ctx *c, struct sweep_axis *a, const char *text, int line)
{
    if (a->kind == SWEEP_AXIS_KEY) {
        struct sweep_setting set;
        if (spec_setting(c, a->name, text, line, &set))
            return -1;
        struct sweep_value *v = add_value(c, a, line);
        if (!v) {
            free(set.section);
            free(set.key);
            free(set.value);
            return -1;
        }
        v->set = xmalloc(sizeof *v->set);
        v->set[0] = set;
        v->nset = 1;
        v->label = xstrdup(set.value);
        return 0;
    }
    struct sweep_value *v = add_value(c, a, line);
    if (!v)
        return -1;
    v->label = xstrdup(text);
    return 0;
}

static bool plain_number(const char *t, uint64_t *out)
{
    if (*t < '0' || *t > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(t, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* A range bound or step: a key's value with its units, or a plain number. */
static int bound(struct spec_ctx *c, const struct sweep_axis *a, const char *text, int line, uint64_t *out)
{
    if (a->kind == SWEEP_AXIS_KEY) {
        char *section, *key, msg[768];
        if (split_key(c, a->name, line, &section, &key))
            return -1;
        int rc = rp_config_number(section, key, text, out, c->file, line, msg, sizeof msg);
        free(section);
        free(key);
        return rc ? config_message(c, msg) : 0;
    }
    if (!plain_number(text, out))
        return spec_error(c, line, "%s: '%s' is not a number (a range of a name needs whole numbers)", a->name,
                          text);
    return 0;
}

/* "LO..HI", "LO..HI *F" (LO, LO*F, ... up to HI) or "LO..HI +S". */
static int add_range(struct spec_ctx *c, struct sweep_axis *a, char *item, int line)
{
    char *dots = strstr(item, "..");
    *dots = 0;
    char *lo_t = trim(item), *rest = dots + 2;
    char *op = strpbrk(rest, "*+");
    char opc = op ? *op : '+';
    if (op)
        *op = 0;
    char *hi_t = trim(rest), *step_t = op ? trim(op + 1) : NULL;
    uint64_t lo, hi, step = 1;
    if (bound(c, a, lo_t, line, &lo) || bound(c, a, hi_t, line, &hi))
        return -1;
    if (step_t && !plain_number(step_t, &step)) {
        if (opc == '*')
            return spec_error(c, line, "%s: factor '%s' is not a whole number", a->name, step_t);
        if (bound(c, a, step_t, line, &step)) /* a step with units: +512MHz */
            return -1;
    }
    if (lo > hi)
        return spec_error(c, line, "%s: range %s..%s is empty (the first bound is larger)", a->name, lo_t, hi_t);
    if (opc == '*' ? step < 2 : step < 1)
        return spec_error(c, line, "%s: a range step must be %s", a->name, opc == '*' ? "*2 or more" : "+1 or more");
    if (opc == '+' && (hi - lo) / step >= SWEEP_MAX_VALUES)
        return spec_error(c, line, "axis %s has more than %d values", a->name, SWEEP_MAX_VALUES);
    if (opc == '*' && lo == 0)
        return spec_error(c, line, "%s: a geometric range cannot start at 0", a->name);
    for (uint64_t v = lo;;) {
        char text[64];
        if (a->kind == SWEEP_AXIS_KEY) {
            char *section, *key;
            split_key(c, a->name, line, &section, &key);
            rp_config_format(section, key, v, text, sizeof text);
            free(section);
            free(key);
        } else {
            snprintf(text, sizeof text, "%" PRIu64, v);
        }
        if (add_single(c, a, text, line))
            return -1;
        uint64_t next;
        if (opc == '*' ? __builtin_mul_overflow(v, step, &next) : __builtin_add_overflow(v, step, &next))
            break;
        if (next > hi)
            break;
        v = next;
    }
    return 0;
}

int axis_parse_values(struct spec_ctx *c, struct sweep_axis *a, const char *text, int line)
{
    char *copy = xstrdup(text);
    int rc = 0;
    if (!*trim(copy))
        rc = spec_error(c, line, "axis %s: no values", a->name);
    /* strtok_r would merge empty items; walk the commas by hand. */
    for (char *item = copy; !rc && item;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = 0;
        char *t = trim(item);
        if (!*t)
            rc = spec_error(c, line, "axis %s: empty value in the list", a->name);
        else if (strstr(t, ".."))
            rc = add_range(c, a, t, line);
        else
            rc = add_single(c, a, t, line);
        item = comma ? comma + 1 : NULL;
    }
    free(copy);
    return rc ? -1 : axis_check_unique(c, a, "value");
}

int axis_add_bundle(struct spec_ctx *c, struct sweep_axis *a, const char *label, const char *settings, int line)
{
    struct sweep_value *v = add_value(c, a, line);
    if (!v)
        return -1;
    v->label = xstrdup(label);
    char *copy = xstrdup(settings);
    int rc = 0;
    for (char *item = *trim(copy) ? copy : NULL; !rc && item;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = 0;
        char *eq = strchr(item, '=');
        if (!eq) {
            rc = spec_error(c, line, "%s: '%s' is not KEY=VALUE", label, trim(item));
            break;
        }
        *eq = 0;
        v->set = xrealloc(v->set, (v->nset + 1) * sizeof *v->set);
        if (spec_setting(c, trim(item), trim(eq + 1), line, &v->set[v->nset])) {
            rc = -1;
            break;
        }
        const struct sweep_setting *n = &v->set[v->nset++];
        for (size_t i = 0; i + 1 < v->nset; i++)
            if (!strcmp(v->set[i].section, n->section) && !strcmp(v->set[i].key, n->key))
                rc = spec_error(c, line, "%s: %s.%s is set twice", label, n->section, n->key);
        item = comma ? comma + 1 : NULL;
    }
    free(copy);
    return rc;
}

static const struct sweep_axis *sort_axis;

static int by_label(const void *x, const void *y)
{
    const struct sweep_value *a = &sort_axis->values[*(const size_t *)x];
    const struct sweep_value *b = &sort_axis->values[*(const size_t *)y];
    int d = strcmp(a->label, b->label);
    return d ? d : (a->line > b->line) - (a->line < b->line);
}

int axis_check_unique(struct spec_ctx *c, const struct sweep_axis *a, const char *what)
{
    size_t *idx = xmalloc(a->nvalues * sizeof *idx);
    for (size_t i = 0; i < a->nvalues; i++)
        idx[i] = i;
    sort_axis = a;
    qsort(idx, a->nvalues, sizeof *idx, by_label);
    int rc = 0;
    for (size_t i = 1; i < a->nvalues && !rc; i++) {
        const struct sweep_value *p = &a->values[idx[i - 1]], *q = &a->values[idx[i]];
        if (!strcmp(p->label, q->label))
            rc = spec_error(c, q->line, "axis %s: %s %s appears twice (line %d)", a->name, what, q->label, p->line);
    }
    free(idx);
    return rc;
}

void axis_keys(const struct sweep_axis *a, struct axis_keys *out)
{
    out->set = NULL;
    out->n = 0;
    for (size_t v = 0; v < a->nvalues; v++) {
        for (size_t i = 0; i < a->values[v].nset; i++) {
            const struct sweep_setting *s = &a->values[v].set[i];
            size_t k = 0;
            while (k < out->n && (strcmp(out->set[k]->section, s->section) || strcmp(out->set[k]->key, s->key)))
                k++;
            if (k == out->n) {
                out->set = xrealloc(out->set, (out->n + 1) * sizeof *out->set);
                out->set[out->n++] = s;
            }
        }
        if (a->kind == SWEEP_AXIS_KEY)
            break; /* one key, the same in every value */
    }
}
