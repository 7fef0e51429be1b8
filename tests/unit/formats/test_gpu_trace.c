/* What the GPU driver records, read back as a consumer would: the host
 * thread's GPU events for traces/gpu/backprop.c (its buffers, grid and
 * __local sizes are known from its source), and work-group streams that
 * describe themselves -- the stream name is the static-table section its
 * records decode against, launch_id the gpu_launch event's launch field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/sirec.h"
#include "cgm/trace.h"

/* traces/gpu/backprop.c */
enum { IN = 256, HID = 16, B = 16, W = (IN + 1) * (HID + 1) };

static char trace[1100];

/* Records traces/gpu/COMMAND under tracegen with OPTIONS into PATH; returns
 * system()'s status. */
static int record(const char *path, const char *options, const char *command)
{
    const char *bin = getenv("CGM_BIN"), *build = getenv("CGM_BUILD");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/tracegen --env CGM_KERNELS=%s/kernels --quiet %s -o %s -- %s/traces/gpu/%s "
             ">/dev/null", bin ? bin : "bin", build ? build : "build", options, path, build ? build : "build",
             command);
    return system(cmd);
}

static struct cgm_reader *open_trace(const char *path)
{
    char err[512];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    return r;
}

/* Records into the trace's name plus SUFFIX (PATH, for removal) and opens it. */
static struct cgm_reader *record_and_open(char *path, size_t n, const char *suffix,
                                          const char *options, const char *command)
{
    snprintf(path, n, "%s%s", trace, suffix);
    assert_int_equal(record(path, options, command), 0);
    return open_trace(path);
}

static int setup(void **state)
{
    (void)state;
    snprintf(trace, sizeof trace, "/tmp/test_gpu_trace.%d.cgt", (int)getpid());
    return record(trace, "", "backprop") == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    remove(trace);
    return 0;
}

typedef void event_fn(void *ctx, const struct cgm_event *ev);

/* Calls FN with each GPU event of x86 thread stream S, in order. */
static void thread_gpu_events(struct cgm_reader *r, size_t s, event_fn *fn, void *ctx)
{
    struct cgm_riter *it = cgm_riter_open(r, s);
    const uint8_t *rec;
    size_t len;
    while (cgm_riter_next(it, &rec, &len) == 1) {
        struct cgm_event ev;
        if (rec[0] >= CGM_EV_GPU_LOAD && rec[0] <= CGM_EV_GPU_WAIT &&
            cgm_event_decode(rec, len, &ev) == 0)
            fn(ctx, &ev);
    }
    cgm_riter_close(it);
}

/* The same for every x86 thread stream, one after another. */
static void gpu_events(struct cgm_reader *r, event_fn *fn, void *ctx)
{
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++)
        if (cgm_reader_stream(r, s)->info.kind == CGM_STREAM_X86_THREAD)
            thread_gpu_events(r, s, fn, ctx);
}

struct gpu_events {
    struct cgm_event ev[64];
    int n;
};

static void keep_first_64(void *ctx, const struct cgm_event *ev)
{
    struct gpu_events *g = ctx;
    if (g->n < 64)
        g->ev[g->n++] = *ev;
}

/* The GPU events of the host thread, in order (the first 64). */
static void host_events(struct cgm_reader *r, struct gpu_events *g)
{
    g->n = 0;
    gpu_events(r, keep_first_64, g);
}

