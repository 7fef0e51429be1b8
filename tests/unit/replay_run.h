/* Runs a trace through replay for the tests. Linked into every unit test. */
#ifndef TESTS_UNIT_REPLAY_RUN_H
#define TESTS_UNIT_REPLAY_RUN_H

#include "replay/sim.h"

/* Creates a simulation of TRACE under CFG and runs it to the end, failing
 * the test (with replay's message) if either step fails. Also checks that
 * every cycle of every core either committed or has exactly one stall
 * cause. The caller destroys the result. */
struct rp_sim *replay_run_checked(const char *trace, const struct rp_config *cfg);

#endif
