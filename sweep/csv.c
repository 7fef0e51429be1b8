/* CSV writing and reading (csv.h). */
#include "sweep/csv.h"

#include <stdlib.h>
#include <string.h>

#include "sweep/util.h"

void csv_field(FILE *out, const char *text, bool first)
{
    if (!first)
        fputc(',', out);
    size_t n = strlen(text);
    bool quote = strpbrk(text, ",\"\r\n") || (n && (text[0] == ' ' || text[n - 1] == ' '));
    if (!quote) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

/* One record from *AT; its fields into *FIELDS. */
static int record(const char *text, size_t len, size_t *at, int *line, char ***fields, size_t *n)
{
    *fields = NULL;
    *n = 0;
    size_t i = *at;
    for (;;) {
        char *buf = xmalloc(len - i + 1);
        size_t b = 0;
        if (i < len && text[i] == '"') {
            i++;
            for (;;) {
                if (i >= len) {
                    free(buf);
                    return -1; /* unterminated quote */
                }
                if (text[i] == '"' && i + 1 < len && text[i + 1] == '"') {
                    buf[b++] = '"';
                    i += 2;
                } else if (text[i] == '"') {
                    i++;
                    break;
                } else {
                    if (text[i] == '\n')
                        (*line)++;
                    buf[b++] = text[i++];
                }
            }
        } else {
            while (i < len && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                buf[b++] = text[i++];
        }
        buf[b] = 0;
        *fields = xrealloc(*fields, (*n + 1) * sizeof **fields);
        (*fields)[(*n)++] = buf;
        if (i < len && text[i] == ',') {
            i++;
            continue;
        }
        if (i < len && text[i] == '\r')
            i++;
        if (i < len && text[i] == '\n')
            i++;
        else if (i < len)
            return -1; /* text after a closing quote */
        break;
    }
    *at = i;
    return 0;
}

static void free_fields(char **f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(f[i]);
    free(f);
}

int csv_parse(struct csv *t, const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    size_t at = 0;
    int line = 1;
    if (!len || record(text, len, &at, &line, &t->header, &t->ncols)) {
        snprintf(err, errlen, "%s:1: not a table (no header line)", name);
        csv_free(t);
        return -1;
    }
    while (at < len) {
        int start = ++line;
        char **f;
        size_t n;
        bool malformed = record(text, len, &at, &line, &f, &n) != 0;
        if (malformed || n != t->ncols) {
            snprintf(err, errlen, "%s:%d: %s", name, start,
                     malformed ? "malformed quoting" : "a row whose field count differs from the header's");
            free_fields(f, n);
            csv_free(t);
            return -1;
        }
        t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof *t->rows);
        t->rows[t->nrows++] = f;
    }
    return 0;
}

void csv_free(struct csv *t)
{
    free_fields(t->header, t->ncols);
    for (size_t r = 0; r < t->nrows; r++)
        free_fields(t->rows[r], t->ncols);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

long csv_column(const struct csv *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (!strcmp(t->header[c], name))
            return (long)c;
    return -1;
}
