/* Points, effective configurations and keys (plan.h). */
#include "sweep/plan.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cgm/check.h"
#include "sweep/util.h"

/* Changing what the key covers changes this line, so old results are not
 * taken for new ones. */
static const char KEY_DOMAIN[] = "cgmtrace sweep point 2\n";

static void hex128(XXH128_hash_t h, char out[SWEEP_KEY_LEN + 1])
{
    snprintf(out, SWEEP_KEY_LEN + 1, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

int sweep_hash_file(const char *path, char out[SWEEP_KEY_LEN + 1], char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    XXH3_state_t *st = XXH3_createState();
    if (!st) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    XXH3_128bits_reset(st);
    enum { CHUNK = 1 << 20 };
    char *buf = xmalloc(CHUNK);
    size_t n;
    while ((n = fread(buf, 1, CHUNK, f)) > 0)
        XXH3_128bits_update(st, buf, n);
    int rc = ferror(f) ? -1 : 0;
    if (rc)
        snprintf(err, errlen, "%s: read error", path);
    else
        hex128(XXH3_128bits_digest(st), out);
    free(buf);
    XXH3_freeState(st);
    fclose(f);
    return rc;
}

char *sweep_config_ini(const struct rp_config *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        fputs("sweep: out of memory\n", stderr);
        exit(1);
    }
    rp_config_print(cfg, f);
    fclose(f);
    return text;
}

char *sweep_config_canonical(const struct rp_config *cfg)
{
    char *ini = sweep_config_ini(cfg);
    char *out = xmalloc(strlen(ini) + 1), *o = out;
    for (char *line = ini; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
        if (line[0] != ';' && line[0] != '\n') {
            memcpy(o, line, n);
            o += n;
        }
        line += n;
    }
    *o = 0;
    free(ini);
    return out;
}

void sweep_point_key(const char *program_hash, const char *trace_hash, unsigned long long windows,
                     const struct rp_config *cfg, char out[SWEEP_KEY_LEN + 1])
{
    char *canon = sweep_config_canonical(cfg);
    XXH3_state_t *st = XXH3_createState();
    if (!st) {
        fputs("sweep: out of memory\n", stderr);
        exit(1);
    }
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, KEY_DOMAIN, sizeof KEY_DOMAIN - 1);
    XXH3_128bits_update(st, program_hash, strlen(program_hash));
    XXH3_128bits_update(st, "\n", 1);
    XXH3_128bits_update(st, trace_hash, strlen(trace_hash));
    XXH3_128bits_update(st, "\n", 1);
    /* A point with windows has more results than one without. The line
     * cannot be taken for the configuration's first, a section header; a
     * point without windows keeps the key it always had. */
    if (windows) {
        char line[48];
        int n = snprintf(line, sizeof line, "windows %llu\n", windows);
        XXH3_128bits_update(st, line, (size_t)n);
    }
    XXH3_128bits_update(st, canon, strlen(canon));
    hex128(XXH3_128bits_digest(st), out);
    XXH3_freeState(st);
    free(canon);
}

static size_t digit(const struct sweep_spec *s, size_t i, size_t a)
{
    for (size_t k = s->naxes; k-- > a + 1;)
        i /= s->axes[k].nvalues;
    return i % s->axes[a].nvalues;
}

const char *sweep_plan_label(const struct sweep_plan *p, size_t i, size_t a)
{
    return p->spec->axes[a].values[digit(p->spec, i, a)].label;
}

void sweep_plan_config(const struct sweep_plan *p, size_t i, struct rp_config *cfg)
{
    *cfg = p->base;
    char err[768];
    for (size_t a = 0; a < p->spec->naxes; a++) {
        const struct sweep_value *v = &p->spec->axes[a].values[digit(p->spec, i, a)];
        for (size_t k = 0; k < v->nset; k++) {
            int rc = rp_config_apply(cfg, v->set[k].section, v->set[k].key, v->set[k].value, "", 0, err, sizeof err);
            CGM_CHECK(rc == 0); /* the spec reader applied every setting already */
        }
    }
}

char *sweep_plan_describe(const struct sweep_plan *p, size_t i)
{
    char *out = xstrdup("");
    for (size_t a = 0; a < p->spec->naxes; a++) {
        char *next = xasprintf("%s%s%s=%s", out, a ? ", " : "", p->spec->axes[a].name, sweep_plan_label(p, i, a));
        free(out);
        out = next;
    }
    return out;
}

