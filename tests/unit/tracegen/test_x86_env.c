/* The guest's environment: empty unless --env NAME=VALUE adds to it, or
 * --env-inherit hands it tracegen's own. So two users whose shells differ
 * record the same bytes, and nothing of theirs (a token in a variable)
 * lands in the trace unless they ask for it. What the guest sees of the
 * host (environment, working directory, its own path) is recorded in the
 * trace's program section. The guest's own view is checked with the
 * host's coreutils env, a dynamically linked glibc program that prints
 * exactly its environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "tests/unit/run_program.h"

static char guest[4096], tracegen[4096];
static const char *const env_program = "/usr/bin/env";

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/hello", getenv("CGM_BUILD"));
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

/* The variables two users' shells differ in, as user U (0 or 1) has them;
 * user 1 has one more, a secret. */
static void become_user(int u)
{
    setenv("HOME", u ? "/home/somebody-else" : "/home/a", 1);
    setenv("USER", u ? "somebody-else" : "a", 1);
    setenv("LOGNAME", u ? "somebody-else" : "a", 1);
    setenv("PATH", u ? "/opt/bin:/usr/local/bin:/usr/bin:/bin" : "/usr/bin", 1);
    setenv("LANG", u ? "de_DE.UTF-8" : "C", 1);
    setenv("OLDPWD", u ? "/tmp/a/much/longer/previous/folder" : "/", 1);
    if (u)
        setenv("CGM_TEST_SECRET", "token-0123456789abcdef", 1);
    else
        unsetenv("CGM_TEST_SECRET");
}

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*len + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, *len, f), *len);
    data[*len] = 0;
    fclose(f);
    return data;
}

/* Runs tracegen with OPTS (NULL-terminated, at most 6) on PROGRAM as user
 * U, recording into PATH (64 bytes) when PATH is not NULL; returns the run. */
static struct run_result *run_as(int u, const char *const *opts, const char *program, char *path)
{
    char *argv[16] = { tracegen, "--quiet" };
    int k = 2;
    for (; *opts; opts++)
        argv[k++] = (char *)*opts;
    if (path) {
        snprintf(path, 64, "/tmp/cgm_env_XXXXXX");
        close(mkstemp(path));
        argv[k++] = "-o";
        argv[k++] = path;
    } else {
        argv[k++] = "--no-trace";
    }
    argv[k++] = "--";
    argv[k++] = (char *)program;
    if (program == guest)
        argv[k++] = "a";
    argv[k] = NULL;
    become_user(u);
    struct run_result *r = run_program(argv, NULL);
    unsetenv("CGM_TEST_SECRET");
    return r;
}

/* Records hello with OPTS as user U; returns the trace's bytes. */
static char *record(int u, const char *const *opts, size_t *len, char *path)
{
    struct run_result *r = run_as(u, opts, guest, path);
    assert_int_equal(r->status, 3); /* hello's exit status */
    run_result_free(r);
    return read_whole(path, len);
}

static char *program_section(const char *path)
{
    char err[512];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    uint8_t *d = NULL;
    size_t n = 0;
    assert_int_equal(cgm_reader_read_section(r, "program", 1 << 20, &d, &n, err, sizeof err), 0);
    cgm_reader_close(r);
    char *s = strndup((char *)d, n);
    free(d);
    return s;
}

/* What the guest printed of its environment under OPTS as user U. */
static char *guest_environment(int u, const char *const *opts)
{
    if (access(env_program, X_OK))
        skip();
    struct run_result *r = run_as(u, opts, env_program, NULL);
    assert_int_equal(r->status, 0);
    char *out = strdup(r->out);
    run_result_free(r);
    return out;
}

