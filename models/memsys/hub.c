/* A GPU hub (struct hub, seed 000 Sec. 3.2.5.3): it multiplexes its L2
 * banks onto its ring endpoint and routes what arrives to the bank it is
 * for. Its link carries link_bytes each way per GPU cycle and every packet
 * spends latency GPU cycles more in it, so the GPU's bandwidth to the L3
 * and memory is a setting of its own (seed 000 Study 3 varies it), not the
 * ring's.
 *
 * Each way the lanes keep their own queues, as on the ring, so a full
 * request lane below never holds a reply back; the lane to serve first
 * turns round. A discrete GPU's banks reach their own memory controller
 * through the same link: memory requests that have crossed go to the GPU's
 * memory agent instead of the ring, and its answers come up. */
#include "memsys_internal.h"

#include "cgm/check.h"

#include <stdio.h>

static struct node *bank_of(struct cgm_memsys *m, const struct pkt *p)
{
    return &m->nodes[p->kind == PK_COH ? p->m.dst : p->slice];
}

/* Whether p, going down, is a memory request for a discrete GPU's own
 * memory (every memory request of its banks is). */
static bool to_gpu_memory(const struct cgm_memsys *m, const struct pkt *p)
{
    return m->topo.gpu_sa && p->kind != PK_COH;
}

/* Whether p, at the head of its lane, can go on once it has crossed:
 * downward the ring's input lane at the hub must have room (the packet
 * waits there until it has crossed), upward the lane's arrivals. */
static bool can_cross(const struct hub *h, const struct hub_link *l, bool up, const struct pkt *p)
{
    const struct cgm_memsys *m = h->m;
    if (ks_now(m->eng) < p->due)
        return false;
    if (up)
        return l->arriving[p->p.lane].n < m->cfg.rx_queue;
    if (to_gpu_memory(m, p))
        return memsys_sa_has_room(m->topo.gpu_sa);
    return cgm_net_can_inject(m->net, h->ep, p->p.lane);
}

/* The first lane, from l->rr round, whose head can cross now; -1 if none. */
static int ready_lane(const struct hub *h, struct hub_link *l, bool up)
{
    for (unsigned k = 0; k < CGM_NLANES; k++) {
        unsigned lane = (l->rr + k) % CGM_NLANES;
        struct pkt *head = fifo_peek(&l->q[lane]);
        if (head && can_cross(h, l, up, head))
            return (int)lane;
    }
    return -1;
}

/* The link takes packets while some of this cycle's link_bytes are left: a
 * packet starting in cycle now ends when its last byte has crossed, and
 * reaches the far side latency cycles later. */
static void cross(struct hub *h, struct hub_link *l, bool up, uint64_t now)
{
    struct cgm_memsys *m = h->m;
    uint64_t width = h->link_bytes;
    if (l->busy_until < now * width)
        l->busy_until = now * width;
    for (;;) {
        int lane = ready_lane(h, l, up);
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
        uint64_t arrival = (l->busy_until + width - 1) / width + h->latency;
        ks_tick due = ks_domain_cycle_tick(m->gpu, arrival);
        if (up) {
            p->due = due;
            memsys_push(&l->arriving[lane], p);
        } else if (to_gpu_memory(m, p)) {
            memsys_sa_receive_at(m->topo.gpu_sa, p, arrival); /* can_cross saw room */
            h->held--;
        } else {
            bool taken = cgm_net_inject_at(m->net, &p->p, due);
            CGM_CHECK(taken); /* can_cross saw room */
            (void)taken;
            h->held--;
        }
    }
}

/* Packets that have crossed upward go to their bank's input queue. */
static void arrive(struct hub *h, struct hub_link *l)
{
    struct cgm_memsys *m = h->m;
    for (unsigned lane = 0; lane < CGM_NLANES; lane++) {
        struct pkt *p;
        while ((p = fifo_peek(&l->arriving[lane])) && memsys_node_receive(m, bank_of(m, p), p)) {
            fifo_pop(&l->arriving[lane]);
            h->held--;
        }
    }
}

static void hub_main(void *arg)
{
    struct hub *h = arg;
    while (!h->m->stopping) {
        uint64_t seen = ks_ec_count(&h->ec);
        uint64_t now = ks_cycle();
        cross(h, &h->down, false, now);
        cross(h, &h->up, true, now);
        arrive(h, &h->up);
        if (h->held)
            ks_pause(1);
        else
            ks_await(&h->ec, seen + 1);
    }
}

static bool enter(struct hub *h, struct hub_link *l, struct pkt *p)
{
    struct fifo *q = &l->q[p->p.lane];
    if (q->n >= h->m->cfg.rx_queue)
        return false;
    memsys_push(q, p);
    h->held++;
    ks_advance(&h->ec);
    return true;
}

bool memsys_hub_down(struct hub *h, struct pkt *p) { return enter(h, &h->down, p); }
bool memsys_hub_up(struct hub *h, struct pkt *p) { return enter(h, &h->up, p); }

void memsys_hub_init(struct cgm_memsys *m, struct hub *h, unsigned id, int ep)
{
    *h = (struct hub){ .m = m, .id = id, .ep = ep, .link_bytes = m->cfg.gpu_link_bytes,
                       .latency = m->cfg.hub_latency };
    ks_ec_init(&h->ec, "hub", 0);
}

int memsys_hub_start(struct hub *h, char *err, size_t errlen)
{
    return memsys_context(h->m, hub_main, h, h->m->gpu, "hub", h->id, err, errlen);
}

void memsys_hub_stop(struct hub *h) { ks_advance(&h->ec); }

void memsys_hub_free(struct hub *h)
{
    for (int l = 0; l < CGM_NLANES; l++) {
        free(h->down.q[l].buf);
        free(h->up.q[l].buf);
        free(h->up.arriving[l].buf);
    }
}

unsigned cgm_memsys_hubs(const struct cgm_memsys *m) { return m->topo.nhubs; }

const struct cgm_memsys_hub_stats *cgm_memsys_hub_link_stats(const struct cgm_memsys *m, unsigned i, bool up)
{
    if (i >= m->topo.nhubs)
        return NULL;
    return up ? &m->topo.hubs[i].up.st : &m->topo.hubs[i].down.st;
}

const struct cgm_memsys_hub_stats *cgm_memsys_hub_stats(const struct cgm_memsys *m, bool up)
{
    return cgm_memsys_hub_link_stats(m, 0, up);
}
