/*
 * KnightSim engine benchmark: the seed's Sec. 2.6 experiments on this machine.
 *
 * Experiment 2 (single thread): N = 16..1024 elements, each resuming once per
 * cycle (a context pausing one cycle; a callback rescheduling itself one cycle
 * later). Engines: KnightSim; the original KnightSim's scheme (its contexts,
 * its 512-row batch table, its pause; written here from its algorithm) at 16,
 * 128 and 1024 contexts, runs alternated with KnightSim's; a callback event
 * queue on a binary heap (gem5 style, written here); SystemC SC_THREADs with
 * wait() (Debian's libsystemc-dev, run as a helper program); ucontext
 * swapcontext contexts in a ring (the cheapest possible engine on the C
 * library's contexts).
 * Experiment 3: Parallel KnightSim with 1 and 2 threads against sequential
 * KnightSim, without work and with ~1700 TSC cycles of work per event. It
 * needs both cores of this machine: it is skipped, with a note, when other
 * programs keep the second one busy, and its figure carries the load.
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
 *   CGM_KS_BENCH_POINT        "ks N CYCLES" or "orig N CYCLES": run that one
 *                             point only (what cachegrind counts)
 *
 * Timed ratios on a shared machine move with the other programs' load; host
 * instructions do not. So Experiment 2 also counts, with cachegrind, the
 * instructions per event of KnightSim and of the original's scheme at 16, 128
 * and 1024 contexts: two runs of one point that differ only in their cycle
 * count, so that creating and destroying the engine cancels out
 * (ir_vs_original_N = the original's instructions per event / KnightSim's).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>

#include "cgm/knightsim.h"
#include "bench_cachegrind.h"

static const int sweep[] = { 16, 32, 64, 128, 256, 512, 768, 1024 };
/* The sizes compared with the original KnightSim, and the runs of each
 * engine per size (alternated: KS orig orig KS). */
static const int orig_sizes[] = { 16, 128, 1024 };
#define NORIG 3
#define ORIG_REPS 4
/* Experiment 3 runs only while other programs keep less than this many CPUs
 * busy (sampled for a second before it starts). */
#define PKS_MAX_BUSY 0.5

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

/* ---- the original KnightSim's scheme (in-run baseline) -------------------- *
 *
 * The engine of the public stardica/KnightSim repository (seed 000, Alg.
 * 2.2-2.8), rebuilt here from its algorithm: a context is a register buffer
 * (rbx, rbp, r12-r15, stack pointer, resume address: its setjmp/longjmp
 * assembly saves nothing else), a count and a batch link; the batch table
 * has 512 rows, each a LIFO list of the contexts due at the cycles that map
 * to it, and a count of non-empty rows. pause(n) pushes the context on row
 * (now + n) & 511, saves its registers and jumps to the next context of the
 * batch, or, at the end of the batch, steps the cycle and scans the table for
 * the next non-empty row (context_select). One domain, no eventcount
 * bookkeeping, no overflow heap (a pause beyond 511 cycles would alias), no
 * sub-clock phase. The run limit is checked once per cycle in the select
 * (the original's benchmark checks it in every context, once per event). */

typedef struct orig_ctx {
    uint64_t regs[8]; /* rbx, rbp, r12, r13, r14, r15, rsp, resume address */
    uint64_t count;             /* resumptions, summed after the run */
    struct orig_ctx *next;
    char *stack;
} orig_ctx;

enum { ORIG_ROWS = 512, ORIG_STACK = 16384 };

static struct {
    orig_ctx *table[ORIG_ROWS];
    unsigned table_count;
    uint64_t now, limit;
    uint64_t home[8];
} og;

/* The original's setjmp/longjmp pair. Declared as the original declares
 * them, as plain functions (not returns_twice, not noreturn): the compiler
 * then ends orig_pause with a jump to orig_jump, as the original's build
 * does, and the resumed context's return from orig_pause is predicted
 * right. Nothing in orig_pause's frame changes between the save and the
 * resumption, so the plain declaration is safe. */
