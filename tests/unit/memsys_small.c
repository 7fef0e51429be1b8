#include "tests/unit/memsys_small.h"

struct cgm_memsys_config memsys_small_config(void)
{
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.coh.l1_sets = 2;
    c.coh.l1_ways = 2;
    c.coh.l2_sets = 4;
    c.coh.l2_ways = 2;
    c.coh.l1_wb_entries = 1;
    c.coh.l3_sets = 8;
    c.coh.l3_ways = 4;
    c.coh.mshr = 4;
    c.coh.coalesce = 4;
    c.coh.wb_entries = 2;
    c.coh.l3_wb_entries = 4;
    c.mem_bytes = 1 << 20;
    c.check_dram = true;
    return c;
}
