/* The write sandbox against a hostile guest (traces/x86/sandbox_escape.c):
 * each way out it tries, run under tracegen with --allow-write on a
 * directory holding links that point out of it, must leave everything
 * outside that directory as it was, byte for byte (names, types, modes,
 * link counts, sizes, times, contents, link targets), with tracegen up and
 * the refusal explained. Every attempt runs twice: confined by openat2 and
 * by the walk that kernels without it get (--sandbox-walk). */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/run_program.h"

static char guest[4096], tracegen[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/sandbox_escape", getenv("CGM_BUILD"));
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

static void put(const char *root, const char *rel, const char *text)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void link_to(const char *target, const char *root, const char *rel)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    assert_int_equal(symlink(target, p), 0);
}

/* ROOT: allowed/ with links out (absolute, dangling, to a directory,
 * relative, to /proc/self/root) and a file; elsewhere/ with a file and a
 * directory; a canary beside them. */
static void make_tree(char *root, size_t cap)
{
    snprintf(root, cap, "/tmp/cgm_sandbox_XXXXXX");
    assert_non_null(mkdtemp(root));
    char p[4096];
    snprintf(p, sizeof p, "%s/allowed", root);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/elsewhere", root);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/elsewhere/sub", root);
    assert_int_equal(mkdir(p, 0755), 0);
    put(root, "elsewhere/w", "original\n");
    put(root, "canary", "canary\n");
    put(root, "allowed/inner", "inner\n");
    snprintf(p, sizeof p, "%s/elsewhere/w", root);
    link_to(p, root, "allowed/link_out");
    snprintf(p, sizeof p, "%s/elsewhere/new", root);
    link_to(p, root, "allowed/dangling");
    snprintf(p, sizeof p, "%s/elsewhere", root);
    link_to(p, root, "allowed/dirlink");
    link_to("../elsewhere/w", root, "allowed/rel_out");
    link_to("../elsewhere", root, "allowed/rel_dirlink");
    link_to("/proc/self/root", root, "allowed/proc_link");
}

/* ---- a description of everything outside allowed/ ----------------------- */

static char *snap;
static size_t snap_len, snap_cap;
static size_t root_len;

static void append(const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(snap + snap_len, snap_cap - snap_len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < snap_cap - snap_len) {
            snap_len += (size_t)n;
            return;
        }
        snap_cap = 2 * snap_cap + (size_t)n + 64;
        snap = realloc(snap, snap_cap);
        assert_non_null(snap);
    }
}

static int describe(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)type;
    (void)ftw;
    const char *rel = path + root_len;
    if (!strcmp(rel, "/allowed") || !strncmp(rel, "/allowed/", 9))
        return 0;
    append("%s mode=%o links=%lu size=%lld mtime=%lld.%09ld", rel[0] ? rel : "/",
           (unsigned)st->st_mode, (unsigned long)st->st_nlink, (long long)st->st_size,
           (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
    if (S_ISLNK(st->st_mode)) {
        char t[4096];
        ssize_t k = readlink(path, t, sizeof t - 1);
        append(" -> %.*s", (int)(k > 0 ? k : 0), t);
    } else if (S_ISREG(st->st_mode)) {
        FILE *f = fopen(path, "rb");
        char buf[256];
        size_t k = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f)
            fclose(f);
        append(" data=%.*s", (int)k, buf);
    }
    append("\n");
    return 0;
}

static char *outside(const char *root)
{
    snap = NULL;
    snap_len = snap_cap = 0;
    append("");
    root_len = strlen(root);
    nftw(root, describe, 16, FTW_PHYS);
    return snap;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

/* What a run may say was done: reading outside, naming a link, the GPU's
 * own buffer. Anything else done is an escape. */
static int allowed_done(const char *line)
{
    static const char *ok[] = {
        "open the outside directory to read: done",
        "make a link out (allowed: it is only a name): done",
        "gpu alloc of a MiB: done",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strncmp(line, ok[i], strlen(ok[i])))
            return 1;
    return 0;
}

static void attempt(const char *mode, int walk)
{
    char root[64], allowed[128];
    make_tree(root, sizeof root);
    snprintf(allowed, sizeof allowed, "%s/allowed", root);
    char *before = outside(root);
    char *argv[10] = { tracegen, "--no-trace", "--allow-write", allowed };
    int k = 4;
    if (walk)
        argv[k++] = "--sandbox-walk";
    argv[k++] = "--";
    argv[k++] = guest;
    argv[k++] = (char *)mode;
    argv[k++] = root;
    argv[k] = NULL;
    struct run_options o = { .timeout = 120 };
    struct run_result *r = run_program(argv, &o);
    char *after = outside(root);
    if (strcmp(before, after))
        print_error("%s%s changed the outside:\n--- before\n%s--- after\n%s", mode,
                    walk ? " (walk)" : "", before, after);
    assert_string_equal(before, after);
    if (r->status != 0)
        print_error("%s: exit %d, stderr: %s\n", mode, r->status, r->err);
    assert_false(r->timed_out);
    assert_int_equal(r->status, 0);
    assert_true(r->out[0] != 0);
    for (char *line = r->out; *line;) {
        char *nl = strchr(line, '\n');
        if (strstr(line, ": done") && (!nl || strstr(line, ": done") < nl) && !allowed_done(line))
            fail_msg("%s%s: an escape succeeded: %.*s", mode, walk ? " (walk)" : "",
                     (int)(nl ? nl - line : (long)strlen(line)), line);
        line = nl ? nl + 1 : line + strlen(line);
    }
    /* a write refused is explained, naming what and how to allow it */
    if (strstr(r->out, "refused (Permission denied)") && !strstr(r->err, "refused"))
        fail_msg("%s%s: a refusal is not explained; stdout:\n%sstderr:\n%s", mode,
                 walk ? " (walk)" : "", r->out, r->err);
    free(before);
    free(after);
    run_result_free(r);
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_every_escape_fails(void **state)
{
    (void)state;
    char *argv[] = { guest, "list", NULL };
    struct run_result *modes = run_program(argv, NULL);
    assert_int_equal(modes->status, 0);
    int n = 0;
    for (char *m = strtok(modes->out, "\n"); m; m = strtok(NULL, "\n"), n++) {
        attempt(m, 0);
        attempt(m, 1);
    }
    assert_true(n >= 20);
    run_result_free(modes);
}

/* The refusal names the path and the option that would permit it. */
static void test_refusal_names_path_and_option(void **state)
{
    (void)state;
    char root[64], allowed[128];
    make_tree(root, sizeof root);
    snprintf(allowed, sizeof allowed, "%s/allowed", root);
    char *argv[] = { tracegen, "--no-trace", "--allow-write", allowed, "--", guest, "dotdot_create",
                     root, NULL };
    struct run_result *r = run_program(argv, NULL);
    assert_int_equal(r->status, 0);
    char want[512];
    snprintf(want, sizeof want, "%s/../elsewhere/new leads out of %s", allowed, allowed);
    if (!strstr(r->err, want))
        print_error("stderr: %s\n", r->err);
    assert_non_null(strstr(r->err, want));
    assert_non_null(strstr(r->err, "--allow-write DIR"));
    run_result_free(r);
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_escape_fails),
        cmocka_unit_test(test_refusal_names_path_and_option),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
