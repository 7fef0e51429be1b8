/* tracetool dump [--stream ID] [--from N] [--count N] FILE */
#include <getopt.h>
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

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        { "help", no_argument, 0, 'h' },
        { "stream", required_argument, 0, 's' },
        { "from", required_argument, 0, 'f' },
        { "count", required_argument, 0, 'n' },
        { 0, 0, 0, 0 },
    };
    unsigned long long stream = 0, from = 0, count = UINT64_MAX;
    int have_stream = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hs:f:n:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            puts("usage: tracetool dump [--stream ID] [--from N] [--count N] FILE.cgt\n\n"
                 "Prints records as text, one per line, as STREAM:RECORD followed by the\n"
                 "record: events with their fields, x86 blocks with each instruction's\n"
                 "address, disassembly and memory accesses (when the trace has its static\n"
                 "code table), GPU work-group streams as wavefront instructions with their\n"
                 "disassembly, exec mask and lane addresses, other records by type and bytes.\n\n"
                 "  -s, --stream ID  only the stream with this id (default: every stream)\n"
                 "  -f, --from N     start at record N of each stream (0-based)\n"
                 "  -n, --count N    at most N records of each stream");
            return 0;
        case 's':
            have_stream = 1;
            if (tool_parse_u64(optarg, &stream) || stream > UINT32_MAX) {
                fprintf(stderr, "tracetool dump: bad stream id '%s'\n", optarg);
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
    if (have_stream) {
        long si = cgm_reader_find_stream(r, (uint32_t)stream);
        if (si < 0) {
            fprintf(stderr, "tracetool dump: %s has no stream %llu\n", argv[optind], stream);
            rc = 1;
        } else if (dump_stream(r, view, (size_t)si, from, count)) {
            rc = 1;
        }
    } else {
        for (size_t i = 0; i < cgm_reader_stream_count(r); i++)
            if (dump_stream(r, view, i, from, count))
                rc = 1;
    }
    if (view)
        cgm_x86_view_close(view);
    cgm_reader_close(r);
    return rc;
}
