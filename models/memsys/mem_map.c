/* The block-to-controller map (struct mem_map): which memory controller
 * owns each physical block, from the number of controllers and the
 * interleave of the configuration. */
#include "memsys_internal.h"

#include <inttypes.h>
#include <stdio.h>

int memsys_map_init(struct mem_map *mm, const struct cgm_memsys_config *cfg, char *err, size_t errlen)
{
    unsigned n = cfg->mem_controllers;
    uint64_t il = cfg->mem_interleave, blocks = cfg->mem_bytes / cfg->block_bytes;
    *mm = (struct mem_map){ .n = n };
    if (n < 1 || n > 64) {
        snprintf(err, errlen, "memsys: mem_controllers is %u: there must be 1 to 64 memory controllers", n);
        return -1;
    }
    if (il == 0) {
        /* contiguous ranges, the last holding what is left */
        mm->range = (blocks + n - 1) / n;
        if (n > 1 && (n - 1) * mm->range >= blocks) {
            snprintf(err, errlen, "memsys: mem_controllers: %" PRIu64 " blocks of memory cut into %u ranges "
                     "leave the last controller none", blocks, n);
            return -1;
        }
        if (n == 1)
            mm->range = 0;
        return 0;
    }
    if ((il & (il - 1)) || il < cfg->block_bytes) {
        snprintf(err, errlen, "memsys: mem_interleave is %" PRIu64 " bytes: it must be 0 (ranges) or a power "
                 "of two of at least a block (%u bytes)", il, cfg->block_bytes);
        return -1;
    }
    if (il > cfg->mem_bytes / n) {
        snprintf(err, errlen, "memsys: mem_interleave is %" PRIu64 " bytes: %u controllers need runs of at "
                 "most mem_bytes / %u (%" PRIu64 " bytes) to each own some memory", il, n, n,
                 cfg->mem_bytes / n);
        return -1;
    }
    while ((uint64_t)cfg->block_bytes << mm->shift < il)
        mm->shift++;
    return 0;
}

unsigned cgm_memsys_controller_of(const struct cgm_memsys *m, uint64_t addr)
{
    unsigned c = mem_map_controller(&m->topo.map, addr >> m->block_shift);
    return c < m->topo.nmcs ? c : m->topo.nmcs - 1; /* a range past the memory modelled: the last */
}
