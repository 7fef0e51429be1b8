/* Temporary files for the tests (temp_file.h). */
#include "temp_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *test_temp_file(const char *text)
{
    char *path = strdup("/tmp/cgm_test_XXXXXX");
    int fd = path ? mkstemp(path) : -1;
    if (fd < 0) {
        perror("test_temp_file");
        abort();
    }
    size_t n = text ? strlen(text) : 0;
    if (n && write(fd, text, n) != (ssize_t)n) {
        perror("test_temp_file");
        abort();
    }
    close(fd);
    return path; /* kept for the program's life, as the tests expect */
}
