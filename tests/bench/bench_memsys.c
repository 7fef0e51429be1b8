/*
 * Memory-system benchmark: requests completed per second of host time
 * through the full default hierarchy (L1 and L2 controllers, ring, L3 slices with
 * the directory, system agent, memory controller, DRAM; every element a
 * KnightSim context) under a synthetic load from every core.
 *
 * Load per core, eight requests in flight: 90% to a private 16 KB region
 * (L1 hits), 8% to a private 512 KB region (L2 and L3 hits, DRAM), 2% to a
 * shared 64 KB region (coherence); 30% stores. Each core issues at most as
 * many requests per cycle as the L1 has ports, as replay's issue stage does
 * with its memory ports (until 2026-11-22 the driver filled the L1's request
 * queue up to the in-flight limit every cycle, a burst replay never makes).
 *
 * The address streams are generated before the timing starts.
 *
 * Baseline, same run and same address streams: the MESI handlers alone with
 * messages delivered at once (no timing, no network, no contexts), which
 * bounds what the timed system can reach.
 *
 * Mixed mode, the same four cores beside a GPU of 8 compute units in the
 * C-L3 organisation (the full GPU hierarchy: vector L1s, L2 banks, hub,
 * the L3 directory tracking the GPU): each CU keeps 16 requests in flight,
 * issuing at most one per GPU cycle: 60% loads streaming through 64-byte
 * blocks of a private 2 MB region, 10% stores to it, 30% loads gathered
 * from a shared 1 MB region.
 *
 * Host instructions per completed request, CPU-only and mixed: counted by
 * cachegrind on two short runs of this program (different request counts,
 * the same setup), the difference divided by the difference in requests,
 * so setup and stream generation cancel out. Deterministic, unlike the
 * requests per second.
 *
 * The two loads' requests are not alike: a core's request is an L1 hit nine
 * times in ten and reaches DRAM about one time in twelve, while nearly every
 * CU request misses its L1 and the GPU L2 (a new block, or a gather over
 * more than the L2 holds) and most reach DRAM. So the same count is also
 * made for two loads whose requests are: the GPU alone (the mixed system,
 * the cores issuing nothing), per GPU request, and the CPU alone with every
 * request a load of a block no cache holds (each core streaming through
 * 8 MB of its own, loads only), per CPU request; the run checks that each
 * of those requests did reach DRAM.
 *
 * The timed run and the baseline each run CGM_MEMSYS_BENCH_RUNS times and
 * the fastest run counts (the host's speed varies with the load of the
 * machines that share it); the timed runs' median is printed too, and every
 * timed run must simulate exactly what the first one did.
 *   CGM_MEMSYS_BENCH_REQUESTS  requests per core (default 1000000)
 *   CGM_MEMSYS_BENCH_RUNS      repetitions (default 3)
 *   CGM_MEMSYS_BENCH_BASELINE  0 skips the baseline (for profiling the timed run)
 *   CGM_MEMSYS_BENCH_INSTR     0 skips the instruction counts
 *   CGM_MEMSYS_BENCH_ONE       cpu, mixed, gpu or cpu_dram: one timed run only (what
 *                              cachegrind runs)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgm/coh.h"
#include "cgm/memsys.h"
#include "bench_cachegrind.h"

#define INFLIGHT 8
#define CUS 8
#define GPU_INFLIGHT 16
#define MAX_RUNS 100
#define MAX_PER_CORE (1ull << 27) /* 512 MB of load per core */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next_addr(uint64_t *rng, int core, uint8_t *op)
{
    uint64_t s = *rng;
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    *rng = s;
    unsigned pick = (unsigned)(s % 100);
    uint64_t base = (uint64_t)(core + 1) << 22; /* 4 MB apart */
    uint64_t a;
    if (pick < 90)
        a = base + (s >> 8) % (16 << 10);
    else if (pick < 98)
        a = base + (1 << 20) + (s >> 8) % (512 << 10);
    else
        a = (s >> 8) % (64 << 10);
    *op = (s >> 40) % 10 < 3 ? CGM_OP_STORE : CGM_OP_LOAD;
    return a & ~7ull;
}