static void test_host_events(void **state)
{
    (void)state;
    struct cgm_reader *r = open_trace(trace);
    struct gpu_events g;
    host_events(r, &g);
    /* load, 5 allocations, 2 launches (+mem), 2 done, wait */
    assert_int_equal(g.n, 1 + 5 + 4 + 2 + 1);
    assert_int_equal(g.ev[0].type, CGM_EV_GPU_LOAD);
    assert_int_equal(g.ev[0].f[0], 1);
    const uint64_t sizes[5] = { (IN + 1) * 4, W * 4, W * 4, IN / B * HID * 4, (HID + 1) * 4 };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(g.ev[1 + i].type, CGM_EV_GPU_ALLOC);
        assert_int_equal(g.ev[1 + i].f[1], sizes[i]);
        assert_int_equal(g.ev[1 + i].f[0] % 4096, 0);
    }
    for (int l = 0; l < 2; l++) {
        const struct cgm_event *e = &g.ev[6 + 2 * l], *m = &g.ev[7 + 2 * l];
        assert_int_equal(e->type, CGM_EV_GPU_LAUNCH);
        assert_int_equal(e->f[0], l + 1);          /* launch id */
        assert_int_equal(e->f[1], l + 1);          /* kernel handle */
        assert_int_equal(e->f[2], 2);
        assert_int_equal(e->f[3], HID);
        assert_int_equal(e->f[4], IN);
        assert_int_equal(e->f[5], 1);
        assert_int_equal(e->f[6], B);
        assert_int_equal(e->f[7], B);
        assert_int_equal(e->f[8], 1);
        /* layerforward asks for B + B*B floats of __local memory */
        if (l == 0)
            assert_true(e->f[9] >= (B + B * B) * 4);
        assert_int_equal(m->type, CGM_EV_GPU_LAUNCH_MEM);
        assert_int_equal(m->f[0], l + 1);
        assert_true(m->f[2] >= 5 * 8);              /* at least the explicit arguments */
    }
    assert_int_equal(g.ev[10].type, CGM_EV_GPU_DONE);
    assert_int_equal(g.ev[10].f[0], 1);
    assert_int_equal(g.ev[11].type, CGM_EV_GPU_DONE);
    assert_int_equal(g.ev[11].f[0], 2);
    assert_int_equal(g.ev[12].type, CGM_EV_GPU_WAIT);
    cgm_reader_close(r);
}

static int in_some_buffer(const struct gpu_events *g, uint64_t addr, unsigned size)
{
    for (int i = 0; i < g->n; i++)
        if (g->ev[i].type == CGM_EV_GPU_ALLOC && addr >= g->ev[i].f[0] &&
            addr + size <= g->ev[i].f[0] + g->ev[i].f[1])
            return 1;
    return 0;
}

static void test_workgroup_streams_describe_themselves(void **state)
{
    (void)state;
    struct cgm_reader *r = open_trace(trace);
    struct gpu_events g;
    host_events(r, &g);
    int groups[3] = { 0 }, seen[2][IN / B] = { { 0 } };
    static struct cgm_si_dyn insts[CGM_SI_RUN_MAX];
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        const struct cgm_reader_stream *rs = cgm_reader_stream(r, s);
        if (rs->info.kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        /* launch_id names a launch event */
        uint32_t launch = rs->info.launch_id;
        assert_true(launch == 1 || launch == 2);
        groups[launch]++;
        assert_int_equal(rs->info.group[0], 0);
        assert_true(rs->info.group[1] < IN / B);
        assert_int_equal(rs->info.group[2], 0);
        seen[launch - 1][rs->info.group[1]]++;
        /* the name is a section holding the static table */
        assert_string_equal(rs->info.name, CGM_SI_STATIC_PREFIX "1");
        char err[512];
        uint8_t *sec;
        size_t len;
        assert_int_equal(cgm_reader_read_section(r, rs->info.name, 1 << 24, &sec, &len, err,
                                                 sizeof err), 0);
        struct cgm_si_static table[2048];
        size_t n = 0;
        uint32_t prev = 0;
        for (const uint8_t *p = sec; p < sec + len; n++) {
            assert_true(n < 2048);
            assert_int_equal(cgm_si_static_decode(&p, sec + len, &prev, &table[n]), 0);
        }
        free(sec);
        /* every record decodes against it; VMEM lanes fall in the buffers */
        struct cgm_si_codec codec;
        assert_int_equal(cgm_si_codec_init(&codec, table, n), 0);
        struct cgm_riter *it = cgm_riter_open(r, s);
        const uint8_t *rec;
        size_t rlen;
        uint64_t count = 0;
        int ends = 0;
        while (cgm_riter_next(it, &rec, &rlen) == 1) {
            uint8_t type;
            unsigned wave, k;
            assert_int_equal(cgm_si_record_decode(&codec, rec, rlen, &type, &wave, insts, &k), 0);
            if (type != CGM_SI_REC_WAVE)
                continue;
            count += k;
            for (unsigned i = 0; i < k; i++) {
                long e = cgm_si_static_find(&codec, insts[i].offset);
                assert_true(e >= 0);
                ends += table[e].unit == CGM_SI_END;
                if (table[e].unit == CGM_SI_VMEM && table[e].access != CGM_SI_NONE)
                    for (uint64_t m = insts[i].exec; m; m &= m - 1)
                        assert_true(in_some_buffer(&g, insts[i].addr[__builtin_ctzll(m)],
                                                   table[e].access_size));
                if (table[e].unit == CGM_SI_LDS && table[e].access != CGM_SI_NONE)
                    for (uint64_t m = insts[i].exec; m; m &= m - 1)
                        assert_true(insts[i].addr[__builtin_ctzll(m)] < 65536);
            }
        }
        cgm_riter_close(it);
        cgm_si_codec_free(&codec);
        assert_int_equal(count, rs->totals.instructions);
        assert_int_equal(ends, B * B / 64);   /* every wavefront of the group reached s_endpgm */
    }
    /* one stream per work-group of each launch: (HID/B) x (IN/B) */
    assert_int_equal(groups[1], IN / B);
    assert_int_equal(groups[2], IN / B);
    for (int l = 0; l < 2; l++)
        for (int y = 0; y < IN / B; y++)
            assert_int_equal(seen[l][y], 1);
    cgm_reader_close(r);
}

