/*
 * KnightSim engine benchmark: the seed's Sec. 2.6 experiments on this machine.
 *
 * Experiment 2 (single thread): N = 16..1024 elements, each resuming once per
 * cycle (a context pausing one cycle; a callback rescheduling itself one cycle
 * later). Engines: KnightSim; a callback event queue on a binary heap (gem5
 * style, written here); SystemC SC_THREADs with wait() (Debian's
 * libsystemc-dev, run as a helper program); ucontext swapcontext contexts in a
 * ring (the cheapest possible engine on the C library's contexts).
 * Experiment 3: Parallel KnightSim with 1 and 2 threads against sequential
 * KnightSim, without work and with ~1700 TSC cycles of work per event.
 *
 * KnightSim runs the seed's full 1M cycles for every N. The slower engines
 * and Experiment 3 run a budget of events per point (the cost per event is
 * flat after a few thousand cycles); the cycles used are printed. Experiment
 * 2 is timed in process CPU time, Experiment 3 in wall-clock time. Budgets can
 * be changed through the environment:
 *   CGM_KS_BENCH_CYCLES       KnightSim cycles in Exp. 2        (1000000)
 *   CGM_KS_BENCH_EVENTS       events per point, heap/SystemC/PKS (8000000)
 *   CGM_KS_BENCH_UC_EVENTS    events per point, ucontext         (4000000)
 *   CGM_KS_BENCH_WORK_EVENTS  events per point with work         (2000000)
 *   CGM_KS_BENCH_ONLY         2 or 3: run that experiment only (the BENCH
 *                             line then shows nan for the other's figures)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>

#include "cgm/knightsim.h"

static const int sweep[] = { 16, 32, 64, 128, 256, 512, 768, 1024 };

/* Every figure is the best of this many runs, interleaved across engines, so
 * that a burst of load from other programs on the shared machine does not
 * land on one engine only. */
#define REPS 2
#define NSWEEP ((int)(sizeof sweep / sizeof sweep[0]))

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Single-threaded engines are timed in process CPU time, so that time the
 * shared machine gives to other programs does not count; parallel runs (and
 * their sequential baseline) in wall-clock time, which is what a speedup is. */
static double cpu_seconds(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }
static double wall_seconds(void) { return clock_s(CLOCK_MONOTONIC); }

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v == 0) {
        fprintf(stderr, "bench_knightsim: %s=%s is not a positive integer\n", name, s);
        exit(2);
    }
    return v;
}

static uint64_t cycles_for(uint64_t budget, int n)
{
    uint64_t c = budget / (uint64_t)n;
    return c > 1000000 ? 1000000 : c < 100 ? 100 : c;
}

static void check_events(const char *engine, int n, uint64_t got, uint64_t want)
{
    if (got != want) {
        fprintf(stderr, "bench_knightsim: %s with %d elements ran %llu events, expected %llu\n",
                engine, n, (unsigned long long)got, (unsigned long long)want);
        exit(1);
    }
}

/* ---- KnightSim -------------------------------------------------------------- */

static void ks_ticker(void *arg)
{
    (void)arg;
    for (;;)
        ks_pause(1);
}

static double ks_ns_per_event(int n, uint64_t cycles)
{
    ks_engine *e = ks_engine_create(NULL);
    for (int i = 0; i < n; i++)
        ks_context_create(e, ks_ticker, NULL, 16384);
    double t0 = cpu_seconds();
    ks_run_until(e, cycles);
    double t1 = cpu_seconds();
    ks_stats st;
    ks_engine_stats(e, &st);
    check_events("KnightSim", n, st.resumes, (uint64_t)n * cycles);
    ks_engine_destroy(e);
    return (t1 - t0) * 1e9 / (double)st.resumes;
}

/* ---- callback events on a binary heap (gem5 style) ------------------------- */

typedef struct hevent {
    uint64_t when, seq;
    void (*process)(struct hevent *);
} hevent;

static struct {
    hevent **a;
    size_t n;
    uint64_t seq, tick, events;
} hq;

static int hearlier(const hevent *x, const hevent *y)
{
    return x->when != y->when ? x->when < y->when : x->seq < y->seq;
}