/* The load is generated before any clock starts, so the timed part measures
 * the memory system and not the generator (some 45 host instructions per
 * request, 4% of a timed one). A word per request: the address (below 2^25,
 * a multiple of 8) with bit 0 set for a store. */
#define STORE_BIT 1u
static uint32_t *streams[64];

static uint32_t *make_stream(int core, uint64_t n)
{
    uint32_t *s = malloc(n * sizeof *s);
    if (!s)
        return NULL;
    uint64_t rng = 0x1234567ull * (uint64_t)(core + 1);
    for (uint64_t i = 0; i < n; i++) {
        uint8_t op;
        uint64_t a = next_addr(&rng, core, &op);
        s[i] = (uint32_t)a | (op == CGM_OP_STORE ? STORE_BIT : 0);
    }
    return s;
}

/* A CU's load: block after block of its own 2 MB region (every tenth
 * access a store), or a gather from the shared 1 MB region; words as for
 * the cores. */
static uint32_t *gpu_streams[CUS];

static uint32_t *make_gpu_stream(int cu, uint64_t n)
{
    uint32_t *s = malloc(n * sizeof *s);
    if (!s)
        return NULL;
    uint64_t rng = 0x7654321ull * (uint64_t)(cu + 1), next = 0;
    uint64_t base = (64ull << 20) + ((uint64_t)cu << 21);
    for (uint64_t i = 0; i < n; i++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        unsigned pick = (unsigned)(rng % 100);
        if (pick < 70) {
            s[i] = (uint32_t)(base + next % (2u << 20)) | (pick < 10 ? STORE_BIT : 0);
            next += 64;
        } else {
            s[i] = (uint32_t)((32ull << 20) + ((rng >> 8) % (1u << 20) & ~3ull));
        }
    }
    return s;
}

/* A core's load that goes to DRAM every time: loads of consecutive blocks
 * of its own 8 MB, which it touches once each until it wraps round (the L3
 * holds 8 MB for all four cores). */
#define DRAM_STREAM_BASE (128ull << 20)
static uint32_t *make_dram_stream(int core, uint64_t n)
{
    uint32_t *s = malloc(n * sizeof *s);
    if (!s)
        return NULL;
    uint64_t base = DRAM_STREAM_BASE + ((uint64_t)core << 23);
    for (uint64_t i = 0; i < n; i++)
        s[i] = (uint32_t)(base + (i << 6) % (8u << 20));
    return s;
}

static void free_streams(unsigned cores)
{
    for (unsigned i = 0; i < cores; i++)
        free(streams[i]);
    for (unsigned i = 0; i < CUS; i++)
        free(gpu_streams[i]);
}

static uint8_t op_of(uint32_t w) { return w & STORE_BIT ? CGM_OP_STORE : CGM_OP_LOAD; }
static uint64_t addr_of(uint32_t w) { return w & ~STORE_BIT; }

/* ---- the timed system ---------------------------------------------------- */
struct driver {
    struct cgm_memsys *ms;
    int core;
    const uint32_t *stream;
    uint64_t n, issued, done;
    ks_eventcount ec; /* advanced per completion */
};

static struct driver drivers[64];

static void on_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                    uint64_t cycle)
{
    (void)ctx;
    (void)tag;
    (void)op;
    (void)addr;
    (void)value;
    (void)cycle;
    drivers[core].done++;
    ks_advance(&drivers[core].ec);
}

static void driver_main(void *arg)
{
    struct driver *d = arg;
    const unsigned ports = cgm_memsys_config_of(d->ms)->ports;
    while (d->issued < d->n) {
        for (unsigned k = 0; k < ports && d->issued < d->n && d->issued - d->done < INFLIGHT; k++) {
            uint32_t w = d->stream[d->issued];
            if (!cgm_memsys_access(d->ms, d->core, op_of(w), addr_of(w), d->issued, d->issued))
                break;
            d->issued++;
        }
        if (d->issued - d->done >= INFLIGHT)
            ks_await(&d->ec, ks_ec_count(&d->ec) + 1); /* the window is full */
        else
            ks_pause(1);
    }
}

