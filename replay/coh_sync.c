/* The recorded events that are synchronisations to a self-invalidating
 * protocol (replay/coh_sync.h). CPU side: the paper's pthread primitives
 * flush the private caches (seed 002 footnote 2): every futex operation,
 * thread creation and locked instruction is a release of what the thread
 * wrote before and an acquire of what others released. GPU side: HRF's
 * scopes over SI's instructions and the kernel boundaries. */
#include "replay/coh_sync.h"

const struct rp_sync_rule rp_sync_rules[RP_SYNC_NEVENTS] = {
    [RP_SYNC_LOCKED] = { "x86 lock-prefixed or xchg", true, true, RP_SCOPE_SYSTEM,
                         "a lock's read-modify-write: release and acquire" },
    [RP_SYNC_FUTEX_WAKE] = { "futex wake", true, false, RP_SCOPE_SYSTEM, "unlock, signal: a release" },
    [RP_SYNC_FUTEX_WAIT] = { "futex wait", false, true, RP_SCOPE_SYSTEM, "woken: an acquire" },
    [RP_SYNC_THREAD_CREATE] = { "thread create", true, false, RP_SCOPE_SYSTEM,
                                "the parent releases (the child starts with nothing cached)" },
    [RP_SYNC_KERNEL_START] = { "kernel start", false, true, RP_SCOPE_SYSTEM,
                               "the kernel sees what the host released: the CU's L1 and the GPU L2's shared blocks" },
    [RP_SYNC_KERNEL_END] = { "work-group end", true, false, RP_SCOPE_SYSTEM,
                             "the kernel's writes reach the L3 by its end: the CU's write buffer drains" },
    [RP_SYNC_WG_BARRIER] = { "s_barrier", true, true, RP_SCOPE_WORK_GROUP,
                             "work-group scope: its wavefronts share the CU's L1, nothing to do" },
    [RP_SYNC_L1_INVALIDATE] = { "buffer_wbinvl1", false, true, RP_SCOPE_DEVICE,
                                "device-scope acquire: the CU's L1 self-invalidates" },
    [RP_SYNC_SCALAR_INVALIDATE] = { "s_dcache_inv", false, true, RP_SCOPE_WORK_GROUP,
                                    "the scalar cache (read-only, every access a hit here): nothing to do" },
};

bool rp_sync_acts(enum rp_sync_event e)
{
    const struct rp_sync_rule *r = &rp_sync_rules[e];
    return (r->release || r->acquire) && r->scope > RP_SCOPE_WORK_GROUP;
}