static void hschedule(hevent *e, uint64_t when)
{
    e->when = when;
    e->seq = hq.seq++;
    size_t i = hq.n++;
    while (i && hearlier(e, hq.a[(i - 1) / 2])) {
        hq.a[i] = hq.a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    hq.a[i] = e;
}

static hevent *hpop(void)
{
    hevent *top = hq.a[0], *last = hq.a[--hq.n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= hq.n)
            break;
        if (c + 1 < hq.n && hearlier(hq.a[c + 1], hq.a[c]))
            c++;
        if (!hearlier(hq.a[c], last))
            break;
        hq.a[i] = hq.a[c];
        i = c;
    }
    if (hq.n)
        hq.a[i] = last;
    return top;
}

static void heap_tick(hevent *e)
{
    hq.events++;
    hschedule(e, hq.tick + 1);
}

static double heap_ns_per_event(int n, uint64_t cycles)
{
    hevent *ev = calloc((size_t)n, sizeof *ev);
    hq.a = calloc((size_t)n, sizeof *hq.a);
    hq.n = 0;
    hq.seq = hq.tick = hq.events = 0;
    for (int i = 0; i < n; i++) {
        ev[i].process = heap_tick;
        hschedule(&ev[i], 0);
    }
    double t0 = cpu_seconds();
    while (hq.n && hq.a[0]->when < cycles) {
        hevent *e = hpop();
        hq.tick = e->when;
        e->process(e);
    }
    double t1 = cpu_seconds();
    check_events("heap queue", n, hq.events, (uint64_t)n * cycles);
    free(hq.a);
    free(ev);
    return (t1 - t0) * 1e9 / (double)hq.events;
}

/* ---- ucontext ring ---------------------------------------------------------- */

static ucontext_t uc_main, *uc;
static int uc_n;
static uint64_t uc_cycle, uc_cycles, uc_events;

static void uc_body(int i)
{
    for (;;) {
        uc_events++;
        int next = i + 1;
        if (next == uc_n) {
            next = 0;
            if (++uc_cycle == uc_cycles) {
                swapcontext(&uc[i], &uc_main);
                continue;
            }
        }
        swapcontext(&uc[i], &uc[next]);
    }
}

static double ucontext_ns_per_event(int n, uint64_t cycles)
{
    enum { STACK = 16384 };
    uc = calloc((size_t)n, sizeof *uc);
    char *stacks = malloc((size_t)n * STACK);
    uc_n = n;
    uc_cycle = uc_events = 0;
    uc_cycles = cycles;
    for (int i = 0; i < n; i++) {
        getcontext(&uc[i]);
        uc[i].uc_stack.ss_sp = stacks + (size_t)i * STACK;
        uc[i].uc_stack.ss_size = STACK;
        uc[i].uc_link = &uc_main;
        makecontext(&uc[i], (void (*)(void))uc_body, 1, i);
    }
    double t0 = cpu_seconds();
    swapcontext(&uc_main, &uc[0]);
    double t1 = cpu_seconds();
    check_events("ucontext", n, uc_events, (uint64_t)n * cycles);
    free(stacks);
    free(uc);
    return (t1 - t0) * 1e9 / (double)uc_events;
}

/* ---- SystemC (helper program) ---------------------------------------------- */

static double systemc_ns_per_event(int n, uint64_t cycles)
{
    const char *build = getenv("CGM_BUILD");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/bench/bench_knightsim_systemc %d %llu",
             build ? build : "build", n, (unsigned long long)cycles);
    FILE *p = popen(cmd, "r");
    unsigned long long events = 0;
    double s = 0;
    int got = p ? fscanf(p, "events %llu seconds %lf", &events, &s) : 0;
    int rc = p ? pclose(p) : -1;
    if (got != 2 || rc != 0 || !events) {
        fprintf(stderr, "bench_knightsim: SystemC helper failed: %s\n", cmd);
        return NAN;
    }
    /* SystemC stops at the end time before running its events, so it counts
     * n * (cycles - 1) resumptions. */
    check_events("SystemC", n, events, (uint64_t)n * (cycles - 1));
    return s * 1e9 / (double)events;
}

/* ---- Experiment 3: Parallel KnightSim -------------------------------------- */

typedef struct slot {
    uint64_t acc;
    char pad[56]; /* one cache line per context: no false sharing */
} slot;

