/* The run as Chrome trace-event JSON: see timeline.h.
 *
 * Every track's events are written in the order they happen on it, so
 * their timestamps never go back on a track: slices that overlap (work-
 * groups on a compute unit) get a track each. A slice whose begin was
 * written is always ended, so the bound on events counts each open
 * slice's end as written already. */
#include "replay/timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/check.h"
#include "replay/sim.h"

#define NEVER UINT64_MAX
enum { PID_CPU = 1, PID_GPU = 2, PID_COUNTERS = 3 };
enum { TID_KERNELS = 0, TID_SYNC = 1000, TID_CU = 100000, CU_TIDS = 1000 };

struct core_tl {
    uint64_t tid;                  /* the thread it runs, or RP_TIMELINE_NO_THREAD */
    bool slice;                    /* its slice was begun */
    uint64_t mem_from, sys_from;   /* the stall runs going on (NEVER: none) */
    bool pending;                  /* a trap waiting for its system call event */
    uint64_t pend_from, pend_to;
    uint8_t named;                 /* bit per track: 1 threads, 2 calls, 4 stalls */
    bool ended;
};

struct cu_tl {
    const void **key;              /* per slot: its work-group, NULL when free */
    bool *open, *named;
    unsigned n;
};

struct rp_timeline {
    FILE *f;
    const char *path;
    ks_engine *eng;
    const ks_domain *cpu;
    double us_per_tick;
    uint64_t max, events, open, dropped;
    bool first, failed;
    uint64_t stall_cycles;
    struct core_tl *cores;
    unsigned ncores;
    struct cu_tl *cus;
    unsigned ncus;
    bool kernel_open;
    bool kernels_named;
    bool *job_open, *job_named;
    size_t njobs;
    /* counters */
    uint64_t window, next_sample, last_sample;
    cgm_stat n_instructions, n_dram_bytes, n_packets;
    uint64_t last_instructions, last_dram_bytes, last_packets;
};

static void out(struct rp_timeline *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!t->failed && vfprintf(t->f, fmt, ap) < 0)
        t->failed = true;
    va_end(ap);
}

/* Starts an event object: its separator, phase, place and time. */
static void head(struct rp_timeline *t, char ph, int pid, uint64_t tid, ks_tick tick)
{
    out(t, "%s\n{\"ph\":\"%c\",\"pid\":%d,\"tid\":%" PRIu64 ",\"ts\":%.6f", t->first ? "" : ",", ph, pid, tid,
        (double)tick * t->us_per_tick);
    t->first = false;
}

