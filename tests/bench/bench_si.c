/* Southern Islands emulation and recording speed on the GPU-only workload
 * kernels (traces/kernels: hotspot, kmeans, backprop, lud, nw, bfs) with
 * built-in inputs.  The baseline is the same launches emulated without
 * recording, measured in the same run; the recorded trace's size per
 * wavefront instruction is the file size after finalize.
 * Last line: BENCH si wf_inst_per_s=... bytes_per_wf_inst=... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tracegen/si/si_emu.h"
#include "tracegen/si/si_record.h"
#include "cgm/trace.h"

enum { ARENA = 256 << 20 };
static const uint64_t BASE = 0x100000000ull;

struct bench {
    uint8_t *mem;
    uint64_t used;
    struct si_memory memory;
    struct cgm_writer *writer;        /* the trace, or NULL */
    int record;                       /* run the recorder (into writer, or encode only) */
    uint64_t encoded;                 /* record bytes before compression */
    uint32_t next_stream, launches;
    struct si_run_stats total;
    /* per program: image address and static table */
    struct prog {
        const char *name;
        struct si_program p;
        uint64_t code;
        struct cgm_si_static *table;
        size_t n;
    } progs[6];
};

static uint8_t *map(void *ctx, uint64_t addr, size_t len, int write)
{
    struct bench *b = ctx;
    (void)write;
    if (addr < BASE || addr - BASE > b->used || b->used - (addr - BASE) < len)
        return NULL;
    return b->mem + (addr - BASE);
}

static uint64_t alloc(struct bench *b, uint64_t bytes)
{
    uint64_t at = (b->used + 255) & ~255ull;
    if (at + bytes > ARENA) {
        fprintf(stderr, "bench_si: arena exhausted\n");
        exit(1);
    }
    b->used = at + bytes;
    memset(b->mem + at, 0, bytes);
    return BASE + at;
}

static void *host(struct bench *b, uint64_t g) { return b->mem + (g - BASE); }

static struct prog *program(struct bench *b, int i, const char *name)
{
    struct prog *p = &b->progs[i];
    if (p->name)
        return p;
    char path[1024], err[512];
    const char *build = getenv("CGM_BUILD");
    snprintf(path, sizeof path, "%s/kernels/%s.co", build ? build : "build", name);
    if (si_program_load(path, &p->p, err, sizeof err)) {
        fprintf(stderr, "bench_si: %s\n", err);
        exit(1);
    }
    p->name = name;
    p->code = alloc(b, p->p.image_size);
    memcpy(host(b, p->code), p->p.image, p->p.image_size);
    si_static_table(&p->p, &p->table, &p->n);
    if (b->writer)
        si_static_write(b->writer, b->next_stream++, (uint32_t)i, p->table, p->n);
    return p;
}

/* Explicit arguments as 8-byte slots (pointers and ints/floats in the low bytes). */
static void launch(struct bench *b, struct prog *p, const char *kernel, unsigned dims,
                   const uint32_t grid[3], const uint32_t group[3], const uint64_t *args,
                   int nargs, uint32_t dyn_lds)
{
    const struct si_kernel *k = si_program_kernel(&p->p, kernel);
    struct si_launch l;
    memset(&l, 0, sizeof l);
    l.program = &p->p;
    l.kernel = k;
    l.code_address = p->code;
    l.dims = dims;
    for (int d = 0; d < 3; d++) {
        l.grid[d] = grid[d];
        l.group[d] = group[d];
    }
    uint64_t mark = b->used;
    l.kernarg_address = alloc(b, k->kernarg_segment_size);
    uint8_t *ka = host(b, l.kernarg_address);
    int e = 0;
    for (size_t i = 0; i < k->nargs && e < nargs; i++)
        if (!k->args[i].is_hidden)
            memcpy(ka + k->args[i].offset, &args[e++], k->args[i].size);
    l.dynamic_lds = dyn_lds;
    l.packet_address = alloc(b, 64);
    si_fill_packet(&l, host(b, l.packet_address));
    uint64_t scratch = si_scratch_bytes(&l);
    l.scratch_address = alloc(b, scratch ? scratch : 4);
    struct si_recorder *r = NULL;
    if (b->record)
        r = si_recorder_create(b->writer, p->table, p->n, p->code, b->launches, b->next_stream);
    struct si_run_stats st;
    char err[512];
    if (si_run(&l, &b->memory, r ? si_recorder_observer(r) : NULL, &st, err, sizeof err)) {
        fprintf(stderr, "bench_si: %s\n", err);
        exit(1);
    }
    if (r) {
        b->next_stream += si_recorder_streams(r);
        b->encoded += si_recorder_encoded_bytes(r);
        if (si_recorder_finish(r, err, sizeof err)) {
            fprintf(stderr, "bench_si: %s\n", err);
            exit(1);
        }
    }
    b->launches++;
    b->total.wave_instructions += st.wave_instructions;
    b->total.lane_operations += st.lane_operations;
    b->used = mark;            /* kernarg, packet and scratch are per launch */
}