/* The compute units, one context each in the GPU domain. */
struct gpu_driver {
    struct cgm_gpu_mem_port port;
    uint16_t cu;
    const uint32_t *stream;
    uint64_t n, issued, done;
    ks_eventcount ec;
};

static struct gpu_driver gpu_drivers[CUS];

static void on_gpu_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    (void)ctx;
    (void)value;
    (void)gpu_cycle;
    gpu_drivers[r->cu].done++;
    ks_advance(&gpu_drivers[r->cu].ec);
}

static void gpu_driver_main(void *arg)
{
    struct gpu_driver *d = arg;
    while (d->issued < d->n) {
        if (d->issued - d->done < GPU_INFLIGHT) {
            uint32_t w = d->stream[d->issued];
            struct cgm_gpu_request q = { .vaddr = addr_of(w), .tag = d->issued, .value = d->issued, .cu = d->cu,
                                         .bytes = 4, .op = w & STORE_BIT ? CGM_GPU_STORE : CGM_GPU_LOAD };
            if (d->port.access(d->port.ctx, &q))
                d->issued++;
        }
        if (d->issued - d->done >= GPU_INFLIGHT)
            ks_await(&d->ec, ks_ec_count(&d->ec) + 1);
        else
            ks_pause(1);
    }
}

/* ---- the baseline: handlers with immediate delivery --------------------- */
struct qmsg {
    int kind; /* 0 message, 1 wake */
    struct cgm_coh_msg m;
    int node, what;
    uint64_t block;
};

struct instant {
    struct cgm_coh_sys *sys;
    struct qmsg *q;
    size_t head, n, cap;
    uint64_t done[64];
};

static void iq_push(struct instant *w, const struct qmsg *x)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 4096;
        struct qmsg *q = malloc(cap * sizeof *q);
        if (!q)
            abort();
        for (size_t i = 0; i < w->n; i++)
            q[i] = w->q[(w->head + i) % w->cap];
        free(w->q);
        w->q = q;
        w->head = 0;
        w->cap = cap;
    }
    w->q[(w->head + w->n++) % w->cap] = *x;
}

static void i_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct qmsg x = { .kind = 0, .m = *m };
    iq_push(ctx, &x);
}

static void i_later(void *ctx, int node, uint64_t block, int what)
{
    struct qmsg x = { .kind = 1, .node = node, .block = block, .what = what };
    iq_push(ctx, &x);
}

static void i_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t block, uint64_t value,
                   unsigned level)
{
    (void)level;
    (void)tag;
    (void)op;
    (void)block;
    (void)value;
    ((struct instant *)ctx)->done[core]++;
}