/* A JSON string's characters (names come from the trace: kernels'). */
static void quoted(struct rp_timeline *t, const char *s)
{
    out(t, "\"");
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            out(t, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            out(t, "%c", *s);
    out(t, "\"");
}

static void name_track(struct rp_timeline *t, int pid, uint64_t tid, const char *fmt, ...)
{
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    out(t, "%s\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64 ",\"name\":\"thread_name\",\"args\":{\"name\":",
        t->first ? "" : ",", pid, tid);
    quoted(t, name);
    out(t, "}}");
    out(t, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64 ",\"name\":\"thread_sort_index\",\"args\":"
        "{\"sort_index\":%" PRIu64 "}}", pid, tid, tid);
    t->first = false;
}

/* Room for NEED more events besides the ends of the open slices. */
static bool room(struct rp_timeline *t, unsigned need)
{
    if (t->events + t->open + need > t->max) {
        t->dropped++;
        return false;
    }
    t->events += need;
    return true;
}

/* A slice begins; ARGS is an object's members or NULL. False when it was
 * left out (its end must be too). */
static bool begin(struct rp_timeline *t, int pid, uint64_t tid, ks_tick tick, const char *name, const char *args)
{
    if (!room(t, 2))
        return false;
    t->events--;   /* the end's place is kept as open */
    t->open++;
    head(t, 'B', pid, tid, tick);
    out(t, ",\"name\":");
    quoted(t, name);
    if (args)
        out(t, ",\"args\":{%s}", args);
    out(t, "}");
    return true;
}

static void end(struct rp_timeline *t, int pid, uint64_t tid, ks_tick tick, const char *args)
{
    CGM_CHECK(t->open > 0);
    t->open--;
    t->events++;
    head(t, 'E', pid, tid, tick);
    if (args)
        out(t, ",\"args\":{%s}", args);
    out(t, "}");
}

static void complete(struct rp_timeline *t, int pid, uint64_t tid, ks_tick from, ks_tick to, const char *name,
                     const char *args)
{
    if (!room(t, 1))
        return;
    head(t, 'X', pid, tid, from);
    out(t, ",\"dur\":%.6f,\"name\":", (double)(to - from) * t->us_per_tick);
    quoted(t, name);
    if (args)
        out(t, ",\"args\":{%s}", args);
    out(t, "}");
}

static ks_tick cpu_tick(const struct rp_timeline *t, uint64_t cycle)
{
    return ks_domain_cycle_tick(t->cpu, cycle);
}

struct rp_timeline *rp_timeline_open(struct rp_sim *s, const char *path,
                                     const struct rp_timeline_options *opt, char *err, size_t errlen)
{
    struct rp_timeline *t = calloc(1, sizeof *t);
    if (!t)
        cgm_oom("the timeline");
    t->path = path;
    t->eng = s->eng;
    t->cpu = cgm_memsys_cpu_domain(s->ms);
    t->us_per_tick = 1e6 / (double)ks_tick_hz(s->eng);
    t->max = opt->max_events ? opt->max_events : RP_TIMELINE_MAX_EVENTS;
    t->stall_cycles = opt->stall_cycles ? opt->stall_cycles : RP_TIMELINE_STALL_CYCLES;
    t->window = opt->window_cycles ? opt->window_cycles : RP_TIMELINE_WINDOW_CYCLES;
    t->next_sample = t->window;
    t->first = true;
    t->ncores = (unsigned)s->cfg.cores;
    t->cores = calloc(t->ncores, sizeof *t->cores);
    t->njobs = s->sched.nthreads;
    t->job_open = calloc(t->njobs + 1, sizeof *t->job_open);
    t->job_named = calloc(t->njobs + 1, sizeof *t->job_named);
    if (!t->cores || !t->job_open || !t->job_named)
        cgm_oom("the timeline");
    for (unsigned i = 0; i < t->ncores; i++)
        t->cores[i] = (struct core_tl){ .tid = RP_TIMELINE_NO_THREAD, .mem_from = NEVER, .sys_from = NEVER };
    t->n_instructions = cgm_stats_find(s->stats, CGM_STATS_ROOT, "instructions");
    t->n_dram_bytes = cgm_stats_find(s->stats, CGM_STATS_ROOT, "dram.bytes");
    t->n_packets = cgm_stats_find(s->stats, CGM_STATS_ROOT, "network.packets");
    if (!(t->f = fopen(path, "w"))) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rp_timeline_free(t);
        return NULL;
    }
    out(t, "{\"traceEvents\":[");
    static const char *const processes[] = { "", "CPU", "GPU", "counters" };
    for (int pid = PID_CPU; pid <= PID_COUNTERS; pid++) {
        if (pid == PID_GPU && !s->gpu)
            continue;
        out(t, "%s\n{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"%s\"}}",
            t->first ? "" : ",", pid, processes[pid]);
        out(t, ",\n{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
            pid, pid);
        t->first = false;
    }
    return t;
}

/* ---- cores ------------------------------------------------------------- */

static uint64_t core_track(unsigned core, unsigned k)
{
    return 3u * core + k;
}

static void core_named(struct rp_timeline *t, unsigned core, unsigned k)
{
    struct core_tl *c = &t->cores[core];
    static const char *const what[] = { "", " system calls", " memory stalls" };
    if (!(c->named & (1u << k))) {
        c->named |= (uint8_t)(1u << k);
        name_track(t, PID_CPU, core_track(core, k), "core %u%s", core, what[k]);
    }
}

