/* Replays a request stream through the DRAM model (models/dram) and prints
 * the figures dramsim3_replay.cc prints for DRAMsim3, with the same front
 * end: one DRAM cycle at a time, the requests whose cycle has come enter in
 * order while the controller takes them (a refused one holds back the
 * rest), then the controller ticks. The timing checker watches every
 * command; a violation fails the run.
 *
 *   dram_replay CONFIG.ini STREAM
 *
 * CONFIG.ini holds [dram] keys (the section header and ';' comments are
 * skipped); STREAM holds "ADDRESS READ|WRITE CYCLE" lines. Read latency
 * runs from the cycle a read entered to its completion; bandwidth is
 * requests of one burst over the span from the first request's cycle to the
 * last completion; row hits are column commands to a row already open. */
#include "cgm/dram.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct request {
    uint64_t addr, cycle;
    bool write;
};

struct totals {
    uint64_t done, reads, read_latency, last_done;
};

static void on_done(void *ctx, const struct cgm_dram_request *r, uint64_t done)
{
    struct totals *t = ctx;
    t->done++;
    t->last_done = done;
    if (!r->write) {
        t->reads++;
        t->read_latency += done - r->arrival;
    }
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "dram_replay: %s: %s\n", what, why);
    exit(2);
}

static void read_config(const char *path, struct cgm_dram_config *cfg)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die(path, "cannot open");
    char line[512], err[256];
    unsigned n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        char *p = line + strspn(line, " \t");
        if (*p == ';' || *p == '[' || *p == '\n' || !*p)
            continue;
        char *eq = strchr(p, '=');
        if (!eq)
            die(path, "a line without '='");
        *eq = 0;
        char *key = strtok(p, " \t"), *value = strtok(eq + 1, " \t\r\n");
        if (!key || !value || cgm_dram_config_set(cfg, key, value, err, sizeof err)) {
            fprintf(stderr, "%s:%u: %s\n", path, n, key && value ? err : "expected KEY = VALUE");
            exit(2);
        }
    }
    fclose(f);
}

static struct request *read_stream(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die(path, "cannot open");
    size_t n = 0, cap = 1024;
    struct request *v = malloc(cap * sizeof *v);
    char op[16];
    unsigned long long a, c;
    int got;
    while (v && (got = fscanf(f, "%llx %15s %llu", &a, op, &c)) == 3) {
        if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof *v)))
            break;
        v[n++] = (struct request){ .addr = a, .cycle = c, .write = !strcmp(op, "WRITE") };
    }
    if (!v)
        die(path, "out of memory");
    if (got != EOF || !n)
        die(path, "expected \"ADDRESS READ|WRITE CYCLE\" lines");
    fclose(f);
    *count = n;
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: dram_replay CONFIG.ini STREAM\n");
        return 2;
    }
    struct cgm_dram_config cfg;
    char err[256];
    cgm_dram_preset("DDR3-1600", &cfg);
    read_config(argv[1], &cfg);
    size_t n;
    struct request *reqs = read_stream(argv[2], &n);
    struct cgm_dram *d = cgm_dram_create(&cfg, err, sizeof err);
    struct cgm_dram_checker *k = cgm_dram_checker_create(&cfg);
    if (!d || !k)
        die(argv[1], d ? "out of memory" : err);
    struct totals t = { 0 };
    cgm_dram_set_done(d, on_done, &t);
    cgm_dram_set_observer(d, cgm_dram_checker_observe, k);
    size_t next = 0;
    while (t.done < n) {
        while (next < n && reqs[next].cycle <= cgm_dram_now(d)) {
            struct cgm_dram_request r = { .addr = reqs[next].addr, .write = reqs[next].write,
                                          .arrival = cgm_dram_now(d) };
            if (cgm_dram_enqueue(d, &r))
                break;
            next++;
        }
        cgm_dram_tick(d);
    }
    cgm_dram_checker_finish(k, cgm_dram_now(d));
    if (cgm_dram_checker_violations(k))
        die("timing checker", cgm_dram_checker_first_error(k));
    const struct cgm_dram_stats *s = cgm_dram_stats(d);
    uint64_t cols = s->row_hits + s->row_misses;
    double span_ns = (double)(t.last_done - reqs[0].cycle) * cfg.t.tck_ns;
    printf("requests %zu reads %" PRIu64 " bandwidth_gbps %.4f avg_read_latency %.3f "
           "row_hit_pct %.3f columns %" PRIu64 " cycles %" PRIu64 " write_drains %" PRIu64 "\n",
           n, t.reads, n * cgm_dram_burst_bytes(&cfg) / span_ns,
           t.reads ? (double)t.read_latency / t.reads : 0.0, cols ? 100.0 * s->row_hits / cols : 0.0,
           cols, t.last_done, s->write_drains);
    cgm_dram_checker_destroy(k);
    cgm_dram_destroy(d);
    free(reqs);
    return 0;
}