static double run_baseline(const struct cgm_memsys_config *mc, uint64_t per_core, uint64_t *completed)
{
    struct instant *w = calloc(1, sizeof *w);
    struct cgm_coh_config c = mc->coh;
    c.cores = mc->cores;
    c.slices = mc->slices;
    c.blocks = mc->mem_bytes / 64;
    struct cgm_coh_env env = { .ctx = w, .send = i_send, .later = i_later, .done = i_done };
    char err[256] = "";
    w->sys = cgm_coh_create(&c, &env, err, sizeof err);
    if (!w->sys) {
        fprintf(stderr, "bench-memsys: %s\n", err);
        exit(1);
    }
    uint64_t issued[64] = { 0 };
    double t0 = now_s();
    bool more = true;
    while (more) {
        more = false;
        for (unsigned i = 0; i < mc->cores; i++) {
            if (issued[i] >= per_core)
                continue;
            more = true;
            if (issued[i] - w->done[i] >= INFLIGHT)
                continue;
            uint32_t x = streams[i][issued[i]];
            struct cgm_coh_req r = { .block = addr_of(x) / 64, .tag = issued[i], .value = issued[i], .op = op_of(x) };
            if (cgm_coh_access(w->sys, (int)i, &r) >= 0)
                issued[i]++;
        }
        /* Deliver a slice of the queue between issue rounds. */
        for (int k = 0; k < 64 && w->n; k++) {
            struct qmsg x = w->q[w->head];
            w->head = (w->head + 1) % w->cap;
            w->n--;
            if (x.kind == 0)
                cgm_coh_deliver(w->sys, &x.m);
            else
                cgm_coh_wake(w->sys, x.node, x.block, x.what);
        }
        if (!more) {
            while (w->n) {
                struct qmsg x = w->q[w->head];
                w->head = (w->head + 1) % w->cap;
                w->n--;
                if (x.kind == 0)
                    cgm_coh_deliver(w->sys, &x.m);
                else
                    cgm_coh_wake(w->sys, x.node, x.block, x.what);
            }
        }
    }
    double t = now_s() - t0;
    *completed = 0;
    for (unsigned i = 0; i < mc->cores; i++)
        *completed += w->done[i];
    cgm_coh_destroy(w->sys);
    free(w->q);
    free(w);
    return t;
}

/* What one timed run measured: its host time, and the simulated figures
 * that every repetition must reproduce exactly. */
struct timed_result {
    double seconds;
    uint64_t completed, cycles, resumes, hits, accesses, latency_sum, mem_reads, mem_writes;
    uint64_t gpu_completed;
};

static bool same_simulation(const struct timed_result *a, const struct timed_result *b)
{
    return a->completed == b->completed && a->cycles == b->cycles && a->resumes == b->resumes &&
           a->hits == b->hits && a->accesses == b->accesses && a->latency_sum == b->latency_sum &&
           a->mem_reads == b->mem_reads && a->mem_writes == b->mem_writes && a->gpu_completed == b->gpu_completed;
}

/* One timed run: cpu_per_core requests per core and, with compute units in
 * cfg, per_core per CU. */
