/* replay: the timing simulator. Until the replay issues land this program
 * documents its interface and refuses real work. */
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: replay [-c CONFIG.ini] [--set SECTION.KEY=VALUE]... [-o STATS.json] [--roi] TRACE.cgt\n"
          "       replay --print-config [-c CONFIG.ini]\n"
          "\n"
          "Simulates a cgmtrace trace on a configurable CPU-GPU memory system.\n"
          "\n"
          "  -c FILE        configuration (INI); without it the built-in system is used\n"
          "  --set S.K=V    override one configuration key\n"
          "  -o FILE        write statistics as JSON\n"
          "  --roi          report the region of interest only\n"
          "  --print-config print the effective configuration\n"
          "  -h, --help     this text\n"
          "\n"
          "Status: the timing models are not built yet; replay cannot simulate a trace.\n",
          out);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
    }
    usage(stderr);
    fputs("replay: not implemented yet\n", stderr);
    return 2;
}
