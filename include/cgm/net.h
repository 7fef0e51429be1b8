/* On-die network of seed 000 Sec. 3.2.5.2 and Alg. 2.9-2.10: a ring of
 * switches built from their number, each switch a KnightSim context with
 * West and East ring ports and local ports for the components attached to
 * it; every input port has request, reply and coherence virtual lanes; a
 * crossbar with one wire set per output port (one packet per output per
 * cycle); round-robin port and lane selection; link bandwidth from the
 * packet size over the flit size; shortest-path routing.
 *
 * A packet bound onto the ring from a local port needs two free slots in
 * the next switch's lane (one for packets already on the ring): the bubble
 * rule that keeps a ring with finite buffers free of deadlock. */
#ifndef CGM_NET_H
#define CGM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgm/knightsim.h"

enum cgm_lane { CGM_LANE_REQUEST, CGM_LANE_REPLY, CGM_LANE_COHERENCE, CGM_NLANES };

struct cgm_net_packet {
    uint64_t id;
    uint64_t ready;      /* cycle from which the packet may leave its queue */
    uint64_t injected;   /* cycle it entered the network */
    int src, dst;        /* endpoints */
    unsigned bytes;
    uint16_t hops;
    uint8_t lane;
    /* Set by the network at injection, so a hop divides nothing: */
    uint8_t home_port;   /* output port at the destination switch */
    uint32_t flits;      /* link cycles the packet takes */
    uint32_t dst_sw;     /* destination switch */
};

struct cgm_net_config {
    unsigned switches;
    unsigned local_ports;  /* endpoints per switch */
    unsigned queue_size;   /* packets per lane per input port */
    unsigned flit_bytes;   /* link width: bytes per cycle */
    unsigned latency;      /* switch traversal cycles */
};

/* Called by a switch to hand p to its endpoint; false if the endpoint
 * cannot take it this cycle (the switch retries the next cycle). */
typedef bool (*cgm_net_deliver_fn)(void *ctx, int endpoint, struct cgm_net_packet *p);

struct cgm_net_switch_stats {
    uint64_t packets;          /* crossbar traversals */
    uint64_t blocked;          /* ready head packets that could not move in a cycle */
    uint64_t lane_packets[CGM_NLANES];
    uint64_t port_busy[8];     /* cycles each output link was transferring */
    uint64_t active_cycles;    /* cycles the switch ran */
};

struct cgm_net;

/* Creates the switches as contexts of domain d. NULL on a bad
 * configuration (2..4096 switches, 1..6 local ports, queues of 2 packets
 * or more, a flit size) or out of memory, the reason in err. */
struct cgm_net *cgm_net_create(ks_engine *eng, ks_domain *d, const struct cgm_net_config *cfg,
                               cgm_net_deliver_fn deliver, void *ctx, char *err, size_t errlen);
/* Asks every switch context to end (call outside a run; the next ks_run
 * lets them return). Destroying an engine whose contexts are still blocked
 * works, but ending them first keeps sanitizer builds exact. */
void cgm_net_stop(struct cgm_net *n);
void cgm_net_destroy(struct cgm_net *n);
unsigned cgm_net_endpoints(const struct cgm_net *n);
/* Endpoint `port` of switch `sw`. */
int cgm_net_endpoint(const struct cgm_net *n, unsigned sw, unsigned port);
/* Queues p at its source endpoint's switch (p->src, p->dst, p->bytes and
 * p->lane set by the caller). false if that lane's input queue is full.
 * Call from a context. */
bool cgm_net_inject(struct cgm_net *n, struct cgm_net_packet *p);
/* As cgm_net_inject, but the packet may not leave its first queue before
 * global tick not_before (its sender's latency, counted in the sender's
 * clock domain): the packet waits in the endpoint's output controller. */
bool cgm_net_inject_at(struct cgm_net *n, struct cgm_net_packet *p, ks_tick not_before);
/* From now on ec (NULL: none, the default) is advanced whenever one of
 * endpoint ep's injection lanes stops being full, so the endpoint can await
 * it instead of retrying every cycle. Only the endpoint injects there, so
 * nothing else makes the room it waits for. */
void cgm_net_watch_space(struct cgm_net *n, int ep, ks_eventcount *ec);
/* Whether the endpoint's input lane has room. */
bool cgm_net_can_inject(const struct cgm_net *n, int endpoint, unsigned lane);
/* Ring hops on the shortest path between two switches. */
unsigned cgm_net_distance(const struct cgm_net *n, unsigned from_sw, unsigned to_sw);
const struct cgm_net_switch_stats *cgm_net_switch_stats(const struct cgm_net *n, unsigned sw);
uint64_t cgm_net_packets_in_flight(const struct cgm_net *n);

#endif
