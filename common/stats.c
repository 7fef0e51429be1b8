/* The statistics registry: nodes in one growable array, linked into a tree;
 * counters own slots of the snapshot array in registration order. */
#include "common/stats_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cgm_stats *cgm_stats_create(void)
{
    struct cgm_stats *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* the root: an object without a name */
    if (stats_node_new(s, -1, STAT_OBJECT, NULL) != CGM_STATS_ROOT) {
        cgm_stats_destroy(s);
        return NULL;
    }
    return s;
}

void cgm_stats_destroy(struct cgm_stats *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->nodes[i].name);
        free(s->nodes[i].text);
    }
    for (size_t i = 0; i < s->nkept; i++)
        free(s->kept[i]);
    free(s->kept);
    free(s->nodes);
    free(s);
}

const void *cgm_stats_keep(struct cgm_stats *s, const void *ctx, size_t size)
{
    void **kept = realloc(s->kept, (s->nkept + 1) * sizeof *kept);
    void *copy = malloc(size ? size : 1);
    if (kept)
        s->kept = kept;
    if (!kept || !copy) {
        free(copy);
        s->failed = true;
        return NULL;
    }
    memcpy(copy, ctx, size);
    s->kept[s->nkept++] = copy;
    return copy;
}

bool cgm_stats_failed(const struct cgm_stats *s) { return s->failed; }

cgm_stat stats_node_new(struct cgm_stats *s, cgm_stat parent, enum stat_kind kind, const char *name)
{
    if (s->failed || (parent >= 0 && (size_t)parent >= s->n) || (parent < 0 && s->n)) {
        s->failed = true;
        return -1;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct stat_node *nodes = realloc(s->nodes, cap * sizeof *nodes);
        if (!nodes) {
            s->failed = true;
            return -1;
        }
        s->nodes = nodes;
        s->cap = cap;
    }
    cgm_stat id = (cgm_stat)s->n;
    struct stat_node *n = &s->nodes[s->n];
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->parent = parent;
    n->first = n->last = n->next = -1;
    if (name && !(n->name = strdup(name))) {
        s->failed = true;
        return -1;
    }
    s->n++;
    if (parent >= 0) {
        struct stat_node *p = &s->nodes[parent];
        if (p->last >= 0)
            s->nodes[p->last].next = id;
        else
            p->first = id;
        p->last = id;
        p->count++;
    }
    return id;
}

/* A node that takes n slots of the snapshot. */
static cgm_stat slotted(struct cgm_stats *s, cgm_stat parent, enum stat_kind kind, const char *name,
                        unsigned slots)
{
    if (parent < 0 || (size_t)parent >= s->n ||
        (s->nodes[parent].kind != STAT_OBJECT && s->nodes[parent].kind != STAT_ARRAY)) {
        s->failed = true;
        return -1;
    }
    cgm_stat id = stats_node_new(s, parent, kind, name);
    if (id < 0)
        return -1;
    s->nodes[id].slot = s->slots;
    s->nodes[id].n = slots;
    s->slots += slots;
    return id;
}

cgm_stat cgm_stats_object(struct cgm_stats *s, cgm_stat parent, const char *name)
{
    return slotted(s, parent, STAT_OBJECT, name, 0);
}

cgm_stat cgm_stats_array(struct cgm_stats *s, cgm_stat parent, const char *name)
{
    return slotted(s, parent, STAT_ARRAY, name, 0);
}

cgm_stat cgm_stats_child(const struct cgm_stats *s, cgm_stat group, const char *name)
{
    if (group < 0 || (size_t)group >= s->n)
        return -1;
    for (cgm_stat c = s->nodes[group].first; c >= 0; c = s->nodes[c].next)
        if (s->nodes[c].name && !strcmp(s->nodes[c].name, name))
            return c;
    return -1;
}

cgm_stat cgm_stat_counter(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p)
{
    cgm_stat id = slotted(s, group, STAT_COUNTER, name, 1);
    if (id >= 0)
        s->nodes[id].p = p;
    return id;
}

cgm_stat cgm_stat_computed(struct cgm_stats *s, cgm_stat group, const char *name, cgm_stat_fn fn,
                           const void *ctx)
{
    cgm_stat id = slotted(s, group, STAT_COMPUTED, name, 1);
    if (id >= 0) {
        s->nodes[id].fn = fn;
        s->nodes[id].ctx = ctx;
    }
    return id;
}

cgm_stat cgm_stat_histogram(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p,
                            unsigned n)
{
    cgm_stat id = slotted(s, group, STAT_HISTOGRAM, name, n);
    if (id >= 0)
        s->nodes[id].p = p;
    return id;
}

