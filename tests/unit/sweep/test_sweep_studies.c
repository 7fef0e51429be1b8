/* The bundled sweep specs stay readable as the configuration grows: each one
 * dry-runs to the number of points its study has (the seed's Chapter 4:
 * workloads x organisations, workloads x threads x shares, ...): every key
 * they set is one replay knows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sweep_harness.h"

static char *dir, *sweep;
static char out[65536];

static int setup(void **state)
{
    (void)state;
    dir = harness_tmpdir();
    sweep = harness_bin("sweep");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    harness_rmdir(dir);
    free(dir);
    free(sweep);
    return 0;
}

/* Dry-runs SPEC (relative to the tree). */
static void dry_run(const char *spec, int points)
{
    char *path = harness_root(spec);
    int rc = harness_sh(out, sizeof out, "%s %s --dry-run -o %s/out", sweep, path, dir);
    if (rc != 0)
        fail_msg("%s: exit %d:\n%s", spec, rc, out);
    char want[128];
    snprintf(want, sizeof want, ": %d points = ", points);
    if (!strstr(out, want))
        fail_msg("%s: expected%s in:\n%s", spec, want, out);
    free(path);
}

static void test_example_sweep(void **state)
{
    (void)state;
    dry_run("traces/sweeps/l1d_predictor.ini", 4 * 3); /* 1, 2, 4, 8 KiB x three predictors */
}

static void test_study_specs(void **state)
{
    (void)state;
    dry_run("traces/studies/study1_coherence.ini", 6 * 4);         /* workloads x organisations */
    dry_run("traces/studies/study2_collaborative.ini", 5 * 8 * 8); /* x threads 1-8 x share 0, 20-80% */
    dry_run("traces/studies/study2_gpu_only.ini", 5);              /* its baseline: the GPU-only twins */
    /* x GPU clock x link bytes x coalescer x fabric, two values each */
    dry_run("traces/studies/study3_future.ini", 5 * 2 * 2 * 2 * 2);
}

/* Study 2's GPU-only points join its table by column name: both specs ask
 * for the same metrics. */
static void test_study2_baseline_has_its_metrics(void **state)
{
    (void)state;
    char *a = harness_root("traces/studies/study2_collaborative.ini");
    char *b = harness_root("traces/studies/study2_gpu_only.ini");
    int rc = harness_sh(out, sizeof out, "grep '^metric' %s > %s/a && grep '^metric' %s > %s/b && cmp %s/a %s/b", a,
                        dir, b, dir, dir, dir);
    free(a);
    free(b);
    if (rc != 0)
        fail_msg("the two specs' metric lines differ:\n%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_sweep),
        cmocka_unit_test(test_study_specs),
        cmocka_unit_test(test_study2_baseline_has_its_metrics),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