/* traces/gpu/hotspot.c: 4 steps on a 64 x 64 grid in 16 x 16 groups, the
 * first outside the region of interest. */
static void test_roi_only_records_groups_inside_the_roi(void **state)
{
    (void)state;
    char path[1200];
    struct cgm_reader *r = record_and_open(path, sizeof path, ".roi", "--roi-only", "hotspot");
    struct gpu_events g;
    host_events(r, &g);
    int launches = 0, per_launch[5] = { 0 };
    for (int i = 0; i < g.n; i++)
        launches += g.ev[i].type == CGM_EV_GPU_LAUNCH;
    assert_int_equal(launches, 4);               /* events are kept outside the ROI */
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        const struct cgm_reader_stream *rs = cgm_reader_stream(r, s);
        if (rs->info.kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        assert_true(rs->info.launch_id >= 1 && rs->info.launch_id <= 4);
        per_launch[rs->info.launch_id]++;
    }
    assert_int_equal(per_launch[1], 0);
    for (int l = 2; l <= 4; l++)
        assert_int_equal(per_launch[l], (64 / 16) * (64 / 16));
    cgm_reader_close(r);
    remove(path);
}

/* The last three GPU events, how many there were and how many launches. */
struct tail {
    struct cgm_event last[3];
    int n, launches;
};

static void keep_last_3(void *ctx, const struct cgm_event *ev)
{
    struct tail *t = ctx;
    t->launches += ev->type == CGM_EV_GPU_LAUNCH;
    t->last[0] = t->last[1];
    t->last[1] = t->last[2];
    t->last[2] = *ev;
    t->n++;
}

/* traces/gpu/lud.c: a 48 x 48 float matrix copied to its one GPU buffer and
 * back; 47 elimination steps of two launches each before one wait. */
