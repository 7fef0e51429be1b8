/* The text summary reads every statistic it shows by path: over a
 * registry that has them all it prints their values; over one that lacks
 * one (a statistic renamed or never registered) it refuses, naming that
 * path, and prints nothing, rather than showing a 0 for it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/sim.h"

/* The statistics a run without a GPU has that the summary shows, each
 * counter reading VALUES[i] = i + 1; SKIP (a path, or NULL) is left out. */
static struct cgm_stats *registry(uint64_t *values, const char *skip)
{
    static const char *const root[] = { "cycles", "seconds", "instructions", "ipc" };
    static const char *const dram[] = { "reads", "writes", "row_hits", "row_misses", "bandwidth_gbytes_per_s" };
    struct cgm_stats *s = cgm_stats_create();
    assert_non_null(s);
    unsigned k = 0;
    for (unsigned i = 0; i < 4; i++)
        if (!skip || strcmp(skip, root[i]))
            cgm_stat_counter(s, CGM_STATS_ROOT, root[i], &values[k++]);
    cgm_stats_array(s, CGM_STATS_ROOT, "cores");
    cgm_stats_array(s, CGM_STATS_ROOT, "caches");
    cgm_stat d = cgm_stats_object(s, CGM_STATS_ROOT, "dram");
    char path[64];
    for (unsigned i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "dram.%s", dram[i]);
        if (!skip || strcmp(skip, path))
            cgm_stat_counter(s, d, dram[i], &values[k++]);
    }
    assert_false(cgm_stats_failed(s));
    return s;
}

static char *summary(const char *skip, int *rc, char *err, size_t errlen)
{
    uint64_t counters[16];
    for (unsigned i = 0; i < 16; i++)
        counters[i] = 100 + i;
    struct cgm_stats *s = registry(counters, skip);
    uint64_t *v = calloc(cgm_stats_slots(s) + 1, sizeof *v);
    assert_non_null(v);
    cgm_stats_read(s, v);
    struct rp_regions none = { 0 };
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    *rc = rp_stats_text(s, v, &none, false, out, err, errlen);
    fclose(out);
    free(v);
    cgm_stats_destroy(s);
    return buf;
}

static void test_every_statistic_there(void **state)
{
    (void)state;
    char err[256] = "", *text;
    int rc;
    text = summary(NULL, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    /* cycles 100, seconds 101, instructions 102, ipc 103; dram 104.. */
    assert_non_null(strstr(text, "whole run: 100 cycles (101.000000 s simulated), 102 instructions, IPC 103.000"));
    assert_non_null(strstr(text, "dram: 104 reads, 105 writes, row hits 106, row misses 107, 108.000 GB/s"));
    free(text);
}

static void test_missing_statistic_named(void **state)
{
    (void)state;
    static const char *const gone[] = { "ipc", "dram.row_hits", "cycles" };
    for (unsigned i = 0; i < 3; i++) {
        char err[256] = "", *text;
        int rc;
        text = summary(gone[i], &rc, err, sizeof err);
        assert_int_equal(rc, -1);
        char want[128];
        snprintf(want, sizeof want, "statistic %s,", gone[i]);
        assert_non_null(strstr(err, want));
        assert_string_equal(text, ""); /* nothing printed, no 0 in its place */
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_statistic_there),
        cmocka_unit_test(test_missing_statistic_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
