/* The plain timed memory (replay/gpu/ideal_mem.h). */
#include "replay/gpu/ideal_mem.h"

void rp_ideal_mem_init(struct rp_ideal_mem *m, const ks_domain *gpu, uint64_t latency,
                       uint64_t scalar_latency, uint64_t bytes_per_cycle, cgm_gpu_done_fn done,
                       void *done_ctx)
{
    *m = (struct rp_ideal_mem){ .gpu = gpu, .latency = latency, .scalar_latency = scalar_latency,
                                .bytes_per_cycle = bytes_per_cycle ? bytes_per_cycle : 1,
                                .done = done, .done_ctx = done_ctx };
}

/* A request arriving at cycle NOW is done at: scalar loads NOW + the scalar
 * latency; vector requests when the channel has moved their bytes (after
 * those ahead of them), rounded up to a whole cycle, plus the latency. */
static bool ideal_access(void *ctx, const struct cgm_gpu_request *r)
{
    struct rp_ideal_mem *m = ctx;
    uint64_t now = ks_domain_cycle(m->gpu), done;
    if (r->op == CGM_GPU_SCALAR_LOAD) {
        m->scalar_requests++;
        done = now + m->scalar_latency;
    } else {
        uint64_t start = now * m->bytes_per_cycle;
        if (m->busy_until > start) {
            m->queued_cycles += (m->busy_until - start) / m->bytes_per_cycle;
            start = m->busy_until;
        }
        m->busy_until = start + r->bytes;
        m->requests++;
        m->bytes += r->bytes;
        done = (m->busy_until + m->bytes_per_cycle - 1) / m->bytes_per_cycle + m->latency;
    }
    m->done(m->done_ctx, r, 0, done);
    return true;
}

struct cgm_gpu_mem_port rp_ideal_mem_port(struct rp_ideal_mem *m)
{
    return (struct cgm_gpu_mem_port){ .ctx = m, .access = ideal_access };
}
