/* tracetool stats [--json] FILE: record counts by type, per stream. */
#include <cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/events.h"
#include "cgm/stats.h"
#include "cgm/x86view.h"
#include "formats/tracetool/si_view.h"
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

/* ---- x86 thread streams: instruction mix and data accesses ---------------- */

static void x86_add(struct cgm_x86_stats *to, const struct cgm_x86_stats *s)
{
    to->instructions += s->instructions;
    for (unsigned c = 0; c < CGM_X86_CLASS_COUNT; c++)
        to->by_class[c] += s->by_class[c];
    to->blocks += s->blocks;
    to->reads += s->reads;
    to->writes += s->writes;
    to->bytes_read += s->bytes_read;
    to->bytes_written += s->bytes_written;
    to->events += s->events;
}

/* The statistics' JSON: each field registered once (cgm/stats.h) into a
 * registry made for the one object, then printed from a snapshot of it.
 * Mixes list the classes that occur. */
typedef void (*add_fields)(struct cgm_stats *reg, cgm_stat o, const void *st);

static cJSON *stats_json(add_fields add, const void *st, const uint64_t *extra, const char *const *extra_names,
                         unsigned nextra)
{
    struct cgm_stats *reg = cgm_stats_create();
    if (!reg)
        return NULL;
    add(reg, CGM_STATS_ROOT, st);
    for (unsigned i = 0; i < nextra; i++)
        cgm_stat_counter(reg, CGM_STATS_ROOT, extra_names[i], &extra[i]);
    uint64_t *v = cgm_stats_failed(reg) ? NULL : calloc(cgm_stats_slots(reg) + 1, sizeof *v);
    cJSON *o = NULL;
    if (v) {
        cgm_stats_read(reg, v);
        o = cgm_stats_json(reg, v, CGM_STATS_ROOT);
    }
    free(v);
    cgm_stats_destroy(reg);
    return o;
}

static void x86_fields(struct cgm_stats *reg, cgm_stat o, const void *st)
{
    const struct cgm_x86_stats *s = st;
    cgm_stat_counter(reg, o, "instructions", &s->instructions);
    cgm_stat mix = cgm_stats_object(reg, o, "mix");
    for (unsigned c = 0; c < CGM_X86_CLASS_COUNT; c++)
        if (s->by_class[c])
            cgm_stat_counter(reg, mix, cgm_x86_class_name(c), &s->by_class[c]);
    cgm_stat_counter(reg, o, "blocks", &s->blocks);
    cgm_stat_counter(reg, o, "reads", &s->reads);
    cgm_stat_counter(reg, o, "writes", &s->writes);
    cgm_stat_counter(reg, o, "bytes_read", &s->bytes_read);
    cgm_stat_counter(reg, o, "bytes_written", &s->bytes_written);
}

static cJSON *x86_json(const struct cgm_x86_stats *s) { return stats_json(x86_fields, s, NULL, NULL, 0); }

static void x86_text(const struct cgm_x86_stats *s)
{
    printf("    x86: %" PRIu64 " instructions in %" PRIu64 " blocks; %" PRIu64 " reads (%" PRIu64
           " bytes), %" PRIu64 " writes (%" PRIu64 " bytes)\n",
           s->instructions, s->blocks, s->reads, s->bytes_read, s->writes, s->bytes_written);
    for (unsigned c = 0; c < CGM_X86_CLASS_COUNT; c++)
        if (s->by_class[c])
            printf("      %-16s %14" PRIu64 " %6.2f%%\n", cgm_x86_class_name(c), s->by_class[c],
                   100.0 * (double)s->by_class[c] / (double)(s->instructions ? s->instructions : 1));
}

/* ---- GPU work-group streams ------------------------------------------------ */

static void si_add(struct cgm_si_stats *to, const struct cgm_si_stats *s)
{
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        to->by_unit[u] += s->by_unit[u];
    to->lanes += s->lanes;
    to->vmem_insts += s->vmem_insts;
    to->vmem_lines += s->vmem_lines;
    to->vmem_lanes += s->vmem_lanes;
    to->lds_insts += s->lds_insts;
    to->lds_cycles += s->lds_cycles;
    to->smem_insts += s->smem_insts;
}

static uint64_t si_total(const void *ctx)
{
    const struct cgm_si_stats *s = ctx;
    uint64_t total = 0;
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        total += s->by_unit[u];
    return total;
}

static void si_fields(struct cgm_stats *reg, cgm_stat o, const void *st)
{
    const struct cgm_si_stats *s = st;
    cgm_stat_computed(reg, o, "wavefront_instructions", si_total, s);
    cgm_stat mix = cgm_stats_object(reg, o, "mix");
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        if (s->by_unit[u])
            cgm_stat_counter(reg, mix, cgm_si_unit_name(u), &s->by_unit[u]);
    cgm_stat_counter(reg, o, "active_lanes", &s->lanes);
    cgm_stat_counter(reg, o, "vmem_instructions", &s->vmem_insts);
    cgm_stat_counter(reg, o, "vmem_lines", &s->vmem_lines);
    cgm_stat_counter(reg, o, "vmem_lanes", &s->vmem_lanes);
    cgm_stat_counter(reg, o, "lds_instructions", &s->lds_insts);
    cgm_stat_counter(reg, o, "lds_cycles", &s->lds_cycles);
    cgm_stat_counter(reg, o, "smem_instructions", &s->smem_insts);
}