static unsigned work_iters;

static inline uint64_t work(uint64_t x, unsigned iters)
{
    for (unsigned i = 0; i < iters; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        x ^= x >> 29;
    }
    return x;
}

/* Iterations of `work` that take about `tsc` TSC cycles on this machine. */
static unsigned calibrate_work(unsigned tsc)
{
    volatile uint64_t sink = 0;
    const unsigned probe = 1u << 20;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        uint64_t a = __rdtsc();
        sink = work(sink + (uint64_t)r, probe);
        uint64_t b = __rdtsc();
        double per = (double)(b - a) / probe;
        best = per < best ? per : best;
    }
    return (unsigned)(tsc / best + 0.5);
}

static void pks_ticker(void *arg)
{
    slot *s = arg;
    for (;;) {
        if (work_iters)
            s->acc = work(s->acc, work_iters);
        ks_pause(1);
    }
}

/* threads == 0: sequential KnightSim. Returns ns per event. */
static double pks_ns_per_event(int n, unsigned threads, uint64_t cycles)
{
    ks_config cfg = { .threads = threads ? threads : 1, .parallel = threads > 0 };
    ks_engine *e = ks_engine_create(&cfg);
    slot *slots = aligned_alloc(64, (size_t)n * sizeof *slots);
    memset(slots, 0, (size_t)n * sizeof *slots);
    for (int i = 0; i < n; i++) {
        slots[i].acc = (uint64_t)i;
        ks_context_opts o = { .stack_size = 16384, .thread = threads ? (unsigned)i % threads : 0 };
        ks_context_create_opts(e, pks_ticker, &slots[i], &o);
    }
    double t0 = wall_seconds();
    ks_run_until(e, cycles);
    double t1 = wall_seconds();
    ks_stats st;
    ks_engine_stats(e, &st);
    check_events(threads ? "Parallel KnightSim" : "KnightSim", n, st.resumes, (uint64_t)n * cycles);
    ks_engine_destroy(e);
    free(slots);
    return (t1 - t0) * 1e9 / (double)st.resumes;
}

/* ---- report ------------------------------------------------------------------ */

static double geomean(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += log(v[i]);
    return exp(s / n);
}

