/* tracetool export --text [-s ID] [-o OUT] FILE
 * tracetool export --champsim OUT.xz -s ID FILE */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/x86cursor.h"
#include "formats/tracetool/champsim.h"
#include "formats/tracetool/tracetool.h"
#include "formats/tracetool/xz_out.h"

static const char usage_text[] =
    "usage: tracetool export --text [-s ID] [-o OUT] FILE.cgt\n"
    "       tracetool export --champsim OUT.xz -s ID FILE.cgt\n\n"
    "Writes x86 thread streams in other tools' forms.\n\n"
    "--text: one line per record, fields separated by one space, in the order the\n"
    "stream holds them (every x86 thread stream in file order, or the one -s names):\n"
    "  # cgmtrace-text 1                              first line: the form's version\n"
    "  i STREAM IP CLASS [r:ADDR:SIZE|w:ADDR:SIZE]...  an instruction and its accesses\n"
    "  e STREAM NAME [FIELD=VALUE]...                  an event, after the instruction\n"
    "                                                   it follows\n"
    "STREAM is the stream id, IP and ADDR hexadecimal with 0x, SIZE the access's bytes\n"
    "in decimal, CLASS the static table's class (int, branch, call, ...), accesses in\n"
    "the order made; events are named and their fields written as tracetool dump\n"
    "writes them. A later version only adds line kinds or fields at the end of a line.\n\n"
    "--champsim OUT.xz: thread stream ID as a ChampSim trace (input_instr records,\n"
    "64 bytes each, xz-compressed): the instruction's address, whether it is a branch\n"
    "and was taken, up to 2 destination and 4 source registers from the static table\n"
    "(SP = 6, flags = 25, IP = 26 as ChampSim numbers them; a branch's registers those\n"
    "ChampSim expects of its class), up to 2 written and 4 read addresses. What did not\n"
    "fit is counted on stderr.\n\n"
    "  -s, --stream ID  the x86 thread stream (required with --champsim)\n"
    "  -o, --output OUT write the text there instead of standard output\n";

static void print_text(FILE *out, uint32_t id, const struct cgm_x86_insn *x)
{
    if (x->st) {
        fprintf(out, "i %u 0x%" PRIx64 " %s", id, x->ip, cgm_x86_class_name(x->st->cls));
        for (uint32_t a = 0; a < x->naccess; a++)
            fprintf(out, " %c:0x%" PRIx64 ":%u", x->acc[a].write ? 'w' : 'r', x->acc[a].addr,
                    x->acc[a].size);
        fputc('\n', out);
    }
    for (uint32_t e = 0; e < x->nevent; e++) {
        fprintf(out, "e %u ", id);
        cgm_event_print(out, &x->ev[e]);
        fputc('\n', out);
    }
}

static int export_text(FILE *out, struct cgm_reader *r, struct cgm_x86_view *v, size_t si,
                       char *err, size_t errlen)
{
    struct cgm_x86_cursor *c = cgm_x86_cursor_open(r, v, si, err, errlen);
    if (!c)
        return -1;
    uint32_t id = cgm_reader_stream(r, si)->info.id;
    struct cgm_x86_insn x;
    int k;
    while ((k = cgm_x86_cursor_next(c, &x)) == 1)
        print_text(out, id, &x);
    if (k < 0)
        snprintf(err, errlen, "%s", cgm_x86_cursor_error(c));
    cgm_x86_cursor_close(c);
    return k < 0 ? -1 : 0;
}

/* Each record is written once the next instruction is known (its
 * address tells whether a conditional branch was taken). */
