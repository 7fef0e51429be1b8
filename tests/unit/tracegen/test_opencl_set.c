/* The OpenCL workload set (traces/opencl/workloads.list), every program on
 * its small input, built against the ICD loader (dyn) and against
 * libcgmopencl.a (static):
 *   - natively (the host's platform, PoCL) it says PASS (its CPU check) and
 *     its output is the reference: both builds print exactly that under
 *     tracegen;
 *   - both traces verify and their kernels ran the same work, launch by
 *     launch and work-group by work-group;
 *   - the static trace replays in the four memory organisations and the
 *     dynamic one in NC-MC, each with the trace's wavefront instructions;
 *   - its study input (the list's arguments) says PASS natively, so the
 *     list names inputs the programs accept and compute right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/opencl_runs.h"

static void check_program(const char *name, const char *study)
{
    char cmd[8192], dyn[1200], stat_[1200], prog[512];
    snprintf(cmd, sizeof cmd, "cd %s && %s/traces/opencl/dyn/%s", cl_runs.root, cl_runs.build,
             name);
    char *native = cl_output_of(cmd);
    assert_non_null(strstr(native, "\nPASS\n"));
    snprintf(dyn, sizeof dyn, "%s/dyn.cgt", cl_runs.tmp);
    snprintf(stat_, sizeof stat_, "%s/static.cgt", cl_runs.tmp);
    snprintf(prog, sizeof prog, "opencl/dyn/%s", name);
    char *o = cl_record(prog, dyn);
    assert_string_equal(o, native);
    free(o);
    snprintf(prog, sizeof prog, "opencl/static/%s", name);
    o = cl_record(prog, stat_);
    assert_string_equal(o, native);
    free(o);
    free(native);
    static struct cl_kernel_work wd, ws;
    cl_kernel_work(dyn, &wd);
    cl_kernel_work(stat_, &ws);
    cl_same_kernel_work(&ws, &wd);
    for (int coherent = 0; coherent < 2; coherent++)
        for (int l3 = 0; l3 < 2; l3++)
            cl_replay(stat_, coherent, l3, ws.total, -1, -1.0);
    cl_replay(dyn, 0, 0, wd.total, -1, -1.0);
    snprintf(cmd, sizeof cmd, "cd %s && %s/traces/opencl/dyn/%s %s", cl_runs.root, cl_runs.build,
             name, study);
    o = cl_output_of(cmd);
    assert_non_null(strstr(o, "\nPASS\n"));
    free(o);
}

static void test_workload_set(void **state)
{
    (void)state;
    char path[1200], line[512];
    snprintf(path, sizeof path, "%s/traces/opencl/workloads.list", cl_runs.root);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    unsigned programs = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64];
        int used = 0;
        if (line[0] == '#' || sscanf(line, "%63s %n", name, &used) != 1)
            continue;
        line[strcspn(line, "\n")] = 0;
        fprintf(stderr, "  %s %s\n", name, line + used);
        check_program(name, line + used);
        programs++;
    }
    fclose(f);
    assert_true(programs >= 12);   /* the twelve, at least */
}

int main(void)
{
    if (cl_runs_init())
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workload_set),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (cl_runs_cleanup())
        rc = rc ? rc : 1;
    return rc;
}