/* An object of single counters, so that each is a node a path can reach
 * ("coherence.messages.GetS") like any other counter. */
cgm_stat cgm_stat_counters(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p,
                           const char *const *names, unsigned n)
{
    cgm_stat id = cgm_stats_object(s, group, name);
    for (unsigned i = 0; id >= 0 && i < n; i++)
        if (names[i] && cgm_stat_counter(s, id, names[i], p + i) < 0)
            return -1;
    return id;
}

cgm_stat cgm_stat_peak(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p)
{
    cgm_stat id = slotted(s, group, STAT_PEAK, name, 1);
    if (id >= 0)
        s->nodes[id].p = p;
    return id;
}

cgm_stat cgm_stat_level(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p)
{
    return cgm_stat_peak(s, group, name, p);
}

cgm_stat cgm_stat_peak_computed(struct cgm_stats *s, cgm_stat group, const char *name, cgm_stat_fn fn,
                                const void *ctx)
{
    cgm_stat id = slotted(s, group, STAT_PEAK, name, 1);
    if (id >= 0) {
        s->nodes[id].fn = fn;
        s->nodes[id].ctx = ctx;
    }
    return id;
}

cgm_stat cgm_stat_label(struct cgm_stats *s, cgm_stat group, const char *name, const char *text)
{
    cgm_stat id = slotted(s, group, STAT_LABEL, name, 0);
    if (id >= 0 && !(s->nodes[id].text = strdup(text))) {
        s->failed = true;
        return -1;
    }
    return id;
}

cgm_stat cgm_stat_label_ref(struct cgm_stats *s, cgm_stat group, const char *name, const char *text)
{
    cgm_stat id = slotted(s, group, STAT_LABEL, name, 0);
    if (id >= 0)
        s->nodes[id].ref = text;
    return id;
}

cgm_stat cgm_stat_id(struct cgm_stats *s, cgm_stat group, const char *name, uint64_t v)
{
    cgm_stat id = slotted(s, group, STAT_ID, name, 0);
    if (id >= 0)
        s->nodes[id].v = (double)v;
    return id;
}

cgm_stat cgm_stat_constant(struct cgm_stats *s, cgm_stat group, const char *name, double v)
{
    cgm_stat id = slotted(s, group, STAT_CONSTANT, name, 0);
    if (id >= 0)
        s->nodes[id].v = v;
    return id;
}

static bool numeric(const struct cgm_stats *s, cgm_stat id)
{
    if (id < 0 || (size_t)id >= s->n)
        return false;
    switch (s->nodes[id].kind) {
    case STAT_COUNTER: case STAT_COMPUTED: case STAT_PEAK: case STAT_CONSTANT: case STAT_ID:
    case STAT_RATIO:
        return true;
    default:
        return false;
    }
}

cgm_stat cgm_stat_ratio(struct cgm_stats *s, cgm_stat group, const char *name, cgm_stat num,
                        cgm_stat den, double mul, double div)
{
    if (!numeric(s, num) || !numeric(s, den)) {
        s->failed = true;
        return -1;
    }
    cgm_stat id = slotted(s, group, STAT_RATIO, name, 0);
    if (id >= 0) {
        s->nodes[id].num = num;
        s->nodes[id].den = den;
        s->nodes[id].mul = mul;
        s->nodes[id].div = div;
    }
    return id;
}

size_t cgm_stats_slots(const struct cgm_stats *s) { return s->slots; }

void cgm_stats_read(const struct cgm_stats *s, uint64_t *values)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct stat_node *n = &s->nodes[i];
        switch (n->kind) {
        case STAT_COUNTER: case STAT_COMPUTED: case STAT_PEAK:
            values[n->slot] = n->fn ? n->fn(n->ctx) : *n->p;
            break;
        case STAT_HISTOGRAM:
            memcpy(values + n->slot, n->p, n->n * sizeof *values);
            break;
        default:
            break;
        }
    }
}

void cgm_stats_subtract(const struct cgm_stats *s, uint64_t *end, const uint64_t *begin)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct stat_node *n = &s->nodes[i];
        if (n->kind == STAT_PEAK)
            continue;
        for (unsigned k = 0; k < n->n; k++)
            end[n->slot + k] -= begin[n->slot + k];
    }
}

void cgm_stats_accumulate(const struct cgm_stats *s, uint64_t *sum, const uint64_t *end, const uint64_t *begin)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct stat_node *n = &s->nodes[i];
        for (unsigned k = 0; k < n->n; k++) {
            size_t at = n->slot + k;
            sum[at] = n->kind == STAT_PEAK ? end[at] : sum[at] + (end[at] - begin[at]);
        }
    }
}