static void flush_syscall(struct rp_timeline *t, unsigned core, const struct cgm_event *ev)
{
    struct core_tl *c = &t->cores[core];
    if (!c->pending)
        return;
    c->pending = false;
    char name[48] = "syscall", args[160];
    int n = snprintf(args, sizeof args, "\"cycles\":%" PRIu64, c->pend_to - c->pend_from);
    if (ev) {
        snprintf(name, sizeof name, "syscall %" PRIu64, ev->f[CGM_EVF_SYSCALL_NR]);
        snprintf(args + n, sizeof args - (size_t)n, ",\"nr\":%" PRIu64 ",\"result\":%" PRId64,
                 ev->f[CGM_EVF_SYSCALL_NR], (int64_t)ev->f[CGM_EVF_SYSCALL_RESULT]);
    }
    core_named(t, core, 1);
    complete(t, PID_CPU, core_track(core, 1), cpu_tick(t, c->pend_from), cpu_tick(t, c->pend_to), name, args);
}

/* A run of cycles stalled for one reason: begins, goes on, or ends at
 * CYCLE (a system call's ends when it commits). */
static void stall_run(struct rp_timeline *t, unsigned core, uint64_t *from, bool stalled, uint64_t cycle)
{
    if (stalled) {
        if (*from == NEVER)
            *from = cycle;
        return;
    }
    if (*from == NEVER)
        return;
    uint64_t len = cycle - *from;
    if (len && len >= t->stall_cycles) {
        char args[48];
        snprintf(args, sizeof args, "\"cycles\":%" PRIu64, len);
        core_named(t, core, 2);
        complete(t, PID_CPU, core_track(core, 2), cpu_tick(t, *from), cpu_tick(t, cycle), "memory stall", args);
    }
    *from = NEVER;
}

void rp_timeline_core_pass(struct rp_timeline *t, unsigned core, uint64_t cycle, unsigned why)
{
    struct core_tl *c = &t->cores[core];
    if (c->ended)
        return;
    stall_run(t, core, &c->mem_from, why == ST_MEMORY, cycle);
    if (why == ST_SYSCALL && c->sys_from == NEVER)
        c->sys_from = cycle;
}

void rp_timeline_syscall_commit(struct rp_timeline *t, unsigned core, uint64_t cycle)
{
    struct core_tl *c = &t->cores[core];
    flush_syscall(t, core, NULL);
    c->pending = true;
    c->pend_from = c->sys_from == NEVER ? cycle : c->sys_from;
    c->pend_to = cycle;
    c->sys_from = NEVER;
}

void rp_timeline_core_thread(struct rp_timeline *t, unsigned core, uint64_t cycle, uint64_t tid)
{
    struct core_tl *c = &t->cores[core];
    if (c->ended)
        return;
    if (tid != c->tid) {
        if (c->slice)
            end(t, PID_CPU, core_track(core, 0), cpu_tick(t, cycle), NULL);
        c->slice = false;
        c->tid = tid;
        if (tid != RP_TIMELINE_NO_THREAD) {
            char name[40], args[40];
            snprintf(name, sizeof name, "thread %" PRIu64, tid);
            snprintf(args, sizeof args, "\"tid\":%" PRIu64, tid);
            core_named(t, core, 0);
            c->slice = begin(t, PID_CPU, core_track(core, 0), cpu_tick(t, cycle), name, args);
        }
    }
}

void rp_timeline_core_end(struct rp_timeline *t, unsigned core, uint64_t cycle)
{
    rp_timeline_core_pass(t, core, cycle, ST_COUNT);
    rp_timeline_core_thread(t, core, cycle, RP_TIMELINE_NO_THREAD);
    flush_syscall(t, core, NULL);
    t->cores[core].ended = true;
}

void rp_timeline_syscall(struct rp_timeline *t, unsigned core, const struct cgm_event *ev)
{
    flush_syscall(t, core, ev);
}

/* ---- GPU ----------------------------------------------------------------- */

static struct cu_tl *cu_of(struct rp_timeline *t, unsigned cu)
{
    if (cu >= t->ncus) {
        struct cu_tl *v = realloc(t->cus, (cu + 1) * sizeof *v);
        if (!v)
            cgm_oom("the timeline");
        memset(v + t->ncus, 0, (cu + 1 - t->ncus) * sizeof *v);
        t->cus = v;
        t->ncus = cu + 1;
    }
    return &t->cus[cu];
}

