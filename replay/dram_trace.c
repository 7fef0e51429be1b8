/* replay --dram-trace: the command line around the DRAM model's trace driver
 * (cgm_dram_run_trace). */
#include "replay/dram_trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Fails the run if the checker saw a violation. */
static int checked(struct cgm_dram_checker *k, const struct cgm_dram *d)
{
    cgm_dram_checker_finish(k, cgm_dram_now(d));
    if (!cgm_dram_checker_violations(k))
        return 0;
    fprintf(stderr, "replay: DRAM timing checker: %llu violations; first: %s\n",
            (unsigned long long)cgm_dram_checker_violations(k), cgm_dram_checker_first_error(k));
    return 1;
}

static int write_stats(const struct cgm_dram *d, const char *path)
{
    FILE *out = path ? fopen(path, "w") : stdout;
    if (!out) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    int status = cgm_dram_stats_write_json(d, out) ? 1 : 0;
    if (out != stdout && fclose(out)) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        status = 1;
    }
    return status;
}

int rp_dram_trace(const struct cgm_dram_config *cfg, const char *trace, const char *out, bool check)
{
    char err[512];
    struct cgm_dram *d = cgm_dram_create(cfg, err, sizeof err);
    if (!d) {
        fprintf(stderr, "replay: DRAM configuration: %s\n", err);
        return 1;
    }
    struct cgm_dram_checker *k = NULL;
    if (check) {
        k = cgm_dram_checker_create(cfg);
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
    if (!status && k)
        status = checked(k, d);
    if (!status)
        status = write_stats(d, out);
    cgm_dram_checker_destroy(k);
    cgm_dram_destroy(d);
    return status;
}
