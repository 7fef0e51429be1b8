/* AVX2 gathers in replay, on traces tracegen records of
 * traces/x86/gather_lanes.c:
 * - every lane the mask selects is a load of its own to the memory system:
 *   two runs that differ only in their lane mask differ by N gathers times
 *   the mask's population count in the core's loads and in the memory
 *   system's completed requests (each lane reads its own 64-byte line);
 * - the gather's result waits for all its lanes: in a chain of gathers
 *   (each one's indices computed from the result of the one before) where
 *   one lane reads a line nothing touched before, the chain takes the same
 *   time whichever lane that is, and each gather adds at least the L3's
 *   latency over a chain whose lanes all hit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgm/memsys.h"
#include "replay/sim.h"
#include "tests/unit/replay_run.h"

#define GATHERS 1000

/* Records `gather_lanes MODE ARG GATHERS` into a temporary trace (PATH). */
static void record(char path[64], const char *mode, const char *arg)
{
    const char *bin = getenv("CGM_BIN"), *build = getenv("CGM_BUILD");
    assert_non_null(bin);
    assert_non_null(build);
    snprintf(path, 64, "/tmp/cgm_gather_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "env -i %s/tracegen --quiet -o %s -- %s/traces/x86/musl/gather_lanes %s %s %d",
             bin, path, build, mode, arg, GATHERS);
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        print_error("%s: status %d\n", cmd, st);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

struct outcome {
    uint64_t loads, requests, cycles;
};

static struct outcome run(const char *mode, const char *arg, struct rp_config *cfg_out)
{
    char trace[64];
    record(trace, mode, arg);
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 1;
    struct rp_sim *s = replay_run_checked(trace, &cfg);
    const struct rp_core_stats *st = rp_core_stats(s->cores[0]);
    struct outcome o = { st->loads, cgm_memsys_stats(s->ms)->completed, st->cycles };
    rp_sim_destroy(s);
    unlink(trace);
    if (cfg_out)
        *cfg_out = cfg;
    return o;
}

static unsigned ones(const char *mask)
{
    unsigned n = 0;
    for (; *mask; mask++)
        n += *mask == '1';
    return n;
}

static void test_a_load_per_selected_lane(void **state)
{
    (void)state;
    struct outcome none = run("count", "00000000", NULL);
    static const char *const masks[] = { "10000000", "00000001", "10110001", "11111111" };
    for (size_t i = 0; i < sizeof masks / sizeof *masks; i++) {
        struct outcome o = run("count", masks[i], NULL);
        uint64_t lanes = (uint64_t)GATHERS * ones(masks[i]);
        assert_int_equal(o.loads - none.loads, lanes);
        assert_int_equal(o.requests - none.requests, lanes);
    }
}

static void test_the_result_waits_for_every_lane(void **state)
{
    (void)state;
    struct rp_config cfg;
    struct outcome warm = run("chain", "8", &cfg);
    struct outcome first = run("chain", "0", NULL), last = run("chain", "7", NULL);
    assert_true(first.cycles > warm.cycles && last.cycles > warm.cycles);
    uint64_t extra_first = first.cycles - warm.cycles, extra_last = last.cycles - warm.cycles;
    /* the cold line's miss goes through L1, L2 and L3 to memory */
    assert_true(extra_first >= (uint64_t)GATHERS * cfg.l3.latency);
    assert_true(extra_last >= (uint64_t)GATHERS * cfg.l3.latency);
    uint64_t diff = extra_first > extra_last ? extra_first - extra_last : extra_last - extra_first;
    if (diff * 20 > extra_last)
        print_error("cold lane 0: %llu cycles more than all lanes warm, cold lane 7: %llu\n",
                    (unsigned long long)extra_first, (unsigned long long)extra_last);
    assert_true(diff * 20 <= extra_last);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_load_per_selected_lane),
        cmocka_unit_test(test_the_result_waits_for_every_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
