/* sweep: many replay configurations over recorded traces, locally or on
 * Slurm, into one table; `sweep plot` draws it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/check.h"
#include "sweep/metric.h"
#include "sweep/plan.h"
#include "sweep/plot.h"
#include "sweep/results.h"
#include "sweep/run.h"
#include "sweep/slurm.h"
#include "sweep/util.h"

static const char *const default_metrics[] = { "cycles", "instructions", "ipc" };

static void usage(FILE *out)
{
    fputs("usage: sweep SPEC.ini [-o DIR] [-j N] [--metric PATH]... [--dry-run] [--rerun]\n"
          "                  [--timeout S] [-v]\n"
          "       sweep SPEC.ini --slurm [--partition P] [--time T] [--mem M] [--max-running N]\n"
          "                      [--sbatch-arg ARG]... [--wait] [-o DIR] [--metric PATH]...\n"
          "       sweep collect SPEC.ini [-o DIR] [--metric PATH]...\n"
          "       sweep plot TABLE.csv --metric COLUMN --x AXIS [--lines AXIS] ... (sweep plot --help)\n"
          "       sweep windows SPEC.ini [-o DIR] [--metric PATH]... (the points' windows)\n"
          "       sweep windows WINDOWS.jsonl --metric PATH... [-o TABLE.csv] (replay --windows)\n"
          "\n"
          "Replays every point of SPEC (traces x base configuration x axes, see\n"
          "sweep/README.md) with bin/replay, one process per point, and writes one\n"
          "statistics file per point and the table DIR/table.csv: a column per axis\n"
          "and per metric, then the point's status and result file.\n"
          "\n"
          "  -o DIR           results folder (default: SPEC's name + .sweep, here)\n"
          "  -j N, -jN        points run at once (default: the number of cores)\n"
          "  --metric PATH    a table column from the statistics JSON, e.g. cycles,\n"
          "                   dram.reads, caches[core0.l1d].miss_rate,\n"
          "                   l2_miss = sum(caches[l2].misses)/sum(caches[l2].accesses)\n"
          "                   (NAME = PATH names the column); repeat for more;\n"
          "                   replaces the spec's metric lines (default: cycles,\n"
          "                   instructions, ipc)\n"
          "  --dry-run        list the points with their keys and status; run nothing.\n"
          "                   Exit status 1 when a trace cannot be read or a metric\n"
          "                   is in no point's statistics\n"
          "  --rerun          run points again even if they have results\n"
          "  -v               a line per finished point\n"
          "  --timeout S      stop a point that runs longer than S seconds (SIGKILL)\n"
          "                   and report it failed; the others go on\n"
          "  --replay PATH    the replay program (default: the one beside sweep)\n"
          "  --slurm          submit the points without results as one Slurm job array\n"
          "                   (sbatch --array, one task per point) instead of running them\n"
          "  --partition P, --time T, --mem M    the job's #SBATCH options\n"
          "  --max-running N  at most N tasks of the array at once (--array=...%N)\n"
          "  --sbatch-arg A   one more argument for sbatch (repeat for more)\n"
          "  --wait           wait for the job to end (sbatch --wait), then write the table\n"
          "  -h, --help       this text\n"
          "\n"
          "A spec whose [sweep] section has `windows = N` makes each point also write\n"
          "its statistics every N CPU cycles (replay --windows N) into\n"
          "DIR/points/KEY.windows.jsonl; a point is done when it has both files, and\n"
          "N is part of its key. `sweep windows SPEC.ini` tabulates them across the\n"
          "points (DIR/windows.csv; see sweep windows --help).\n"
          "\n"
          "Before any point runs, every metric is checked against the statistics the\n"
          "points will report (replay --list-stats on their traces and\n"
          "configurations): a metric none of them has stops the sweep, naming it and\n"
          "what is there. A metric that no result has after the run leaves its\n"
          "column empty; the table is written and the exit status is 1.\n"
          "\n"
          "Results are keyed by a hash of the trace's bytes, the effective\n"
          "configuration and the replay program's bytes: a rerun skips the points\n"
          "already done, so an interrupted sweep resumes, and a rebuilt replay runs\n"
          "them again. A point that fails is reported with its configuration and\n"
          "replay's message (DIR/points/KEY.err) and does not stop the others.\n"
          "`sweep collect` writes the table from whatever results DIR holds (after a\n"
          "Slurm job, or with other metrics). A progress line goes to standard error\n"
          "when it is a terminal. Exit status: 0 every point done, 1 some point\n"
          "failed or not run or bad input, 2 bad usage, 130 interrupted.\n",
          out);
}

static void collect_usage(FILE *out)
{
    fputs("usage: sweep collect SPEC.ini [-o DIR] [--metric PATH]... [--replay PATH]\n"
          "\n"
          "Writes DIR/table.csv from the results in DIR (from a local run or a Slurm job)\n"
          "and reports the points that failed (with their configuration and replay's\n"
          "message) or have not run yet. The table is the one a local run writes.\n"
          "\n"
          "  -o DIR         results folder (default: SPEC's name + .sweep, here)\n"
          "  --metric PATH  a table column (see sweep --help); replaces the spec's\n"
          "  --replay PATH  the replay program the sweep ran (default: the one beside\n"
          "                 sweep): results are keyed by its bytes\n"
          "  -h, --help     this text\n"
          "\n"
          "Exit status: 0 every point done, 1 some point failed or missing or bad\n"
          "input, 2 bad usage.\n",
          out);
}

enum mode { MODE_RUN, MODE_COLLECT, MODE_WINDOWS };

struct options {
    const char *spec, *dir, *replay;
    char **metrics;
    size_t nmetrics;
    int jobs;
    double timeout;
    bool dry_run, rerun, verbose, slurm;
    struct sweep_slurm_opts so;
    char **extra;
};

static char *default_dir(const char *spec)
{
    const char *base = strrchr(spec, '/');
    base = base ? base + 1 : spec;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".ini"))
        n -= 4;
    return xasprintf("%.*s.sweep", (int)n, base);
}

/* The replay built with this sweep: the same folder, else PATH's. */
static char *default_replay(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            char *path = xasprintf("%s/replay", self);
            if (!access(path, X_OK))
                return path;
            free(path);
        }
    }
    return xstrdup("replay");
}

