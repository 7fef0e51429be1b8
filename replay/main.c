/* replay: the timing simulator's command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/coh.h"
#include "cgm/output.h"
#include "cgm/trace.h"
#include "replay/config.h"
#include "replay/dram_trace.h"
#include "replay/list_stats.h"
#include "replay/sim.h"
#include "replay/windows.h"

static void usage(FILE *out)
{
    fputs("usage: replay [-c CONFIG.ini] [--set SECTION.KEY=VALUE]... [-o STATS.json] [-q] [--roi]\n"
          "              [--partial] [--windows N --windows-out FILE] [--kernels-out FILE]\n"
          "              [--timeline FILE.json [--timeline-max-events N] [--timeline-stall N]\n"
          "              [--timeline-window N]] TRACE.cgt\n"
          "       replay --print-config [-c CONFIG.ini] [--set SECTION.KEY=VALUE]...\n"
          "       replay --list-stats [-c CONFIG.ini] [--set ...]... [-o SHAPE.json] [-q] [--roi] TRACE.cgt\n"
          "       replay --dram-trace FILE [-c CONFIG.ini] [--set dram.KEY=VALUE]... [-o STATS.json]\n"
          "              [--check]\n"
          "\n"
          "Simulates a cgmtrace trace cycle by cycle: its x86 threads on out-of-order\n"
          "cores, its GPU work-groups (when it holds any) on Southern Islands compute\n"
          "units, and the memory system (TLBs, L1I/L1D, private L2, L3 slices with the\n"
          "directory; the GPU's vector L1s, L2 banks and hub in the organisation\n"
          "gpu.coherence and gpu.connection choose; ring network, system agent, memory\n"
          "controller, DRAM). The coherence protocol of the CPU's caches and the L3\n"
          "directory is coherence.protocol's, the GPU caches' gpu.protocol's (mesi, the\n"
          "default, is seed 000's MESI; the protocols are listed below).\n"
          "\n"
          "  -c FILE          configuration (INI); without it the built-in system is used\n"
          "                   (4 GHz quad-core, 32 KiB L1s, 256 KiB L2s, 2 MiB L3 slices,\n"
          "                   DDR3-1600 x2); traces/configs/ holds ready ones\n"
          "  --set S.K=V      override one key after the file, e.g. --set cache.l1d.size=64KiB\n"
          "  -o FILE          write the statistics as JSON (- for standard output)\n"
          "  --roi            report the region of interest only (the guest's markers);\n"
          "                   without it the JSON holds the whole run and the region\n"
          "                   under \"roi\" (several regions: \"roi\" adds them up,\n"
          "                   \"regions\" lists them); with --windows, windows of the\n"
          "                   regions only\n"
          "  -q               no text summary on standard output\n"
          "  --partial        replay a trace that was cut short (no index) instead of\n"
          "                   refusing it: each thread up to its last whole chunk; a\n"
          "                   thread whose creation or futex wake was cut off ends\n"
          "                   there, with a warning naming it and what was dropped\n"
          "  --print-config   print the effective configuration (every key, with its\n"
          "                   type, unit, range and default) as INI and exit\n"
          "  --list-stats     build the system for the trace, run nothing, and print the\n"
          "                   path of every statistic its JSON will hold, one per line\n"
          "                   (sweep's metric syntax: caches[core0.l1d].misses); with -o\n"
          "                   also write that JSON with every counter 0; -q: no list.\n"
          "                   \"roi\" is listed as a run with region markers has it\n"
          "  --dram-trace F   run the DRAM model alone (the [dram] keys of the configuration)\n"
          "                   on lines \"ADDRESS READ|WRITE CYCLE\" (hexadecimal address,\n"
          "                   arrival in DRAM cycles, non-decreasing; - for standard input)\n"
          "                   and write its statistics as JSON\n"
          "  --check          with --dram-trace: run the timing checker on every command\n"
          "  --windows N      also write the statistics of every N CPU cycles (each\n"
          "                   counter's change over the window, the last window to the\n"
          "                   end of the run) to the file --windows-out names, one JSON\n"
          "                   object per line, as the run goes\n"
          "  --windows-out F  where --windows writes\n"
          "  --kernels-out F  also write each GPU launch's statistics to F, one JSON\n"
          "                   object per line as the launch ends\n"
          "  --timeline F     also write the run as Chrome trace-event JSON (Perfetto,\n"
          "                   chrome://tracing) as it goes: per core the thread it runs,\n"
          "                   its system calls and memory stalls; per compute unit its\n"
          "                   work-groups; the GPU's kernels, copies and flushes; IPC,\n"
          "                   DRAM bandwidth and ring load per window\n"
          "  --timeline-max-events N  at most N events in it (default 1000000; the rest\n"
          "                   are counted and left out)\n"
          "  --timeline-stall N  memory stalls of N CPU cycles or more (default 100)\n"
          "  --timeline-window N  the counters every N CPU cycles (default 10000)\n"
          "  -h, --help       this text\n"
          "\n"
          "Sizes take B, KiB, MiB, GiB (KB, kB, MB, GB are the same powers of 1024),\n"
          "frequencies Hz, kHz, MHz, GHz; a fraction is read when the value is whole\n"
          "(1.5GHz, 0.5KiB).\n"
          "\n"
          "A progress line (instructions, cycles, rate, time left) goes to standard error\n"
          "when it is a terminal. Exit status: 0 done, 1 bad input or configuration,\n"
          "2 bad usage.\n",
          out);
    fputs("\nCoherence protocols (coherence.protocol, gpu.protocol):\n", out);
    for (unsigned i = 0; i < CGM_COH_NPROTOCOLS; i++)
        fprintf(out, "  %-16s %s\n", cgm_coh_protocols[i]->name, cgm_coh_protocols[i]->summary);
}

/* An option's argument never looks like an option ("-" alone is standard
 * input): "--dram-trace --help" asks for help. */
