/* What the guest sees of the host (environment, working directory, its
 * own path) is recorded in the trace's program section, and --env-clear
 * with --env NAME=VALUE makes a recording independent of tracegen's
 * environment: the same bytes whatever the caller's variables. */
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

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/hello", getenv("CGM_BUILD"));
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

/* Records hello with EXTRA options (NULL-terminated, at most 4) while the
 * caller's environment holds NOISE=VALUE; returns the trace's bytes. */
static char *record(const char *value, const char *const *extra, size_t *len, char *path)
{
    snprintf(path, 64, "/tmp/cgm_env_XXXXXX");
    close(mkstemp(path));
    char *argv[12] = { tracegen, "--quiet", "-o", path };
    int k = 4;
    for (; *extra; extra++)
        argv[k++] = (char *)*extra;
    argv[k++] = "--";
    argv[k++] = guest;
    argv[k++] = "a";
    argv[k] = NULL;
    setenv("CGM_TEST_NOISE", value, 1);
    struct run_result *r = run_program(argv, NULL);
    unsetenv("CGM_TEST_NOISE");
    assert_int_equal(r->status, 3); /* hello's exit status */
    run_result_free(r);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*len + 1);
    assert_int_equal(fread(data, 1, *len, f), *len);
    fclose(f);
    return data;
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

static void test_env_clear_repeats_the_recording(void **state)
{
    (void)state;
    const char *opts[] = { "--env-clear", "--env", "LANG=C", NULL };
    char p1[64], p2[64];
    size_t n1, n2;
    char *a = record("short", opts, &n1, p1), *b = record("a much longer value", opts, &n2, p2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    char *prog = program_section(p1);
    assert_non_null(strstr(prog, "\nenv.LANG=C\n"));
    assert_null(strstr(prog, "CGM_TEST_NOISE"));
    assert_non_null(strstr(prog, "\ncwd="));
    assert_non_null(strstr(prog, "\nexe="));
    /* the count with every rep-string iteration (as valgrind counts) is
     * there beside the instructions, and not below them */
    unsigned long long insts = 0, counted = 0;
    const char *i = strstr(prog, "\ninstructions="), *c = strstr(prog, "\ninstructions_rep_counted=");
    assert_non_null(i);
    assert_non_null(c);
    insts = strtoull(strchr(i, '=') + 1, NULL, 10);
    counted = strtoull(strchr(c, '=') + 1, NULL, 10);
    assert_true(insts > 1000);
    assert_true(counted >= insts);
    free(prog);
    free(a);
    free(b);
    unlink(p1);
    unlink(p2);
}

/* Without --env-clear the caller's variables reach the guest (its start-up
 * code reads the environment), and the program section says which. */
static void test_inherited_environment_is_recorded(void **state)
{
    (void)state;
    const char *opts[] = { NULL };
    char p1[64], p2[64];
    size_t n1, n2;
    char *a = record("short", opts, &n1, p1), *b = record("a much longer value", opts, &n2, p2);
    assert_true(n1 != n2 || memcmp(a, b, n1) != 0);
    char *prog = program_section(p2);
    assert_non_null(strstr(prog, "\nenv.CGM_TEST_NOISE=a much longer value\n"));
    free(prog);
    free(a);
    free(b);
    unlink(p1);
    unlink(p2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_clear_repeats_the_recording),
        cmocka_unit_test(test_inherited_environment_is_recorded),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
