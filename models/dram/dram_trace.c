/* The DRAM-only driver: a text trace of "ADDRESS READ|WRITE CYCLE" lines
 * (the format DRAMsim3 reads) fed to one controller. Requests enter at
 * their arrival cycle; when a channel's queue is full the trace waits, and
 * the wait counts in the request's latency. The file is read line by line,
 * so memory stays bounded whatever its length. */
#include "cgm/dram.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LINE_MAX_LEN 4096

static int parse_line(char *line, uint64_t *addr, bool *write, uint64_t *cycle, char *why,
                      size_t whylen)
{
    char *save = NULL;
    char *a = strtok_r(line, " \t\r\n", &save);
    char *op = strtok_r(NULL, " \t\r\n", &save);
    char *cy = strtok_r(NULL, " \t\r\n", &save);
    char *extra = strtok_r(NULL, " \t\r\n", &save);
    if (!a || !op || !cy || extra) {
        snprintf(why, whylen, "expected \"ADDRESS READ|WRITE CYCLE\"");
        return -1;
    }
    char *end;
    errno = 0;
    if (a[0] == '-') {
        snprintf(why, whylen, "bad address \"%s\"", a);
        return -1;
    }
    *addr = strtoull(a, &end, 16);
    if (errno || *end || end == a || (end == a + 2 && a[1] == 'x')) {
        snprintf(why, whylen, "bad hexadecimal address \"%s\"", a);
        return -1;
    }
    if (!strcasecmp(op, "READ") || !strcasecmp(op, "R"))
        *write = false;
    else if (!strcasecmp(op, "WRITE") || !strcasecmp(op, "W"))
        *write = true;
    else {
        snprintf(why, whylen, "unknown operation \"%s\" (READ or WRITE)", op);
        return -1;
    }
    errno = 0;
    if (cy[0] == '-') {
        snprintf(why, whylen, "bad cycle \"%s\"", cy);
        return -1;
    }
    *cycle = strtoull(cy, &end, 10);
    if (errno || *end || end == cy || *cycle > (UINT64_MAX >> 8)) {
        snprintf(why, whylen, "bad cycle \"%s\"", cy);
        return -1;
    }
    return 0;
}

int cgm_dram_run_trace(struct cgm_dram *d, FILE *in, const char *name, char *err, size_t errlen)
{
    char line[LINE_MAX_LEN];
    unsigned long lineno = 0;
    uint64_t last_cycle = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(in)) {
            snprintf(err, errlen, "%s:%lu: line longer than %d characters", name, lineno,
                     LINE_MAX_LEN - 2);
            return -1;
        }
        char *p = line + strspn(line, " \t\r\n");
        if (!*p || *p == '#')
            continue;
        uint64_t addr, cycle;
        bool write;
        char why[128];
        if (parse_line(p, &addr, &write, &cycle, why, sizeof why)) {
            snprintf(err, errlen, "%s:%lu: %s", name, lineno, why);
            return -1;
        }
        if (cycle < last_cycle) {
            snprintf(err, errlen, "%s:%lu: cycle %" PRIu64 " is earlier than the previous line's %" PRIu64,
                     name, lineno, cycle, last_cycle);
            return -1;
        }
        last_cycle = cycle;
        if (cgm_dram_now(d) < cycle)
            cgm_dram_skip_idle(d, cycle);
        struct cgm_dram_request r = { .addr = addr, .write = write, .arrival = cycle };
        while (cgm_dram_enqueue(d, &r))
            cgm_dram_tick(d);
    }
    if (ferror(in)) {
        snprintf(err, errlen, "%s: read error: %s", name, strerror(errno));
        return -1;
    }
    while (cgm_dram_pending(d))
        cgm_dram_tick(d);
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: replay --dram-trace FILE [-c CONFIG.ini] [-o STATS.json] [--preset NAME] [--check]\n"
          "\n"
          "Drives the DRAM model alone from lines \"ADDRESS READ|WRITE CYCLE\" (hexadecimal\n"
          "address, arrival in DRAM cycles, non-decreasing). The [dram] section of CONFIG\n"
          "sets the model (preset = DDR3-1600 | DDR4-2400 | GDDR5, timings, geometry,\n"
          "page_policy, queue_size, mapping). --check runs the timing checker on every command\n"
          "(it must see every refresh, so idle stretches are then simulated refresh by refresh).\n",
          out);
}

int cgm_dram_trace_main(int argc, char **argv)
{
    const char *trace = NULL, *config = NULL, *outp = NULL, *preset = "DDR3-1600";
    bool check = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--dram-trace") && i + 1 < argc)
            trace = argv[++i];
        else if (!strcmp(a, "-c") && i + 1 < argc)
            config = argv[++i];
        else if (!strcmp(a, "-o") && i + 1 < argc)
            outp = argv[++i];
        else if (!strcmp(a, "--preset") && i + 1 < argc)
            preset = argv[++i];
        else if (!strcmp(a, "--check"))
            check = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && !trace)
            trace = a;
        else {
            fprintf(stderr, "replay: unexpected argument \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!trace) {
        usage(stderr);
        return 2;
    }
    struct cgm_dram_config cfg;
    char err[512];
    if (cgm_dram_preset(preset, &cfg)) {
        fprintf(stderr, "replay: unknown DRAM preset \"%s\"\n", preset);
        return 2;
    }
    if (config && cgm_dram_config_load(config, &cfg, err, sizeof err)) {
        fprintf(stderr, "replay: %s\n", err);
        return 1;
    }
    struct cgm_dram *d = cgm_dram_create(&cfg, err, sizeof err);
    if (!d) {
        fprintf(stderr, "replay: DRAM configuration: %s\n", err);
        return 1;
    }
    struct cgm_dram_checker *k = NULL;
    if (check) {
        k = cgm_dram_checker_create(&cfg);
        if (!k) {
            fprintf(stderr, "replay: out of memory\n");
            cgm_dram_destroy(d);
            return 1;
        }
        cgm_dram_set_observer(d, cgm_dram_checker_observe, k);
    }
    int status = 0;
    FILE *in = strcmp(trace, "-") ? fopen(trace, "r") : stdin;
    if (!in) {
        fprintf(stderr, "replay: %s: %s\n", trace, strerror(errno));
        status = 1;
    } else {
        if (cgm_dram_run_trace(d, in, trace, err, sizeof err)) {
            fprintf(stderr, "replay: %s\n", err);
            status = 1;
        }
        if (in != stdin)
            fclose(in);
    }
    if (!status && k) {
        cgm_dram_checker_finish(k, cgm_dram_now(d));
        if (cgm_dram_checker_violations(k)) {
            fprintf(stderr, "replay: DRAM timing checker: %llu violations; first: %s\n",
                    (unsigned long long)cgm_dram_checker_violations(k),
                    cgm_dram_checker_first_error(k));
            status = 1;
        }
    }
    if (!status) {
        FILE *out = outp ? fopen(outp, "w") : stdout;
        if (!out) {
            fprintf(stderr, "replay: %s: %s\n", outp, strerror(errno));
            status = 1;
        } else {
            if (cgm_dram_stats_write_json(d, out))
                status = 1;
            if (out != stdout && fclose(out)) {
                fprintf(stderr, "replay: %s: %s\n", outp, strerror(errno));
                status = 1;
            }
        }
    }
    cgm_dram_checker_destroy(k);
    cgm_dram_destroy(d);
    return status;
}