static int need(int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "sweep: %s needs an argument\n", argv[i]);
        return -1;
    }
    return 0;
}

static int add_metric(struct options *o, const char *text)
{
    char err[512];
    struct sweep_metric *m = sweep_metric_parse(text, err, sizeof err);
    if (!m) {
        fprintf(stderr, "sweep: --metric: %s\n", err);
        return -1;
    }
    sweep_metric_free(m);
    o->metrics = xrealloc(o->metrics, (o->nmetrics + 1) * sizeof *o->metrics);
    o->metrics[o->nmetrics++] = (char *)text;
    return 0;
}

static int set_jobs(struct options *o, const char *v)
{
    char *end;
    long j = strtol(v, &end, 10);
    if (*end || end == v || j < 1 || j > 1024) {
        fprintf(stderr, "sweep: -j %s: expected a number of processes from 1 to 1024\n", v);
        return -1;
    }
    o->jobs = (int)j;
    return 0;
}

/* Returns 0, or the exit status for a usage error (2) or --help (-1). */
static int parse_args(int argc, char **argv, enum mode mode, struct options *o)
{
    bool collect = mode != MODE_RUN;
    const char *cmd = mode == MODE_WINDOWS ? "sweep windows" : "sweep collect";
    for (int i = 1 + collect; i < argc; i++) {
        const char *a = argv[i];
        const char *jobs = !strncmp(a, "-j", 2) && a[2] ? a + 2 : NULL; /* -j2 is -j 2 */
        if (jobs && !collect) {
            if (set_jobs(o, jobs))
                return 2;
            continue;
        }
        bool arg = !strcmp(a, "-o") || !strcmp(a, "-j") || !strcmp(a, "--metric") || !strcmp(a, "--replay") ||
                   !strcmp(a, "--partition") || !strcmp(a, "--time") || !strcmp(a, "--mem") ||
                   !strcmp(a, "--max-running") || !strcmp(a, "--sbatch-arg") || !strcmp(a, "--timeout");
        bool run_only = strcmp(a, "-o") && strcmp(a, "--metric") && strcmp(a, "--replay") && strcmp(a, "-h") &&
                        strcmp(a, "--help");
        if (collect && a[0] == '-' && run_only) {
            fprintf(stderr, "%s: unknown option %s (see %s --help)\n", cmd, a, cmd);
            return 2;
        }
        if (arg && need(argc, argv, i))
            return 2;
        const char *v = arg ? argv[++i] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            return -1;
        } else if (!strcmp(a, "-o")) {
            o->dir = v;
        } else if (!strcmp(a, "-j")) {
            if (set_jobs(o, v))
                return 2;
        } else if (!strcmp(a, "--timeout")) {
            char *end;
            o->timeout = strtod(v, &end);
            if (*end || !(o->timeout > 0 && o->timeout <= 1e7)) {
                fprintf(stderr, "sweep: --timeout %s: expected seconds, more than 0\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--metric")) {
            if (add_metric(o, v))
                return 2;
        } else if (!strcmp(a, "--replay")) {
            o->replay = v;
        } else if (!strcmp(a, "--partition")) {
            o->so.partition = v;
        } else if (!strcmp(a, "--time")) {
            o->so.time = v;
        } else if (!strcmp(a, "--mem")) {
            o->so.mem = v;
        } else if (!strcmp(a, "--max-running")) {
            o->so.max_running = atoi(v);
            if (o->so.max_running < 1) {
                fprintf(stderr, "sweep: --max-running %s: expected a positive number\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--sbatch-arg")) {
            o->extra = xrealloc(o->extra, (o->so.nextra + 1) * sizeof *o->extra);
            o->extra[o->so.nextra++] = (char *)v;
        } else if (!strcmp(a, "--dry-run")) {
            o->dry_run = true;
        } else if (!strcmp(a, "--rerun")) {
            o->rerun = true;
        } else if (!strcmp(a, "-v")) {
            o->verbose = true;
        } else if (!strcmp(a, "--slurm")) {
            o->slurm = true;
        } else if (!strcmp(a, "--wait")) {
            o->so.wait = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "sweep: unknown option %s (see --help)\n", a);
            return 2;
        } else if (o->spec) {
            fprintf(stderr, "sweep: more than one spec given (%s, %s)\n", o->spec, a);
            return 2;
        } else {
            o->spec = a;
        }
    }
    if (!o->spec) {
        fprintf(stderr, "sweep: no spec given (see %s)\n", mode == MODE_WINDOWS ? "sweep windows --help"
                                                             : collect ? "sweep collect --help" : "--help");
        return 2;
    }
    bool slurm_opts = o->so.partition || o->so.time || o->so.mem || o->so.max_running || o->so.nextra || o->so.wait;
    if (slurm_opts && !o->slurm) {
        fprintf(stderr, "sweep: --partition, --time, --mem, --max-running, --sbatch-arg and --wait go with --slurm\n");
        return 2;
    }
    return 0;
}