int orig_save(uint64_t *regs);
void orig_jump(uint64_t *regs);
__asm__(".text\n"
        ".globl orig_save\n"
        ".type orig_save, @function\n"
        "orig_save:\n"
        "  movq %rbx, 0(%rdi)\n"
        "  movq %rbp, 8(%rdi)\n"
        "  movq %r12, 16(%rdi)\n"
        "  movq %r13, 24(%rdi)\n"
        "  movq %r14, 32(%rdi)\n"
        "  movq %r15, 40(%rdi)\n"
        "  leaq 8(%rsp), %rdx\n"
        "  movq %rdx, 48(%rdi)\n"
        "  movq (%rsp), %rax\n"
        "  movq %rax, 56(%rdi)\n"
        "  xorl %eax, %eax\n"
        "  ret\n"
        ".size orig_save, .-orig_save\n"
        ".globl orig_jump\n"
        ".type orig_jump, @function\n"
        "orig_jump:\n"
        "  movq 0(%rdi), %rbx\n"
        "  movq 8(%rdi), %rbp\n"
        "  movq 16(%rdi), %r12\n"
        "  movq 24(%rdi), %r13\n"
        "  movq 32(%rdi), %r14\n"
        "  movq 40(%rdi), %r15\n"
        "  movq 48(%rdi), %rsp\n"
        "  movl $1, %eax\n"
        "  jmpq *56(%rdi)\n"
        ".size orig_jump, .-orig_jump\n");

static void orig_insert(orig_ctx *c, unsigned row)
{
    if (!og.table[row])
        og.table_count++;
    c->next = og.table[row];
    og.table[row] = c;
}

/* Alg. 2.8: the first non-empty row from the present cycle on. */
static uint64_t *orig_select(void)
{
    if (!og.table_count)
        return og.home;
    orig_ctx *c;
    while (!(c = og.table[og.now & (ORIG_ROWS - 1)]))
        og.now++;
    if (og.now >= og.limit)
        return og.home;
    og.table[og.now & (ORIG_ROWS - 1)] = NULL;
    og.table_count--;
    return c->regs;
}

/* Alg. 2.7. Not inlined, as in the original, where the model calls the
 * library's pause. */
__attribute__((noinline)) static void orig_pause(orig_ctx *self, uint64_t n)
{
    orig_ctx *next = self->next;
    orig_insert(self, (unsigned)((og.now + n) & (ORIG_ROWS - 1)));
    if (orig_save(self->regs))
        return;
    if (next) {
        orig_jump(next->regs);
    } else {
        og.now++;
        orig_jump(orig_select());
    }
}

static void orig_ticker(orig_ctx *self)
{
    for (;;) {
        self->count++;
        orig_pause(self, 1);
    }
}

/* A fresh context's first jump lands here; its context is in rbx. */
static void orig_start(void)
{
    orig_ctx *self;
    __asm__ volatile("movq %%rbx, %0" : "=r"(self));
    orig_ticker(self);
}

/* Runs until orig_select jumps back here; nothing in this frame changes
 * between the save and that jump. */
__attribute__((noinline)) static void orig_run(void)
{
    if (!orig_save(og.home))
        orig_jump(orig_select());
}

