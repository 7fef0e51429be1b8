#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cgm/trace.h"
#include "tests/unit/opencl_runs.h"
#include "tests/unit/si_files.h"

struct cl_runs cl_runs;

int cl_runs_init(void)
{
    struct cl_runs *r = &cl_runs;
    const char *b = getenv("CGM_BIN"), *d = getenv("CGM_BUILD"), *root = getenv("CGM_ROOT");
    snprintf(r->bin, sizeof r->bin, "%s", b ? b : "bin");
    snprintf(r->build, sizeof r->build, "%s", d ? d : "build");
    snprintf(r->root, sizeof r->root, "%s", root ? root : ".");
    char *const dirs[] = { r->bin, r->build, r->root };
    for (int i = 0; i < 3; i++) {
        char real[PATH_MAX];
        if (realpath(dirs[i], real))
            snprintf(dirs[i], sizeof r->bin, "%.1000s", real);
    }
    snprintf(r->tmp, sizeof r->tmp, "/tmp/test_opencl.XXXXXX");
    if (!mkdtemp(r->tmp))
        return 1;
    snprintf(r->cache, sizeof r->cache, "%.1000s/cache", r->tmp);
    snprintf(r->out, sizeof r->out, "%.1000s/out", r->tmp);
    snprintf(r->err, sizeof r->err, "%.1000s/err", r->tmp);
    return 0;
}

int cl_runs_cleanup(void)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cl_runs.tmp);
    return system(cmd) != 0;
}

int cl_run_cmd(const char *cmd)
{
    char full[20000];
    snprintf(full, sizeof full, "(%s) >%s 2>%s", cmd, cl_runs.out, cl_runs.err);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

char *cl_output_of(const char *cmd)
{
    int st = cl_run_cmd(cmd);
    char *o = si_test_read_file(cl_runs.out, NULL);
    if (st != 0 || !o) {
        char *e = si_test_read_file(cl_runs.err, NULL);
        fprintf(stderr, "%s: status %d\n%s%s", cmd, st, o ? o : "", e ? e : "");
        free(e);
        fail();
    }
    return o;
}

char *cl_record(const char *program, const char *trace)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "%s/tracegen --quiet --opencl-cache %s --env CGM_KERNELS=%s/kernels "
             "--env CGM_CL_SOURCES=%s/traces/kernels:%s/traces/opencl/kernels -o %s -- "
             "%s/traces/%s", cl_runs.bin, cl_runs.cache, cl_runs.build, cl_runs.root, cl_runs.root, trace, cl_runs.build,
             program);
    return cl_output_of(cmd);
}

void cl_kernel_work(const char *trace, struct cl_kernel_work *w)
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
        assert_true(l >= 1 && l <= CL_MAX_LAUNCHES);
        if (l > w->launches)
            w->launches = l;
        w->insts[l] += rs->totals.instructions;
        w->total += rs->totals.instructions;
        if (w->groups[l] < 64)
            w->group_insts[l][w->groups[l]] = rs->totals.instructions;
        w->groups[l]++;
    }
    cgm_reader_close(r);
}

void cl_same_kernel_work(const struct cl_kernel_work *a, const struct cl_kernel_work *b)
{
    assert_true(a->launches >= 1);
    assert_int_equal(b->launches, a->launches);
    for (unsigned l = 1; l <= a->launches; l++) {
        assert_int_equal(b->insts[l], a->insts[l]);
        assert_int_equal(b->groups[l], a->groups[l]);
        for (unsigned g = 0; g < a->groups[l] && g < 64; g++)
            assert_int_equal(b->group_insts[l][g], a->group_insts[l][g]);
    }
}

static double json_number(const cJSON *root, const char *a, const char *b, const char *c)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);
    o = cJSON_GetObjectItemCaseSensitive(o, b);
    if (c)
        o = cJSON_GetObjectItemCaseSensitive(o, c);
    assert_true(cJSON_IsNumber(o));
    return o->valuedouble;
}

unsigned cl_async_copies(const char *trace)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/tracetool stats %s | sed -n '/^all streams:/,$p' | "
             "awk '$1 == \"gpu_copy_async\" { n += $2 } END { print n + 0 }'", cl_runs.bin, trace);
    char *out = cl_output_of(cmd);
    assert_non_null(out);
    unsigned n = (unsigned)strtoul(out, NULL, 10);
    free(out);
    return n;
}

void cl_replay(const char *trace, int coherent, int l3, uint64_t wave_insts, int copies,
               double copy_bytes)
{
    char cmd[16384], json[1200];
    snprintf(json, sizeof json, "%.1000s/replay.json", cl_runs.tmp);
    snprintf(cmd, sizeof cmd, "%s/replay -c %s/traces/configs/seed.ini --set gpu.coherence=%s "
             "--set gpu.connection=%s -o %s %s", cl_runs.bin, cl_runs.root,
             coherent ? "coherent" : "noncoherent", l3 ? "l3" : "mc", json, trace);
    free(cl_output_of(cmd));
    char *text = si_test_read_file(json, NULL);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    assert_int_equal((uint64_t)json_number(doc, "gpu", "wavefront_instructions", NULL), wave_insts);
    /* The non-blocking reads and writes are asynchronous copies, which run
     * on the copy engine without a job of the host thread's; the thread's
     * next wait for one still running is a job (no copy): so the jobs are
     * the blocking copies plus at most one wait per asynchronous copy. */
    if (copies >= 0) {
        unsigned jobs = (unsigned)json_number(doc, "gpu", "copies", "jobs"), async = cl_async_copies(trace);
        assert_true(async <= (unsigned)copies);
        assert_in_range(jobs, (unsigned)copies - async, (unsigned)copies);
    }
    if (copy_bytes >= 0)
        assert_true(json_number(doc, "gpu", "copies", "bytes_copied") == copy_bytes);
    cJSON_Delete(doc);
    free(text);
}
