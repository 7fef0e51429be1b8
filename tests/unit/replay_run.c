/* Runs a trace through replay for the tests (replay_run.h). */
#include "replay_run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

struct rp_sim *replay_run_checked(const char *trace, const struct rp_config *cfg)
{
    char err[600];
    struct rp_sim *s = rp_sim_create(cfg, trace, err, sizeof err);
    if (!s)
        print_error("%s\n", err);
    assert_non_null(s);
    int rc = rp_sim_run(s, false);
    if (rc)
        print_error("%s\n", s->error);
    assert_int_equal(rc, 0);
    for (unsigned c = 0; c < cfg->cores; c++) {
        const struct rp_core_stats *st = rp_core_stats(s->cores[c]);
        uint64_t sum = st->commit_cycles;
        for (int k = 0; k < ST_COUNT; k++)
            sum += st->stall[k];
        assert_int_equal(sum, st->cycles);
    }
    return s;
}