static double orig_ns_per_event(int n, uint64_t cycles)
{
    orig_ctx *ctx = calloc((size_t)n, sizeof *ctx);
    memset(&og, 0, sizeof og);
    og.limit = cycles;
    for (int i = 0; i < n; i++) {
        orig_ctx *c = &ctx[i];
        c->stack = malloc(ORIG_STACK);
        /* as if called: 16-byte aligned stack minus the return address */
        uintptr_t top = ((uintptr_t)c->stack + ORIG_STACK) & ~(uintptr_t)15;
        c->regs[0] = (uint64_t)(uintptr_t)c;
        c->regs[6] = (uint64_t)(top - 8);
        c->regs[7] = (uint64_t)(uintptr_t)orig_start;
        orig_insert(c, 0);
    }
    double t0 = cpu_seconds();
    orig_run();
    double t1 = cpu_seconds();
    uint64_t events = 0;
    for (int i = 0; i < n; i++) {
        events += ctx[i].count;
        free(ctx[i].stack);
    }
    free(ctx);
    check_events("original KnightSim", n, events, (uint64_t)n * cycles);
    return (t1 - t0) * 1e9 / (double)events;
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

/* CPUs that other programs keep busy, sampled over `seconds` while this
 * program sleeps (from /proc/stat: everything but idle and iowait). NAN if
 * /proc/stat cannot be read. */
static double busy_cpus(double seconds)
{
    unsigned long long v[2][10];
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen("/proc/stat", "r");
        memset(v[k], 0, sizeof v[k]);
        int got = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[k][0],
                             &v[k][1], &v[k][2], &v[k][3], &v[k][4], &v[k][5], &v[k][6],
                             &v[k][7], &v[k][8], &v[k][9])
                    : 0;
        if (f)
            fclose(f);
        if (got < 8)
            return NAN;
        if (k == 0) {
            struct timespec ts = { (time_t)seconds,
                                   (long)((seconds - (double)(time_t)seconds) * 1e9) };
            nanosleep(&ts, NULL);
        }
    }
    double total = 0, idle = 0;
    for (int i = 0; i < 8; i++) /* guest time is already counted in user */
        total += (double)(v[1][i] - v[0][i]);
    idle = (double)(v[1][3] - v[0][3]) + (double)(v[1][4] - v[0][4]);
    return total > 0 ? (total - idle) / total * (double)sysconf(_SC_NPROCESSORS_ONLN) : NAN;
}

/* ---- host instructions per event (cachegrind) ----------------------------- */

/* Host instructions cachegrind counts in one run of this program that runs
 * point "ENGINE N CYCLES" only; -1 if it could not be run. */
static double point_instructions(const char *engine, int n, uint64_t cycles)
{
    char env[128];
    snprintf(env, sizeof env, "CGM_KS_BENCH_POINT='%s %d %llu'", engine, n, (unsigned long long)cycles);
    return bench_cachegrind_self(env);
}

/* Instructions per event of `engine` with n contexts: the difference of a
 * run of c2 cycles and one of c1, over the events between them. NAN if
 * cachegrind could not be run. */
static double instructions_per_event(const char *engine, int n)
{
    uint64_t c1 = cycles_for(200000, n), c2 = cycles_for(1000000, n);
    double i1 = point_instructions(engine, n, c1), i2 = point_instructions(engine, n, c2);
    if (i1 < 0 || i2 < 0)
        return NAN;
    return (i2 - i1) / ((double)n * (double)(c2 - c1));
}

