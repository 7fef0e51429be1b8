/* The ring of switches. Each switch runs while any of its input queues
 * holds a packet and otherwise awaits its eventcount, which injections and
 * neighbours advance. */
#include "cgm/net.h"
#include "cgm/bits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WEST = 0, EAST = 1, LOCAL0 = 2 };

struct lane_q {
    struct cgm_net_packet **buf;
    unsigned head, n;
};

struct sw {
    struct cgm_net *net;
    unsigned id;
    struct lane_q *in;          /* [port][lane] */
    uint64_t *out_busy_until;   /* per output port */
    unsigned rr;
    uint32_t nonempty;          /* bit per input queue holding a packet */
    ks_eventcount ec;
    struct cgm_net_switch_stats st;
};

struct cgm_net {
    struct cgm_net_config cfg;
    ks_domain *domain;
    unsigned ports;
    struct sw *sw;
    cgm_net_deliver_fn deliver;
    void *ctx;
    uint64_t in_flight;
    uint64_t next_id;
    /* Per endpoint, its switch and input queue index of lane 0: injection
     * runs for every packet and should not divide. */
    uint32_t *ep_sw;
    uint8_t *ep_queue;
    ks_eventcount **space; /* per endpoint: advanced when an injection lane stops being full */
    bool stopping;
};

static struct lane_q *q_of(struct sw *s, unsigned port, unsigned lane)
{
    return &s->in[port * CGM_NLANES + lane];
}

static unsigned q_index(const struct sw *s, const struct lane_q *q) { return (unsigned)(q - s->in); }

static unsigned q_free(const struct cgm_net *n, const struct lane_q *q) { return n->cfg.queue_size - q->n; }

static void q_push(const struct cgm_net *n, struct lane_q *q, struct cgm_net_packet *p)
{
    unsigned tail = q->head + q->n;
    q->buf[tail >= n->cfg.queue_size ? tail - n->cfg.queue_size : tail] = p;
    q->n++;
}

static struct cgm_net_packet *q_pop(const struct cgm_net *n, struct lane_q *q)
{
    struct cgm_net_packet *p = q->buf[q->head];
    q->head = q->head + 1 == n->cfg.queue_size ? 0 : q->head + 1;
    q->n--;
    return p;
}

unsigned cgm_net_distance(const struct cgm_net *n, unsigned from, unsigned to)
{
    unsigned k = n->cfg.switches;
    unsigned cw = (to + k - from) % k;
    return cw <= k - cw ? cw : k - cw;
}

/* Output port for p at switch s: local if it is home, else the shorter way
 * round (East on a tie). */
static unsigned route(const struct cgm_net *n, const struct sw *s, const struct cgm_net_packet *p)
{
    unsigned k = n->cfg.switches, dsw = p->dst_sw;
    if (dsw == s->id)
        return p->home_port;
    unsigned cw = dsw > s->id ? dsw - s->id : dsw + k - s->id;
    return cw <= k - cw ? EAST : WEST;
}

/* ceil(a / b), by a shift when b is a power of two (flit sizes and clock
 * periods mostly are): a division is some 40 host cycles. */
static uint64_t div_up(uint64_t a, uint64_t b)
{
    if (cgm_pow2(b))
        return (a + b - 1) >> __builtin_ctzll(b);
    return (a + b - 1) / b;
}

static unsigned transfer_cycles(const struct cgm_net *n, const struct cgm_net_packet *p)
{
    unsigned c = (unsigned)div_up(p->bytes, n->cfg.flit_bytes);
    return c ? c : 1;
}

/* The ring neighbour of switch id towards out (EAST or WEST). */
static unsigned neighbour(const struct cgm_net *n, unsigned id, unsigned out)
{
    unsigned k = n->cfg.switches;
    if (out == EAST)
        return id + 1 == k ? 0 : id + 1;
    return id ? id - 1 : k - 1;
}

/* A packet left queue idx of switch s. An endpoint that watches its
 * injection lanes learns when one stops being full (only then: a pop from
 * a lane with room changes nothing for an endpoint that injects). */
static void popped(struct cgm_net *n, struct sw *s, struct lane_q *q, unsigned idx)
{
    if (!q->n)
        s->nonempty &= ~(1u << idx);
    if (idx >= LOCAL0 * CGM_NLANES && q->n + 1 == n->cfg.queue_size) {
        ks_eventcount *ec = n->space[s->id * n->cfg.local_ports + idx / CGM_NLANES - LOCAL0];
        if (ec)
            ks_advance(ec);
    }
}

/* One cycle of switch s. Returns the cycle it next has something to do:
 * now + 1 if a packet was ready (moved or blocked), the earliest head's
 * ready cycle if none was, UINT64_MAX if every queue is empty. */
