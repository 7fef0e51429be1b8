#include "tests/unit/replay_cli.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

char *replay_cli(const char *fmt, ...)
{
    const char *bin = getenv("CGM_BIN");
    char args[2048], cmd[2400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s/replay -q %s 2>&1", bin ? bin : "bin", args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0, got;
    char *out = malloc(cap);
    assert_non_null(out);
    while ((got = fread(out + n, 1, cap - 1 - n, p)) > 0) {
        n += got;
        if (n == cap - 1) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
    }
    out[n] = 0;
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        fail_msg("%s: %s", cmd, out);
    return out;
}

char *read_whole_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = 0;
    fclose(f);
    return text;
}

cJSON *read_json_file(const char *path)
{
    char *text = read_whole_file(path);
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j)
        fail_msg("%s is not JSON", path);
    return j;
}

cJSON **read_json_lines(const char *path, size_t *n)
{
    char *text = read_whole_file(path), *save = NULL;
    cJSON **w = NULL;
    *n = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        w = realloc(w, (*n + 1) * sizeof *w);
        assert_non_null(w);
        if (!(w[*n] = cJSON_Parse(line)))
            fail_msg("%s: line %zu is not JSON", path, *n + 1);
        ++*n;
    }
    free(text);
    return w;
}

void free_json_lines(cJSON **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(lines[i]);
    free(lines);
}

double json_number_or_0(const cJSON *json, const char *path)
{
    const cJSON *x = json;
    char key[512];
    snprintf(key, sizeof key, "%s", path);
    for (char *save = NULL, *k = strtok_r(key, ".", &save); k && x; k = strtok_r(NULL, ".", &save))
        x = cJSON_IsArray(x) ? cJSON_GetArrayItem(x, atoi(k)) : cJSON_GetObjectItemCaseSensitive(x, k);
    return cJSON_IsNumber(x) ? x->valuedouble : 0;
}
