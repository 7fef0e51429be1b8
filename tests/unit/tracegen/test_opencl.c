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
#include <cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cgm/trace.h"
#include "tests/unit/si_files.h"

static char bin[1024], build[1024], root[1024], tmp[1024], cache[1100], out_path[1100],
    err_path[1100];

static int run(const char *cmd)
{
    char full[8192];
    snprintf(full, sizeof full, "(%s) >%s 2>%s", cmd, out_path, err_path);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs CMD and returns its standard output; fails the test unless it exits 0. */
static char *output_of(const char *cmd)
{
    int st = run(cmd);
    char *o = si_test_read_file(out_path, NULL);
    if (st != 0 || !o) {
        char *e = si_test_read_file(err_path, NULL);
        fprintf(stderr, "%s: status %d\n%s%s", cmd, st, o ? o : "", e ? e : "");
        free(e);
        fail();
    }
    return o;
}

/* Records PROGRAM (a path under BUILD/traces) into TRACE; its stdout. */
static char *record(const char *program, const char *trace)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s/tracegen --quiet --opencl-cache %s --env CGM_KERNELS=%s/kernels "
             "--env CGM_CL_SOURCES=%s/traces/kernels -o %s -- %s/traces/%s", bin, cache, build, root,
             trace, build, program);
    return output_of(cmd);
}

enum { MAX_LAUNCHES = 128 };
struct kernel_work {
    unsigned launches;
    uint64_t insts[MAX_LAUNCHES + 1];          /* by launch id */
    uint64_t group_insts[MAX_LAUNCHES + 1][64]; /* by launch and work-group (first 64) */
    unsigned groups[MAX_LAUNCHES + 1];
};

/* What each launch's work-groups ran, from the trace's work-group streams. */
static void kernel_work(const char *trace, struct kernel_work *w)
{
    char err[512];
    memset(w, 0, sizeof *w);
    assert_int_equal(cgm_trace_verify(trace, err, sizeof err), 0);
    struct cgm_reader *r = cgm_reader_open(trace, err, sizeof err);
    assert_non_null(r);
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        const struct cgm_reader_stream *rs = cgm_reader_stream(r, s);
        if (rs->info.kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        uint32_t l = rs->info.launch_id;
        assert_true(l >= 1 && l <= MAX_LAUNCHES);
        if (l > w->launches)
            w->launches = l;
        w->insts[l] += rs->totals.instructions;
        if (w->groups[l] < 64)
            w->group_insts[l][w->groups[l]] = rs->totals.instructions;
        w->groups[l]++;
    }
    cgm_reader_close(r);
}

static double json_number(const cJSON *root_, const char *a, const char *b, const char *c)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root_, a);
    o = cJSON_GetObjectItemCaseSensitive(o, b);
    if (c)
        o = cJSON_GetObjectItemCaseSensitive(o, c);
    assert_true(cJSON_IsNumber(o));
    return o->valuedouble;
}

/* Replays TRACE in the four organisations; checks the GPU's wavefront
 * instructions (WAVE_INSTS) and, where copies are charged (non-coherent
 * GPUs), the program's COPIES and COPY_BYTES. */
static void replay_all(const char *trace, uint64_t wave_insts, unsigned copies, double copy_bytes)
{
    static const char *const coherence[] = { "noncoherent", "coherent" };
    static const char *const connection[] = { "mc", "l3" };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            char cmd[8192], json[1200];
            snprintf(json, sizeof json, "%s/replay.json", tmp);
            snprintf(cmd, sizeof cmd, "%s/replay -c %s/traces/configs/seed.ini --set "
                     "gpu.coherence=%s --set gpu.connection=%s -o %s %s", bin, root, coherence[i],
                     connection[j], json, trace);
            free(output_of(cmd));
            char *text = si_test_read_file(json, NULL);
            assert_non_null(text);
            cJSON *doc = cJSON_Parse(text);
            assert_non_null(doc);
            assert_int_equal((uint64_t)json_number(doc, "gpu", "wavefront_instructions", NULL),
                             wave_insts);
            if (i == 0) {
                assert_int_equal((unsigned)json_number(doc, "gpu", "copies", "jobs"), copies);
                if (j == 0)
                    assert_true(json_number(doc, "gpu", "copies", "bytes_copied") == copy_bytes);
            }
            cJSON_Delete(doc);
            free(text);
        }
}