static void test_copies_are_recorded(void **state)
{
    (void)state;
    char path[1200];
    struct cgm_reader *r = record_and_open(path, sizeof path, ".lud", "", "lud");
    struct gpu_events g;
    host_events(r, &g);   /* keeps the first 64 GPU events */
    const uint64_t bytes = 48 * 48 * 4;
    assert_int_equal(g.ev[0].type, CGM_EV_GPU_LOAD);
    assert_int_equal(g.ev[1].type, CGM_EV_GPU_ALLOC);
    assert_int_equal(g.ev[1].f[1], bytes);
    uint64_t buffer = g.ev[1].f[0];
    assert_int_equal(g.ev[2].type, CGM_EV_GPU_COPY);   /* host -> GPU */
    assert_int_equal(g.ev[2].f[0], buffer);
    assert_true(g.ev[2].f[1] != buffer);
    assert_int_equal(g.ev[2].f[2], bytes);
    cgm_reader_close(r);
    /* the copy back comes after the wait, last of all */
    r = open_trace(path);
    struct tail t = { .n = 0 };
    gpu_events(r, keep_last_3, &t);
    assert_int_equal(t.launches, 2 * 47);
    assert_true(t.n >= 3);
    assert_int_equal(t.last[0].type, CGM_EV_GPU_DONE);
    assert_int_equal(t.last[0].f[0], 2 * 47);
    assert_int_equal(t.last[1].type, CGM_EV_GPU_WAIT);
    assert_int_equal(t.last[2].type, CGM_EV_GPU_COPY);    /* GPU -> host */
    assert_int_equal(t.last[2].f[1], buffer);
    assert_int_equal(t.last[2].f[2], bytes);
    cgm_reader_close(r);
    remove(path);
}

/* One thread's launches and waits; per launch id, launches and gpu_done
 * events over all threads. */
struct calls {
    int launches, waits, launched[4], done[4];
};

static void count_calls(void *ctx, const struct cgm_event *ev)
{
    struct calls *c = ctx;
    if (ev->type == CGM_EV_GPU_LAUNCH) {
        c->launches++;
        assert_true(ev->f[0] >= 1 && ev->f[0] <= 3);
        c->launched[ev->f[0]]++;
    } else if (ev->type == CGM_EV_GPU_DONE) {
        assert_true(ev->f[0] >= 1 && ev->f[0] <= 3);
        c->done[ev->f[0]]++;
    } else if (ev->type == CGM_EV_GPU_WAIT) {
        c->waits++;
    }
}

/* traces/gpu/threads_launch.c with 3 threads: each launches once and waits.
 * A thread's launch and wait are in its own stream; each launch gets one
 * gpu_done, in the stream of whichever wait came first after it (streams
 * are read one after another here, so their order is not checked). */
static void test_each_thread_records_its_calls(void **state)
{
    (void)state;
    char path[1200];
    struct cgm_reader *r = record_and_open(path, sizeof path, ".thr", "", "threads_launch 3");
    int threads_with_launch = 0;
    struct calls c = { 0 };
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        if (cgm_reader_stream(r, s)->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        c.launches = c.waits = 0;
        thread_gpu_events(r, s, count_calls, &c);
        if (!c.launches)
            continue;
        threads_with_launch++;
        assert_int_equal(c.launches, 1);
        assert_int_equal(c.waits, 1);
    }
    assert_int_equal(threads_with_launch, 3);
    for (int l = 1; l <= 3; l++) {
        assert_int_equal(c.launched[l], 1);
        assert_int_equal(c.done[l], 1);
    }
    cgm_reader_close(r);
    remove(path);
}

/* The driver's gpu_map events with the GPU calls around them, in order
 * (the first 64; the system calls between them are left out). */
static void all_host_events(struct cgm_reader *r, struct gpu_events *g)
{
    g->n = 0;
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        if (cgm_reader_stream(r, s)->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        struct cgm_riter *it = cgm_riter_open(r, s);
        const uint8_t *rec;
        size_t len;
        struct cgm_event ev;
        while (cgm_riter_next(it, &rec, &len) == 1)
            if (rec[0] >= CGM_EV_GPU_LOAD && rec[0] <= CGM_EV_GPU_MAP &&
                cgm_event_decode(rec, len, &ev) == 0)
                keep_first_64(g, &ev);
        cgm_riter_close(it);
    }
}

/* NAME's .vgpr_count or .sgpr_count in LLVM's own listing of backprop.cl
 * (build/kernels/backprop.s: the kernel metadata). */