static int export_champsim(const char *path, struct cgm_reader *r, struct cgm_x86_view *v,
                           size_t si, struct champsim_counts *n, char *err, size_t errlen)
{
    struct cgm_x86_cursor *c = cgm_x86_cursor_open(r, v, si, err, errlen);
    if (!c)
        return -1;
    struct xz_out *z = xz_out_open(path, err, errlen);
    if (!z) {
        cgm_x86_cursor_close(c);
        return -1;
    }
    struct cgm_x86_insn x;
    struct cgm_x86_access *held_acc = malloc(CGM_X86_ACCESS_MAX * sizeof *held_acc);
    struct cgm_x86_insn held = { 0 };
    int have = 0, k, rc = 0;
    uint8_t rec[CHAMPSIM_RECORD_BYTES];
    if (!held_acc) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    while (rc == 0 && (k = cgm_x86_cursor_next(c, &x)) != 0) {
        if (k < 0) {
            snprintf(err, errlen, "%s", cgm_x86_cursor_error(c));
            rc = -1;
            break;
        }
        if (!x.st)
            continue;
        if (have) {
            champsim_encode(rec, &held, x.ip, n);
            rc = xz_out_write(z, rec, sizeof rec, err, errlen);
        }
        /* only the first 4 reads and 2 writes are written: keep those */
        held = x;
        held.naccess = 0;
        unsigned reads = 0, writes = 0;
        for (uint32_t a = 0; a < x.naccess; a++) {
            if (x.acc[a].write ? writes++ < 2 : reads++ < 4)
                held_acc[held.naccess++] = x.acc[a];
            else if (x.acc[a].write)
                n->writes_dropped++;
            else
                n->reads_dropped++;
        }
        held.acc = held_acc;
        held.ev = NULL;
        held.nevent = 0;
        have = 1;
    }
    if (rc == 0 && have) {
        champsim_encode(rec, &held, 0, n);
        rc = xz_out_write(z, rec, sizeof rec, err, errlen);
    }
    char cerr[512];
    if (xz_out_close(z, cerr, sizeof cerr) && rc == 0) {
        snprintf(err, errlen, "%s", cerr);
        rc = -1;
    }
    free(held_acc);
    cgm_x86_cursor_close(c);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        { "help", no_argument, 0, 'h' },
        { "text", no_argument, 0, 't' },
        { "champsim", required_argument, 0, 'c' },
        { "stream", required_argument, 0, 's' },
        { "output", required_argument, 0, 'o' },
        { 0, 0, 0, 0 },
    };
    int text = 0, have_stream = 0, c;
    const char *champsim = NULL, *output = NULL;
    unsigned long long id = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hs:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        case 't':
            text = 1;
            break;
        case 'c':
            champsim = optarg;
            break;
        case 's':
            if (tool_parse_u64(optarg, &id) || id > UINT32_MAX) {
                fprintf(stderr, "tracetool export: bad stream id '%s'\n", optarg);
                return 2;
            }
            have_stream = 1;
            break;
        case 'o':
            output = optarg;
            break;
        default:
            return 2;
        }
    }
    if (text == !!champsim) {
        fputs("tracetool export: give one of --text and --champsim OUT.xz (see --help)\n", stderr);
        return 2;
    }
    if (champsim && !have_stream) {
        fputs("tracetool export: --champsim needs -s ID, the x86 thread stream to write\n", stderr);
        return 2;
    }
    if (champsim && output) {
        fputs("tracetool export: -o is for --text; --champsim names its file\n", stderr);
        return 2;
    }
    if (optind != argc - 1) {
        fputs("tracetool export: expected one FILE (see --help)\n", stderr);
        return 2;
    }
    const char *file = argv[optind];
    struct cgm_reader *r = tool_open("export", file);
    if (!r)
        return 1;
    char err[512];
    int rc = 0;
    long only = have_stream ? cgm_reader_find_stream(r, (uint32_t)id) : -1;
    struct cgm_x86_view *v = NULL;
    FILE *out = stdout;
    if (have_stream && (only < 0 || cgm_reader_stream(r, (size_t)only)->info.kind !=
                                        CGM_STREAM_X86_THREAD)) {
        fprintf(stderr, "tracetool export: %s has no x86 thread stream %llu\n", file, id);
        rc = 1;
    } else if (!(v = cgm_x86_view_open(r, err, sizeof err))) {
        fprintf(stderr, "tracetool export: %s: %s\n", file, err);
        rc = 1;
    } else if (output && !(out = fopen(output, "w"))) {
        fprintf(stderr, "tracetool export: %s: %s\n", output, strerror(errno));
        out = stdout;
        rc = 1;
    }
    if (rc == 0 && champsim) {
        struct champsim_counts n = { 0 };
        if (export_champsim(champsim, r, v, (size_t)only, &n, err, sizeof err)) {
            fprintf(stderr, "tracetool export: %s\n", err);
            rc = 1;
        } else {
            fprintf(stderr, "tracetool export: %s: %" PRIu64 " instructions, %" PRIu64
                    " branches (%" PRIu64 " taken); not in ChampSim's record: %" PRIu64
                    " reads, %" PRIu64 " writes, %" PRIu64 " registers\n", champsim, n.records,
                    n.branches, n.taken, n.reads_dropped, n.writes_dropped, n.regs_dropped);
        }
    } else if (rc == 0) {
        fputs("# cgmtrace-text 1\n", out);
        for (size_t i = 0; i < cgm_reader_stream_count(r) && rc == 0; i++) {
            if (have_stream ? (long)i != only
                            : cgm_reader_stream(r, i)->info.kind != CGM_STREAM_X86_THREAD)
                continue;
            if (export_text(out, r, v, i, err, sizeof err)) {
                fprintf(stderr, "tracetool export: %s\n", err);
                rc = 1;
            }
        }
    }
    if (out != stdout && fclose(out) && rc == 0) {
        fprintf(stderr, "tracetool export: %s: %s\n", output, strerror(errno));
        rc = 1;
    }
    cgm_x86_view_close(v);
    cgm_reader_close(r);
    return rc;
}