static void dry_run(const struct sweep_plan *p, const char *dir)
{
    const struct sweep_spec *s = p->spec;
    printf("%s: %zu point%s", s->file, p->npoints, p->npoints == 1 ? "" : "s");
    for (size_t a = 0; a < s->naxes; a++)
        printf("%s%s (%zu)", a ? " x " : " = ", s->axes[a].name, s->axes[a].nvalues);
    if (s->windows)
        printf("; each with its windows of %llu CPU cycles", s->windows);
    printf("; results in %s\n", dir);
    for (size_t t = 0; t < p->ntraces; t++)
        if (p->traces[t].error)
            printf("trace %s\n", p->traces[t].error); /* the error names the file */
        else
            printf("trace %s: %s\n", p->traces[t].path, p->traces[t].hash);
    size_t *width = xcalloc(s->naxes + 1, sizeof *width);
    for (size_t a = 0; a < s->naxes; a++) {
        width[a] = strlen(s->axes[a].name);
        for (size_t v = 0; v < s->axes[a].nvalues; v++)
            if (strlen(s->axes[a].values[v].label) > width[a])
                width[a] = strlen(s->axes[a].values[v].label);
    }
    printf("%5s", "point");
    for (size_t a = 0; a < s->naxes; a++)
        printf("  %-*s", (int)width[a], s->axes[a].name);
    printf("  %-8s  key\n", "status");
    for (size_t i = 0; i < p->npoints; i++) {
        printf("%5zu", i);
        for (size_t a = 0; a < s->naxes; a++)
            printf("  %-*s", (int)width[a], sweep_plan_label(p, i, a));
        printf("  %-8s  %s\n", sweep_status_name(sweep_result_status(p, i, dir)),
               p->points[i].key[0] ? p->points[i].key : "-");
    }
    free(width);
}

