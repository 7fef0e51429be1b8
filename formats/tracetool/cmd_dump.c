/* tracetool dump [--stream ID|launch=N[,group=X,Y,Z]] [--from N] [--count N] FILE */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "cgm/events.h"
#include "cgm/x86view.h"
#include "formats/tracetool/si_view.h"
#include "formats/tracetool/tracetool.h"

static void print_record(uint16_t kind, const uint8_t *rec, size_t len)
{
    struct cgm_event ev;
    if (kind == CGM_STREAM_SECTION) {
        printf("section_data len=%zu", len);
        return;
    }
    if (cgm_event_decode(rec, len, &ev) == 0) {
        cgm_event_print(stdout, &ev);
        return;
    }
    char buf[32];
    printf("%s len=%zu", tool_record_kind(rec, len, buf, sizeof buf), len);
    fputs(" bytes=", stdout);
    for (size_t i = 0; i < len && i < 24; i++)
        printf("%02x", rec[i]);
    if (len > 24)
        fputs("...", stdout);
}

/* Prints records [FROM, FROM+COUNT) of stream SI; returns -1 on damage.
 * x86 thread streams are disassembled when the trace has its static table
 * (VIEW not NULL). */
static int dump_stream(struct cgm_reader *r, struct cgm_x86_view *view, size_t si,
                       uint64_t from, uint64_t count)
{
    const struct cgm_reader_stream *s = cgm_reader_stream(r, si);
    printf("# stream %u (%s%s%s): %" PRIu64 " records\n", s->info.id,
           cgm_stream_kind_name(s->info.kind), s->info.name[0] ? " " : "", s->info.name,
           s->totals.records);
    if (from >= s->totals.records || !count)
        return 0;
    if (view && s->info.kind == CGM_STREAM_X86_THREAD) {
        char err[512];
        fflush(stdout);
        if (cgm_x86_dump_stream(stdout, view, r, si, from, count, err, sizeof err)) {
            fprintf(stderr, "tracetool dump: %s\n", err);
            return -1;
        }
        return 0;
    }
    if (s->info.kind == CGM_STREAM_GPU_WORKGROUP && s->info.name[0]) {
        char err[512];
        fflush(stdout);
        if (si_dump_stream(stdout, r, si, from, count, err, sizeof err)) {
            fprintf(stderr, "tracetool dump: %s\n", err);
            return -1;
        }
        return 0;
    }
    struct cgm_riter *it = cgm_riter_open(r, si);
    if (!it)
        return -1;
    int rc = cgm_riter_seek(it, from);
    const uint8_t *rec;
    size_t len;
    for (uint64_t n = 0; rc == 0 && n < count; n++) {
        uint64_t at = cgm_riter_position(it);
        int k = cgm_riter_next(it, &rec, &len);
        if (k <= 0) {
            rc = k;
            break;
        }
        printf("%u:%" PRIu64 " ", s->info.id, at);
        print_record(s->info.kind, rec, len);
        putchar('\n');
    }
    if (rc < 0)
        fprintf(stderr, "tracetool dump: %s\n",
                cgm_riter_error(it)[0] ? cgm_riter_error(it) : "seek failed");
    cgm_riter_close(it);
    return rc < 0 ? -1 : 0;
}

/* Which streams -s names: one by id, or the work-group streams of a launch
 * ("launch=N"), or one of them ("launch=N,group=X,Y,Z"; Y and Z may be
 * left out and are then 0). */
struct selection {
    bool by_launch, by_group;
    uint32_t id, launch, group[3];
};

static int parse_number32(const char **p, uint32_t *out)
{
    char *end;
    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    *p = end;
    return 0;
}

static int parse_selection(const char *text, struct selection *sel)
{
    memset(sel, 0, sizeof *sel);
    const char *p = text;
    if (strncmp(p, "launch=", 7)) {
        unsigned long long id;
        if (tool_parse_u64(text, &id) || id > UINT32_MAX)
            return -1;
        sel->id = (uint32_t)id;
        return 0;
    }
    p += 7;
    sel->by_launch = true;
    if (parse_number32(&p, &sel->launch))
        return -1;
    if (!*p)
        return 0;
    if (strncmp(p, ",group=", 7))
        return -1;
    p += 7;
    sel->by_group = true;
    for (int d = 0; d < 3; d++) {
        if (parse_number32(&p, &sel->group[d]))
            return -1;
        if (!*p)
            return 0;
        if (*p++ != ',' || d == 2)
            return -1;
    }
    return -1;
}