static bool takes_argument(const char *a)
{
    return !strcmp(a, "-c") || !strcmp(a, "-o") || !strcmp(a, "--set") || !strcmp(a, "--dram-trace") ||
           !strcmp(a, "--windows") || !strcmp(a, "--windows-out") || !strcmp(a, "--kernels-out") ||
           !strncmp(a, "--timeline", 10);
}

static bool looks_like_option(const char *a)
{
    return a[0] == '-' && a[1];
}

/* The JSON output -o names (- for standard output), NULL without -o; false
 * with the reason printed when it cannot be opened. */
static bool open_json(const char *out, FILE **json)
{
    *json = NULL;
    if (!out)
        return true;
    *json = strcmp(out, "-") ? fopen(out, "w") : stdout;
    if (!*json)
        fprintf(stderr, "replay: %s: %s\n", out, strerror(errno));
    return *json != NULL;
}

/* --timeline's numbers (NUM: max events, stall, window; NULL: the
 * default): 0, or -1 with the reason printed. */
static int parse_timeline_options(const char *timeline, const char *const num[3], const char *dram_trace,
                                  struct rp_timeline_options *opt)
{
    static const char *const names[3] = { "--timeline-max-events", "--timeline-stall", "--timeline-window" };
    uint64_t *field[3] = { &opt->max_events, &opt->stall_cycles, &opt->window_cycles };
    for (int k = 0; k < 3; k++) {
        if (!num[k])
            continue;
        if (!timeline || dram_trace) {
            fprintf(stderr, "replay: %s goes with --timeline FILE and a trace\n", names[k]);
            return -1;
        }
        char *end;
        errno = 0;
        *field[k] = strtoull(num[k], &end, 10);
        if (errno || *end || !*field[k] || num[k][0] == '-') {
            fprintf(stderr, "replay: %s %s: not a whole number above 0\n", names[k], num[k]);
            return -1;
        }
    }
    if (timeline && dram_trace) {
        fprintf(stderr, "replay: --timeline goes with a trace, not --dram-trace\n");
        return -1;
    }
    return 0;
}

/* --list-stats: the statistics' paths on standard output (unless QUIET)
 * and, to OUT, their JSON before the run. */