uint64_t cgm_stats_read_one(const struct cgm_stats *s, cgm_stat id)
{
    if (id < 0 || (size_t)id >= s->n)
        return 0;
    const struct stat_node *n = &s->nodes[id];
    switch (n->kind) {
    case STAT_COUNTER: case STAT_COMPUTED: case STAT_PEAK:
        return n->fn ? n->fn(n->ctx) : *n->p;
    default:
        return 0;
    }
}

double cgm_stats_value(const struct cgm_stats *s, const uint64_t *values, cgm_stat id)
{
    if (!numeric(s, id))
        return 0;
    const struct stat_node *n = &s->nodes[id];
    switch (n->kind) {
    case STAT_CONSTANT: case STAT_ID:
        return n->v;
    case STAT_RATIO: {
        double den = cgm_stats_value(s, values, n->den);
        if (den == 0)
            return 0;
        double v = cgm_stats_value(s, values, n->num) / den;
        if (n->mul != 1)
            v *= n->mul;
        if (n->div != 1)
            v /= n->div;
        return v;
    }
    default:
        return (double)values[n->slot];
    }
}

unsigned cgm_stats_count(const struct cgm_stats *s, cgm_stat group)
{
    return group >= 0 && (size_t)group < s->n ? s->nodes[group].count : 0;
}

cgm_stat cgm_stats_member(const struct cgm_stats *s, cgm_stat group, unsigned i)
{
    if (group < 0 || (size_t)group >= s->n)
        return -1;
    cgm_stat c = s->nodes[group].first;
    while (c >= 0 && i--)
        c = s->nodes[c].next;
    return c;
}

const char *cgm_stats_label_of(const struct cgm_stats *s, cgm_stat node)
{
    if (node < 0 || (size_t)node >= s->n || s->nodes[node].kind != STAT_LABEL)
        return NULL;
    return s->nodes[node].ref ? s->nodes[node].ref : s->nodes[node].text;
}

cgm_stat cgm_stats_find(const struct cgm_stats *s, cgm_stat group, const char *path)
{
    char part[128];
    while (group >= 0 && *path) {
        size_t len = strcspn(path, ".");
        if (len >= sizeof part)
            return -1;
        memcpy(part, path, len);
        part[len] = 0;
        path += len + (path[len] == '.');
        if (s->nodes[group].kind == STAT_ARRAY) {
            char *end;
            unsigned long i = strtoul(part, &end, 10);
            if (end == part || *end || i >= s->nodes[group].count)
                return -1;
            group = cgm_stats_member(s, group, (unsigned)i);
        } else {
            group = cgm_stats_child(s, group, part);
        }
    }
    return group;
}

void cgm_stats_path(const struct cgm_stats *s, cgm_stat node, const char *path, char *buf, size_t len)
{
    /* the names from NODE up to the root, then written root first */
    char part[16][48];
    int depth = 0;
    for (cgm_stat n = node; n > CGM_STATS_ROOT && (size_t)n < s->n && depth < 16; n = s->nodes[n].parent) {
        const struct stat_node *x = &s->nodes[n];
        if (x->name) {
            snprintf(part[depth++], sizeof part[0], "%s", x->name);
        } else { /* an array element: its index */
            unsigned i = 0;
            for (cgm_stat c = s->nodes[x->parent].first; c >= 0 && c != n; c = s->nodes[c].next)
                i++;
            snprintf(part[depth++], sizeof part[0], "%u", i);
        }
    }
    size_t at = 0;
    buf[0] = 0;
    for (int d = depth - 1; d >= 0 && at < len; d--)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "." : "", part[d]);
    if (path && at < len)
        snprintf(buf + at, len - at, "%s%s", at ? "." : "", path);
}

static void reader_missing(struct cgm_stats_reader *r, cgm_stat group, const char *path)
{
    if (!r->missing[0])
        cgm_stats_path(r->s, group, path, r->missing, sizeof r->missing);
}

double cgm_stats_get(struct cgm_stats_reader *r, cgm_stat group, const char *path)
{
    cgm_stat n = group >= 0 ? cgm_stats_find(r->s, group, path) : -1;
    if (!numeric(r->s, n)) {
        reader_missing(r, group, path);
        return NAN;
    }
    return cgm_stats_value(r->s, r->values, n);
}

const char *cgm_stats_get_label(struct cgm_stats_reader *r, cgm_stat group, const char *path)
{
    const char *text = cgm_stats_label_of(r->s, group >= 0 ? cgm_stats_find(r->s, group, path) : -1);
    if (!text)
        reader_missing(r, group, path);
    return text;
}
