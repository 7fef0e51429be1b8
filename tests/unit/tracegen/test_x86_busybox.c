/* Debian's static busybox (a program nobody here wrote) under tracegen:
 * applets print what they print natively, tracegen is one process of a
 * shell pipeline of applets, and a shell pipeline inside busybox sh (which
 * needs fork) fails at the fork, which tracegen names, not at the pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/run_program.h"

#define BUSYBOX "/bin/busybox"

static char tracegen[4096], input[64];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BIN"))
        return -1;
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    snprintf(input, sizeof input, "/tmp/cgm-busybox-%d.txt", (int)getpid());
    FILE *f = fopen(input, "w");
    if (!f)
        return -1;
    for (int i = 1; i <= 500; i++)
        fprintf(f, "line %d %s\n", i * 37 % 101, i % 3 ? "alpha" : "beta");
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(input);
    return 0;
}

static const struct run_options within_a_minute = { .timeout = 60 };

/* Runs the shell command CMD with "@BB" replaced by busybox natively and
 * by tracegen running busybox; returns both results. */
static void both(const char *cmd, struct run_result **n, struct run_result **e)
{
    char nat[4096], emu[8192];
    char under[4200];
    snprintf(under, sizeof under, "%s --no-trace --quiet -- " BUSYBOX, tracegen);
    size_t a = 0, b = 0;
    for (const char *c = cmd; *c && a < sizeof nat - 300 && b < sizeof emu - 4300; c++) {
        if (!strncmp(c, "@BB", 3)) {
            a += (size_t)snprintf(nat + a, sizeof nat - a, "%s", BUSYBOX);
            b += (size_t)snprintf(emu + b, sizeof emu - b, "%s", under);
            c += 2;
        } else {
            nat[a++] = *c;
            emu[b++] = *c;
        }
    }
    nat[a] = emu[b] = 0;
    char *nargv[] = { "/bin/sh", "-c", nat, NULL };
    char *eargv[] = { "/bin/sh", "-c", emu, NULL };
    *n = run_program(nargv, &within_a_minute);
    *e = run_program(eargv, &within_a_minute);
}

static void like_native(const char *cmd_fmt)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, cmd_fmt, input);
    struct run_result *n, *e;
    both(cmd, &n, &e);
    if (strcmp(n->out, e->out))
        print_error("%s: output differs\n", cmd);
    assert_int_equal(n->status, 0);
    assert_int_equal(e->status, n->status);
    assert_true(strlen(n->out) > 0);
    assert_string_equal(n->out, e->out);
    run_result_free(n);
    run_result_free(e);
}

static void skip_without_busybox(void)
{
    if (access(BUSYBOX, X_OK) != 0)
        skip(); /* the busybox-static package is not installed */
}

static void test_applets(void **state)
{
    (void)state;
    skip_without_busybox();
    static const char *const cmds[] = {
        "@BB sort -k2,2n -k3 %s", "@BB md5sum %s", "@BB sha256sum %s", "@BB wc %s",
        "@BB awk '{ s[$3] += $2 } END { print s[\"alpha\"], s[\"beta\"] }' %s",
        "@BB sed -n 's/alpha/ALPHA/p' %s", "@BB grep -c beta %s", "@BB cut -d' ' -f2 %s",
        "@BB head -n 20 %s", "@BB tail -n 5 %s", "@BB od -A x -t x1 -N 64 %s",
        "@BB sh -c 'i=0; while [ $i -lt 50 ]; do i=$((i + 3)); done; echo $i' %s",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        like_native(cmds[i]);
}

/* tracegen in a pipeline of applets, as the README says to record one of
 * its processes: reading the previous one's output, writing to the next. */
static void test_one_process_of_a_pipeline(void **state)
{
    (void)state;
    skip_without_busybox();
    like_native("/bin/busybox cut -d' ' -f3 %s | @BB sort | /bin/busybox uniq -c");
    like_native("@BB gzip -c %s | /bin/busybox gunzip | @BB md5sum");
}

/* busybox sh makes a pipeline with pipe and fork: the pipe now works, the
 * fork is refused, and both busybox and tracegen say so. */
static void test_shell_pipeline_fails_at_the_fork(void **state)
{
    (void)state;
    skip_without_busybox();
    char *argv[] = { tracegen, "--no-trace", "--", BUSYBOX, "sh", "-c", "echo a | tr a b", NULL };
    struct run_result *e = run_program(argv, &within_a_minute);
    assert_null(strstr(e->err, "can't create pipe"));
    assert_non_null(strstr(e->err, "can't fork"));
    assert_non_null(strstr(e->err, "refused (EPERM): the guest may not start other processes"));
    run_result_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_applets),
        cmocka_unit_test(test_one_process_of_a_pipeline),
        cmocka_unit_test(test_shell_pipeline_fails_at_the_fork),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