static cJSON *si_json(const struct cgm_si_stats *s) { return stats_json(si_fields, s, NULL, NULL, 0); }

int cmd_stats(int argc, char **argv)
{
    int json = 0;
    const char *file;
    int rc = tool_simple_args(argc, argv, "stats",
        "usage: tracetool stats [--json] FILE.cgt\n\n"
        "Counts records by type (events by name) in every stream and in all. For\n"
        "x86 thread streams (with the trace's static code table) also the\n"
        "instruction mix by class, blocks, data reads and writes, and over all\n"
        "threads the data footprint in distinct 64-byte lines and 4 KiB pages. For\n"
        "GPU work-group streams the wavefront instruction mix by unit, active\n"
        "lanes, distinct 64-byte lines per vector memory instruction (coalescing\n"
        "potential) and LDS cycles with bank conflicts.\n\n"
        "  --json  the same as JSON: streams[] with id, kind, counts and x86, and\n"
        "          totals (with x86 and footprint)\n",
        "json", &json, &file);
    if (rc >= 0)
        return rc;
    struct cgm_reader *r = tool_open("stats", file);
    if (!r)
        return 1;
    struct type_counts *all = calloc(1, sizeof *all), *one = calloc(1, sizeof *one);
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "streams");
    rc = all && one ? 0 : 1;
    char err[512];
    struct cgm_x86_view *view = NULL;
    struct cgm_x86_footprint *fp = NULL;
    struct cgm_x86_stats x86_all = { 0 };
    struct cgm_si_stats si_all = { 0 };
    int have_si = 0;
    if (cgm_reader_find_section(r, CGM_X86_STATIC_SECTION) >= 0) {
        if (!(view = cgm_x86_view_open(r, err, sizeof err)))
            fprintf(stderr, "tracetool stats: %s: %s; no x86 statistics\n", file, err);
        else if (!(fp = cgm_x86_footprint_new()))
            rc = 1;
    }
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
        struct cgm_x86_stats x86 = { 0 };
        int is_x86 = view && s->info.kind == CGM_STREAM_X86_THREAD;
        if (is_x86) {
            if (cgm_x86_stream_stats(view, r, i, &x86, fp, err, sizeof err)) {
                fprintf(stderr, "tracetool stats: %s: %s\n", file, err);
                rc = 1;
                break;
            }
            x86_add(&x86_all, &x86);
        }
        struct cgm_si_stats gpu = { 0 };
        int is_si = s->info.kind == CGM_STREAM_GPU_WORKGROUP && s->info.name[0];
        if (is_si) {
            if (si_stream_stats(r, i, &gpu, err, sizeof err)) {
                fprintf(stderr, "tracetool stats: %s: %s\n", file, err);
                rc = 1;
                break;
            }
            si_add(&si_all, &gpu);
            have_si = 1;
        }
        if (json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "id", s->info.id);
            cJSON_AddStringToObject(o, "kind", cgm_stream_kind_name(s->info.kind));
            cJSON_AddNumberToObject(o, "records", (double)s->totals.records);
            cJSON_AddItemToObject(o, "counts", counts_json(one));
            if (is_x86)
                cJSON_AddItemToObject(o, "x86", x86_json(&x86));
            if (is_si)
                cJSON_AddItemToObject(o, "si", si_json(&gpu));
            cJSON_AddItemToArray(arr, o);
        } else {
            printf("stream %u (%s%s%s): %" PRIu64 " records\n", s->info.id,
                   cgm_stream_kind_name(s->info.kind), s->info.name[0] ? " " : "",
                   s->info.name, s->totals.records);
            counts_text(one);
            if (is_x86)
                x86_text(&x86);
            if (is_si)
                cgm_si_stats_print(stdout, &gpu);
        }
    }
    if (!rc) {
        if (json) {
            cJSON *tot = counts_json(all);
            if (view) {
                static const char *const names[] = { "footprint_lines", "footprint_pages" };
                const uint64_t footprint[] = { cgm_x86_footprint_lines(fp), cgm_x86_footprint_pages(fp) };
                cJSON_AddItemToObject(tot, "x86", stats_json(x86_fields, &x86_all, footprint, names, 2));
            }
            if (have_si)
                cJSON_AddItemToObject(tot, "si", si_json(&si_all));
            cJSON_AddItemToObject(root, "totals", tot);
            char *txt = cJSON_Print(root);
            if (txt)
                puts(txt);
            free(txt);
        } else {
            puts("all streams:");
            counts_text(all);
            if (view) {
                x86_text(&x86_all);
                printf("    data footprint: %" PRIu64 " distinct 64-byte lines, %" PRIu64
                       " distinct 4 KiB pages\n",
                       cgm_x86_footprint_lines(fp), cgm_x86_footprint_pages(fp));
            }
            if (have_si) {
                puts("    GPU work-groups:");
                cgm_si_stats_print(stdout, &si_all);
            }
        }
    }
    cJSON_Delete(root);
    if (fp)
        cgm_x86_footprint_free(fp);
    if (view)
        cgm_x86_view_close(view);
    free(all);
    free(one);
    cgm_reader_close(r);
    return rc;
}
