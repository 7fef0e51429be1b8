/* tracetool: inspects cgmtrace traces. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/events.h"
#include "cgm/output.h"
#include "formats/tracetool/tracetool.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *what;
} commands[] = {
    { "info", cmd_info, "header, completeness, program information and a table of streams" },
    { "verify", cmd_verify, "check every chunk, checksum and the index; exit 0 only if intact" },
    { "dump", cmd_dump, "records as text, by stream and record range" },
    { "stats", cmd_stats, "counts by record and event type per stream" },
    { "export", cmd_export, "x86 threads as text lines or a ChampSim trace" },
};

static void usage(FILE *out)
{
    fputs("usage: tracetool COMMAND [OPTIONS] FILE.cgt\n\nCommands:\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].what);
    fputs("\n'tracetool COMMAND --help' describes a command's options.\n", out);
}

struct cgm_reader *tool_open(const char *cmd, const char *file)
{
    char err[512];
    struct cgm_reader *r = cgm_reader_open(file, err, sizeof err);
    if (!r) {
        fprintf(stderr, "tracetool %s: %s\n", cmd, err);
        return NULL;
    }
    if (!cgm_reader_complete(r))
        fprintf(stderr, "tracetool %s: warning: %s is incomplete: %s\n", cmd, file, cgm_reader_damage(r));
    return r;
}

int tool_simple_args(int argc, char **argv, const char *cmd, const char *help,
                     const char *flag, int *flag_set, const char **file)
{
    const struct option opts[] = {
        { "help", no_argument, 0, 'h' },
        { flag ? flag : "help", no_argument, 0, 'f' },
        { 0, 0, 0, 0 },
    };
    char shorts[4] = "hf";
    if (flag)
        shorts[1] = flag[0];
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, flag ? shorts : "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return 0;
        }
        if (flag && (c == 'f' || c == flag[0]))
            *flag_set = 1;
        else
            return 2;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "tracetool %s: expected one FILE (see --help)\n", cmd);
        return 2;
    }
    *file = argv[optind];
    return -1;
}

int tool_parse_u64(const char *s, unsigned long long *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

const char *tool_record_kind(const unsigned char *rec, size_t len, char *buf, size_t buflen)
{
    const char *name = len ? cgm_event_name(rec[0]) : NULL;
    if (name)
        return name;
    const char *range = !len ? "empty" : rec[0] < 0x40 ? "event" : rec[0] < 0x80 ? "x86"
                      : rec[0] < 0xc0 ? "si" : "reserved";
    if (len)
        snprintf(buf, buflen, "%s:0x%02x", range, rec[0]);
    else
        snprintf(buf, buflen, "%s", range);
    return buf;
}

int main(int argc, char **argv)
{
    cgm_check_stdout_at_exit("tracetool");
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tracetool: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
