/* A memory controller and its DRAM (struct mem_ctrl, cgm/dram.h). Its
 * owner (a system agent) hands it requests for the blocks it owns; the
 * DRAM, a context in the DRAM clock domain, ticks while it has work and
 * hands each request back to the owner when done. */
#include "memsys_internal.h"

#include <stdio.h>

static void dram_done(void *ctx, const struct cgm_dram_request *r, uint64_t done)
{
    struct mem_ctrl *mc = ctx;
    (void)done;
    mc->inflight--;
    mc->answer(mc->owner, r->tag);
}

int memsys_mc_create(struct cgm_memsys *m, struct mem_ctrl *mc, unsigned id, ks_domain *domain,
                     const struct cgm_dram_config *dram, mem_ctrl_answer_fn answer, void *owner, char *err,
                     size_t errlen)
{
    *mc = (struct mem_ctrl){ .m = m, .id = id, .domain = domain, .queue = m->cfg.mc_queue, .answer = answer,
                             .owner = owner };
    ks_ec_init(&mc->ec, "dram", 0);
    mc->dram = cgm_dram_create(dram, err, errlen);
    if (!mc->dram)
        return -1;
    cgm_dram_set_done(mc->dram, dram_done, mc);
    if (m->cfg.check_dram) {
        mc->checker = cgm_dram_checker_create(dram);
        if (!mc->checker) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        cgm_dram_set_observer(mc->dram, cgm_dram_checker_observe, mc->checker);
    }
    return 0;
}

bool memsys_mc_full(const struct mem_ctrl *mc) { return mc->inflight >= mc->queue; }

bool memsys_mc_can_take(const struct mem_ctrl *mc, uint64_t addr, bool write)
{
    return !memsys_mc_full(mc) &&
           cgm_dram_can_enqueue(mc->dram, &(struct cgm_dram_request){ .addr = addr, .write = write });
}

void memsys_mc_take(struct mem_ctrl *mc, uint64_t addr, struct pkt *p)
{
    bool write = p->kind == PK_MEM_WRITE;
    uint64_t dnow = ks_domain_cycle(mc->domain);
    if (!cgm_dram_pending(mc->dram) && cgm_dram_now(mc->dram) < dnow)
        cgm_dram_skip_idle(mc->dram, dnow); /* the DRAM's clock stands still while it sleeps */
    struct cgm_dram_request r = { .addr = addr, .write = write, .arrival = cgm_dram_now(mc->dram), .tag = p };
    cgm_dram_enqueue(mc->dram, &r);
    mc->inflight++;
    if (write)
        mc->st.writes++;
    else
        mc->st.reads++;
    ks_advance(&mc->ec);
}

static void dram_main(void *arg)
{
    struct mem_ctrl *mc = arg;
    struct cgm_memsys *m = mc->m;
    while (!m->stopping) {
        uint64_t seen = ks_ec_count(&mc->ec);
        uint64_t now = ks_cycle();
        if (cgm_dram_now(mc->dram) < now && !cgm_dram_pending(mc->dram))
            cgm_dram_skip_idle(mc->dram, now);
        if (cgm_dram_pending(mc->dram)) {
            cgm_dram_tick(mc->dram);
            ks_pause(1);
        } else {
            ks_await(&mc->ec, seen + 1);
        }
    }
}

int memsys_mc_start(struct mem_ctrl *mc, char *err, size_t errlen)
{
    const char *name = mc->domain == mc->m->gpu_dram_dom ? "gpu-dram" : "dram";
    return memsys_context(mc->m, dram_main, mc, mc->domain, name, mc->id, err, errlen);
}

void memsys_mc_stop(struct mem_ctrl *mc) { ks_advance(&mc->ec); }

void memsys_mc_free(struct mem_ctrl *mc)
{
    cgm_dram_destroy(mc->dram);
    cgm_dram_checker_destroy(mc->checker);
}