static bool selected(const struct cgm_reader_stream *s, const struct selection *sel)
{
    if (!sel->by_launch)
        return s->info.id == sel->id;
    if (s->info.kind != CGM_STREAM_GPU_WORKGROUP || s->info.launch_id != sel->launch)
        return false;
    return !sel->by_group || !memcmp(s->info.group, sel->group, sizeof sel->group);
}

/* What a selection that matched nothing could have named instead. */
static void explain_no_match(struct cgm_reader *r, const char *file, const struct selection *sel)
{
    if (!sel->by_launch) {
        fprintf(stderr, "tracetool dump: %s has no stream %u\n", file, sel->id);
        return;
    }
    size_t groups = 0;
    uint32_t launches[8], nl = 0, more = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        const struct cgm_reader_stream *s = cgm_reader_stream(r, i);
        if (s->info.kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        groups += s->info.launch_id == sel->launch;
        bool seen = false;
        for (uint32_t k = 0; k < nl; k++)
            seen |= launches[k] == s->info.launch_id;
        if (!seen && nl < 8)
            launches[nl++] = s->info.launch_id;
        else if (!seen)
            more = 1;
    }
    if (groups)
        fprintf(stderr, "tracetool dump: %s: launch %u has %zu work-groups, none (%u,%u,%u)\n", file,
                sel->launch, groups, sel->group[0], sel->group[1], sel->group[2]);
    else if (!nl)
        fprintf(stderr, "tracetool dump: %s has no work-group streams\n", file);
    else {
        fprintf(stderr, "tracetool dump: %s has no launch %u (launches:", file, sel->launch);
        for (uint32_t k = 0; k < nl; k++)
            fprintf(stderr, "%s %u", k ? "," : "", launches[k]);
        fprintf(stderr, "%s)\n", more ? ", ..." : "");
    }
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        { "help", no_argument, 0, 'h' },
        { "stream", required_argument, 0, 's' },
        { "from", required_argument, 0, 'f' },
        { "count", required_argument, 0, 'n' },
        { 0, 0, 0, 0 },
    };
    unsigned long long from = 0, count = UINT64_MAX;
    struct selection sel;
    int have_stream = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hs:f:n:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            puts("usage: tracetool dump [--stream ID|launch=N[,group=X,Y,Z]] [--from N] [--count N] FILE.cgt\n\n"
                 "Prints records as text, one per line, as STREAM:RECORD followed by the\n"
                 "record: events with their fields, x86 blocks with each instruction's\n"
                 "address, disassembly and memory accesses (when the trace has its static\n"
                 "code table), GPU work-group streams as wavefront instructions with their\n"
                 "disassembly (branch targets as addresses), exec mask and lane addresses,\n"
                 "other records by type and bytes.\n\n"
                 "  -s, --stream ID  only the stream with this id (default: every stream)\n"
                 "  -s launch=N      the work-group streams of GPU launch N (as tracetool info\n"
                 "                   numbers them); launch=N,group=X,Y,Z just one of them\n"
                 "  -f, --from N     start at record N of each stream (0-based)\n"
                 "  -n, --count N    at most N records of each stream");
            return 0;
        case 's':
            have_stream = 1;
            if (parse_selection(optarg, &sel)) {
                fprintf(stderr, "tracetool dump: bad stream '%s' (an id, launch=N or "
                        "launch=N,group=X,Y,Z)\n", optarg);
                return 2;
            }
            break;
        case 'f':
        case 'n':
            if (tool_parse_u64(optarg, c == 'f' ? &from : &count)) {
                fprintf(stderr, "tracetool dump: bad number '%s'\n", optarg);
                return 2;
            }
            break;
        default:
            return 2;
        }
    }
    if (optind != argc - 1) {
        fputs("tracetool dump: expected one FILE (see --help)\n", stderr);
        return 2;
    }
    struct cgm_reader *r = tool_open("dump", argv[optind]);
    if (!r)
        return 1;
    int rc = 0;
    char err[512];
    struct cgm_x86_view *view = NULL;
    if (cgm_reader_find_section(r, CGM_X86_STATIC_SECTION) >= 0 &&
        !(view = cgm_x86_view_open(r, err, sizeof err)))
        fprintf(stderr, "tracetool dump: %s: %s; x86 records shown as bytes\n", argv[optind], err);
    size_t matched = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++)
        if (!have_stream || selected(cgm_reader_stream(r, i), &sel)) {
            matched++;
            if (dump_stream(r, view, i, from, count))
                rc = 1;
        }
    if (have_stream && !matched) {
        explain_no_match(r, argv[optind], &sel);
        rc = 1;
    }
    if (view)
        cgm_x86_view_close(view);
    cgm_reader_close(r);
    return rc;
}
