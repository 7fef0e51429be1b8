/* tracetool stats [--json] FILE: record counts by type, per stream. */
#include <cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/events.h"
#include "formats/tracetool/tracetool.h"

struct type_counts {
    uint64_t n[256];
    uint64_t bytes[256];
};

static const char *type_name(unsigned t, char *buf, size_t len)
{
    unsigned char b = (unsigned char)t;
    return tool_record_kind(&b, 1, buf, len);
}

/* Counts stream SI's records into TC; returns -1 on damage. Section
 * records are metadata, not typed records: they are not counted by type. */
static int count_stream(struct cgm_reader *r, size_t si, struct type_counts *tc)
{
    if (cgm_reader_stream(r, si)->info.kind == CGM_STREAM_SECTION)
        return 0;
    struct cgm_riter *it = cgm_riter_open(r, si);
    if (!it)
        return -1;
    const uint8_t *rec;
    size_t len;
    int rc;
    while ((rc = cgm_riter_next(it, &rec, &len)) == 1) {
        tc->n[rec[0]]++;
        tc->bytes[rec[0]] += len;
    }
    if (rc < 0)
        fprintf(stderr, "tracetool stats: %s\n", cgm_riter_error(it));
    cgm_riter_close(it);
    return rc;
}

static cJSON *counts_json(const struct type_counts *tc)
{
    cJSON *o = cJSON_CreateObject();
    char buf[32];
    for (unsigned t = 0; t < 256; t++)
        if (tc->n[t])
            cJSON_AddNumberToObject(o, type_name(t, buf, sizeof buf), (double)tc->n[t]);
    return o;
}

static void counts_text(const struct type_counts *tc)
{
    char buf[32];
    for (unsigned t = 0; t < 256; t++)
        if (tc->n[t])
            printf("    %-18s %14" PRIu64 " records %14" PRIu64 " bytes\n",
                   type_name(t, buf, sizeof buf), tc->n[t], tc->bytes[t]);
}

int cmd_stats(int argc, char **argv)
{
    int json = 0;
    const char *file;
    int rc = tool_simple_args(argc, argv, "stats",
        "usage: tracetool stats [--json] FILE.cgt\n\n"
        "Counts records by type (events by name) in every stream and in all.\n\n"
        "  --json  the same as JSON: streams[] with id, kind and counts, and totals\n",
        "json", &json, &file);
    if (rc >= 0)
        return rc;
    struct cgm_reader *r = tool_open("stats", file);
    if (!r)
        return 1;
    struct type_counts *all = calloc(1, sizeof *all), *one = calloc(1, sizeof *one);
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "streams");
    rc = all && one ? 0 : 1;
    for (size_t i = 0; i < cgm_reader_stream_count(r) && !rc; i++) {
        const struct cgm_reader_stream *s = cgm_reader_stream(r, i);
        memset(one, 0, sizeof *one);
        if (count_stream(r, i, one)) {
            rc = 1;
            break;
        }
        for (unsigned t = 0; t < 256; t++) {
            all->n[t] += one->n[t];
            all->bytes[t] += one->bytes[t];
        }
        if (json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "id", s->info.id);
            cJSON_AddStringToObject(o, "kind", cgm_stream_kind_name(s->info.kind));
            cJSON_AddNumberToObject(o, "records", (double)s->totals.records);
            cJSON_AddItemToObject(o, "counts", counts_json(one));
            cJSON_AddItemToArray(arr, o);
        } else {
            printf("stream %u (%s%s%s): %" PRIu64 " records\n", s->info.id,
                   cgm_stream_kind_name(s->info.kind), s->info.name[0] ? " " : "",
                   s->info.name, s->totals.records);
            counts_text(one);
        }
    }
    if (!rc) {
        if (json) {
            cJSON_AddItemToObject(root, "totals", counts_json(all));
            char *txt = cJSON_Print(root);
            if (txt)
                puts(txt);
            free(txt);
        } else {
            puts("all streams:");
            counts_text(all);
        }
    }
    cJSON_Delete(root);
    free(all);
    free(one);
    cgm_reader_close(r);
    return rc;
}
