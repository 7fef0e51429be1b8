/* The guest OpenCL platform (opencl/) with unmodified OpenCL programs
 * (traces/opencl/), each built against the ICD loader (dyn) and against
 * libcgmopencl.a (static):
 *   - a twin's output natively (the host's platform, PoCL) equals its output
 *     under tracegen, both builds, and says PASS (its CPU check);
 *   - its kernels run the same wavefront instructions, launch by launch and
 *     work-group by work-group, as its cgm/guest.h twin in traces/gpu/;
 *   - its trace verifies, replays in the four memory organisations, and the
 *     copies replay charges are the ones the program makes (counted by hand
 *     from its source);
 *   - programs built from source are cached: a second recording compiles
 *     nothing and gives the same trace bytes as the first;
 *   - api_checks passes (the API against the standard's error codes);
 *   - Debian's clinfo, a program nobody here wrote, finds one platform with
 *     one device under tracegen;
 *   - the README's worked cgm/guest.h example runs as the README says: its
 *     kernel compiled by tracegen --compile-kernel, byte for byte the code
 *     object the Makefile's kernel rule makes of the same source. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgm/trace.h"
#include "tests/unit/opencl_runs.h"
#include "tests/unit/si_files.h"

/* Replays TRACE in the four organisations; checks the GPU's wavefront
 * instructions (WAVE_INSTS) and, where copies are charged (non-coherent
 * GPUs), the program's COPIES and (connected to the memory controller)
 * COPY_BYTES, unless COPIES is negative. */
static void replay_all(const char *trace, uint64_t wave_insts, int copies, double copy_bytes)
{
    for (int coherent = 0; coherent < 2; coherent++)
        for (int l3 = 0; l3 < 2; l3++)
            cl_replay(trace, coherent, l3, wave_insts, coherent ? -1 : copies,
                      coherent || l3 || copies < 0 ? -1.0 : copy_bytes);
}

static void check_twin(const char *name, const char *args, int copies, double copy_bytes)
{
    char cmd[8192], twin[1200], dyn[1200], stat_[1200], prog[256];
    /* natively: the host's platform (PoCL) */
    snprintf(cmd, sizeof cmd, "cd %s && %s/traces/opencl/dyn/%s %s", cl_runs.root, cl_runs.build,
             name, args);
    char *native = cl_output_of(cmd);
    assert_non_null(strstr(native, "\nPASS\n"));
    snprintf(twin, sizeof twin, "%s/twin.cgt", cl_runs.tmp);
    snprintf(dyn, sizeof dyn, "%s/dyn.cgt", cl_runs.tmp);
    snprintf(stat_, sizeof stat_, "%s/static.cgt", cl_runs.tmp);
    snprintf(prog, sizeof prog, "gpu/%s %s", name, args);
    char *o = cl_record(prog, twin);
    assert_non_null(strstr(o, "PASS"));
    free(o);
    snprintf(prog, sizeof prog, "opencl/dyn/%s %s", name, args);
    o = cl_record(prog, dyn);
    assert_string_equal(o, native);
    free(o);
    snprintf(prog, sizeof prog, "opencl/static/%s %s", name, args);
    o = cl_record(prog, stat_);
    assert_string_equal(o, native);
    free(o);
    free(native);
    /* the same kernel work as the cgm/guest.h twin, launch by launch */
    static struct cl_kernel_work wt, wd, ws;
    cl_kernel_work(twin, &wt);
    cl_kernel_work(dyn, &wd);
    cl_kernel_work(stat_, &ws);
    cl_same_kernel_work(&wt, &wd);
    cl_same_kernel_work(&wt, &ws);
    uint64_t total = wt.total;
    replay_all(dyn, total, copies, copy_bytes);
    replay_all(stat_, total, copies, copy_bytes);
}

/* backprop: three buffers made from host memory (x 257 floats, w 4369,
 * delta 17), one fill (oldw, 4369) and three reads (partial 256, w, oldw). */
static void test_backprop_twin(void **state)
{
    (void)state;
    check_twin("backprop", "", 7, 4.0 * (257 + 4369 + 17 + 4369 + 256 + 4369 + 4369));
}

/* hotspot 32 3: two buffers from host memory (power, temperature: 32 x 32
 * floats) and one read of the result. */
static void test_hotspot_twin(void **state)
{
    (void)state;
    check_twin("hotspot", "32 3", 3, 3 * 4.0 * 32 * 32);
}

/* lud: the matrix (48 x 48 floats) in with its buffer and out with one
 * read, around 94 launches. */
