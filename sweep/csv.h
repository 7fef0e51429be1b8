/* Comma-separated tables (RFC 4180): the sweep table is written with
 * csv_field and read back by `sweep plot`. */
#ifndef SWEEP_CSV_H
#define SWEEP_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes one field, quoted when it holds a comma, a quote, a line break or
 * edge blanks; a comma before it unless FIRST. */
void csv_field(FILE *out, const char *text, bool first);

struct csv {
    char **header;
    size_t ncols;
    char ***rows;     /* nrows x ncols */
    size_t nrows;
};

/* Reads TEXT; every row must have as many fields as the header. Returns 0,
 * or -1 with "NAME:LINE: message". */
int csv_parse(struct csv *t, const char *name, const char *text, size_t len, char *err, size_t errlen);
void csv_free(struct csv *t);

/* The column called NAME, or -1. */
long csv_column(const struct csv *t, const char *name);

#endif
