/* Shared helpers (util.h). */
#include "sweep/util.h"

#include "cgm/check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void *check(void *p)
{
    if (!p)
        cgm_oom("sweep's tables and paths");
    return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }
char *xstrndup(const char *s, size_t n) { return check(strndup(s, n)); }

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return check(n < 0 ? NULL : s);
}

char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap)
            buf = xrealloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (!got)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

int write_file_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    bool ok = fwrite(data, 1, len, f) == len;
    ok = !fclose(f) && ok;
    if (!ok || rename(tmp, path)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

char *path_join(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir || !*dir || !strcmp(dir, "."))
        return xstrdup(rel);
    return xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel);
}

int make_dirs(const char *path, char *err, size_t errlen)
{
    if (!*path)
        return 0;
    char *p = xstrdup(path);
    for (char *q = p + 1;; q++) {
        if (*q == '/' || !*q) {
            char c = *q;
            *q = 0;
            if (mkdir(p, 0777) && errno != EEXIST) {
                snprintf(err, errlen, "%s: %s", p, strerror(errno));
                free(p);
                return -1;
            }
            if (!c)
                break;
            *q = c;
        }
    }
    free(p);
    return 0;
}

bool file_exists(const char *path)
{
    struct stat st;
    return !stat(path, &st);
}

char *shell_quote(const char *text)
{
    size_t n = 2;
    for (const char *p = text; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *out = xmalloc(n + 1), *o = out;
    *o++ = '\'';
    for (const char *p = text; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = 0;
    return out;
}
