/* bench-sweep: a 16-point CPU sweep (L1D 8-64 KiB x L2 128 KiB-1 MiB, one
 * core) over one trace (mmap_churn 256: about a third of a second per
 * point, so the whole benchmark stays under a minute), run by `sweep -j 2`
 * and, as the baseline in the same run, by a shell loop that runs the same
 * points one after another with replay --set. Runs alternate (loop, sweep,
 * sweep, loop); ratio = loop wall time / sweep wall time (2 is the most two
 * cores can give). The two must produce byte-identical statistics.
 * The sweep's own cost per point (spec, hashing, configuration files,
 * process start, rename, table) is measured on the bundled hello-world trace,
 * whose replay takes milliseconds: `sweep -j 1` against the loop, 5
 * alternated pairs, medians; and a rerun with every point done (what
 * resuming costs), also in instructions (valgrind, when installed), which
 * do not drift with the machine's load.
 * A ratio needs the two cores to itself: the 1-minute load average before
 * the run is in the BENCH line, and above 0.5 the ratio is marked as not
 * meaningful (ratio_meaningful=no). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *bin, *build;
static char tmp[] = "/tmp/cgm_bench_sweep_XXXXXX";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd)) {
        fprintf(stderr, "bench-sweep: failed: %s\n", cmd);
        exit(1);
    }
}

static double timed(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    double t = now();
    if (system(cmd)) {
        fprintf(stderr, "bench-sweep: failed: %s\n", cmd);
        exit(1);
    }
    return now() - t;
}

/* The load averages as "1min/5min/15min" in BUF; returns the 1-minute one
 * (-1 if unknown). */
static double loadavg(char *buf, size_t len)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double a = 0, b = 0, c = 0;
    if (!f || fscanf(f, "%lf %lf %lf", &a, &b, &c) != 3)
        a = -1;
    if (f)
        fclose(f);
    snprintf(buf, len, "%.2f/%.2f/%.2f", a, b, c);
    return a;
}

/* Instructions COMMAND executes (valgrind's count, which does not drift
 * with the load), or -1 without valgrind. */