static void test_lud_twin(void **state)
{
    (void)state;
    check_twin("lud", "", 2, 2 * 4.0 * 48 * 48);
}

/* kmeans: features (1024 x 4 floats) and centres (5 x 4) in with their
 * buffers, the transposed features and the memberships (1024 ints) read. */
static void test_kmeans_twin(void **state)
{
    (void)state;
    check_twin("kmeans", "", 4, 4.0 * (4096 + 20 + 4096 + 1024));
}

/* nw: the score and similarity matrices (65 x 65 ints) in with their
 * buffers, the scores read back after 127 launches. */
static void test_nw_twin(void **state)
{
    (void)state;
    check_twin("nw", "", 3, 3 * 4.0 * 65 * 65);
}

/* bfs (512 nodes, 10 levels): edge starts (513 ints), edges (1536),
 * frontier, visited and cost (512 each) in with their buffers, the next
 * frontier filled (one copy of 512 ints), per level the flag written and
 * read (4 bytes each), the costs read at the end. */
static void test_bfs_twin(void **state)
{
    (void)state;
    check_twin("bfs", "", 5 + 1 + 2 * 10 + 1,
               4.0 * (513 + 1536 + 3 * 512 + 512 + 2 * 10 + 512));
}

/* The collaborative twins in copy mode (inputs copied in with their
 * buffers, the GPU's part of the output read back) and, unchecked copies
 * aside, in share mode (mapped CL_MEM_ALLOC_HOST_PTR buffers). Shares as
 * test_gpu_workloads runs them; counts from the programs' sizes. */
static void test_collab_twins(void **state)
{
    (void)state;
    /* 32768 of 65536 ints written by the GPU, read back; the program copies
     * nothing before its kernel ends, so replay first takes the buffer the
     * GPU wrote (65536 ints) as shared by pointer: one implicit copy */
    check_twin("collab_write", "2 50 copy", 2, 4.0 * (65536 + 32768));
    check_twin("collab_write", "3 10 share", -1, 0);
    /* A and B (64 x 64 floats) in, the GPU's 32 rows of C back */
    check_twin("collab_matmul", "2 50 copy", 3, 4.0 * (2 * 4096 + 32 * 64));
    check_twin("collab_matmul", "1 25 share", -1, 0);
    /* the image (64 x 64) and the filter (9) in, the GPU's 32 rows back */
    check_twin("collab_edge", "2 50 copy", 3, 4.0 * (4096 + 9 + 32 * 64));
    check_twin("collab_edge", "4 75 share", -1, 0);
    /* 4096 records (2 floats) in; 30% rounded to 64s leaves the GPU 2880
     * distances, read back */
    check_twin("collab_knn", "2 30 copy", 2, 4.0 * (2 * 4096 + 2880));
    check_twin("collab_knn", "2 60 share", -1, 0);
    /* delta (17), x (513), w and oldw (513 x 17) in, the GPU's 384 rows of
     * w and oldw (17 floats each) back */
    check_twin("collab_backprop", "2 25 copy", 6, 4.0 * (17 + 513 + 2 * 8721 + 2 * 384 * 17));
    check_twin("collab_backprop", "3 50 share", -1, 0);
}

static void test_api_checks(void **state)
{
    (void)state;
    char trace[1200];
    snprintf(trace, sizeof trace, "%s/api.cgt", cl_runs.tmp);
    const char *const builds[] = { "opencl/dyn/api_checks", "opencl/static/api_checks" };
    for (int i = 0; i < 2; i++) {
        char *o = cl_record(builds[i], trace);
        if (!strstr(o, " 0 failed\nPASS\n"))
            fprintf(stderr, "%s:\n%s", builds[i], o);
        assert_non_null(strstr(o, " 0 failed\nPASS\n"));
        free(o);
        char err[512];
        assert_int_equal(cgm_trace_verify(trace, err, sizeof err), 0);
    }
}

/* The cache folder's entries: count, and the sum of their modification times. */
static void cache_state(unsigned *files, long long *mtimes)
{
    *files = 0;
    *mtimes = 0;
    DIR *d = opendir(cl_runs.cache);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        char p[1400];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", cl_runs.cache, e->d_name);
        if (e->d_name[0] == '.' || stat(p, &st) < 0)
            continue;
        ++*files;
        *mtimes += (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    }
    closedir(d);
}

