/* The bundled sweep specs stay readable as the configuration grows: each one
 * dry-runs to the number of points its study has (the seed's Chapter 4:
 * workloads x organisations, workloads x threads x shares, ...): every key
 * they set is one replay knows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdbool.h>
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

/* Dry-runs SPEC (relative to the tree). The studies' traces are recorded
 * by make studies: a dry run without them lists the points and fails
 * saying only that (every other error fails the test). */
static void dry_run(const char *spec, int points)
{
    char *path = harness_root(spec), list[600];
    snprintf(list, sizeof list, "%s/list", dir);
    int rc = harness_sh(out, sizeof out, "%s %s --dry-run -o %s/out > %s", sweep, path, dir, list);
    bool only_traces_missing = rc == 1 && strstr(out, "cannot be read\n") && !strstr(out, "checked before running");
    if (rc != 0 && !only_traces_missing)
        fail_msg("%s: exit %d:\n%s", spec, rc, out);
    char *text = harness_read(list);
    assert_non_null(text);
    char want[128];
    snprintf(want, sizeof want, ": %d points = ", points);
    if (!strstr(text, want))
        fail_msg("%s: expected%s in:\n%.2000s", spec, want, text);
    free(text);
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
    dry_run("traces/studies/study3_windows.ini", 5 * 2); /* its baseline at 1 and 4 GHz, with windows */
    /* the 17 OpenCL workloads x L1 MSHR 16, 32, 64, 256 x protocols; non-blocking
     * stores at L1 MSHR 16 and 256 x protocols; 5 L2 MSHR sizes and 2 coalescers */
    dry_run("traces/studies/study4_si_protocol.ini", 17 * 4 * 3);
    dry_run("traces/studies/study4_nbs.ini", 17 * 2 * 3);
    dry_run("traces/studies/study4_variants.ini", 17 * 7);
    /* (6 GPU + 5 collaborative + 16 OpenCL workloads) x mesi, vips-g, vi-hammer */
    dry_run("traces/studies/study6_vips.ini", (6 + 5 + 16) * 3);
    /* workloads x attachments x protocols: launch, batch, lazy at 14 blocks
     * (4 KiB-32 MiB), rolling at rolling sizes 1, 2, 4 x 14 blocks */
    dry_run("traces/studies/study7_data_movement.ini", 6 * 2 * (2 + 14 + 3 * 14));
    dry_run("traces/studies/study7_explicit.ini", 6 * 2); /* the programs that copy explicitly */
}

/* Study 3's windows are of its own baseline points: the same traces, and
 * each point's effective configuration (the KEY.ini the sweep writes for
 * replay) is one of study3_future.ini's, with the 32-byte link and
 * coalescer 32 the verdicts take them for. Both specs run on stand-in traces
 * with a replay that fails at once, which leaves the configurations. */
static void test_study3_windows_are_its_points(void **state)
{
    (void)state;
    char *root = harness_root("traces/studies");
    int rc = harness_sh(
        out, sizeof out,
        "set -e; cd %s\n"
        "for s in study3_future study3_windows; do\n"
        "  sed -e \"s|^trace = .*/|trace = $PWD/|\" -e \"s|^config = |config = %s/|\" %s/$s.ini > $s.ini\n"
        "done\n"
        "grep '^trace' study3_future.ini > a; grep '^trace' study3_windows.ini > b; cmp a b\n"
        "for t in $(sed -n 's|^trace = ||p' study3_future.ini); do echo \"$t\" > \"$t\"; done\n"
        "printf '#!/bin/sh\\nexit 1\\n' > fail; chmod +x fail\n"
        "%s study3_future.ini -o f --replay ./fail > /dev/null 2>&1 || true\n"
        "%s study3_windows.ini -o w --replay ./fail > /dev/null 2>&1 || true\n"
        "n=0\n"
        "for i in w/points/*.ini; do\n"
        "  n=$((n + 1)); found=0\n"
        "  for j in f/points/*.ini; do cmp -s \"$i\" \"$j\" && found=1; done\n"
        "  [ $found = 1 ] || { echo \"$i is no point of study3_future.ini\"; exit 1; }\n"
        "  l1=$(awk '/^\\[/ { s = $0 } s == \"[gpu.l1]\" && $1 == \"coalescer\" { print $3 }' \"$i\")\n"
        "  grep -qx 'link_bytes = 32' \"$i\" && [ \"$l1\" = 32 ] || { echo \"$i: not link 32, coalescer 32\"; exit 1; }\n"
        "done\n"
        "echo \"$n configurations\"\n",
        dir, root, root, sweep, sweep);
    free(root);
    if (rc != 0)
        fail_msg("exit %d:\n%s", rc, out);
    assert_non_null(strstr(out, "10 configurations")); /* five traces x two clocks, each its own trace */
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
        cmocka_unit_test(test_study3_windows_are_its_points),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
