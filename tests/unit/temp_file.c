/* Temporary files for the tests (temp_file.h). */
#include "temp_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every path handed out, so they stay reachable (and valid) until exit. */
static char **paths;
static size_t npaths, cap;

static void die(void)
{
    perror("test_temp_file");
    abort();
}

const char *test_temp_file(const char *text)
{
    if (npaths == cap) {
        size_t c = cap ? 2 * cap : 16;
        char **p = realloc(paths, c * sizeof *p);
        if (!p)
            die();
        paths = p;
        cap = c;
    }
    char *path = strdup("/tmp/cgm_test_XXXXXX");
    int fd = path ? mkstemp(path) : -1;
    if (fd < 0)
        die();
    size_t n = text ? strlen(text) : 0;
    if (n && write(fd, text, n) != (ssize_t)n)
        die();
    close(fd);
    paths[npaths++] = path;
    return path;
}