static int run_timed(const struct cgm_memsys_config *cfg, uint64_t cpu_per_core, uint64_t per_core,
                     struct timed_result *r)
{
    ks_engine *eng = ks_engine_create(NULL);
    char err[256];
    struct cgm_memsys_domains dom;
    struct cgm_memsys *ms = eng && !cgm_memsys_default_domains(eng, &cfg->dram, &dom, err, sizeof err)
                                ? cgm_memsys_create(eng, &dom, cfg, on_done, NULL, err, sizeof err)
                                : NULL;
    if (!ms) {
        fprintf(stderr, "bench-memsys: %s\n", eng ? err : "cannot create the engine");
        if (eng)
            ks_engine_destroy(eng);
        return -1;
    }
    for (unsigned i = 0; i < cfg->cores; i++) {
        drivers[i] = (struct driver){ .ms = ms, .core = (int)i, .stream = streams[i], .n = cpu_per_core };
        ks_ec_init(&drivers[i].ec, "driver", 0);
        ks_context_opts o = { .name = "driver", .domain = cgm_memsys_cpu_domain(ms) };
        ks_context_create_opts(eng, driver_main, &drivers[i], &o);
    }
    unsigned cus = cfg->coh.gpu.cus;
    for (unsigned i = 0; i < cus; i++) {
        gpu_drivers[i] = (struct gpu_driver){ .port = cgm_memsys_gpu_port(ms, NULL, on_gpu_done, NULL),
                                              .cu = (uint16_t)i, .stream = gpu_streams[i], .n = per_core };
        ks_ec_init(&gpu_drivers[i].ec, "gpu-driver", 0);
        ks_context_opts o = { .name = "gpu-driver", .domain = dom.gpu };
        ks_context_create_opts(eng, gpu_driver_main, &gpu_drivers[i], &o);
    }
    double t0 = now_s();
    ks_stop stop = ks_run(eng);
    *r = (struct timed_result){ .seconds = now_s() - t0 };
    const struct cgm_memsys_stats *st = cgm_memsys_stats(ms);
    int rc = 0;
    if (stop != KS_STOP_IDLE || st->completed != cpu_per_core * cfg->cores) {
        fprintf(stderr, "bench-memsys: run stopped with %llu of %llu requests done\n",
                (unsigned long long)st->completed, (unsigned long long)(cpu_per_core * cfg->cores));
        rc = -1;
    }
    ks_stats ks;
    ks_engine_stats(eng, &ks);
    for (unsigned i = 0; i < cus; i++)
        r->gpu_completed += gpu_drivers[i].done;
    if (r->gpu_completed != per_core * cus) {
        fprintf(stderr, "bench-memsys: %llu of %llu GPU requests done\n", (unsigned long long)r->gpu_completed,
                (unsigned long long)(per_core * cus));
        rc = -1;
    }
    r->completed = st->completed;
    r->cycles = ks_domain_cycle(cgm_memsys_cpu_domain(ms));
    r->resumes = ks.resumes;
    r->latency_sum = st->latency_sum;
    r->mem_reads = st->mem_reads;
    r->mem_writes = st->mem_writes;
    for (unsigned i = 0; i < cfg->cores; i++) {
        r->hits += cgm_coh_core_stats(cgm_memsys_coh(ms), (int)i)->hits;
        r->accesses += cgm_coh_core_stats(cgm_memsys_coh(ms), (int)i)->accesses;
    }
    cgm_memsys_stop(ms);
    cgm_memsys_destroy(ms);
    ks_engine_destroy(eng);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t env_count(const char *name, uint64_t dflt, uint64_t max)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return dflt;
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    if (*end || !v || v > max) {
        fprintf(stderr, "bench-memsys: %s=%s: expected a whole number from 1 to %llu\n", name, e,
                (unsigned long long)max);
        exit(2);
    }
    return v;
}

/* Runs the timed system `runs` times (every run must simulate what the
 * first did); the first run's figures in first, the best and the median
 * requests per second of host time. */
static int timed_runs(const char *label, const struct cgm_memsys_config *cfg, uint64_t per_core, unsigned runs,
                      struct timed_result *first, double *best, double *median)
{
    static struct timed_result res[MAX_RUNS];
    double secs[MAX_RUNS];
    for (unsigned k = 0; k < runs; k++) {
        if (run_timed(cfg, per_core, per_core, &res[k]))
            return -1;
        if (!same_simulation(&res[0], &res[k])) {
            fprintf(stderr, "bench-memsys: %s run %u simulated something other than run 1 "
                    "(%llu cycles, %llu resumptions; run 1: %llu, %llu)\n", label, k + 1,
                    (unsigned long long)res[k].cycles, (unsigned long long)res[k].resumes,
                    (unsigned long long)res[0].cycles, (unsigned long long)res[0].resumes);
            return -1;
        }
        secs[k] = res[k].seconds;
        printf("%s, run %u of %u: %.2f s of CPU time, %.0f requests/s\n", label, k + 1, runs, secs[k],
               (double)(res[0].completed + res[0].gpu_completed) / secs[k]);
    }
    *first = res[0];
    qsort(secs, runs, sizeof secs[0], cmp_double);
    double median_secs = runs % 2 ? secs[runs / 2] : (secs[runs / 2 - 1] + secs[runs / 2]) / 2;
    *best = (double)(first->completed + first->gpu_completed) / secs[0];
    *median = (double)(first->completed + first->gpu_completed) / median_secs;
    return 0;
}