static void test_second_recording_compiles_nothing(void **state)
{
    (void)state;
    snprintf(cl_runs.cache, sizeof cl_runs.cache, "%s/fresh-cache", cl_runs.tmp);
    char a[1200], b[1200];
    snprintf(a, sizeof a, "%s/first.cgt", cl_runs.tmp);
    snprintf(b, sizeof b, "%s/second.cgt", cl_runs.tmp);
    free(cl_record("opencl/static/hotspot 16 2", a));
    unsigned n1, n2;
    long long t1, t2;
    cache_state(&n1, &t1);
    assert_true(n1 >= 2);   /* the device header and the code object (and its log) */
    free(cl_record("opencl/static/hotspot 16 2", b));
    cache_state(&n2, &t2);
    assert_int_equal(n2, n1);
    assert_true(t2 == t1);  /* nothing written: nothing compiled */
    size_t l1, l2;
    char *x = si_test_read_file(a, &l1), *y = si_test_read_file(b, &l2);
    assert_non_null(x);
    assert_non_null(y);
    assert_true(l1 == l2 && !memcmp(x, y, l1));
    free(x);
    free(y);
    snprintf(cl_runs.cache, sizeof cl_runs.cache, "%s/cache", cl_runs.tmp);
}

static void test_clinfo(void **state)
{
    (void)state;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/tracegen --quiet --no-trace -- /usr/bin/clinfo", cl_runs.bin);
    char *o = cl_output_of(cmd);
    const char *want[] = { "Number of platforms                               1",
                           "Platform Name                                   cgmtrace",
                           "Number of devices                                 1",
                           "Device Type                                     GPU",
                           "Local memory size                               65536 (64KiB)",
                           "Image support                                   No" };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(o, want[i])) {
            fprintf(stderr, "clinfo lacks '%s':\n%s", want[i], o);
            fail();
        }
    free(o);
}

static void test_readme_example(void **state)
{
    (void)state;
    char cmd[16384];
    /* README.md, "Recording and replaying your own program", GPU programs */
    snprintf(cmd, sizeof cmd,
             "cd %s && %s/tracegen --opencl-cache %s --compile-kernel %s/traces/examples/scale.cl "
             "-o scale.co && musl-gcc -static -O2 -I%s/include -o scale %s/traces/examples/scale.c "
             "&& %s/tracegen --quiet -o scale.cgt -- ./scale scale.co && %s/tracetool verify "
             "scale.cgt && %s/replay -c %s/traces/configs/seed.ini -o scale.json scale.cgt",
             cl_runs.tmp, cl_runs.bin, cl_runs.cache, cl_runs.root, cl_runs.root, cl_runs.root,
             cl_runs.bin, cl_runs.bin, cl_runs.bin, cl_runs.root);
    char *o = cl_output_of(cmd);
    assert_non_null(strstr(o, "PASS\n"));
    free(o);
    /* 1024 work-items in groups of 64: 16 work-group streams */
    char trace[1200];
    snprintf(trace, sizeof trace, "%s/scale.cgt", cl_runs.tmp);
    static struct cl_kernel_work w;
    cl_kernel_work(trace, &w);
    assert_int_equal(w.launches, 1);
    assert_int_equal(w.groups[1], 16);
    /* the Makefile's rule on hotspot.cl and --compile-kernel agree */
    char co[1200], ref[1200];
    snprintf(co, sizeof co, "%s/hotspot.co", cl_runs.tmp);
    snprintf(ref, sizeof ref, "%s/kernels/hotspot.co", cl_runs.build);
    snprintf(cmd, sizeof cmd, "%s/tracegen --opencl-cache %s --compile-kernel "
             "%s/traces/kernels/hotspot.cl -o %s", cl_runs.bin, cl_runs.cache, cl_runs.root, co);
    free(cl_output_of(cmd));
    size_t l1, l2;
    char *a = si_test_read_file(co, &l1), *b = si_test_read_file(ref, &l2);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(l1 == l2 && !memcmp(a, b, l1));
    free(a);
    free(b);
}

int main(void)
{
    if (cl_runs_init())
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backprop_twin),
        cmocka_unit_test(test_hotspot_twin),
        cmocka_unit_test(test_lud_twin),
        cmocka_unit_test(test_kmeans_twin),
        cmocka_unit_test(test_nw_twin),
        cmocka_unit_test(test_bfs_twin),
        cmocka_unit_test(test_collab_twins),
        cmocka_unit_test(test_api_checks),
        cmocka_unit_test(test_second_recording_compiles_nothing),
        cmocka_unit_test(test_clinfo),
        cmocka_unit_test(test_readme_example),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (cl_runs_cleanup())
        rc = rc ? rc : 1;
    return rc;
}
