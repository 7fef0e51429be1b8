/* A plain timed memory behind the compute units' port: every vector request
 * crosses one channel of B bytes per GPU cycle, first come first served,
 * then takes a fixed latency; scalar loads take their own fixed latency and
 * no bandwidth (a scalar cache that always hits, as the seed's). Nothing is
 * cached and nothing is refused. Its completion times are known when a
 * request arrives, so it answers at once (with a cycle in the future) and
 * needs no context: the analytical tests' memory, and a configuration
 * choice (gpu.memory = ideal). */
#ifndef REPLAY_GPU_IDEAL_MEM_H
#define REPLAY_GPU_IDEAL_MEM_H

#include <stdint.h>

#include "cgm/gpu_request.h"
#include "cgm/knightsim.h"

struct rp_ideal_mem {
    const ks_domain *gpu;          /* requests arrive at its present cycle */
    uint64_t latency, scalar_latency, bytes_per_cycle;
    uint64_t busy_until;           /* channel time, in bytes: cycle * bytes_per_cycle */
    cgm_gpu_done_fn done;
    void *done_ctx;
    /* statistics */
    uint64_t requests, scalar_requests, bytes, queued_cycles;
};

void rp_ideal_mem_init(struct rp_ideal_mem *m, const ks_domain *gpu, uint64_t latency,
                       uint64_t scalar_latency, uint64_t bytes_per_cycle, cgm_gpu_done_fn done,
                       void *done_ctx);
/* The port the compute units use. */
struct cgm_gpu_mem_port rp_ideal_mem_port(struct rp_ideal_mem *m);

#endif