/* The trace of point I: its trace line with {var} replaced by the point's values. */
static char *trace_path(const struct sweep_plan *p, size_t i, int *line)
{
    const struct sweep_spec *s = p->spec;
    const struct sweep_trace *t = &s->traces[0];
    for (size_t a = 0; a < s->naxes; a++)
        if (s->axes[a].kind == SWEEP_AXIS_TRACE)
            t = &s->traces[digit(s, i, a)];
    *line = t->line;
    char *out = xstrdup("");
    for (const char *q = t->path; *q;) {
        const char *open = strchr(q, '{');
        size_t lit = open ? (size_t)(open - q) : strlen(q);
        char *next = xasprintf("%s%.*s", out, (int)lit, q);
        free(out);
        out = next;
        if (!open)
            break;
        const char *close = strchr(open, '}'); /* the spec reader checked the braces */
        size_t len = (size_t)(close - open - 1);
        for (size_t a = 0; a < s->naxes; a++)
            if (s->axes[a].kind == SWEEP_AXIS_VAR && strlen(s->axes[a].name) == len &&
                !strncmp(s->axes[a].name, open + 1, len)) {
                next = xasprintf("%s%s", out, sweep_plan_label(p, i, a));
                free(out);
                out = next;
            }
        q = close + 1;
    }
    char *full = path_join(s->dir, out);
    free(out);
    return full;
}

static size_t find_trace(struct sweep_plan *p, char *path, int line, bool allow_missing, char *err, size_t errlen,
                         int *rc)
{
    for (size_t k = 0; k < p->ntraces; k++)
        if (!strcmp(p->traces[k].given, path)) {
            free(path);
            return k;
        }
    p->traces = xrealloc(p->traces, (p->ntraces + 1) * sizeof *p->traces);
    struct sweep_trace_file *t = &p->traces[p->ntraces];
    memset(t, 0, sizeof *t);
    t->path = xstrdup(path);
    t->given = path;
    t->line = line;
    char msg[600], abs[PATH_MAX];
    /* replay is given absolute paths, here and on Slurm, so the "trace" in
     * its statistics is the same whichever ran the point. */
    if (realpath(path, abs)) {
        free(t->path);
        t->path = xstrdup(abs);
    }
    if (sweep_hash_file(path, t->hash, msg, sizeof msg)) {
        t->hash[0] = 0;
        t->error = xstrdup(msg);
        if (!allow_missing) {
            snprintf(err, errlen, "%s:%d: trace %s", p->spec->file, line, msg);
            *rc = -1;
        }
    }
    return p->ntraces++;
}

int sweep_plan_build(struct sweep_plan *p, const struct sweep_spec *spec, const char *program_hash,
                     bool allow_missing, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->spec = spec;
    snprintf(p->program_hash, sizeof p->program_hash, "%s", program_hash);
    rp_config_defaults(&p->base);
    int rc = 0;
    if (spec->config) {
        char *path = path_join(spec->dir, spec->config);
        rc = rp_config_load(&p->base, path, err, errlen);
        free(path);
    }
    for (size_t i = 0; i < spec->nbase && !rc; i++) {
        const struct sweep_setting *b = &spec->base[i];
        rc = rp_config_apply(&p->base, b->section, b->key, b->value, spec->file, b->line, err, errlen);
    }
    p->points = xcalloc(spec->npoints, sizeof *p->points);
    p->npoints = spec->npoints;
    size_t bad = 0;
    for (size_t i = 0; i < p->npoints && !rc; i++) {
        int line;
        char *path = trace_path(p, i, &line);
        struct sweep_point *pt = &p->points[i];
        pt->trace = find_trace(p, path, line, allow_missing, err, errlen, &rc);
        struct rp_config cfg;
        sweep_plan_config(p, i, &cfg);
        char msg[600];
        if (rp_config_check(&cfg, msg, sizeof msg)) {
            if (!bad++) {
                char *d = sweep_plan_describe(p, i);
                snprintf(err, errlen, "%s: point %zu (%s): %s", spec->file, i, d, msg);
                free(d);
            }
            continue;
        }
        if (!rc && p->traces[pt->trace].hash[0])
            sweep_point_key(p->program_hash, p->traces[pt->trace].hash, spec->windows, &cfg, pt->key);
    }
    if (!rc && bad > 1) {
        size_t n = strlen(err);
        snprintf(err + n, n < errlen ? errlen - n : 0, " (and %zu more points)", bad - 1);
    }
    if (rc || bad) {
        sweep_plan_free(p);
        return -1;
    }
    return 0;
}

void sweep_plan_free(struct sweep_plan *p)
{
    for (size_t i = 0; i < p->ntraces; i++) {
        free(p->traces[i].path);
        free(p->traces[i].given);
        free(p->traces[i].error);
    }
    free(p->traces);
    free(p->points);
    memset(p, 0, sizeof *p);
}