static void test_two_users_record_the_same_bytes(void **state)
{
    (void)state;
    const char *opts[] = { NULL };
    char p1[64], p2[64];
    size_t n1, n2;
    char *a = record(0, opts, &n1, p1), *b = record(1, opts, &n2, p2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    char *prog = program_section(p2);
    assert_null(strstr(prog, "\nenv."));
    assert_null(strstr(prog, "token-0123456789abcdef"));
    assert_non_null(strstr(prog, "\ncwd="));
    assert_non_null(strstr(prog, "\nexe="));
    /* the count with every rep-string iteration (as valgrind counts) is
     * there beside the instructions, and not below them */
    const char *i = strstr(prog, "\ninstructions="), *c = strstr(prog, "\ninstructions_rep_counted=");
    assert_non_null(i);
    assert_non_null(c);
    unsigned long long insts = strtoull(strchr(i, '=') + 1, NULL, 10);
    unsigned long long counted = strtoull(strchr(c, '=') + 1, NULL, 10);
    assert_true(insts > 1000);
    assert_true(counted >= insts);
    free(prog);
    free(a);
    free(b);
    unlink(p1);
    unlink(p2);
}

/* --env entries are the guest's whole environment, in their order, a later
 * one of the same name replacing the earlier; they are recorded, and they
 * too leave the recording independent of the caller's variables. */
static void test_env_entries_are_all_the_guest_sees(void **state)
{
    (void)state;
    const char *opts[] = { "--env", "LANG=C", "--env", "TZ=UTC", "--env", "LANG=C.UTF-8", NULL };
    char *seen = guest_environment(1, opts);
    assert_string_equal(seen, "LANG=C.UTF-8\nTZ=UTC\n");
    free(seen);
    char p1[64], p2[64];
    size_t n1, n2;
    char *a = record(0, opts, &n1, p1), *b = record(1, opts, &n2, p2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    char *prog = program_section(p1);
    assert_non_null(strstr(prog, "\nenv.LANG=C.UTF-8\nenv.TZ=UTC\n"));
    assert_null(strstr(prog, "env.HOME"));
    free(prog);
    free(a);
    free(b);
    unlink(p1);
    unlink(p2);
}

/* --env-inherit hands the guest tracegen's environment (what the host's env
 * prints run natively in it), --env entries overriding it; the program
 * section then holds every variable, the secret too, so two users' traces
 * differ. --env-clear after it takes it back. */
static void test_env_inherit_passes_and_records_the_callers(void **state)
{
    (void)state;
    const char *opts[] = { "--env-inherit", "--env", "LANG=C", NULL };
    char *seen = guest_environment(1, opts);
    become_user(1);
    setenv("LANG", "C", 1);
    char *native_argv[] = { (char *)env_program, NULL };
    struct run_result *native = run_program(native_argv, NULL);
    unsetenv("CGM_TEST_SECRET");
    assert_int_equal(native->status, 0);
    assert_string_equal(seen, native->out);
    assert_non_null(strstr(seen, "CGM_TEST_SECRET=token-0123456789abcdef\n"));
    run_result_free(native);
    free(seen);

    char p1[64], p2[64];
    size_t n1, n2;
    char *a = record(0, opts, &n1, p1), *b = record(1, opts, &n2, p2);
    assert_true(n1 != n2 || memcmp(a, b, n1) != 0);
    char *prog = program_section(p2);
    assert_non_null(strstr(prog, "\nenv.CGM_TEST_SECRET=token-0123456789abcdef\n"));
    assert_non_null(strstr(prog, "\nenv.LANG=C\n"));
    free(prog);
    free(a);
    free(b);
    unlink(p1);
    unlink(p2);

    const char *cleared[] = { "--env-inherit", "--env-clear", "--env", "A=1", NULL };
    seen = guest_environment(1, cleared);
    assert_string_equal(seen, "A=1\n");
    free(seen);
}

/* --help says the default and what --env-inherit puts into the trace. */
static void test_help_says_what_the_trace_holds(void **state)
{
    (void)state;
    char *argv[] = { tracegen, "--help", NULL };
    struct run_result *r = run_program(argv, NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "by\n                        default the guest's environment is empty"));
    assert_non_null(strstr(r->out, "--env-inherit"));
    assert_non_null(strstr(r->out, "holds every variable of it"));
    run_result_free(r);
}

/* A malformed --env is a usage error naming it. */
static void test_bad_env_entry_is_refused(void **state)
{
    (void)state;
    const char *bad[][3] = { { "--env", "NOVALUE", NULL }, { "--env", "=x", NULL } };
    for (size_t i = 0; i < 2; i++) {
        struct run_result *r = run_as(0, bad[i], guest, NULL);
        assert_int_equal(r->status, 2);
        assert_non_null(strstr(r->err, "--env"));
        assert_non_null(strstr(r->err, bad[i][1]));
        assert_non_null(strstr(r->err, "NAME=VALUE"));
        run_result_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_users_record_the_same_bytes),
        cmocka_unit_test(test_env_entries_are_all_the_guest_sees),
        cmocka_unit_test(test_env_inherit_passes_and_records_the_callers),
        cmocka_unit_test(test_bad_env_entry_is_refused),
        cmocka_unit_test(test_help_says_what_the_trace_holds),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