/* CGM_KS_BENCH_POINT: runs one point and returns true. */
static bool run_point(void)
{
    const char *p = getenv("CGM_KS_BENCH_POINT");
    if (!p)
        return false;
    char engine[16];
    int n;
    unsigned long long cycles;
    if (sscanf(p, "%15s %d %llu", engine, &n, &cycles) != 3 || n <= 0 || !cycles) {
        fprintf(stderr, "bench_knightsim: CGM_KS_BENCH_POINT=%s is not 'ks|orig N CYCLES'\n", p);
        exit(2);
    }
    if (!strcmp(engine, "ks"))
        ks_ns_per_event(n, cycles);
    else if (!strcmp(engine, "orig"))
        orig_ns_per_event(n, cycles);
    else {
        fprintf(stderr, "bench_knightsim: CGM_KS_BENCH_POINT: no engine '%s'\n", engine);
        exit(2);
    }
    return true;
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

/* Median of a few values (sorted in place). */
static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(void)
{
    uint64_t ks_cycles = env_u64("CGM_KS_BENCH_CYCLES", 1000000);
    uint64_t budget = env_u64("CGM_KS_BENCH_EVENTS", 8000000);
    uint64_t uc_budget = env_u64("CGM_KS_BENCH_UC_EVENTS", 4000000);
    uint64_t work_budget = env_u64("CGM_KS_BENCH_WORK_EVENTS", 2000000);
    if (run_point())
        return 0;
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
    double vs_orig[NORIG] = { NAN, NAN, NAN }, ir_vs_orig[NORIG] = { NAN, NAN, NAN };
    if (exp2) {
        printf("Experiment 2, against the original KnightSim's scheme: one pause(1) per context "
               "per cycle, %llu cycles, ns per event, runs alternated (KS orig orig KS ...)\n",
               (unsigned long long)ks_cycles);
        printf("%6s %14s %14s %14s %14s | %9s %11s\n", "N", "KS best", "KS median", "orig best",
               "orig median", "orig/KS", "med orig/KS");
        for (int i = 0; i < NORIG; i++) {
            int n = orig_sizes[i];
            double k[ORIG_REPS], o[ORIG_REPS];
            for (int r = 0; r < ORIG_REPS; r++) {
                if (r % 2 == 0) {
                    k[r] = ks_ns_per_event(n, ks_cycles);
                    o[r] = orig_ns_per_event(n, ks_cycles);
                } else {
                    o[r] = orig_ns_per_event(n, ks_cycles);
                    k[r] = ks_ns_per_event(n, ks_cycles);
                }
            }
            double kb = minimum(k, ORIG_REPS), ob = minimum(o, ORIG_REPS);
            double km = median(k, ORIG_REPS), om = median(o, ORIG_REPS);
            vs_orig[i] = ob / kb;
            printf("%6d %14.2f %14.2f %14.2f %14.2f | %9.2f %11.2f\n", n, kb, km, ob, om, ob / kb,
                   om / km);
            fflush(stdout);
        }
        printf("\nhost instructions per event (cachegrind), against the original's scheme:\n");
        printf("%6s %9s %9s | %9s\n", "N", "KS", "orig", "orig/KS");
        for (int i = 0; i < NORIG; i++) {
            double k = instructions_per_event("ks", orig_sizes[i]);
            double o = instructions_per_event("orig", orig_sizes[i]);
            ir_vs_orig[i] = o / k;
            printf("%6d %9.2f %9.2f | %9.2f\n", orig_sizes[i], k, o, ir_vs_orig[i]);
            fflush(stdout);
        }
        printf("\n");
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

    /* Two workers need both cores: with another program on the second core,
     * PKS_2 measures the sharing, not the engine. */
    double speedup_1024_work = NAN, pks_busy = NAN, pks_load = NAN;
    bool pks_skipped = false;
    if (exp3) {
        pks_busy = busy_cpus(1.0);
        getloadavg(&pks_load, 1);
        if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || !(pks_busy < PKS_MAX_BUSY)) {
            pks_skipped = true;
            printf("\nExperiment 3 skipped: other programs kept %.2f CPUs busy (limit %.2f; "
                   "load average %.2f on %ld CPUs); Parallel KnightSim with 2 workers needs "
                   "both cores\n",
                   pks_busy, PKS_MAX_BUSY, pks_load, sysconf(_SC_NPROCESSORS_ONLN));
            exp3 = false;
        } else {
            printf("\nExperiment 3 starts with %.2f CPUs busy with other programs (load "
                   "average %.2f)\n",
                   pks_busy, pks_load);
        }
    }
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
    printf("BENCH knightsim ns_per_event=%.2f vs_original_16=%.2f vs_original_128=%.2f "
           "vs_original_1024=%.2f ir_vs_original_16=%.2f ir_vs_original_128=%.2f "
           "ir_vs_original_1024=%.2f vs_heap=%.2f vs_systemc=%.2f vs_ucontext=%.2f "
           "pks2_speedup=%.2f pks2_busy_cpus=%.2f pks2_load=%.2f%s min_vs_heap=%.2f "
           "min_vs_systemc=%.2f\n",
           ks_mean, vs_orig[0], vs_orig[1], vs_orig[2], ir_vs_orig[0], ir_vs_orig[1],
           ir_vs_orig[2], geomean(r_heap, NSWEEP),
           geomean(r_sc, NSWEEP), geomean(r_uc, NSWEEP), speedup_1024_work, pks_busy, pks_load,
           pks_skipped ? " pks2=skipped_other_core_busy" : "", minimum(r_heap, NSWEEP),
           minimum(r_sc, NSWEEP));
    return 0;
}
