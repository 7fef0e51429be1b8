/* The registry as JSON: members in registration order, hidden helpers left
 * out, numbers through cJSON (integers print without a fraction). */
#include "common/stats_internal.h"

#include <stdlib.h>

static cJSON *histogram_json(const uint64_t *v, unsigned n)
{
    cJSON *a = cJSON_CreateArray();
    for (unsigned i = 0; a && i < n; i++) {
        if (!v[i])
            continue;
        cJSON *b = cJSON_CreateObject();
        if (!b)
            break;
        cJSON_AddNumberToObject(b, "from", i ? (double)(1ull << (i - 1)) : 0.0);
        cJSON_AddNumberToObject(b, "below", (double)(1ull << i));
        cJSON_AddNumberToObject(b, "count", (double)v[i]);
        cJSON_AddItemToArray(a, b);
    }
    return a;
}

static cJSON *node_json(const struct cgm_stats *s, const uint64_t *values, cgm_stat id)
{
    const struct stat_node *n = &s->nodes[id];
    switch (n->kind) {
    case STAT_OBJECT: case STAT_ARRAY: {
        cJSON *g = n->kind == STAT_OBJECT ? cJSON_CreateObject() : cJSON_CreateArray();
        for (cgm_stat c = n->first; g && c >= 0; c = s->nodes[c].next) {
            const struct stat_node *m = &s->nodes[c];
            bool hidden = !m->name && (m->kind == STAT_CONSTANT || m->kind == STAT_RATIO);
            if (hidden)
                continue;
            cJSON *x = node_json(s, values, c);
            if (!x) {
                cJSON_Delete(g);
                return NULL;
            }
            if (n->kind == STAT_OBJECT)
                cJSON_AddItemToObject(g, m->name ? m->name : "", x);
            else
                cJSON_AddItemToArray(g, x);
        }
        return g;
    }
    case STAT_HISTOGRAM:
        return histogram_json(values + n->slot, n->n);
    case STAT_LABEL:
        return cJSON_CreateString(cgm_stats_label_of(s, id));
    default:
        return cJSON_CreateNumber(cgm_stats_value(s, values, id));
    }
}

cJSON *cgm_stats_json(const struct cgm_stats *s, const uint64_t *values, cgm_stat node)
{
    if (node < 0 || (size_t)node >= s->n)
        return NULL;
    return node_json(s, values, node);
}

int cgm_stats_write_json(const struct cgm_stats *s, cgm_stat node, FILE *out)
{
    uint64_t *values = calloc(s->slots ? s->slots : 1, sizeof *values);
    if (!values)
        return -1;
    cgm_stats_read(s, values);
    cJSON *j = cgm_stats_json(s, values, node);
    free(values);
    char *text = j ? cJSON_Print(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        return -1;
    int rc = fprintf(out, "%s\n", text) < 0 ? -1 : 0;
    free(text);
    return rc;
}
