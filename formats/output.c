/* Checking standard output at exit: see cgm/output.h. */
#include "cgm/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *name = "cgmtrace";

static void check_stdout(void)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        fprintf(stderr, "%s: writing standard output failed: %s\n", name,
                e ? strerror(e) : "write error");
        _exit(1);
    }
}

void cgm_check_stdout_at_exit(const char *program)
{
    name = program;
    atexit(check_stdout);
}
