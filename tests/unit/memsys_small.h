/* A small memory system for the tests. Linked into every unit test. */
#ifndef TESTS_UNIT_MEMSYS_SMALL_H
#define TESTS_UNIT_MEMSYS_SMALL_H

#include "cgm/memsys.h"

/* The default system with tiny caches over 1 MiB (16384 blocks) and the
 * DRAM timing checker on: per core 2 x 2 L1 blocks and a 4-set 2-way L2,
 * L3 slices of 8 sets x 4 ways, 4 MSHRs, small write-back queues; misses,
 * evictions and write-backs come quickly. */
struct cgm_memsys_config memsys_small_config(void);

#endif