static uint64_t switch_cycle(struct cgm_net *n, struct sw *s, uint64_t now)
{
    unsigned total = n->ports * CGM_NLANES;
    uint32_t used = 0;
    uint64_t next = UINT64_MAX;
    /* Visit the non-empty queues in round-robin order from rr. */
    uint32_t pending = s->nonempty;
    while (pending) {
        uint32_t upper = pending & ~((1u << s->rr) - 1);
        unsigned idx = (unsigned)__builtin_ctz(upper ? upper : pending);
        pending &= ~(1u << idx);
        struct lane_q *q = &s->in[idx];
        struct cgm_net_packet *p = q->buf[q->head];
        if (p->ready > now) {
            if (p->ready < next)
                next = p->ready;
            continue;
        }
        next = now + 1;
        unsigned out = route(n, s, p);
        if ((used & (1u << out)) || now < s->out_busy_until[out]) {
            s->st.blocked++;
            continue;
        }
        unsigned x = p->flits;
        unsigned lane = p->lane; /* = idx % CGM_NLANES */
        if (out == WEST || out == EAST) {
            struct sw *nb = &n->sw[neighbour(n, s->id, out)];
            struct lane_q *nq = q_of(nb, out == EAST ? WEST : EAST, lane);
            unsigned need = idx >= LOCAL0 * CGM_NLANES ? 2 : 1; /* from a local port */
            if (q_free(n, nq) < need) {
                s->st.blocked++;
                continue;
            }
            q_pop(n, q);
            popped(n, s, q, idx);
            p->ready = now + x + n->cfg.latency;
            p->hops++;
            q_push(n, nq, p);
            nb->nonempty |= 1u << q_index(nb, nq);
            ks_advance(&nb->ec);
        } else {
            if (!n->deliver(n->ctx, p->dst, p)) {
                s->st.blocked++;
                continue;
            }
            q_pop(n, q);
            popped(n, s, q, idx);
            n->in_flight--;
        }
        used |= 1u << out;
        s->out_busy_until[out] = now + x;
        s->st.port_busy[out] += x;
        s->st.packets++;
        s->st.lane_packets[lane]++;
    }
    s->rr = s->rr + 1 == total ? 0 : s->rr + 1;
    if (s->nonempty && next == UINT64_MAX)
        next = now + 1;
    return next;
}

static void switch_main(void *arg)
{
    struct sw *s = arg;
    struct cgm_net *n = s->net;
    while (!n->stopping) {
        uint64_t seen = ks_ec_count(&s->ec);
        s->st.active_cycles++;
        uint64_t now = ks_cycle();
        uint64_t next = switch_cycle(n, s, now);
        if (!s->nonempty) {
            /* Sleep until an injection or a neighbour advances us. */
            ks_await(&s->ec, seen + 1);
            continue;
        }
        /* Only packets not yet ready: sleep until the first is. A packet
         * that arrives meanwhile is ready no sooner than 1 + latency cycles
         * after now, so never sleep past that. */
        uint64_t cap = now + 1 + n->cfg.latency;
        ks_pause((next < cap ? next : cap) - now);
    }
}

struct cgm_net *cgm_net_create(ks_engine *eng, ks_domain *d, const struct cgm_net_config *cfg,
                               cgm_net_deliver_fn deliver, void *ctx, char *err, size_t errlen)
{
    /* (2 + 6 local ports) x 3 lanes = 24 queues fit the 32-bit mask. */
    if (cfg->switches < 2 || cfg->switches > 4096 || !cfg->local_ports || cfg->local_ports > 6 ||
        cfg->queue_size < 2 || !cfg->flit_bytes) {
        snprintf(err, errlen, "network: 2 to 4096 switches, 1 to 6 local ports, queues of at least 2 packets "
                 "and a non-zero flit size (have %u switches, %u ports, queue %u, flit %u bytes)",
                 cfg->switches, cfg->local_ports, cfg->queue_size, cfg->flit_bytes);
        return NULL;
    }
    struct cgm_net *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    n->cfg = *cfg;
    n->domain = d ? d : ks_domain_default(eng);
    n->ports = LOCAL0 + cfg->local_ports;
    n->deliver = deliver;
    n->ctx = ctx;
    n->sw = calloc(cfg->switches, sizeof *n->sw);
    unsigned eps = cfg->switches * cfg->local_ports;
    n->ep_sw = malloc(eps * sizeof *n->ep_sw);
    n->ep_queue = malloc(eps);
    n->space = calloc(eps, sizeof *n->space);
    if (!n->sw || !n->ep_sw || !n->ep_queue || !n->space)
        goto fail;
    for (unsigned e = 0; e < eps; e++) {
        n->ep_sw[e] = e / cfg->local_ports;
        n->ep_queue[e] = (uint8_t)((LOCAL0 + e % cfg->local_ports) * CGM_NLANES);
    }
    for (unsigned i = 0; i < cfg->switches; i++) {
        struct sw *s = &n->sw[i];
        s->net = n;
        s->id = i;
        ks_ec_init(&s->ec, "switch", 0);
        s->in = calloc((size_t)n->ports * CGM_NLANES, sizeof *s->in);
        s->out_busy_until = calloc(n->ports, sizeof *s->out_busy_until);
        if (!s->in || !s->out_busy_until)
            goto fail;
        for (unsigned q = 0; q < n->ports * CGM_NLANES; q++) {
            s->in[q].buf = calloc(cfg->queue_size, sizeof *s->in[q].buf);
            if (!s->in[q].buf)
                goto fail;
        }
        char name[32];
        snprintf(name, sizeof name, "switch%u", i);
        ks_context_opts o = { .name = name, .domain = n->domain };
        if (!ks_context_create_opts(eng, switch_main, s, &o)) {
            snprintf(err, errlen, "network: %s", ks_engine_error(eng));
            goto fail_quiet;
        }
    }
    return n;
fail:
    snprintf(err, errlen, "out of memory (network: switches and their queues)");
fail_quiet:
    cgm_net_destroy(n);
    return NULL;
}