void rp_timeline_wg_begin(struct rp_timeline *t, unsigned cu, const void *key, uint32_t launch,
                          uint64_t group, ks_tick tick)
{
    struct cu_tl *c = cu_of(t, cu);
    unsigned k = 0;
    while (k < c->n && c->key[k])
        k++;
    if (k == c->n) {
        CGM_CHECK(c->n < CU_TIDS);
        c->key = realloc(c->key, (c->n + 1) * sizeof *c->key);
        c->open = realloc(c->open, (c->n + 1) * sizeof *c->open);
        c->named = realloc(c->named, (c->n + 1) * sizeof *c->named);
        if (!c->key || !c->open || !c->named)
            cgm_oom("the timeline");
        c->named[c->n++] = false;
    }
    uint64_t tid = TID_CU + (uint64_t)cu * CU_TIDS + k;
    if (!c->named[k]) {
        c->named[k] = true;
        name_track(t, PID_GPU, tid, "CU %u slot %u", cu, k);
    }
    char name[64], args[80];
    snprintf(name, sizeof name, "launch %" PRIu32 " group %" PRIu64, launch, group);
    snprintf(args, sizeof args, "\"launch\":%" PRIu32 ",\"group\":%" PRIu64, launch, group);
    c->key[k] = key;
    c->open[k] = begin(t, PID_GPU, tid, tick, name, args);
}

void rp_timeline_wg_end(struct rp_timeline *t, unsigned cu, const void *key, ks_tick tick, uint64_t cycles)
{
    struct cu_tl *c = cu_of(t, cu);
    for (unsigned k = 0; k < c->n; k++)
        if (c->key[k] == key) {
            c->key[k] = NULL;
            if (c->open[k]) {
                char args[48];
                snprintf(args, sizeof args, "\"cycles\":%" PRIu64, cycles);
                end(t, PID_GPU, TID_CU + (uint64_t)cu * CU_TIDS + k, tick, args);
            }
            return;
        }
}

void rp_timeline_kernel_begin(struct rp_timeline *t, uint32_t launch, const char *name, ks_tick tick)
{
    if (!t->kernels_named) {
        t->kernels_named = true;
        name_track(t, PID_GPU, TID_KERNELS, "kernels");
    }
    char text[180], args[40];
    snprintf(text, sizeof text, "%.128s (launch %" PRIu32 ")", name, launch);
    snprintf(args, sizeof args, "\"launch\":%" PRIu32, launch);
    t->kernel_open = begin(t, PID_GPU, TID_KERNELS, tick, text, args);
}

void rp_timeline_kernel_end(struct rp_timeline *t, ks_tick tick, uint64_t cycles)
{
    if (!t->kernel_open)
        return;
    t->kernel_open = false;
    char args[48];
    snprintf(args, sizeof args, "\"cycles\":%" PRIu64, cycles);
    end(t, PID_GPU, TID_KERNELS, tick, args);
}

void rp_timeline_sync_begin(struct rp_timeline *t, size_t job, uint64_t tid, const char *what, uint64_t bytes,
                            ks_tick tick)
{
    CGM_CHECK(job < t->njobs);
    if (!t->job_named[job]) {
        t->job_named[job] = true;
        name_track(t, PID_GPU, TID_SYNC + job, "copies and flushes (thread %" PRIu64 ")", tid);
    }
    char args[48];
    snprintf(args, sizeof args, "\"bytes\":%" PRIu64, bytes);
    t->job_open[job] = begin(t, PID_GPU, TID_SYNC + job, tick, what, args);
}

void rp_timeline_sync_end(struct rp_timeline *t, size_t job, ks_tick tick, uint64_t cycles)
{
    CGM_CHECK(job < t->njobs);
    if (!t->job_open[job])
        return;
    t->job_open[job] = false;
    char args[48];
    snprintf(args, sizeof args, "\"cycles\":%" PRIu64, cycles);
    end(t, PID_GPU, TID_SYNC + job, tick, args);
}

/* ---- counters ------------------------------------------------------------ */

static uint64_t read_counter(struct rp_sim *s, cgm_stat node)
{
    return node >= 0 ? cgm_stats_read_one(s->stats, node) : 0;
}

