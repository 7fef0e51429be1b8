/* The bundled sweep specs stay readable as the configuration grows: each one
 * dry-runs to the number of points its study has (the seed's Chapter 4:
 * workloads x organisations, workloads x threads x shares, ...), or, for a
 * study written ahead of the GPU models, stops only at a GPU key replay does
 * not have yet, naming the spec's line. */
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

/* Dry-runs SPEC (relative to the tree); with GPU_AHEAD a missing [gpu...]
 * key is accepted in place of the count. */
static void dry_run(const char *spec, int points, int gpu_ahead)
{
    char *path = harness_root(spec);
    int rc = harness_sh(out, sizeof out, "%s %s --dry-run -o %s/out", sweep, path, dir);
    if (rc == 0) {
        char want[128];
        snprintf(want, sizeof want, ": %d points = ", points);
        if (!strstr(out, want))
            fail_msg("%s: expected%s in:\n%s", spec, want, out);
    } else {
        if (!gpu_ahead || rc != 1)
            fail_msg("%s: exit %d:\n%s", spec, rc, out);
        /* "sweep: SPEC:LINE: unknown key KEY in [gpu...]" */
        char *line = strstr(out, path);
        char *end = line ? strchr(line, '\n') : NULL;
        if (end)
            *end = 0;
        char *key = line ? strstr(line, ": unknown key ") : NULL;
        if (!key || key == line + strlen(path) || !strstr(key, " in [gpu"))
            fail_msg("%s: not a missing GPU key at a line of the spec:\n%s", spec, out);
    }
    free(path);
}

static void test_example_sweep(void **state)
{
    (void)state;
    dry_run("traces/sweeps/l1d_predictor.ini", 4 * 3, 0); /* 1, 2, 4, 8 KiB x three predictors */
}

static void test_study_specs(void **state)
{
    (void)state;
    dry_run("traces/studies/study1_coherence.ini", 6 * 4, 1);         /* workloads x organisations */
    dry_run("traces/studies/study2_collaborative.ini", 5 * 8 * 5, 1); /* x threads 1-8 x share 0-80% */
    dry_run("traces/studies/study3_future.ini", 5 * 2 * 3 * 2 * 2, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_sweep),
        cmocka_unit_test(test_study_specs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
