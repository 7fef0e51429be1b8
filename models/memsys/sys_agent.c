/* A system agent (struct sys_agent, seed 000 Sec. 3.2.5): the ring
 * endpoint of one memory controller. A memory request from the ring waits
 * sa_latency system cycles, then for room at the controller; the answer
 * goes back to its sender on the reply lane. A context in the system
 * domain.
 *
 * A discrete GPU's memory agent is the same object in front of the GPU's
 * own controller: a context in the GPU domain, off the ring, taking the
 * requests its banks' hubs carried down and sending each answer up the
 * hub it came down. */
#include "memsys_internal.h"

/* The controller is done with p: back to the endpoint that sent it. */
static void answer(void *owner, struct pkt *p)
{
    struct sys_agent *sa = owner;
    struct cgm_memsys *m = sa->m;
    p->kind = p->kind == PK_MEM_READ ? PK_MEM_READ_DONE : PK_MEM_WRITE_DONE;
    p->p.dst = p->p.src;
    p->p.src = sa->ep;
    p->p.bytes = m->cfg.header_bytes + (p->kind == PK_MEM_READ_DONE ? m->cfg.block_bytes : 0);
    p->p.lane = CGM_LANE_REPLY;
    p->due = 0;
    memsys_push(&sa->tx, p);
    ks_advance(&sa->ec);
}

bool memsys_sa_receive(struct sys_agent *sa, struct pkt *p)
{
    struct cgm_memsys *m = sa->m;
    if (sa->rx.n >= m->cfg.rx_queue)
        return false;
    p->due = ks_domain_cycle(sa->domain) + sa->latency;
    memsys_push(&sa->rx, p);
    ks_advance(&sa->ec);
    return true;
}

bool memsys_sa_has_room(const struct sys_agent *sa) { return sa->rx.n < sa->m->cfg.rx_queue; }

void memsys_sa_receive_at(struct sys_agent *sa, struct pkt *p, uint64_t arrival)
{
    p->due = arrival + sa->latency;
    memsys_push(&sa->rx, p);
    ks_advance(&sa->ec);
}

/* An answer leaves: into the ring, or (the GPU's agent) up the hub at the
 * endpoint of the bank that asked. */
static bool send_answer(struct sys_agent *sa, struct pkt *o)
{
    if (sa->gpu_side)
        return memsys_hub_up(memsys_hub_at(sa->m, o->p.dst), o);
    return cgm_net_inject(sa->m->net, &o->p);
}

/* The first cycle after `now` in which the system agent may have work
 * that no advance of its eventcount announces (packets arriving, the
 * memory controller finishing a request do): the request at the head of
 * its queue passing its latency. now + 1 while a request waits for room in
 * the DRAM's queue, which nothing announces (the ring announces room for a
 * reply it turned away; a hub does not, so the GPU's agent asks again each
 * cycle). */
static uint64_t next_work(const struct sys_agent *sa, uint64_t now)
{
    const struct pkt *o = fifo_peek(&sa->tx);
    if (o && (sa->gpu_side || cgm_net_can_inject(sa->m->net, sa->ep, o->p.lane)))
        return now + 1;
    const struct pkt *p = fifo_peek(&sa->rx);
    if (!p)
        return UINT64_MAX; /* a reply waits for room in the ring, which the ring announces */
    if (p->due > now)
        return p->due;
    return memsys_mc_full(sa->mc) ? UINT64_MAX : now + 1;
}

static void sa_main(void *arg)
{
    struct sys_agent *sa = arg;
    struct cgm_memsys *m = sa->m;
    while (!m->stopping) {
        uint64_t seen = ks_ec_count(&sa->ec);
        uint64_t now = ks_cycle();
        struct pkt *p = fifo_peek(&sa->rx);
        if (p && p->due <= now) {
            uint64_t addr = mem_map_local(sa->map, p->block) << m->block_shift;
            if (memsys_mc_can_take(sa->mc, addr, p->kind == PK_MEM_WRITE)) {
                fifo_pop(&sa->rx);
                memsys_mc_take(sa->mc, addr, p);
            }
        }
        struct pkt *o = fifo_peek(&sa->tx);
        if (o && send_answer(sa, o))
            fifo_pop(&sa->tx);
        if (!sa->rx.n && !sa->tx.n) {
            ks_await(&sa->ec, seen + 1);
            continue;
        }
        uint64_t next = next_work(sa, now);
        if (next > now + WAIT_MIN_CYCLES) /* the timing of polling each cycle, without the polls */
            ks_await_until(&sa->ec, seen + 1, next);
        else
            ks_pause(1);
    }
}

int memsys_sa_create(struct cgm_memsys *m, struct sys_agent *sa, unsigned id, int ep, struct mem_ctrl *mc,
                     const struct cgm_dram_config *dram, char *err, size_t errlen)
{
    *sa = (struct sys_agent){ .m = m, .id = id, .ep = ep, .latency = m->cfg.sa_latency, .domain = m->sys,
                              .map = &m->topo.map, .mc = mc };
    ks_ec_init(&sa->ec, "system-agent", 0);
    /* Room in the ring for a packet it turned away wakes it. */
    cgm_net_watch_space(m->net, ep, &sa->ec);
    return memsys_mc_create(m, mc, id, m->dram_dom, dram, answer, sa, err, errlen);
}

int memsys_gpu_sa_create(struct cgm_memsys *m, struct sys_agent *sa, struct mem_ctrl *mc,
                         const struct cgm_dram_config *gpu_dram, char *err, size_t errlen)
{
    m->topo.gpu_map = (struct mem_map){ .n = 1 };
    *sa = (struct sys_agent){ .m = m, .ep = -1, .gpu_side = true, .domain = m->gpu, .map = &m->topo.gpu_map,
                              .mc = mc };
    ks_ec_init(&sa->ec, "gpu-memory-agent", 0);
    return memsys_mc_create(m, mc, 0, m->gpu_dram_dom, gpu_dram, answer, sa, err, errlen);
}

int memsys_sa_start(struct sys_agent *sa, char *err, size_t errlen)
{
    const char *name = sa->gpu_side ? "gpu-memory-agent" : "system-agent";
    if (memsys_context(sa->m, sa_main, sa, sa->domain, name, sa->id, err, errlen))
        return -1;
    return memsys_mc_start(sa->mc, err, errlen);
}

void memsys_sa_stop(struct sys_agent *sa) { ks_advance(&sa->ec); }

void memsys_sa_free(struct sys_agent *sa)
{
    free(sa->rx.buf);
    free(sa->tx.buf);
}
