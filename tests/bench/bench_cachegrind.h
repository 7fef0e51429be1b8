/* Host instructions of one run of the calling benchmark under cachegrind: a
 * deterministic figure, unlike the host time, that benchmarks report beside
 * their timed ratios. Header-only: each benchmark is one program. */
#ifndef CGM_BENCH_CACHEGRIND_H
#define CGM_BENCH_CACHEGRIND_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs this very program under cachegrind with `env` (shell assignments,
 * "NAME=value ...") in front of it and returns the instructions counted
 * (valgrind's "I refs" line); -1 if it could not be run or failed. */
static double bench_cachegrind_self(const char *env)
{
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    char log[] = "/tmp/cgm-bench-cachegrind-XXXXXX";
    int fd = k > 0 ? mkstemp(log) : -1;
    if (fd < 0)
        return -1;
    close(fd);
    self[k] = 0;
    char cmd[8400];
    snprintf(cmd, sizeof cmd,
             "%s valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "
             "--log-file=%s '%s' >/dev/null 2>&1",
             env, log, self);
    int rc = system(cmd);
    double instr = -1;
    FILE *f = fopen(log, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *at = strstr(line, "I   refs:");
        if (!at)
            continue;
        double v = 0; /* digits with thousands separators */
        for (char *c = at + 9; *c && *c != '\n'; c++)
            if (*c >= '0' && *c <= '9')
                v = v * 10 + (*c - '0');
        instr = v;
    }
    if (f)
        fclose(f);
    unlink(log);
    return rc == 0 ? instr : -1;
}

#endif
