/* The DRAM-only driver: a text trace of "ADDRESS READ|WRITE CYCLE" lines
 * (the format DRAMsim3 reads) fed to one controller; replay --dram-trace is
 * its command line. Requests enter at their arrival cycle; when the queue a
 * request needs is full the trace waits, and the wait counts in the
 * request's latency. The file is read line by line, so memory stays bounded
 * whatever its length. */
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
