/* See si_files.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "si_files.h"

char *si_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[n] = 0;
        if (len)
            *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

FILE *si_test_open_corpus(void)
{
    const char *root = getenv("CGM_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/si/corpus.txt", root ? root : ".");
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    return f;
}

size_t si_test_parse_hex(const char *s, uint8_t *out, size_t max)
{
    size_t n = 0;
    for (; s[0] != '\t' && s[0] && s[1] && n < max; s += 2) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
    }
    return n;
}
