/* The fingerprints of replay's statistics (tests/fingerprints): every case's
 * JSON hashes as committed, and the check sees a change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs the fingerprint check with ENV (variable assignments put before the
 * command) and returns its exit status, its output in OUT. */
static int run_check(const char *env, char *out, size_t outlen)
{
    const char *bin = getenv("CGM_BIN"), *build = getenv("CGM_BUILD"), *root = getenv("CGM_ROOT");
    assert_non_null(bin);
    assert_non_null(build);
    assert_non_null(root);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && %s sh tests/fingerprints/run.sh %s %s 2>&1", root, env, bin, build);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Every statistic of every case is what tests/fingerprints/expected holds. */
static void test_statistics_are_as_fingerprinted(void **state)
{
    (void)state;
    static char out[1 << 16];
    int rc = run_check("", out, sizeof out);
    if (rc == 3) {
        /* built by other compilers: the traces differ before replay runs */
        print_message("%s", out);
        skip();
    }
    if (rc)
        print_error("%s", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "as expected"));
}

/* The check fails on changed statistics and names the cases that changed:
 * two GPU cases at another GPU clock (every cycle count moves), in a work
 * folder of their own. */
static void test_a_change_is_found_and_named(void **state)
{
    (void)state;
    static char out[1 << 16], env[512];
    const char *build = getenv("CGM_BUILD");
    assert_non_null(build);
    snprintf(env, sizeof env,
             "CGM_FP_ONLY='^bfs\\.C-' CGM_FP_EXTRA='--set gpu.frequency=2GHz' CGM_FP_OUT=%s/fingerprints-self.%d",
             build, (int)getpid());
    int rc = run_check(env, out, sizeof out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "bfs.C-L3: statistics changed"));
    assert_non_null(strstr(out, "bfs.C-MC: statistics changed"));
    assert_non_null(strstr(out, "2 of 2 cases changed"));
    assert_null(strstr(out, "bfs.NC-L3"));
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf %s/fingerprints-self.%d", build, (int)getpid());
    assert_int_equal(system(rm), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statistics_are_as_fingerprinted),
        cmocka_unit_test(test_a_change_is_found_and_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
