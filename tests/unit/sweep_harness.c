/* Helpers for the sweep tool's tests (sweep_harness.h). */
#include "tests/unit/sweep_harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void die(const char *what)
{
    perror(what);
    abort();
}

int harness_sh(char *out, size_t outlen, const char *fmt, ...)
{
    char *cmd = NULL, *full = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&cmd, fmt, ap) < 0)
        die("vasprintf");
    va_end(ap);
    if (asprintf(&full, "(%s) 2>&1", cmd) < 0)
        die("asprintf");
    FILE *p = popen(full, "r");
    if (!p)
        die("popen");
    size_t n = 0, got;
    char sink[4096];
    while ((got = fread(out && n + 1 < outlen ? out + n : sink, 1,
                        out && n + 1 < outlen ? outlen - n - 1 : sizeof sink, p)) > 0)
        if (out && n + 1 < outlen)
            n += got;
    if (out && outlen)
        out[n] = 0;
    int st = pclose(p);
    free(cmd);
    free(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *harness_tmpdir(void)
{
    char *d = strdup("/tmp/cgm_sweep_XXXXXX");
    if (!d || !mkdtemp(d))
        die("mkdtemp");
    return d;
}

void harness_rmdir(const char *dir)
{
    if (strncmp(dir, "/tmp/cgm_sweep_", 15))
        abort(); /* only what harness_tmpdir made */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd))
        fprintf(stderr, "could not remove %s\n", dir);
}

char *harness_write(const char *dir, const char *name, const char *text, int exec)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        die("asprintf");
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        die(path);
    if (exec && chmod(path, 0755))
        die(path);
    return path;
}

char *harness_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        die("malloc");
    buf[n] = 0;
    return buf;
}

static char *env_path(const char *env, const char *fallback, const char *rel)
{
    const char *base = getenv(env);
    char *p = NULL;
    if (asprintf(&p, "%s/%s", base ? base : fallback, rel) < 0)
        die("asprintf");
    return p;
}

char *harness_bin(const char *name) { return env_path("CGM_BIN", "bin", name); }
char *harness_root(const char *rel) { return env_path("CGM_ROOT", ".", rel); }