static void print_simulated(const struct timed_result *r)
{
    printf("  %llu CPU cycles simulated (%.2f CPU requests per cycle), L1 hit rate %.3f, "
           "average latency %.1f cycles, %llu DRAM reads, %llu writes\n",
           (unsigned long long)r->cycles, (double)r->completed / (double)r->cycles,
           r->accesses ? (double)r->hits / (double)r->accesses : 0.0,
           (double)r->latency_sum / (double)r->completed, (unsigned long long)r->mem_reads,
           (unsigned long long)r->mem_writes);
    printf("  %llu context resumptions (%.1f per request), the same in every run\n", (unsigned long long)r->resumes,
           (double)r->resumes / (double)(r->completed + r->gpu_completed));
}

/* Host instructions cachegrind counts for one run of this program in mode
 * `one` (per_core requests per core and per CU, streams of stream_len);
 * -1 if it could not be run. */
static double cachegrind_instructions(const char *one, uint64_t per_core, uint64_t stream_len)
{
    char env[256];
    snprintf(env, sizeof env, "CGM_MEMSYS_BENCH_ONE=%s CGM_MEMSYS_BENCH_REQUESTS=%llu CGM_MEMSYS_BENCH_STREAM=%llu",
             one, (unsigned long long)per_core, (unsigned long long)stream_len);
    return bench_cachegrind_self(env);
}

/* Host instructions per completed request: two runs that differ only in
 * their request count, so what does not depend on it cancels out. */
static double instructions_per_request(const char *one, unsigned agents)
{
    const uint64_t n1 = 5000, n2 = 20000;
    double i1 = cachegrind_instructions(one, n1, n2), i2 = cachegrind_instructions(one, n2, n2);
    if (i1 < 0 || i2 < 0)
        return -1;
    return (i2 - i1) / (double)((n2 - n1) * agents);
}

