/* tracetool info [--json] FILE */
#include <cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/tracetool/tracetool.h"

/* The "program" section holds lines "key=value" written by tracegen. */
#define PROGRAM_SECTION_LIMIT (1u << 20)

static double ratio(const struct cgm_stream_totals *t)
{
    return t->compressed_bytes ? (double)t->raw_bytes / (double)t->compressed_bytes : 0.0;
}

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
    cJSON_AddNumberToObject(o, k, (double)v);
}

static cJSON *stream_json(const struct cgm_reader_stream *s)
{
    cJSON *o = cJSON_CreateObject();
    add_u64(o, "id", s->info.id);
    cJSON_AddStringToObject(o, "kind", cgm_stream_kind_name(s->info.kind));
    if (s->info.kind == CGM_STREAM_X86_THREAD)
        add_u64(o, "thread_id", s->info.thread_id);
    if (s->info.kind == CGM_STREAM_GPU_WORKGROUP || s->info.kind == CGM_STREAM_GPU_WAVEFRONT) {
        add_u64(o, "launch_id", s->info.launch_id);
        int g[3] = { (int)s->info.group[0], (int)s->info.group[1], (int)s->info.group[2] };
        cJSON_AddItemToObject(o, "group", cJSON_CreateIntArray(g, 3));
        if (s->info.kind == CGM_STREAM_GPU_WAVEFRONT)
            add_u64(o, "wavefront", s->info.wavefront);
    }
    if (s->info.name[0])
        cJSON_AddStringToObject(o, "name", s->info.name);
    add_u64(o, "records", s->totals.records);
    add_u64(o, "instructions", s->totals.instructions);
    add_u64(o, "raw_bytes", s->totals.raw_bytes);
    add_u64(o, "compressed_bytes", s->totals.compressed_bytes);
    add_u64(o, "chunks", s->totals.chunks);
    cJSON_AddNumberToObject(o, "ratio", ratio(&s->totals));
    cJSON_AddBoolToObject(o, "closed", s->closed);
    return o;
}

/* Calls FN for each "key=value" line of the program section. */
static void program_info(struct cgm_reader *r, void (*fn)(void *, const char *, const char *),
                         void *arg)
{
    uint8_t *d;
    size_t n;
    char err[256];
    if (cgm_reader_find_section(r, "program") < 0 ||
        cgm_reader_read_section(r, "program", PROGRAM_SECTION_LIMIT, &d, &n, err, sizeof err))
        return;
    char *text = malloc(n + 1);
    if (text) {
        memcpy(text, d, n);
        text[n] = 0;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            char *eq = strchr(line, '=');
            if (eq) {
                *eq = 0;
                fn(arg, line, eq + 1);
            }
        }
    }
    free(text);
    free(d);
}

static void program_json(void *o, const char *k, const char *v)
{
    cJSON_AddStringToObject(o, k, v);
}

static void program_text(void *unused, const char *k, const char *v)
{
    (void)unused;
    printf("  %-14s %s\n", k, v);
}

static int print_json(struct cgm_reader *r)
{
    cJSON *root = cJSON_CreateObject();
    add_u64(root, "version", cgm_reader_version(r));
    cJSON_AddBoolToObject(root, "complete", cgm_reader_complete(r));
    if (!cgm_reader_complete(r))
        cJSON_AddStringToObject(root, "damage", cgm_reader_damage(r));
    add_u64(root, "file_bytes", cgm_reader_file_bytes(r));
    cJSON *prog = cJSON_AddObjectToObject(root, "program");
    program_info(r, program_json, prog);
    cJSON *arr = cJSON_AddArrayToObject(root, "streams");
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++)
        cJSON_AddItemToArray(arr, stream_json(cgm_reader_stream(r, i)));
    char *s = cJSON_Print(root);
    int rc = s ? 0 : 1;
    if (s)
        puts(s);
    free(s);
    cJSON_Delete(root);
    return rc;
}

static void print_text(struct cgm_reader *r, const char *file)
{
    printf("%s: cgmtrace version %u, %" PRIu64 " bytes, %s\n", file, cgm_reader_version(r),
           cgm_reader_file_bytes(r), cgm_reader_complete(r) ? "complete" : "INCOMPLETE");
    if (!cgm_reader_complete(r))
        printf("  %s\n", cgm_reader_damage(r));
    puts("program:");
    program_info(r, program_text, NULL);
    printf("\n%8s %-14s %-18s %12s %14s %14s %14s %7s\n", "id", "kind", "what", "records",
           "instructions", "raw bytes", "compressed", "ratio");
    struct cgm_stream_totals sum = { 0 };
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        const struct cgm_reader_stream *s = cgm_reader_stream(r, i);
        char what[64];
        switch (s->info.kind) {
        case CGM_STREAM_X86_THREAD:
            snprintf(what, sizeof what, "tid %" PRIu64, s->info.thread_id);
            break;
        case CGM_STREAM_GPU_WORKGROUP:
        case CGM_STREAM_GPU_WAVEFRONT:
            snprintf(what, sizeof what, "launch %u (%u,%u,%u)", s->info.launch_id,
                     s->info.group[0], s->info.group[1], s->info.group[2]);
            break;
        default:
            snprintf(what, sizeof what, "%s", s->info.name);
        }
        printf("%8u %-14s %-18s %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.2f%s\n",
               s->info.id, cgm_stream_kind_name(s->info.kind), what, s->totals.records,
               s->totals.instructions, s->totals.raw_bytes, s->totals.compressed_bytes,
               ratio(&s->totals), s->closed ? "" : "  (not closed)");
        sum.records += s->totals.records;
        sum.instructions += s->totals.instructions;
        sum.raw_bytes += s->totals.raw_bytes;
        sum.compressed_bytes += s->totals.compressed_bytes;
    }
    printf("%8s %-14s %-18s %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.2f\n",
           "total", "", "", sum.records, sum.instructions, sum.raw_bytes,
           sum.compressed_bytes, ratio(&sum));
}

int cmd_info(int argc, char **argv)
{
    int json = 0;
    const char *file;
    int rc = tool_simple_args(argc, argv, "info",
        "usage: tracetool info [--json] FILE.cgt\n\n"
        "Prints the header, the version, whether the file is complete, the program\n"
        "information recorded by tracegen and a table of streams (id, kind, records,\n"
        "instructions, raw and compressed bytes, compression ratio).\n\n"
        "  --json  the same as JSON: version, complete, file_bytes, program, streams[]\n",
        "json", &json, &file);
    if (rc >= 0)
        return rc;
    struct cgm_reader *r = tool_open("info", file);
    if (!r)
        return 1;
    rc = 0;
    if (json)
        rc = print_json(r);
    else
        print_text(r, file);
    cgm_reader_close(r);
    return rc;
}
