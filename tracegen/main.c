/* tracegen: the functional emulator and recorder. Until the tracegen issues
 * land this program documents its interface and refuses real work. */
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: tracegen [options] -o OUT.cgt -- PROGRAM [ARGS...]\n"
          "\n"
          "Runs a static x86-64 Linux program under emulation and records its trace.\n"
          "\n"
          "  -o FILE        output trace\n"
          "  -h, --help     this text\n"
          "\n"
          "Status: the emulator is not built yet; tracegen cannot run a program.\n",
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
    fputs("tracegen: not implemented yet\n", stderr);
    return 2;
}