/* --dry-run with a trace that cannot be read: each named, exit status 1
 * (a run would stop on them). */
static int missing_traces(const struct sweep_plan *p)
{
    size_t missing = 0;
    for (size_t t = 0; t < p->ntraces; t++)
        if (p->traces[t].error) {
            fprintf(stderr, "sweep: %s:%d: trace %s\n", p->spec->file, p->traces[t].line, p->traces[t].error);
            missing++;
        }
    if (missing)
        fprintf(stderr, "sweep: --dry-run: %zu trace%s cannot be read\n", missing, missing == 1 ? "" : "s");
    return missing ? 1 : 0;
}

/* Hashes the bytes of the replay program NAME (a path, or a name looked up
 * in PATH as posix_spawnp does): results belong to the simulator that made
 * them, so a rebuilt replay runs every point again. */
static int hash_program(const char *name, char out[SWEEP_KEY_LEN + 1], char *err, size_t errlen)
{
    if (strchr(name, '/'))
        return sweep_hash_file(name, out, err, errlen);
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : ""; *dir;) {
        size_t n = strcspn(dir, ":");
        char *full = xasprintf("%.*s/%s", (int)n, n ? dir : ".", name);
        int found = !access(full, X_OK);
        int rc = found ? sweep_hash_file(full, out, err, errlen) : 0;
        free(full);
        if (found)
            return rc;
        dir += n + (dir[n] == ':');
    }
    snprintf(err, errlen, "%s: not found in PATH", name);
    return -1;
}