static void counter(struct rp_timeline *t, ks_tick tick, const char *name, const char *series, double v)
{
    if (!room(t, 1))
        return;
    out(t, "%s\n{\"ph\":\"C\",\"pid\":%d,\"ts\":%.6f,\"name\":\"%s\",\"args\":{\"%s\":%.9g}}",
        t->first ? "" : ",", PID_COUNTERS, (double)tick * t->us_per_tick, name, series, v);
    t->first = false;
}

/* The window [last_sample, CYCLE): its values, at its start. */
static void sample(struct rp_timeline *t, struct rp_sim *s, uint64_t cycle)
{
    if (cycle <= t->last_sample)
        return;
    double cycles = (double)(cycle - t->last_sample);
    double seconds = cycles / (double)s->cfg.frequency;
    ks_tick at = cpu_tick(t, t->last_sample);
    uint64_t insns = read_counter(s, t->n_instructions);
    uint64_t bytes = read_counter(s, t->n_dram_bytes);
    uint64_t packets = read_counter(s, t->n_packets);
    if (t->n_instructions >= 0)
        counter(t, at, "IPC", "ipc", (double)(insns - t->last_instructions) / cycles);
    if (t->n_dram_bytes >= 0)
        counter(t, at, "DRAM bandwidth", "GB/s", (double)(bytes - t->last_dram_bytes) / seconds / 1e9);
    if (t->n_packets >= 0)
        counter(t, at, "ring load", "packets/cycle", (double)(packets - t->last_packets) / cycles);
    t->last_instructions = insns;
    t->last_dram_bytes = bytes;
    t->last_packets = packets;
    t->last_sample = cycle;
}

uint64_t rp_timeline_stop_at(const struct rp_timeline *t, uint64_t limit)
{
    return t && t->next_sample < limit ? t->next_sample : limit;
}

void rp_timeline_reached(struct rp_timeline *t, struct rp_sim *s, uint64_t cycle)
{
    if (!t || cycle != t->next_sample)
        return;
    t->next_sample += t->window;
    sample(t, s, cycle);
}

/* ---- the end ------------------------------------------------------------- */

int rp_timeline_finish(struct rp_timeline *t, struct rp_sim *s)
{
    uint64_t end_cycle = s->end_cycle;
    ks_tick at = cpu_tick(t, end_cycle);
    for (unsigned i = 0; i < t->ncores; i++)
        if (!t->cores[i].ended)
            rp_timeline_core_end(t, i, end_cycle);
    for (unsigned cu = 0; cu < t->ncus; cu++)
        for (unsigned k = 0; k < t->cus[cu].n; k++)
            if (t->cus[cu].key[k])
                rp_timeline_wg_end(t, cu, t->cus[cu].key[k], at, 0);
    rp_timeline_kernel_end(t, at, 0);
    for (size_t j = 0; j < t->njobs; j++)
        rp_timeline_sync_end(t, j, at, 0);
    sample(t, s, end_cycle);
    out(t, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"trace\":");
    quoted(t, s->trace_name);
    out(t, ",\"events\":%" PRIu64 ",\"max_events\":%" PRIu64 ",\"dropped\":%" PRIu64
        ",\"stall_cycles\":%" PRIu64 ",\"window_cycles\":%" PRIu64 "}}\n",
        t->events, t->max, t->dropped, t->stall_cycles, t->window);
    if (t->dropped)
        fprintf(stderr, "replay: warning: %s holds the first %" PRIu64 " events (--timeline-max-events); %"
                PRIu64 " more were left out\n", t->path, t->events, t->dropped);
    int rc = t->failed ? -1 : 0;
    if (fclose(t->f))
        rc = -1;
    t->f = NULL;
    rp_timeline_free(t);
    return rc;
}

void rp_timeline_free(struct rp_timeline *t)
{
    if (!t)
        return;
    if (t->f)
        fclose(t->f);
    for (unsigned cu = 0; cu < t->ncus; cu++) {
        free(t->cus[cu].key);
        free(t->cus[cu].open);
        free(t->cus[cu].named);
    }
    free(t->cus);
    free(t->cores);
    free(t->job_open);
    free(t->job_named);
    free(t);
}