void cgm_net_stop(struct cgm_net *n)
{
    n->stopping = true;
    for (unsigned i = 0; i < n->cfg.switches; i++)
        ks_advance(&n->sw[i].ec);
}

void cgm_net_destroy(struct cgm_net *n)
{
    if (!n)
        return;
    for (unsigned i = 0; n->sw && i < n->cfg.switches; i++) {
        struct sw *s = &n->sw[i];
        for (unsigned q = 0; s->in && q < n->ports * CGM_NLANES; q++)
            free(s->in[q].buf);
        free(s->in);
        free(s->out_busy_until);
    }
    free(n->sw);
    free(n->ep_sw);
    free(n->ep_queue);
    free(n->space);
    free(n);
}

unsigned cgm_net_endpoints(const struct cgm_net *n) { return n->cfg.switches * n->cfg.local_ports; }

int cgm_net_endpoint(const struct cgm_net *n, unsigned sw, unsigned port)
{
    return (int)(sw * n->cfg.local_ports + port);
}

void cgm_net_watch_space(struct cgm_net *n, int ep, ks_eventcount *ec)
{
    n->space[ep] = ec;
}

bool cgm_net_can_inject(const struct cgm_net *n, int ep, unsigned lane)
{
    return q_free(n, &n->sw[n->ep_sw[ep]].in[n->ep_queue[ep] + lane]) > 0;
}

bool cgm_net_inject(struct cgm_net *n, struct cgm_net_packet *p)
{
    return cgm_net_inject_at(n, p, 0);
}

bool cgm_net_inject_at(struct cgm_net *n, struct cgm_net_packet *p, ks_tick not_before)
{
    if (p->src < 0 || p->dst < 0 || (unsigned)p->src >= cgm_net_endpoints(n) ||
        (unsigned)p->dst >= cgm_net_endpoints(n) || p->lane >= CGM_NLANES)
        return false;
    if (!cgm_net_can_inject(n, p->src, p->lane))
        return false;
    struct sw *s = &n->sw[n->ep_sw[p->src]];
    /* The caller may run in another clock domain: count in the network's. */
    uint64_t now = ks_domain_cycle(n->domain);
    p->id = n->next_id++;
    p->injected = now;
    p->hops = 0;
    p->flits = transfer_cycles(n, p);
    p->dst_sw = n->ep_sw[p->dst];
    p->home_port = (uint8_t)(n->ep_queue[p->dst] / CGM_NLANES);
    /* The endpoint's output controller moves the packet in flit-sized
     * pieces; the switch adds its traversal latency. */
    p->ready = now + p->flits + n->cfg.latency;
    ks_tick period = ks_domain_period(n->domain);
    if (not_before > now * period && period) {
        uint64_t first = div_up(not_before, period); /* first edge at or after */
        p->ready = first + p->flits + n->cfg.latency;
    }
    struct lane_q *q = &s->in[n->ep_queue[p->src] + p->lane];
    q_push(n, q, p);
    s->nonempty |= 1u << q_index(s, q);
    n->in_flight++;
    ks_advance(&s->ec);
    return true;
}

const struct cgm_net_switch_stats *cgm_net_switch_stats(const struct cgm_net *n, unsigned sw)
{
    return &n->sw[sw].st;
}

uint64_t cgm_net_packets_in_flight(const struct cgm_net *n) { return n->in_flight; }