static int run_main(int argc, char **argv, enum mode mode)
{
    struct options o = { .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .so = { .sbatch = "sbatch" } };
    int rc = parse_args(argc, argv, mode, &o);
    if (rc) {
        if (rc < 0)
            (mode == MODE_COLLECT ? collect_usage : mode == MODE_WINDOWS ? sweep_windows_usage : usage)(stdout);
        free(o.metrics);
        free(o.extra);
        return rc < 0 ? 0 : rc;
    }
    if (o.jobs < 1)
        o.jobs = 1;
    char *dir = o.dir ? xstrdup(o.dir) : default_dir(o.spec);
    char *replay = o.replay ? xstrdup(o.replay) : default_replay();
    char err[2048];
    struct sweep_spec spec;
    struct sweep_plan plan;
    if (sweep_spec_load(&spec, o.spec, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        rc = 1;
        goto out;
    }
    char program_hash[SWEEP_KEY_LEN + 1];
    if (hash_program(replay, program_hash, err, sizeof err)) {
        fprintf(stderr, "sweep: the replay program: %s\n", err);
        sweep_spec_free(&spec);
        rc = 1;
        goto out;
    }
    if (sweep_plan_build(&plan, &spec, program_hash, o.dry_run, err, sizeof err)) {
        fprintf(stderr, "sweep: %s\n", err);
        sweep_spec_free(&spec);
        rc = 1;
        goto out;
    }
    char *const *metrics = o.nmetrics ? o.metrics : spec.nmetrics ? spec.metrics : (char *const *)default_metrics;
    size_t nmetrics = o.nmetrics ? o.nmetrics : spec.nmetrics ? spec.nmetrics : 3;
    /* Before anything runs: every metric against the statistics the points
     * will report. */
    if (mode == MODE_RUN) {
        char *const *wm = spec.nwindow_metrics ? spec.window_metrics : (char *const *)default_metrics;
        size_t nwm = spec.nwindow_metrics ? spec.nwindow_metrics : 3;
        if (sweep_check_metrics(&plan, replay, metrics, nmetrics, wm, nwm, stderr, err, sizeof err)) {
            if (o.dry_run)
                dry_run(&plan, dir);
            fprintf(stderr, "sweep: %s\n", err);
            rc = 1;
            goto done;
        }
    }
    if (mode == MODE_WINDOWS) {
        char *const *wm = o.nmetrics          ? o.metrics
                          : spec.nwindow_metrics ? spec.window_metrics
                                                 : (char *const *)default_metrics;
        size_t nwm = o.nmetrics ? o.nmetrics : spec.nwindow_metrics ? spec.nwindow_metrics : 3;
        int t = sweep_windows_table(&plan, dir, wm, nwm, stderr, err, sizeof err);
        if (t < 0)
            fprintf(stderr, "sweep windows: %s\n", err);
        rc = t ? 1 : 0;
    } else if (o.dry_run) {
        dry_run(&plan, dir);
        rc = missing_traces(&plan);
    } else {
        int run = 0;
        if (mode == MODE_COLLECT) {
            run = 0;
        } else if (o.slurm) {
            o.so.dir = dir;
            o.so.replay = replay;
            o.so.extra = o.extra;
            o.so.rerun = o.rerun;
            run = sweep_slurm_submit(&plan, &o.so, err, sizeof err);
        } else {
            struct sweep_run_opts ro = { .dir = dir, .replay = replay, .jobs = o.jobs, .rerun = o.rerun,
                                         .progress = isatty(STDERR_FILENO), .verbose = o.verbose,
                                         .timeout = o.timeout };
            run = sweep_run_local(&plan, &ro, err, sizeof err);
        }
        if (run < 0) {
            fprintf(stderr, "sweep: %s\n", err);
            rc = 1;
        } else if (o.slurm && !o.so.wait) {
            rc = 0; /* the job runs on; collect writes the table */
        } else {
            int t = sweep_table_write(&plan, dir, metrics, nmetrics, stderr, err, sizeof err);
            if (t < 0)
                fprintf(stderr, "sweep: %s\n", err);
            rc = run == 130 ? 130 : t != 0 ? 1 : 0;
        }
    }
done:
    sweep_plan_free(&plan);
    sweep_spec_free(&spec);
out:
    free(dir);
    free(replay);
    free(o.metrics);
    free(o.extra);
    return rc;
}

/* `sweep windows` names a spec (a file ending in .ini, not an option's
 * value) or a windows file. */
static bool names_spec(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        size_t n = strlen(a);
        if (!strcmp(a, "-o") || !strcmp(a, "--metric") || !strcmp(a, "--replay"))
            i++;
        else if (a[0] != '-' && n > 4 && !strcmp(a + n - 4, ".ini"))
            return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "plot"))
        return sweep_plot_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "windows"))
        return names_spec(argc, argv) ? run_main(argc, argv, MODE_WINDOWS) : sweep_windows_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "collect"))
        return run_main(argc, argv, MODE_COLLECT);
    if (argc > 1 && !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    return run_main(argc, argv, MODE_RUN);
}
