/* GPU workloads under tracegen (traces/gpu): each prints PASS (its own check
 * against a CPU computation), its trace verifies, and two runs give
 * byte-identical traces.  The driver's error paths return -errno with a
 * message and never stop tracegen; natively the GPU calls say -ENOSYS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "tests/unit/si_files.h"

static char bin[1024], build[1024], tmp[1024], out_path[1100], err_path[1100];

/* Runs CMD with stdout and stderr into out_path and err_path; returns the
 * exit status. */
static int run(const char *cmd)
{
    char full[8192];
    snprintf(full, sizeof full, "%s >%s 2>%s", cmd, out_path, err_path);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p += n)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
            return 1;
    return 0;
}

static const char *const workloads[] = {
    "hotspot", "backprop", "lud", "kmeans", "nw", "bfs",
    "collab_backprop 2 25 copy", "collab_backprop 3 50 share",
    "collab_matmul 2 50 copy", "collab_matmul 1 25 share",
    "collab_edge 2 50 copy", "collab_edge 4 75 share",
    "collab_knn 2 30 copy", "collab_knn 2 60 share",
    "collab_write 2 50 copy", "collab_write 3 10 share",
    "collab_matmul 1 0 share", "collab_write 2 100 copy",
    "driver_errors",   /* a faulting launch leaves a trace that verifies */
    "driver_fuzz 300", /* random grids and arguments: faults stay the kernels' */
    "threads_launch 3",
    /* seed 004's data-movement programs, sharing by pointer and copying */
    "vecadd", "vecadd 4096 copy", "stencil3d", "llsort percall", "llsort double", "llsort hosted",
    "tpacf", "tpacf 1024 8 copy", "cp", "cp 32 4 8 copy",
};

static void test_workloads_pass_verify_and_repeat(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++) {
        char cmd[4608], t1[1100], t2[1100], e[512];
        snprintf(t1, sizeof t1, "%s/a.cgt", tmp);
        snprintf(t2, sizeof t2, "%s/b.cgt", tmp);
        for (int r = 0; r < 2; r++) {
            snprintf(cmd, sizeof cmd, "%s/tracegen --env CGM_KERNELS=%s/kernels --quiet -o %s -- "
                     "%s/traces/gpu/%s", bin, build, r ? t2 : t1, build, workloads[i]);
            int st = run(cmd);
            char *o = si_test_read_file(out_path, NULL);
            if (st != 0 || !o || !has_line(o, "PASS")) {
                char *m = si_test_read_file(err_path, NULL);
                fprintf(stderr, "%s: status %d\n%s%s", workloads[i], st, o ? o : "", m ? m : "");
                free(m);
                fail();
            }
            free(o);
        }
        assert_int_equal(cgm_trace_verify(t1, e, sizeof e), 0);
        size_t n1, n2;
        char *a = si_test_read_file(t1, &n1), *b = si_test_read_file(t2, &n2);
        assert_non_null(a);
        assert_non_null(b);
        if (n1 != n2 || memcmp(a, b, n1)) {
            fprintf(stderr, "%s: two runs differ\n", workloads[i]);
            fail();
        }
        free(a);
        free(b);
    }
}

static void test_driver_errors(void **state)
{
    (void)state;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/tracegen --env CGM_KERNELS=%s/kernels --quiet --no-trace -- "
             "%s/traces/gpu/driver_errors", bin, build, build);
    assert_int_equal(run(cmd), 0);
    char *o = si_test_read_file(out_path, NULL), *m = si_test_read_file(err_path, NULL);
    assert_non_null(o);
    assert_non_null(m);
    if (!has_line(o, "PASS"))
        fprintf(stderr, "%s", o);
    assert_true(has_line(o, "PASS"));
    /* each failure is explained: what, and where */
    assert_non_null(strstr(m, "/nonexistent/x.co: No such file"));
    /* the file's kernels listed (traces/kernels/write.cl has one) */
    assert_non_null(strstr(m, "no kernel 'nope' in "));
    assert_non_null(strstr(m, "write.co; its kernels: write_array\n"));
    assert_non_null(strstr(m, "not a positive multiple of the work-group size"));
    assert_non_null(strstr(m, "address 0x10 is not mapped"));
    assert_non_null(strstr(m, "its explicit arguments take 16 bytes, 8 given"));
    const char *f = strstr(m, "launch 1 of write_array failed");
    assert_non_null(f);
    assert_non_null(strstr(f, "work-item (0,0,0)"));
    assert_non_null(strstr(f, "pc 0x"));
    assert_non_null(strstr(f, "0x1000"));
    free(o);
    free(m);
}

static void test_native_run_has_no_gpu(void **state)
{
    (void)state;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/traces/gpu/hotspot", build);
    assert_int_equal(run(cmd), 0);
    char *o = si_test_read_file(out_path, NULL);
    assert_non_null(o);
    assert_non_null(strstr(o, "SKIP: no GPU"));
    free(o);
}

int main(void)
{
    const char *b = getenv("CGM_BIN"), *d = getenv("CGM_BUILD");
    snprintf(bin, sizeof bin, "%s", b ? b : "bin");
    snprintf(build, sizeof build, "%s", d ? d : "build");
    snprintf(tmp, sizeof tmp, "/tmp/test_gpu_workloads.XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    snprintf(out_path, sizeof out_path, "%s/out", tmp);
    snprintf(err_path, sizeof err_path, "%s/err", tmp);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workloads_pass_verify_and_repeat),
        cmocka_unit_test(test_driver_errors),
        cmocka_unit_test(test_native_run_has_no_gpu),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