static int list_stats(struct rp_sim *s, const char *out, bool quiet, bool roi_only)
{
    FILE *json;
    if (!open_json(out, &json)) {
        rp_sim_destroy(s);
        return 1;
    }
    int rc = rp_list_stats(s, roi_only, quiet || json == stdout ? NULL : stdout, json);
    if (json && json != stdout && fclose(json))
        rc = -1;
    if (rc)
        fprintf(stderr, "replay: writing the list of statistics failed\n");
    rp_sim_destroy(s);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    cgm_check_stdout_at_exit("replay");
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    const char *config = NULL, *out = NULL, *trace = NULL, *dram_trace = NULL;
    const char *window = NULL, *windows_out = NULL, *kernels_out = NULL;
    const char *timeline = NULL, *timeline_num[3] = { NULL, NULL, NULL };
    bool print = false, quiet = false, partial = false, roi_only = false, check = false, list = false;
    char err[1024];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (takes_argument(argv[i]) && i + 1 < argc && !looks_like_option(argv[i + 1]))
            i++;
    }
    /* The file first, then the overrides, whatever their order. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (takes_argument(a)) {
            if (i + 1 >= argc || looks_like_option(argv[i + 1])) {
                fprintf(stderr, "replay: %s needs an argument\n", a);
                return 2;
            }
            if (!strcmp(a, "-c"))
                config = argv[i + 1];
            else if (!strcmp(a, "-o"))
                out = argv[i + 1];
            else if (!strcmp(a, "--dram-trace"))
                dram_trace = argv[i + 1];
            else if (!strcmp(a, "--windows"))
                window = argv[i + 1];
            else if (!strcmp(a, "--windows-out"))
                windows_out = argv[i + 1];
            else if (!strcmp(a, "--kernels-out"))
                kernels_out = argv[i + 1];
            else if (!strcmp(a, "--timeline"))
                timeline = argv[i + 1];
            else if (!strcmp(a, "--timeline-max-events"))
                timeline_num[0] = argv[i + 1];
            else if (!strcmp(a, "--timeline-stall"))
                timeline_num[1] = argv[i + 1];
            else if (!strcmp(a, "--timeline-window"))
                timeline_num[2] = argv[i + 1];
            else if (!strncmp(a, "--timeline", 10)) {
                fprintf(stderr, "replay: unknown option %s (see --help)\n", a);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--check")) {
            check = true;
        } else if (!strcmp(a, "--print-config")) {
            print = true;
        } else if (!strcmp(a, "--list-stats")) {
            list = true;
        } else if (!strcmp(a, "--roi")) {
            roi_only = true;
        } else if (!strcmp(a, "-q")) {
            quiet = true;
        } else if (!strcmp(a, "--partial")) {
            partial = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "replay: unknown option %s (see --help)\n", a);
            return 2;
        } else if (trace) {
            fprintf(stderr, "replay: more than one trace given (%s, %s)\n", trace, a);
            return 2;
        } else {
            trace = a;
        }
    }
    uint64_t window_cycles = 0;
    if (window || windows_out) {
        char *end = NULL;
        errno = 0;
        if (window)
            window_cycles = strtoull(window, &end, 10);
        if (!window || !windows_out || dram_trace) {
            fprintf(stderr, "replay: --windows N and --windows-out FILE go together, with a trace\n");
            return 2;
        }
        if (errno || *end || !window_cycles || window[0] == '-') {
            fprintf(stderr, "replay: --windows %s: not a number of cycles (a whole number above 0)\n", window);
            return 2;
        }
    }
    struct rp_timeline_options tl_opt = { 0 };
    if (parse_timeline_options(timeline, timeline_num, dram_trace, &tl_opt))
        return 2;
    if (config && rp_config_load(&cfg, config, err, sizeof err)) {
        fprintf(stderr, "replay: %s\n", err);
        return 1;
    }
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--set")) {
            if (rp_config_set(&cfg, argv[i + 1], err, sizeof err)) {
                fprintf(stderr, "replay: %s\n", err);
                return 1;
            }
            i++;
        } else if (takes_argument(argv[i])) {
            i++;
        }
    if (rp_config_check(&cfg, err, sizeof err)) {
        fprintf(stderr, "replay: configuration%s%s: %s\n", config ? " from " : "", config ? config : "", err);
        return 1;
    }
    if (print) {
        rp_config_print(&cfg, stdout);
        return 0;
    }
    if (list && (dram_trace || window_cycles)) {
        fprintf(stderr, "replay: --list-stats goes with a trace, without --dram-trace or --windows\n");
        return 2;
    }
    if (dram_trace) {
        if (trace || roi_only || partial || quiet) {
            fprintf(stderr, "replay: --dram-trace takes no trace, --roi, --partial or -q\n");
            return 2;
        }
        return rp_dram_trace(&cfg.dram, dram_trace, out && strcmp(out, "-") ? out : NULL, check);
    }
    if (check) {
        fprintf(stderr, "replay: --check goes with --dram-trace\n");
        return 2;
    }
    if (!trace) {
        usage(stderr);
        return 2;
    }
    if (!partial) {
        /* A cut-short trace is readable, but timing half a run silently
         * would mislead: replay it only when asked. */
        struct cgm_reader *r = cgm_reader_open(trace, err, sizeof err);
        if (!r) {
            fprintf(stderr, "replay: %s\n", err);
            return 1;
        }
        if (!cgm_reader_complete(r)) {
            fprintf(stderr, "replay: %s: the trace is incomplete: %s; --partial replays what it holds\n",
                    trace, cgm_reader_damage(r));
            cgm_reader_close(r);
            return 1;
        }
        cgm_reader_close(r);
    }
    struct rp_sim *s = rp_sim_create(&cfg, trace, err, sizeof err);
    if (!s) {
        fprintf(stderr, "replay: %s\n", err);
        return 1;
    }
    if (list)
        return list_stats(s, out, quiet, roi_only);
    if (window_cycles && !(s->windows = rp_windows_open(s, window_cycles, windows_out, roi_only, err, sizeof err))) {
        fprintf(stderr, "replay: --windows-out %s\n", err);
        rp_sim_destroy(s);
        return 1;
    }
    if (kernels_out && rp_stats_kernels_out(s, kernels_out, err, sizeof err)) {
        fprintf(stderr, "replay: --kernels-out %s\n", err);
        rp_windows_free(s->windows);
        rp_sim_destroy(s);
        return 1;
    }
    if (timeline && !(s->timeline = rp_timeline_open(s, timeline, &tl_opt, err, sizeof err))) {
        fprintf(stderr, "replay: --timeline %s\n", err);
        rp_windows_free(s->windows);
        rp_sim_destroy(s);
        return 1;
    }
    int rc = rp_sim_run(s, isatty(STDERR_FILENO));
    if (!rc && s->timeline) {
        rc = rp_timeline_finish(s->timeline, s);
        s->timeline = NULL;
        if (rc)
            snprintf(s->error, sizeof s->error, "%s: writing the timeline failed", timeline);
    }
    if (!rc && rp_stats_kernels_close(s)) {
        rc = -1;
        snprintf(s->error, sizeof s->error, "%s: writing the kernels' statistics failed", kernels_out);
    }
    if (!rc && s->windows) {
        rc = rp_windows_finish(s->windows, s);
        s->windows = NULL;
        if (rc)
            snprintf(s->error, sizeof s->error, "%s: writing the window statistics failed", windows_out);
    }
    if (rc) {
        fprintf(stderr, "replay: %s\n", s->error);
        rp_windows_free(s->windows);
        rp_timeline_free(s->timeline);
        s->timeline = NULL;
        rp_sim_destroy(s);
        return 1;
    }
    FILE *json;
    if (!open_json(out, &json)) {
        rp_sim_destroy(s);
        return 1;
    }
    rc = rp_stats_write(s, json, quiet || (json == stdout) ? NULL : stdout, roi_only);
    if (json && json != stdout && fclose(json))
        rc = -1;
    if (rc)
        fprintf(stderr, "replay: writing the statistics failed\n");
    rp_sim_destroy(s);
    return rc ? 1 : 0;
}
