/* Synchronisation as a self-invalidating coherence protocol sees it (seed
 * 002 Sec. 2.1, HRF): which recorded events are acquires and releases, of
 * which scope. One table (replay/coh_sync.c); the cores and compute units
 * ask it at each such event, and issue nothing under a protocol that keeps
 * a directory (cgm_coh_protocol's self_invalidating). */
#ifndef RP_COH_SYNC_H
#define RP_COH_SYNC_H

#include <stdbool.h>
#include <stdint.h>

enum rp_sync_event {
    RP_SYNC_LOCKED,        /* a CPU locked instruction (an atomic read-modify-write) */
    RP_SYNC_FUTEX_WAKE,    /* futex wake: unlock, condition signal, barrier release */
    RP_SYNC_FUTEX_WAIT,    /* futex wait returns: lock, condition wait, barrier, join */
    RP_SYNC_THREAD_CREATE, /* clone of a new thread: the child sees what the parent wrote */
    RP_SYNC_KERNEL_START,  /* a compute unit's first work-group of a kernel */
    RP_SYNC_KERNEL_END,    /* a work-group ends (its kernel ends with its last) */
    RP_SYNC_WG_BARRIER,    /* s_barrier */
    RP_SYNC_L1_INVALIDATE, /* buffer_wbinvl1, buffer_wbinvl1_sc: a device-scope acquire fence */
    RP_SYNC_SCALAR_INVALIDATE, /* s_dcache_inv */
    RP_SYNC_NEVENTS
};

enum rp_sync_scope { RP_SCOPE_NONE, RP_SCOPE_WORK_GROUP, RP_SCOPE_DEVICE, RP_SCOPE_SYSTEM };

struct rp_sync_rule {
    const char *event;     /* as recorded */
    bool release, acquire; /* what it is to the protocol (release first) */
    uint8_t scope;         /* enum rp_sync_scope */
    const char *why;
};

extern const struct rp_sync_rule rp_sync_rules[RP_SYNC_NEVENTS];

/* Whether event e asks anything of the caches: a release or an acquire
 * beyond work-group scope (a work-group's wavefronts share one L1). */
bool rp_sync_acts(enum rp_sync_event e);

#endif
