/* The GPU hub (seed 000 Sec. 3.2.5.3): it multiplexes the L2 banks onto
 * the ring endpoint on the system agent's switch and routes what arrives
 * to the bank it is for. Its link carries gpu_link_bytes each way per GPU cycle
 * and every packet spends hub_latency GPU cycles more in it, so the GPU's
 * bandwidth to the L3 and memory is a setting of its own (seed 000 Study 3
 * varies it), not the ring's.
 *
 * Each way the lanes keep their own queues, as on the ring, so a full
 * request lane below never holds a reply back; the lane to serve first
 * turns round. */
#include "memsys_internal.h"

#include "cgm/check.h"

#include <stdio.h>

static struct node *bank_of(struct cgm_memsys *m, const struct pkt *p)
{
    return &m->nodes[p->kind == PK_COH ? p->m.dst : p->slice];
}

/* Whether p, at the head of its lane, can go on once it has crossed:
 * downward the ring's input lane at the hub must have room (the packet
 * waits there until it has crossed), upward the lane's arrivals. */
static bool can_cross(struct cgm_memsys *m, struct hub_link *l, bool up, const struct pkt *p)
{
    if (ks_now(m->eng) < p->due)
        return false;
    if (up)
        return l->arriving[p->p.lane].n < m->cfg.rx_queue;
    return cgm_net_can_inject(m->net, m->topo.hub_ep, p->p.lane);
}

/* The first lane, from l->rr round, whose head can cross now; -1 if none. */
static int ready_lane(struct cgm_memsys *m, struct hub_link *l, bool up)
{
    for (unsigned k = 0; k < CGM_NLANES; k++) {
        unsigned lane = (l->rr + k) % CGM_NLANES;
        struct pkt *h = fifo_peek(&l->q[lane]);
        if (h && can_cross(m, l, up, h))
            return (int)lane;
    }
    return -1;
}

/* The link takes packets while some of this cycle's gpu_link_bytes are left: a
 * packet starting in cycle now ends when its last byte has crossed, and
 * reaches the far side hub_latency cycles later. */
static void cross(struct cgm_memsys *m, struct hub_link *l, bool up, uint64_t now)
{
    uint64_t width = m->cfg.gpu_link_bytes;
    if (l->busy_until < now * width)
        l->busy_until = now * width;
    for (;;) {
        int lane = ready_lane(m, l, up);
        if (lane < 0)
            return;
        if (l->busy_until >= (now + 1) * width) {
            l->st.link_full_cycles++; /* a packet could go on, the link is full */
            return;
        }
        struct pkt *p = fifo_pop(&l->q[lane]);
        l->rr = ((unsigned)lane + 1) % CGM_NLANES;
        l->busy_until += p->p.bytes;
        l->st.packets++;
        l->st.bytes += p->p.bytes;
        uint64_t arrival = (l->busy_until + width - 1) / width + m->cfg.hub_latency;
        ks_tick due = ks_domain_cycle_tick(m->gpu, arrival);
        if (up) {
            p->due = due;
            memsys_push(&l->arriving[lane], p);
        } else {
            bool taken = cgm_net_inject_at(m->net, &p->p, due);
            CGM_CHECK(taken); /* can_cross saw room */
            (void)taken;
            m->hub.held--;
        }
    }
}

/* Packets that have crossed upward go to their bank's input queue. */
static void arrive(struct cgm_memsys *m, struct hub_link *l)
{
    for (unsigned lane = 0; lane < CGM_NLANES; lane++) {
        struct pkt *p;
        while ((p = fifo_peek(&l->arriving[lane])) && memsys_node_receive(m, bank_of(m, p), p)) {
            fifo_pop(&l->arriving[lane]);
            m->hub.held--;
        }
    }
}

static void hub_main(void *arg)
{
    struct cgm_memsys *m = arg;
    struct hub *h = &m->hub;
    while (!m->stopping) {
        uint64_t seen = ks_ec_count(&h->ec);
        uint64_t now = ks_cycle();
        cross(m, &h->down, false, now);
        cross(m, &h->up, true, now);
        arrive(m, &h->up);
        if (h->held)
            ks_pause(1);
        else
            ks_await(&h->ec, seen + 1);
    }
}

static bool enter(struct cgm_memsys *m, struct hub_link *l, struct pkt *p)
{
    struct fifo *q = &l->q[p->p.lane];
    if (q->n >= m->cfg.rx_queue)
        return false;
    memsys_push(q, p);
    m->hub.held++;
    ks_advance(&m->hub.ec);
    return true;
}

bool memsys_hub_down(struct cgm_memsys *m, struct pkt *p) { return enter(m, &m->hub.down, p); }
bool memsys_hub_up(struct cgm_memsys *m, struct pkt *p) { return enter(m, &m->hub.up, p); }

int memsys_hub_create(struct cgm_memsys *m, char *err, size_t errlen)
{
    ks_ec_init(&m->hub.ec, "hub", 0);
    ks_context_opts o = { .name = "hub", .domain = m->gpu };
    if (!ks_context_create_opts(m->eng, hub_main, m, &o)) {
        snprintf(err, errlen, "memsys: %s", ks_engine_error(m->eng));
        return -1;
    }
    return 0;
}

void memsys_hub_stop(struct cgm_memsys *m)
{
    if (m->cfg.coh.gpu.cus)
        ks_advance(&m->hub.ec);
}

void memsys_hub_free(struct cgm_memsys *m)
{
    for (int l = 0; l < CGM_NLANES; l++) {
        free(m->hub.down.q[l].buf);
        free(m->hub.up.q[l].buf);
        free(m->hub.up.arriving[l].buf);
    }
}

const struct cgm_memsys_hub_stats *cgm_memsys_hub_stats(const struct cgm_memsys *m, bool up)
{
    return up ? &m->hub.up.st : &m->hub.down.st;
}