static double minimum(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static double maximum(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

int main(void)
{
    uint64_t ks_cycles = env_u64("CGM_KS_BENCH_CYCLES", 1000000);
    uint64_t budget = env_u64("CGM_KS_BENCH_EVENTS", 8000000);
    uint64_t uc_budget = env_u64("CGM_KS_BENCH_UC_EVENTS", 4000000);
    uint64_t work_budget = env_u64("CGM_KS_BENCH_WORK_EVENTS", 2000000);
    uint64_t only = env_u64("CGM_KS_BENCH_ONLY", 23);
    bool exp2 = only != 3, exp3 = only != 2;
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);

    /* The machine is shared: other programs' load is part of the result. */
    double load[1] = { NAN };
    getloadavg(load, 1);
    printf("load average (1 min) at start: %.2f on %ld CPUs\n", load[0], sysconf(_SC_NPROCESSORS_ONLN));

    double ks[NSWEEP], heap[NSWEEP], sc[NSWEEP], ucx[NSWEEP];
    double r_heap[NSWEEP], r_sc[NSWEEP], r_uc[NSWEEP];
    for (int i = 0; i < NSWEEP; i++)
        ks[i] = heap[i] = sc[i] = ucx[i] = r_heap[i] = r_sc[i] = r_uc[i] = NAN;
    double ks_mean = NAN;
    if (exp2) {
        printf("Experiment 2: N elements resuming once per cycle, ns per event (one thread)\n");
        printf("%6s %9s %8s %9s %8s %9s %8s %9s %8s | %8s %10s %11s\n", "N", "KS cyc", "KS",
               "heap cyc", "heap", "SC cyc", "SystemC", "uc cyc", "ucontext", "heap/KS", "SystemC/KS",
               "ucontext/KS");
        for (int i = 0; i < NSWEEP; i++) {
            int n = sweep[i];
            uint64_t c = cycles_for(budget, n), cu = cycles_for(uc_budget, n);
            ks[i] = heap[i] = sc[i] = ucx[i] = INFINITY;
            for (int r = 0; r < REPS; r++) {
                ks[i] = fmin(ks[i], ks_ns_per_event(n, ks_cycles));
                heap[i] = fmin(heap[i], heap_ns_per_event(n, c));
                sc[i] = fmin(sc[i], systemc_ns_per_event(n, c));
                ucx[i] = fmin(ucx[i], ucontext_ns_per_event(n, cu));
            }
            r_heap[i] = heap[i] / ks[i];
            r_sc[i] = sc[i] / ks[i];
            r_uc[i] = ucx[i] / ks[i];
            printf("%6d %9llu %8.2f %9llu %8.2f %9llu %8.2f %9llu %8.2f | %8.2f %10.2f %11.2f\n", n,
                   (unsigned long long)ks_cycles, ks[i], (unsigned long long)c, heap[i],
                   (unsigned long long)c, sc[i], (unsigned long long)cu, ucx[i], r_heap[i], r_sc[i],
                   r_uc[i]);
            fflush(stdout);
        }
        ks_mean = 0;
        for (int i = 0; i < NSWEEP; i++)
            ks_mean += ks[i] / NSWEEP;
        printf("KS mean %.2f ns/event (max %.2f); other/KS geometric mean: heap %.2f, SystemC %.2f, "
               "ucontext %.2f; minimum: heap %.2f, SystemC %.2f, ucontext %.2f\n",
               ks_mean, maximum(ks, NSWEEP),
               geomean(r_heap, NSWEEP), geomean(r_sc, NSWEEP), geomean(r_uc, NSWEEP),
               minimum(r_heap, NSWEEP), minimum(r_sc, NSWEEP), minimum(r_uc, NSWEEP));
    }

    double speedup_1024_work = NAN;
    if (exp3) {
        work_iters = calibrate_work(1700);
        uint64_t a = __rdtsc();
        double t0 = cpu_seconds();
        volatile uint64_t sink = work(1, work_iters * 1000u);
        double ns_work = (cpu_seconds() - t0) * 1e9 / 1000.0;
        uint64_t tsc_work = (__rdtsc() - a) / 1000u;
        (void)sink;
        printf("\nExperiment 3: Parallel KnightSim, ns per event; work = %u iterations "
               "(~%llu TSC cycles, %.0f ns) per event\n",
               work_iters, (unsigned long long)tsc_work, ns_work);
        for (int w = 0; w < 2; w++) {
            unsigned iters = work_iters;
            work_iters = w ? iters : 0;
            printf("%s\n%6s %9s %9s %9s %9s | %9s %9s\n", w ? "with work:" : "without work:", "N",
                   "cycles", "KS", "PKS_1", "PKS_2", "KS/PKS_1", "KS/PKS_2");
            for (int i = 0; i < NSWEEP; i++) {
                int n = sweep[i];
                uint64_t c = cycles_for(w ? work_budget : budget, n);
                double k = INFINITY, p1 = INFINITY, p2 = INFINITY;
                for (int r = 0; r < REPS; r++) {
                    k = fmin(k, pks_ns_per_event(n, 0, c));
                    p1 = fmin(p1, pks_ns_per_event(n, 1, c));
                    p2 = fmin(p2, pks_ns_per_event(n, 2, c));
                }
                printf("%6d %9llu %9.2f %9.2f %9.2f | %9.2f %9.2f\n", n, (unsigned long long)c, k,
                       p1, p2, k / p1, k / p2);
                fflush(stdout);
                if (w && n == 1024)
                    speedup_1024_work = k / p2;
            }
            work_iters = iters;
        }
    }

    getloadavg(load, 1);
    printf("\nload average (1 min) at end: %.2f\n", load[0]);
    printf("BENCH knightsim ns_per_event=%.2f vs_heap=%.2f vs_systemc=%.2f vs_ucontext=%.2f "
           "pks2_speedup=%.2f min_vs_heap=%.2f min_vs_systemc=%.2f\n",
           ks_mean, geomean(r_heap, NSWEEP), geomean(r_sc, NSWEEP), geomean(r_uc, NSWEEP),
           speedup_1024_work, minimum(r_heap, NSWEEP), minimum(r_sc, NSWEEP));
    return 0;
}