static double instructions(const char *command)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null %s 2>&1 >/dev/null | "
             "sed -n 's/.*I *refs: *//p' | tr -d ,",
             command);
    if (system("command -v valgrind > /dev/null"))
        return -1;
    FILE *p = popen(cmd, "r");
    double n = -1;
    if (!p || fscanf(p, "%lf", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A spec over TRACE and the loop script that runs the same 16 points. */
static void write_inputs(const char *name, const char *trace)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.ini", tmp, name);
    FILE *f = fopen(path, "w");
    fprintf(f, "[sweep]\ntrace = %s\nmetric = cycles\n[base]\ncpu.cores = 1\n[axes]\n"
               "cache.l1d.size = 8KiB..64KiB *2\ncache.l2.size = 128KiB..1MiB *2\n", trace);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s.sh", tmp, name);
    f = fopen(path, "w");
    fprintf(f, "set -e\nmkdir -p \"$1\"\nn=0\nfor l1 in 8KiB 16KiB 32KiB 64KiB; do\n"
               "  for l2 in 128KiB 256KiB 512KiB 1MiB; do\n"
               "    %s/replay -q --set cpu.cores=1 --set cache.l1d.size=$l1 --set cache.l2.size=$l2 -o \"$1/$n.json\" %s\n"
               "    n=$((n + 1))\n  done\ndone\n", bin, trace);
    fclose(f);
}

int main(void)
{
    bin = getenv("CGM_BIN");
    build = getenv("CGM_BUILD");
    const char *root = getenv("CGM_ROOT");
    if (!bin || !build || !root || !mkdtemp(tmp)) {
        fprintf(stderr, "bench-sweep: run through make bench-sweep (CGM_BIN, CGM_BUILD, CGM_ROOT)\n");
        return 1;
    }
    char load0[64], load_end[64], trace[512], hello[512], a[600], b[1300]; /* b: command + spec */
    double load1 = loadavg(load0, sizeof load0);
    snprintf(trace, sizeof trace, "%s/mmap_churn.cgt", tmp);
    sh("%s/tracegen --quiet -o %s -- %s/traces/x86/musl/mmap_churn 256 > /dev/null", bin, trace, build);
    snprintf(hello, sizeof hello, "%s/traces/golden/v1-x86-hello.cgt", root);
    write_inputs("work", trace);
    write_inputs("tiny", hello);

    /* The ratio: loop, sweep, sweep, loop. */
    const char *loop = "sh %s %s", *sweep_j2 = "%s -j 2 -o %s 2> /dev/null";
    char sweep_cmd[600], spec[600], script[600];
    snprintf(sweep_cmd, sizeof sweep_cmd, "%s/sweep", bin);
    snprintf(spec, sizeof spec, "%s/work.ini", tmp);
    snprintf(script, sizeof script, "%s/work.sh", tmp);
    double tl = 0, ts = 0;
    for (int round = 0; round < 4; round++) {
        bool is_loop = round == 0 || round == 3;
        snprintf(a, sizeof a, "%s/%s%d", tmp, is_loop ? "loop" : "sweep", round);
        if (is_loop) {
            tl += timed(loop, script, a);
        } else {
            snprintf(b, sizeof b, "%s %s", sweep_cmd, spec);
            ts += timed(sweep_j2, b, a);
        }
        fprintf(stderr, "bench-sweep: %s %.2f s\n", is_loop ? "loop " : "sweep", is_loop ? tl : ts);
    }
    /* The same statistics either way (point n of the loop is row n of the table). */
    sh("cd %s/sweep1 && n=0 && for f in $(tail -n +2 table.csv | cut -d, -f5); do cmp -s $f %s/loop0/$n.json || "
       "{ echo \"bench-sweep: point $n differs\"; exit 1; }; n=$((n + 1)); done",
       tmp, tmp);
    double ratio = tl / ts;

    /* The sweep's own cost: tiny replays, sweep -j 1 against the loop. */
    snprintf(spec, sizeof spec, "%s/tiny.ini", tmp);
    snprintf(script, sizeof script, "%s/tiny.sh", tmp);
    snprintf(b, sizeof b, "%s %s", sweep_cmd, spec);
    enum { PAIRS = 5 };
    double vl[PAIRS], vs[PAIRS], vr[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        snprintf(a, sizeof a, "%s/tl%d", tmp, i);
        vl[i] = timed(loop, script, a);
        snprintf(a, sizeof a, "%s/ts%d", tmp, i);
        vs[i] = timed("%s -j 1 -o %s 2> /dev/null", b, a);
        vr[i] = timed("%s -j 1 -o %s 2> /dev/null", b, a); /* every point done */
    }
    double overhead_ms = (median(vs, PAIRS) - median(vl, PAIRS)) / 16 * 1e3;
    double resume_ms = median(vr, PAIRS) / 16 * 1e3;
    snprintf(a, sizeof a, "%s/ts0", tmp);
    char rerun[2048];
    snprintf(rerun, sizeof rerun, "%s -j 1 -o %s", b, a);
    double resume_instr = instructions(rerun) / 16;
    loadavg(load_end, sizeof load_end);
    bool meaningful = load1 >= 0 && load1 <= 0.5;
    printf("bench-sweep: 16 points of mmap_churn 256 (L1D x L2, one core): loop %.2f s, sweep -j 2 %.2f s (sums of 2 "
           "runs each)\n",
           tl, ts);
    printf("bench-sweep: hello x16: loop median %.3f s, sweep -j 1 median %.3f s, rerun with all done %.3f s\n",
           median(vl, PAIRS), median(vs, PAIRS), median(vr, PAIRS));
    if (!meaningful)
        printf("bench-sweep: the 1-minute load average was %.2f before the run: other processes shared the two cores, "
               "so the ratio is not meaningful; run it on a quiet machine\n",
               load1);
    printf("BENCH sweep ratio=%.2f ratio_meaningful=%s load_1min=%.2f overhead_ms_per_point=%.2f "
           "resume_ms_per_point=%.2f resume_instr_per_point=%.0f jobs=2 points=16 load_before=%s load_after=%s\n",
           ratio, meaningful ? "yes" : "no", load1, overhead_ms, resume_ms, resume_instr, load0, load_end);
    sh("rm -rf %s", tmp);
    return 0;
}