static void check_twin(const char *name, const char *args, unsigned copies, double copy_bytes)
{
    char cmd[8192], twin[1200], dyn[1200], stat_[1200], prog[256];
    /* natively: the host's platform (PoCL) */
    snprintf(cmd, sizeof cmd, "cd %s && %s/traces/opencl/dyn/%s %s", root, build, name, args);
    char *native = output_of(cmd);
    assert_non_null(strstr(native, "\nPASS\n"));
    snprintf(twin, sizeof twin, "%s/twin.cgt", tmp);
    snprintf(dyn, sizeof dyn, "%s/dyn.cgt", tmp);
    snprintf(stat_, sizeof stat_, "%s/static.cgt", tmp);
    snprintf(prog, sizeof prog, "gpu/%s %s", name, args);
    char *o = record(prog, twin);
    assert_non_null(strstr(o, "PASS"));
    free(o);
    snprintf(prog, sizeof prog, "opencl/dyn/%s %s", name, args);
    o = record(prog, dyn);
    assert_string_equal(o, native);
    free(o);
    snprintf(prog, sizeof prog, "opencl/static/%s %s", name, args);
    o = record(prog, stat_);
    assert_string_equal(o, native);
    free(o);
    free(native);
    /* the same kernel work as the cgm/guest.h twin, launch by launch */
    static struct kernel_work wt, wd, ws;
    kernel_work(twin, &wt);
    kernel_work(dyn, &wd);
    kernel_work(stat_, &ws);
    assert_true(wt.launches >= 1);
    assert_int_equal(wd.launches, wt.launches);
    assert_int_equal(ws.launches, wt.launches);
    uint64_t total = 0;
    for (unsigned l = 1; l <= wt.launches; l++) {
        assert_int_equal(wd.insts[l], wt.insts[l]);
        assert_int_equal(ws.insts[l], wt.insts[l]);
        assert_int_equal(wd.groups[l], wt.groups[l]);
        for (unsigned g = 0; g < wt.groups[l] && g < 64; g++)
            assert_int_equal(wd.group_insts[l][g], wt.group_insts[l][g]);
        total += wt.insts[l];
    }
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

static void test_api_checks(void **state)
{
    (void)state;
    char trace[1200];
    snprintf(trace, sizeof trace, "%s/api.cgt", tmp);
    const char *const builds[] = { "opencl/dyn/api_checks", "opencl/static/api_checks" };
    for (int i = 0; i < 2; i++) {
        char *o = record(builds[i], trace);
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
    DIR *d = opendir(cache);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        char p[1400];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", cache, e->d_name);
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
    snprintf(cache, sizeof cache, "%s/fresh-cache", tmp);
    char a[1200], b[1200];
    snprintf(a, sizeof a, "%s/first.cgt", tmp);
    snprintf(b, sizeof b, "%s/second.cgt", tmp);
    free(record("opencl/static/hotspot 16 2", a));
    unsigned n1, n2;
    long long t1, t2;
    cache_state(&n1, &t1);
    assert_true(n1 >= 2);   /* the device header and the code object (and its log) */
    free(record("opencl/static/hotspot 16 2", b));
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
    snprintf(cache, sizeof cache, "%s/cache", tmp);
}

static void test_clinfo(void **state)
{
    (void)state;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/tracegen --quiet --no-trace -- /usr/bin/clinfo", bin);
    char *o = output_of(cmd);
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
             tmp, bin, cache, root, root, root, bin, bin, bin, root);
    char *o = output_of(cmd);
    assert_non_null(strstr(o, "PASS\n"));
    free(o);
    /* 1024 work-items in groups of 64: 16 work-group streams */
    char trace[1200];
    snprintf(trace, sizeof trace, "%s/scale.cgt", tmp);
    static struct kernel_work w;
    kernel_work(trace, &w);
    assert_int_equal(w.launches, 1);
    assert_int_equal(w.groups[1], 16);
    /* the Makefile's rule on hotspot.cl and --compile-kernel agree */
    char co[1200], ref[1200];
    snprintf(co, sizeof co, "%s/hotspot.co", tmp);
    snprintf(ref, sizeof ref, "%s/kernels/hotspot.co", build);
    snprintf(cmd, sizeof cmd, "%s/tracegen --opencl-cache %s --compile-kernel "
             "%s/traces/kernels/hotspot.cl -o %s", bin, cache, root, co);
    free(output_of(cmd));
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
    const char *b = getenv("CGM_BIN"), *d = getenv("CGM_BUILD"), *r = getenv("CGM_ROOT");
    snprintf(bin, sizeof bin, "%s", b ? b : "bin");
    snprintf(build, sizeof build, "%s", d ? d : "build");
    snprintf(root, sizeof root, "%s", r ? r : ".");
    /* absolute: some commands run in the temporary folder */
    char *const dirs[] = { bin, build, root };
    for (int i = 0; i < 3; i++) {
        char real[PATH_MAX];
        if (realpath(dirs[i], real))
            snprintf(dirs[i], sizeof bin, "%.1000s", real);
    }
    snprintf(tmp, sizeof tmp, "/tmp/test_opencl.XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    snprintf(cache, sizeof cache, "%s/cache", tmp);
    snprintf(out_path, sizeof out_path, "%s/out", tmp);
    snprintf(err_path, sizeof err_path, "%s/err", tmp);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backprop_twin),
        cmocka_unit_test(test_hotspot_twin),
        cmocka_unit_test(test_lud_twin),
        cmocka_unit_test(test_api_checks),
        cmocka_unit_test(test_second_recording_compiles_nothing),
        cmocka_unit_test(test_clinfo),
        cmocka_unit_test(test_readme_example),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
