/* tracetool verify FILE */
#include "formats/tracetool/tracetool.h"

int cmd_verify(int argc, char **argv)
{
    int quiet = 0;
    const char *file;
    int rc = tool_simple_args(argc, argv, "verify",
        "usage: tracetool verify [-q] FILE.cgt\n\n"
        "Reads every block, checks every checksum, decompresses every chunk, walks\n"
        "every record frame and compares the index with the blocks. Exits 0 only\n"
        "when the whole file is intact; otherwise prints the offset and the fault\n"
        "and exits 1.\n\n"
        "  -q, --quiet  print nothing when the file is intact\n",
        "quiet", &quiet, &file);
    if (rc >= 0)
        return rc;
    char err[512];
    if (cgm_trace_verify(file, err, sizeof err)) {
        fprintf(stderr, "tracetool verify: %s\n", err);
        return 1;
    }
    if (!quiet)
        printf("%s: intact\n", file);
    return 0;
}