int main(void)
{
    uint64_t per_core = env_count("CGM_MEMSYS_BENCH_REQUESTS", 1000000, MAX_PER_CORE);
    uint64_t stream_len = env_count("CGM_MEMSYS_BENCH_STREAM", per_core, MAX_PER_CORE);
    unsigned runs = (unsigned)env_count("CGM_MEMSYS_BENCH_RUNS", 3, MAX_RUNS);
    const char *one = getenv("CGM_MEMSYS_BENCH_ONE");
    if (stream_len < per_core ||
        (one && strcmp(one, "cpu") && strcmp(one, "mixed") && strcmp(one, "gpu") && strcmp(one, "cpu_dram"))) {
        fprintf(stderr, "bench-memsys: CGM_MEMSYS_BENCH_STREAM below the request count, or "
                "CGM_MEMSYS_BENCH_ONE not one of cpu, mixed, gpu, cpu_dram\n");
        return 2;
    }
    bool dram_load = one && !strcmp(one, "cpu_dram");
    struct cgm_memsys_config cfg, mixed;
    cgm_memsys_default_config(&cfg);
    mixed = cfg;
    cgm_memsys_default_gpu(&mixed, CUS, true, true);
    for (unsigned i = 0; i < cfg.cores; i++)
        streams[i] = dram_load ? make_dram_stream((int)i, stream_len) : make_stream((int)i, stream_len);
    for (unsigned i = 0; i < CUS; i++)
        gpu_streams[i] = make_gpu_stream((int)i, stream_len);
    for (unsigned i = 0; i < (cfg.cores > CUS ? cfg.cores : CUS); i++) {
        if ((i < cfg.cores && !streams[i]) || (i < CUS && !gpu_streams[i])) {
            fprintf(stderr, "bench-memsys: out of memory for %llu requests per core\n",
                    (unsigned long long)stream_len);
            return 1;
        }
    }
    if (one) { /* a run for cachegrind to count */
        struct timed_result r;
        bool gpu = !strcmp(one, "mixed") || !strcmp(one, "gpu");
        int rc = run_timed(gpu ? &mixed : &cfg, strcmp(one, "gpu") ? per_core : 0, per_core, &r);
        if (!rc && dram_load && r.mem_reads < r.completed) {
            fprintf(stderr, "bench-memsys: the cpu_dram load reached DRAM %llu times in %llu requests\n",
                    (unsigned long long)r.mem_reads, (unsigned long long)r.completed);
            rc = -1;
        }
        free_streams(cfg.cores);
        return rc ? 1 : 0;
    }

    /* The host's speed varies from run to run (other machines share it):
     * repeat the run and report the fastest, the least disturbed, with the
     * median beside it. */
    struct timed_result first, mfirst;
    double req_per_s, median, mixed_req_per_s, mixed_median;
    if (timed_runs("timed hierarchy", &cfg, per_core, runs, &first, &req_per_s, &median))
        return 1;
    printf("timed hierarchy: %d cores, %llu requests: best %.0f requests/s, median %.0f\n",
           (int)cfg.cores, (unsigned long long)first.completed, req_per_s, median);
    print_simulated(&first);
    if (timed_runs("mixed CPU and GPU", &mixed, per_core, runs, &mfirst, &mixed_req_per_s, &mixed_median))
        return 1;
    printf("mixed: %d cores and %d CUs (C-L3), %llu CPU and %llu GPU requests: best %.0f requests/s, median %.0f\n",
           (int)cfg.cores, CUS, (unsigned long long)mfirst.completed, (unsigned long long)mfirst.gpu_completed,
           mixed_req_per_s, mixed_median);
    print_simulated(&mfirst);

    const char *b = getenv("CGM_MEMSYS_BENCH_BASELINE");
    if (b && !strcmp(b, "0")) {
        free_streams(cfg.cores);
        return 0;
    }
    double base = 0;
    uint64_t base_done = 0;
    for (unsigned k = 0; k < runs; k++) {
        double t = run_baseline(&cfg, per_core, &base_done);
        if (!k || t < base)
            base = t;
    }
    double base_rate = (double)base_done / base;
    printf("baseline (protocol handlers, instant delivery), best of %u: %llu requests in %.2f s: "
           "%.0f requests/s\n", runs, (unsigned long long)base_done, base, base_rate);
    printf("timed / baseline: %.3f\n", req_per_s / base_rate);

    const char *ic = getenv("CGM_MEMSYS_BENCH_INSTR");
    double ipr_cpu = -1, ipr_mixed = -1, ipr_gpu = -1, ipr_cpu_dram = -1;
    if (!ic || strcmp(ic, "0")) {
        ipr_cpu = instructions_per_request("cpu", cfg.cores);
        ipr_mixed = instructions_per_request("mixed", cfg.cores + CUS);
        ipr_gpu = instructions_per_request("gpu", CUS);
        ipr_cpu_dram = instructions_per_request("cpu_dram", cfg.cores);
        if (ipr_cpu < 0 || ipr_mixed < 0 || ipr_gpu < 0 || ipr_cpu_dram < 0) {
            fprintf(stderr, "bench-memsys: cachegrind (valgrind) could not count the host instructions\n");
            free_streams(cfg.cores);
            return 1;
        }
        printf("host instructions per completed request (cachegrind): CPU-only %.0f, mixed %.0f (%.2fx)\n",
               ipr_cpu, ipr_mixed, ipr_mixed / ipr_cpu);
        printf("  requests that reach DRAM alike: GPU alone %.0f per GPU request, CPU loads of uncached "
               "blocks %.0f (%.2fx)\n", ipr_gpu, ipr_cpu_dram, ipr_gpu / ipr_cpu_dram);
    }
    printf("BENCH memsys req_per_s=%.0f req_per_s_median=%.0f runs=%u baseline_req_per_s=%.0f "
           "ratio=%.3f cycles_per_req=%.2f instr_per_req_cpu=%.0f instr_per_req_mixed=%.0f req_per_s_mixed=%.0f "
           "instr_per_req_gpu=%.0f instr_per_req_cpu_dram=%.0f\n",
           req_per_s, median, runs, base_rate, req_per_s / base_rate,
           (double)first.cycles / (double)first.completed, ipr_cpu, ipr_mixed, mixed_req_per_s, ipr_gpu,
           ipr_cpu_dram);
    free_streams(cfg.cores);
    return 0;
}
