/* Paths of bin/tracegen and of the built guest workloads, from the
 * environment `make test` sets. */
#include "tests/unit/x86_guests.h"

#include <stdio.h>
#include <stdlib.h>

static char tracegen[4096];

int x86_guests_setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

char *x86_tracegen_path(void)
{
    return tracegen;
}

void x86_guest_build_path(char *path, size_t n, const char *build, const char *name)
{
    snprintf(path, n, "%s/traces/x86/%s/%s", getenv("CGM_BUILD"), build, name);
}
