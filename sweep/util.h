/* Small helpers the sweep tool's files share: allocation that cannot fail
 * quietly, text trimming, whole-file reads, atomic writes, paths. */
#ifndef SWEEP_UTIL_H
#define SWEEP_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Allocation failures end the program with a message: the tool holds
 * nothing worth saving at that point, and results already written are
 * complete files. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Removes leading and trailing blanks in place; returns the first non-blank. */
char *trim(char *s);

/* The whole file, NUL-terminated (LEN without the NUL), or NULL with a message. */
char *read_file(const char *path, size_t *len, char *err, size_t errlen);

/* Writes LEN bytes to PATH through a temporary file in the same folder and
 * rename(2), so readers see the old file or the whole new one. */
int write_file_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);

/* DIR/REL, or REL itself when it is absolute. */
char *path_join(const char *dir, const char *rel);

/* mkdir -p. */
int make_dirs(const char *path, char *err, size_t errlen);

bool file_exists(const char *path);

/* TEXT quoted for sh: '...' with embedded quotes escaped. */
char *shell_quote(const char *text);

#endif
