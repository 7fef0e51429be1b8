/* replay --dram-trace: the DRAM model alone on an address trace. */
#ifndef REPLAY_DRAM_TRACE_H
#define REPLAY_DRAM_TRACE_H

#include <stdbool.h>

#include "cgm/dram.h"

/* Runs TRACE ("-": standard input) through a controller built from cfg and
 * writes its statistics as JSON to OUT (NULL: standard output); with check,
 * through the timing checker too. Returns the process exit status (0, or 1
 * with a message on standard error). */
int rp_dram_trace(const struct cgm_dram_config *cfg, const char *trace, const char *out, bool check);

#endif