static unsigned llvm_count(const char *name, const char *what)
{
    const char *build = getenv("CGM_BUILD");
    char path[1200], line[256];
    snprintf(path, sizeof path, "%s/kernels/backprop.s", build ? build : "build");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int in = 0;
    unsigned v = 0;
    while (fgets(line, sizeof line, f)) {
        char *n = strstr(line, ".name:");
        if (n)
            in = strstr(n, name) != NULL;
        char *w = strstr(line, what);
        if (in && w && !v)
            v = (unsigned)atoi(w + strlen(what));
    }
    fclose(f);
    assert_true(v > 0);
    return v;
}

/* The driver's own memory (the code object, each launch's kernel arguments,
 * packet and private memory) comes as gpu_map events, and each kernel's
 * description (name, registers, LDS) as a section per kernel handle; the
 * registers are LLVM's counts rounded up to SI's granules (4 VGPRs, 8
 * SGPRs). */
static void test_driver_memory_and_kernel_descriptions(void **state)
{
    (void)state;
    struct cgm_reader *r = open_trace(trace);
    struct gpu_events g;
    all_host_events(r, &g);
    int maps = 0, launches = 0;
    for (int i = 0; i < g.n; i++) {
        const struct cgm_event *e = &g.ev[i];
        if (e->type == CGM_EV_GPU_LOAD) {
            assert_int_equal(g.ev[i - 1].type, CGM_EV_GPU_MAP);
            assert_int_equal(g.ev[i - 1].f[CGM_EVF_GPU_MAP_WHAT], CGM_GPU_MAP_CODE);
            assert_true(g.ev[i - 1].f[CGM_EVF_GPU_MAP_BYTES] >= e->f[CGM_EVF_GPU_LOAD_CODE_BYTES]);
        }
        if (e->type == CGM_EV_GPU_LAUNCH) {
            const struct cgm_event *m = &g.ev[i - 1], *mem = &g.ev[i + 1];
            assert_int_equal(m->type, CGM_EV_GPU_MAP);
            assert_int_equal(m->f[CGM_EVF_GPU_MAP_WHAT], CGM_GPU_MAP_LAUNCH);
            assert_int_equal(m->f[CGM_EVF_GPU_MAP_LAUNCH], e->f[CGM_EVF_GPU_LAUNCH_LAUNCH]);
            assert_true(m->f[CGM_EVF_GPU_MAP_BYTES] >= mem->f[CGM_EVF_GPU_LAUNCH_MEM_ARGS_BYTES] + 64);
            assert_int_equal(m->f[CGM_EVF_GPU_MAP_ADDR] % 4096, 0);
            launches++;
        }
        maps += e->type == CGM_EV_GPU_MAP;
    }
    assert_int_equal(launches, 2);
    assert_int_equal(maps, 1 + launches);
    static const char *const names[] = { "bp_layerforward", "bp_adjust_weights" };
    for (unsigned k = 1; k <= 2; k++) {
        char section[64], err[256];
        uint8_t *data;
        size_t len;
        snprintf(section, sizeof section, CGM_SI_KERNEL_PREFIX "%u", k);
        assert_int_equal(cgm_reader_read_section(r, section, 4096, &data, &len, err, sizeof err), 0);
        struct cgm_si_kernel_info info;
        assert_int_equal(cgm_si_kernel_info_decode(data, len, &info), 0);
        free(data);
        assert_string_equal(info.name, names[k - 1]);
        assert_int_equal(info.kernel, k);
        assert_int_equal(info.program, 1);
        assert_int_equal(info.vgprs, (llvm_count(names[k - 1], ".vgpr_count:") + 3) / 4 * 4);
        assert_int_equal(info.sgprs, (llvm_count(names[k - 1], ".sgpr_count:") + 7) / 8 * 8);
        assert_int_equal(info.lds_bytes, 0); /* its LDS comes from __local arguments */
    }
    cgm_reader_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_memory_and_kernel_descriptions),
        cmocka_unit_test(test_host_events),
        cmocka_unit_test(test_workgroup_streams_describe_themselves),
        cmocka_unit_test(test_roi_only_records_groups_inside_the_roi),
        cmocka_unit_test(test_copies_are_recorded),
        cmocka_unit_test(test_each_thread_records_its_calls),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