static uint32_t seed = 7;
static float frand(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (float)(seed >> 8) / 16777216.0f;
}

static uint64_t f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static void workloads(struct bench *b)
{
    /* hotspot: 256 x 256 cells, 6 steps */
    {
        struct prog *p = program(b, 0, "hotspot");
        enum { S = 256 };
        uint64_t pw = alloc(b, S * S * 4), t0 = alloc(b, S * S * 4), t1 = alloc(b, S * S * 4);
        float *hp = host(b, pw), *ht = host(b, t0);
        for (int i = 0; i < S * S; i++) { hp[i] = frand(); ht[i] = 320 + 10 * frand(); }
        for (int step = 0; step < 6; step++) {
            uint64_t in = step & 1 ? t1 : t0, out = step & 1 ? t0 : t1;
            uint64_t a[] = { pw, in, out, S, S, f32(0.5f), f32(1.5f), f32(1.25f), f32(30.0f),
                             f32(0.01f), f32(80.0f) };
            launch(b, p, "hotspot_step", 2, (uint32_t[3]){ S, S, 1 }, (uint32_t[3]){ 16, 16, 1 },
                   a, 11, 0);
        }
    }
    /* kmeans: 16384 points, 8 features, 5 clusters */
    {
        struct prog *p = program(b, 1, "kmeans");
        enum { NP = 16384, NF = 8, NC = 5 };
        uint64_t f = alloc(b, NP * NF * 4), ft = alloc(b, NP * NF * 4), cl = alloc(b, NC * NF * 4),
                 m = alloc(b, NP * 4);
        float *hf = host(b, f), *hc = host(b, cl);
        for (int i = 0; i < NP * NF; i++) hf[i] = frand();
        for (int i = 0; i < NC * NF; i++) hc[i] = frand();
        uint64_t sa[] = { f, ft, NP, NF };
        launch(b, p, "kmeans_swap", 1, (uint32_t[3]){ NP, 1, 1 }, (uint32_t[3]){ 256, 1, 1 }, sa, 4, 0);
        uint64_t aa[] = { ft, cl, m, NP, NC, NF };
        launch(b, p, "kmeans_assign", 1, (uint32_t[3]){ NP, 1, 1 }, (uint32_t[3]){ 256, 1, 1 }, aa, 6, 0);
    }
    /* backprop: 4096 inputs, 16 hidden units */
    {
        struct prog *p = program(b, 2, "backprop");
        enum { IN = 4096, HID = 16 };
        uint64_t x = alloc(b, (IN + 1) * 4), w = alloc(b, (IN + 1) * (HID + 1) * 4),
                 part = alloc(b, IN / 16 * HID * 4), delta = alloc(b, (HID + 1) * 4),
                 oldw = alloc(b, (IN + 1) * (HID + 1) * 4);
        float *hx = host(b, x), *hw = host(b, w), *hd = host(b, delta);
        for (int i = 0; i <= IN; i++) hx[i] = frand();
        for (int i = 0; i < (IN + 1) * (HID + 1); i++) hw[i] = frand() - 0.5f;
        for (int i = 0; i <= HID; i++) hd[i] = frand() - 0.5f;
        uint64_t fa[] = { x, w, part, 0, 64, HID };
        launch(b, p, "bp_layerforward", 2, (uint32_t[3]){ HID, IN, 1 }, (uint32_t[3]){ 16, 16, 1 },
               fa, 6, 64 + 1024);
        uint64_t aa[] = { delta, x, w, oldw, HID };
        launch(b, p, "bp_adjust_weights", 2, (uint32_t[3]){ HID, IN, 1 }, (uint32_t[3]){ 16, 16, 1 },
               aa, 5, 0);
    }
    /* lud: 128 x 128, every elimination step */
    {
        struct prog *p = program(b, 3, "lud");
        enum { N = 128 };
        uint64_t m = alloc(b, N * N * 4);
        float *hm = host(b, m);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                hm[i * N + j] = (i == j ? N : 0) + frand();
        for (int k = 0; k < N - 1; k++) {
            uint32_t rest = (uint32_t)(N - k - 1), g = (rest + 15) / 16 * 16;
            uint64_t a[] = { m, N, (uint64_t)k };
            launch(b, p, "lud_scale", 1, (uint32_t[3]){ (rest + 63) / 64 * 64, 1, 1 },
                   (uint32_t[3]){ 64, 1, 1 }, a, 3, 0);
            launch(b, p, "lud_update", 2, (uint32_t[3]){ g, g, 1 }, (uint32_t[3]){ 16, 16, 1 },
                   a, 3, 0);
        }
    }
    /* nw: 256 x 256 alignment, every anti-diagonal */
    {
        struct prog *p = program(b, 4, "nw");
        enum { N = 256 };
        uint64_t sc = alloc(b, (N + 1) * (N + 1) * 4), sim = alloc(b, (N + 1) * (N + 1) * 4);
        int32_t *hs = host(b, sc), *hm = host(b, sim);
        for (int i = 0; i <= N; i++) { hs[i] = -10 * i; hs[i * (N + 1)] = -10 * i; }
        for (int i = 0; i < (N + 1) * (N + 1); i++) hm[i] = (int32_t)(frand() * 20) - 10;
        for (int d = 2; d <= 2 * N; d++) {
            uint32_t len = (uint32_t)(d <= N ? d - 1 : 2 * N - d + 1);
            uint64_t a[] = { sc, sim, N, (uint64_t)d, 10 };
            launch(b, p, "nw_diagonal", 1, (uint32_t[3]){ (len + 63) / 64 * 64, 1, 1 },
                   (uint32_t[3]){ 64, 1, 1 }, a, 5, 0);
        }
    }
    /* bfs: 16384 nodes, 4 edges each, until the frontier is empty */
    {
        struct prog *p = program(b, 5, "bfs");
        enum { NN = 16384, DEG = 4 };
        uint64_t start = alloc(b, (NN + 1) * 4), edges = alloc(b, NN * DEG * 4),
                 fr = alloc(b, NN * 4), nx = alloc(b, NN * 4), vis = alloc(b, NN * 4),
                 cost = alloc(b, NN * 4), go = alloc(b, 4);
        int32_t *hs = host(b, start), *he = host(b, edges), *hf = host(b, fr), *hv = host(b, vis);
        for (int i = 0; i <= NN; i++) hs[i] = DEG * i;
        for (int i = 0; i < NN * DEG; i++) he[i] = (int32_t)(frand() * NN);
        hf[0] = hv[0] = 1;
        for (int level = 0; level < 64; level++) {
            *(int32_t *)host(b, go) = 0;
            uint64_t ea[] = { start, edges, fr, nx, vis, cost, NN };
            launch(b, p, "bfs_expand", 1, (uint32_t[3]){ NN, 1, 1 }, (uint32_t[3]){ 256, 1, 1 }, ea, 7, 0);
            uint64_t aa[] = { fr, nx, vis, go, NN };
            launch(b, p, "bfs_advance", 1, (uint32_t[3]){ NN, 1, 1 }, (uint32_t[3]){ 256, 1, 1 }, aa, 5, 0);
            if (!*(int32_t *)host(b, go))
                break;
        }
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double run(struct bench *b, int record, const char *trace)
{
    char err[512];
    memset(b->progs, 0, sizeof b->progs);
    b->used = 0;
    b->launches = 0;
    b->next_stream = 1;
    b->record = record;
    b->encoded = 0;
    memset(&b->total, 0, sizeof b->total);
    /* Work-group streams are short: small chunks keep per-stream buffers small. */
    struct cgm_writer_options opt = { 32768, 0 };
    b->writer = trace ? cgm_writer_create(trace, &opt, err, sizeof err) : NULL;
    if (trace && !b->writer) {
        fprintf(stderr, "bench_si: %s\n", err);
        exit(1);
    }
    seed = 7;                  /* the same inputs in both runs */
    double t0 = now();
    workloads(b);
    if (b->writer && cgm_writer_finalize(b->writer, err, sizeof err)) {
        fprintf(stderr, "bench_si: %s\n", err);
        exit(1);
    }
    double t = now() - t0;
    for (int i = 0; i < 6; i++) {
        if (b->progs[i].name) {
            si_program_free(&b->progs[i].p);
            free(b->progs[i].table);
        }
    }
    return t;
}

int main(void)
{
    static struct bench b;
    b.mem = malloc(ARENA);
    b.memory.ctx = &b;
    b.memory.map = map;
    char trace[] = "/tmp/cgm_bench_si_XXXXXX";
    int fd = mkstemp(trace);
    if (fd < 0 || !b.mem)
        return 1;
    close(fd);

    double t_plain = run(&b, 0, NULL);
    struct si_run_stats plain = b.total;
    double t_enc = run(&b, 1, NULL);
    uint64_t encoded = b.encoded;
    double t_rec = run(&b, 1, trace);
    struct stat sb;
    stat(trace, &sb);
    unlink(trace);
    if (plain.wave_instructions != b.total.wave_instructions) {
        fprintf(stderr, "bench_si: runs differ (%llu vs %llu instructions)\n",
                (unsigned long long)plain.wave_instructions,
                (unsigned long long)b.total.wave_instructions);
        return 1;
    }
    double wi = (double)b.total.wave_instructions;
    printf("launches                 %u\n", b.launches);
    printf("wavefront instructions   %.0f (%.1f active lanes each)\n", wi,
           (double)b.total.lane_operations / wi);
    printf("emulation only           %.3f s  %.2f M wf-inst/s  (baseline)\n", t_plain,
           wi / t_plain / 1e6);
    printf("emulation + encoding     %.3f s  %.2f M wf-inst/s  (%.2fx the baseline time; "
           "records not written)\n", t_enc, wi / t_enc / 1e6, t_enc / t_plain);
    printf("emulation + recording    %.3f s  %.2f M wf-inst/s  (%.2fx the baseline time)\n",
           t_rec, wi / t_rec / 1e6, t_rec / t_plain);
    printf("records before LZ4       %.3f bytes per wavefront instruction\n",
           (double)encoded / wi);
    printf("work-item operations/s   %.1f M while recording\n",
           (double)b.total.lane_operations / t_rec / 1e6);
    printf("trace                    %lld bytes, %.3f bytes per wavefront instruction\n",
           (long long)sb.st_size, (double)sb.st_size / wi);
    printf("BENCH si wf_inst_per_s=%.0f bytes_per_wf_inst=%.3f baseline_wf_inst_per_s=%.0f "
           "recording_overhead=%.2f\n", wi / t_rec, (double)sb.st_size / wi, wi / t_plain,
           t_rec / t_plain);
    free(b.mem);
    return 0;
}
