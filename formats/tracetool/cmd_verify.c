/* tracetool verify FILE */
#include <getopt.h>
#include <string.h>

#include "formats/tracetool/tracetool.h"

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = { { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    int quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
        if (c == 'h') {
            puts("usage: tracetool verify [-q] FILE.cgt\n\n"
                 "Reads every block, checks every checksum, decompresses every chunk, walks\n"
                 "every record frame and compares the index with the blocks. Exits 0 only\n"
                 "when the whole file is intact; otherwise prints the offset and the fault\n"
                 "and exits 1.\n\n  -q  print nothing when the file is intact");
            return 0;
        }
        if (c == 'q')
            quiet = 1;
        else
            return 2;
    }
    if (optind != argc - 1) {
        fputs("tracetool verify: expected one FILE (see --help)\n", stderr);
        return 2;
    }
    char err[512];
    if (cgm_trace_verify(argv[optind], err, sizeof err)) {
        fprintf(stderr, "tracetool verify: %s\n", err);
        return 1;
    }
    if (!quiet)
        printf("%s: intact\n", argv[optind]);
    return 0;
}
