/* The timed memory system's insides, shared by its files: packets, the
 * controllers' node table, the hub, and the system itself. */
#ifndef CGM_MEMSYS_INTERNAL_H
#define CGM_MEMSYS_INTERNAL_H

#include "cgm/memsys.h"
#include "cgm/page_class.h"

#include <stdlib.h>

enum { PK_COH, PK_MEM_READ, PK_MEM_WRITE, PK_MEM_READ_DONE, PK_MEM_WRITE_DONE };

struct pkt {
    struct cgm_net_packet p;   /* first: the network sees only this */
    struct cgm_coh_msg m;
    ks_tick due;               /* global tick before which it may not leave its sender */
    uint64_t block;
    int slice;                 /* memory packets: the requesting directory's coherence node */
    uint8_t kind;
    bool xbar;                 /* between a GPU L1 and an L2 bank: the crossbar, not the ring */
    bool waiting;              /* a CU's request a GPU L2 bank could not take yet, since wait_from */
    uint64_t wait_from;
    struct pkt *next_free;
};

/* Packets come from chunks the system owns, so destroying it frees every
 * packet wherever it is (in a switch queue, at the memory controller). */
#define PKTS_PER_CHUNK 64
struct pkt_chunk {
    struct pkt_chunk *next;
    struct pkt p[PKTS_PER_CHUNK];
};

/* A growable FIFO of pointers; the capacity is a power of two. */
struct fifo {
    void **buf;
    unsigned head, n, cap;
};

static inline bool fifo_push(struct fifo *f, void *p)
{
    if (f->n == f->cap) {
        unsigned cap = f->cap ? 2 * f->cap : 16;
        void **b = malloc(cap * sizeof *b);
        if (!b)
            return false;
        for (unsigned i = 0; i < f->n; i++)
            b[i] = f->buf[(f->head + i) & (f->cap - 1)];
        free(f->buf);
        f->buf = b;
        f->head = 0;
        f->cap = cap;
    }
    f->buf[(f->head + f->n++) & (f->cap - 1)] = p;
    return true;
}

static inline void *fifo_peek(const struct fifo *f) { return f->n ? f->buf[f->head] : NULL; }

static inline void *fifo_pop(struct fifo *f)
{
    void *p = f->buf[f->head];
    f->head = (f->head + 1) & (f->cap - 1);
    f->n--;
    return p;
}

struct timer {
    uint64_t due, block;
    int what;
};

struct cpu_req {
    uint64_t addr, tag, value, issued;
    uint8_t op;
    bool missing;              /* taken by the L1 and not done: a miss in flight */
};

/* A compute unit's request as the caller gave it, and as its vector L1
 * takes it (its physical block, the bytes it touches, its flags; its tag
 * the record's index). */
struct gpu_req {
    struct cgm_gpu_request r;
    struct cgm_coh_req req;
    uint64_t ready;            /* GPU cycle its translation is done */
    /* A load or store its vector L1 did not answer at once: 1 + the GPU
     * cycle the L1 took it (0: answered at once, or a synchronisation). */
    uint64_t to_l2;
};

/* fetch_clock.c: a GPU L2 bank's fetches from below (its requests to its
 * parent, memory or the L3), each from the cycle it is sent to the cycle
 * its answer arrives; a request sent again after a NACK keeps its first
 * cycle. Bounded by the bank's MSHR entries. */
struct fetch_clock {
    struct open_fetch {
        uint64_t block, since;
    } *open;
    unsigned n, cap;
    struct cgm_memsys_gpu_l2_timing st;
};
void fetch_clock_start(struct fetch_clock *c, uint64_t block, uint64_t now);
void fetch_clock_stop(struct fetch_clock *c, uint64_t block, uint64_t now);
void fetch_clock_free(struct fetch_clock *c);

struct node {
    struct cgm_memsys *ms;
    uint8_t kind;              /* enum cgm_coh_node_kind */
    int coh;                   /* coherence node id */
    int index;                 /* among the nodes of its kind */
    int ep;                    /* ring endpoint */
    unsigned latency;          /* cycles of its domain from taking a message to sending on */
    unsigned ports;            /* requests and messages it takes per cycle */
    ks_domain *domain;
    ks_eventcount ec;
    struct fifo rx[CGM_NLANES], tx[CGM_NLANES];
    unsigned rx_n, tx_n;       /* packets in all rx lanes, in all tx lanes */
    uint64_t xbar_out, xbar_in;/* GPU caches: their crossbar port busy until, in bytes (cycle x gpu_xbar_bytes) */
    struct timer *timers;
    unsigned ntimers, captimers;
    /* cores and GPU L1s: requests from the CPU or the CU, and their records */
    uint64_t port_cycle;       /* the cycle ports_used counts */
    unsigned ports_used;
    struct fifo cpu;
    struct cpu_req *reqs;      /* a core's */
    struct gpu_req *greqs;     /* a GPU L1's */
    uint64_t *req_busy;        /* bit per record in use */
    unsigned nreqs;
    ks_eventcount *room;       /* a GPU L1's: advanced as its queue gives up a request (cgm_memsys_gpu_watch_room) */
    struct fetch_clock fetch;  /* a GPU L2 bank's */
    struct cgm_memsys_gpu_l1_timing l2_latency; /* a GPU L1's */
};

/* The memory side's block-to-controller map: which memory controller owns
 * a block, and the block's number at that controller. Interleaved: runs of
 * 2^shift blocks, controller after controller; ranges: `range` blocks each,
 * contiguous. The controller-select bits are taken out of the local
 * number, so a controller's DRAM sees its blocks as one dense range and
 * spreads them over all its channels and banks, as the only controller
 * would. */
struct mem_map {
    unsigned n;                /* controllers */
    unsigned shift;            /* interleaved: log2 of the blocks in a run */
    uint64_t range;            /* ranges: blocks per controller; 0: interleaved */
};

static inline unsigned mem_map_controller(const struct mem_map *mm, uint64_t block)
{
    if (mm->n == 1)
        return 0;
    if (mm->range)
        return (unsigned)(block / mm->range);
    return (unsigned)((block >> mm->shift) % mm->n);
}

static inline uint64_t mem_map_local(const struct mem_map *mm, uint64_t block)
{
    if (mm->n == 1)
        return block;
    if (mm->range)
        return block % mm->range;
    uint64_t run = block >> mm->shift;
    return (run / mm->n) << mm->shift | (block & ((1ull << mm->shift) - 1));
}

/* A memory controller and its DRAM: it takes requests by their address
 * local to it (mem_map_local) while fewer than mc_queue are in flight and
 * the DRAM has room, and hands each back to its owner's answer function
 * when the DRAM has done it. The DRAM is a context in the DRAM domain. */
typedef void (*mem_ctrl_answer_fn)(void *owner, struct pkt *p);
struct mem_ctrl {
    struct cgm_memsys *m;
    unsigned id;
    struct cgm_dram *dram;
    struct cgm_dram_checker *checker;  /* with check_dram */
    ks_domain *domain;
    ks_eventcount ec;
    unsigned inflight, queue;
    mem_ctrl_answer_fn answer;
    void *owner;
    struct cgm_memsys_mc_stats st;
};

/* A system agent: the ring endpoint in front of one memory controller. A
 * request arriving from the ring waits sa_latency system cycles, then for
 * room at its controller; answers go back on the reply lane. A discrete
 * GPU's memory agent (gpu_side) is the same in front of the GPU's own
 * controller, in the GPU domain and off the ring: its requests come from
 * the hubs' links once they have crossed (memsys_sa_receive_at), its
 * answers go up the hub they came down. */
struct sys_agent {
    struct cgm_memsys *m;
    unsigned id;
    int ep;                    /* -1 for the GPU's */
    unsigned latency;
    bool gpu_side;
    ks_domain *domain;
    const struct mem_map *map; /* the blocks' numbers at its controller */
    struct mem_ctrl *mc;
    struct fifo rx, tx;
    ks_eventcount ec;
};

/* One direction of a hub's link: packets wait in their lane until the
 * link can take them; it carries link_bytes per GPU cycle, so several small
 * packets may cross in one cycle and a large one takes several. */
struct hub_link {
    struct fifo q[CGM_NLANES];        /* waiting to cross */
    struct fifo arriving[CGM_NLANES]; /* upward only: crossed, handed to their bank when due */
    uint64_t busy_until;              /* in bytes: GPU cycle x link_bytes + bytes sent in it */
    unsigned rr;                      /* lane to look at first */
    struct cgm_memsys_hub_stats st;
};

/* A GPU hub: one context in the GPU domain between its L2 banks and its
 * ring endpoint; its link carries link_bytes each way per GPU cycle, and a
 * packet spends latency GPU cycles more crossing it. */
struct hub {
    struct cgm_memsys *m;
    unsigned id;
    int ep;
    unsigned link_bytes, latency;
    struct hub_link down, up;
    unsigned held;                    /* packets in its queues */
    ks_eventcount ec;
};

/* What sits at a ring endpoint. */
enum { EP_NONE, EP_NODE, EP_SA, EP_HUB };
struct endpoint {
    uint8_t kind;
    void *obj;                 /* struct node, sys_agent or hub */
};

/* The system's topology (topology.c). Switch i carries core i on port 0
 * and slice i on port 1; after them, memory switch k carries system agent
 * k (and its memory controller) on port 0 and GPU hub k on port 1, as far
 * as there are any (one of each: seed 000 Fig. 3.2). A GPU L2 bank b
 * reaches the ring through hub b mod hubs. */
struct topology {
    unsigned switches;
    struct endpoint *eps;      /* by ring endpoint */
    struct mem_map map;
    struct mem_ctrl *mcs;
    struct sys_agent *sas;     /* sas[k] in front of mcs[k] */
    unsigned nmcs;
    struct hub *hubs;
    unsigned nhubs;
    /* a discrete GPU's own memory (gpu_dram_on), else gpu_sa NULL */
    struct sys_agent *gpu_sa;
    struct mem_ctrl gpu_mc;
    struct mem_map gpu_map;    /* one controller: a block is its own number */
};

/* A scalar cache: the GPU cycle it is free again, and its counts. */
struct scalar_cache {
    uint64_t free;
    struct cgm_memsys_scalar_stats st;
};

struct cgm_memsys {
    struct cgm_memsys_config cfg;
    ks_engine *eng;
    ks_domain *cpu, *gpu, *sys, *dram_dom, *gpu_dram_dom;
    unsigned block_shift;      /* log2 of the block size */
    struct topology topo;
    struct cgm_coh_sys *coh;
    struct cgm_net *net;
    struct node *nodes;        /* by coherence node id */
    unsigned nnodes;
    struct pkt *free_pkts;
    struct pkt_chunk *chunks;
    cgm_memsys_done_fn done;
    void *ctx;
    /* the compute units' port */
    struct cgm_page_table *pt;
    cgm_gpu_done_fn gpu_done;
    void *gpu_ctx;
    char gpu_error[160];
    /* per CU, then (gpu_l1_virtual) the shared one; set up by
     * cgm_memsys_gpu_port with a page table */
    struct cgm_mmu *gpu_tlbs;
    struct iommu_walker {      /* the IOMMU's page walkers */
        uint64_t free;         /* GPU cycle its walk ends */
        uint64_t vpn;          /* the page it walks (or walked last) */
        uint32_t asid;
    } *walkers;
    struct cgm_memsys_iommu_stats iommu;
    struct scalar_cache *scalar;
    unsigned nscalar;
    struct cgm_memsys_stats st;
    struct memsys_pages *pages; /* a self-invalidating protocol's page classes (page_sync.c); else NULL */
    bool stopping;
};

/* memsys.c */
void memsys_push(struct fifo *f, void *p); /* aborts when out of memory */
int memsys_record_take(struct node *n);
void memsys_record_free(struct node *n, uint64_t idx);
void memsys_node_request(struct cgm_memsys *m, struct node *n, unsigned idx, uint64_t now);
/* Into node's input lane of p if there is room and p is due. */
bool memsys_node_receive(struct cgm_memsys *m, struct node *n, struct pkt *p);

/* gpu_port.c: the coherence system's callback when a GPU L1 performs a
 * request; the scalar caches and TLBs of a system with compute units. */
void memsys_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value);
/* The request a CU's vector L1 is asked for r, translated to paddr, its
 * tag the request record idx. */
struct cgm_coh_req memsys_gpu_coh_request(const struct cgm_memsys *m, const struct cgm_gpu_request *r, uint64_t paddr,
                                          unsigned idx);
int memsys_gpu_side_create(struct cgm_memsys *m, char *err, size_t errlen);
void memsys_gpu_side_free(struct cgm_memsys *m);

/* page_sync.c: the page classes and downgrades of a self-invalidating
 * protocol (nothing, and m->pages NULL, for the others). */
bool memsys_pages_create(struct cgm_memsys *m);   /* false if out of memory */
void memsys_pages_free(struct cgm_memsys *m);
/* Before r goes to agent's first-level cache (a core, or
 * CGM_PAGE_AGENT_GPU): classifies its page, sets CGM_COH_SHARED; -1 while
 * the page's downgrades are in flight (ask again later). */
int memsys_pages_request(struct cgm_memsys *m, unsigned agent, struct cgm_coh_req *r);
/* A completion at a core: true if it was a page downgrade's (counted). */
bool memsys_pages_downgraded(struct cgm_memsys *m, uint64_t tag, uint64_t block);

/* A wait (ks_await_until) costs about two polls of a controller that finds
 * nothing to do, and each cycle waited a fifth of one (callgrind, the mixed
 * load of bench-memsys): waits shorter than this many cycles are polled. */
#define WAIT_MIN_CYCLES 3

/* A context of the memory system: NAME for the first of its kind, NAME.ID
 * for the others. */
int memsys_context(struct cgm_memsys *m, ks_entry_fn fn, void *arg, ks_domain *d, const char *name, unsigned id,
                   char *err, size_t errlen);

/* hub.c */
/* Hub id at ring endpoint ep, with the configuration's link; started (its
 * context) apart. */
void memsys_hub_init(struct cgm_memsys *m, struct hub *h, unsigned id, int ep);
int memsys_hub_start(struct hub *h, char *err, size_t errlen);
/* A bank's packet for the ring, or the ring's packet for a bank (at the
 * hub's endpoint): false when its lane is full. */
bool memsys_hub_down(struct hub *h, struct pkt *p);
bool memsys_hub_up(struct hub *h, struct pkt *p);
void memsys_hub_stop(struct hub *h);
void memsys_hub_free(struct hub *h);

/* mem_map.c: the map of cfg's controllers and interleave; -1 with the
 * reason in err on a bad one. */
int memsys_map_init(struct mem_map *mm, const struct cgm_memsys_config *cfg, char *err, size_t errlen);

/* mem_ctrl.c */
int memsys_mc_create(struct cgm_memsys *m, struct mem_ctrl *mc, unsigned id, ks_domain *domain,
                     const struct cgm_dram_config *dram, mem_ctrl_answer_fn answer, void *owner, char *err,
                     size_t errlen);
int memsys_mc_start(struct mem_ctrl *mc, char *err, size_t errlen); /* its DRAM's context */
bool memsys_mc_can_take(const struct mem_ctrl *mc, uint64_t addr, bool write);
bool memsys_mc_full(const struct mem_ctrl *mc);
/* Takes p, a memory request for local address addr (memsys_mc_can_take said yes). */
void memsys_mc_take(struct mem_ctrl *mc, uint64_t addr, struct pkt *p);
void memsys_mc_stop(struct mem_ctrl *mc);
void memsys_mc_free(struct mem_ctrl *mc);

/* sys_agent.c: a system agent at ring endpoint ep and its memory
 * controller mc with DRAM of the dram settings; started (its context and
 * its DRAM's) apart. */
int memsys_sa_create(struct cgm_memsys *m, struct sys_agent *sa, unsigned id, int ep, struct mem_ctrl *mc,
                     const struct cgm_dram_config *dram, char *err, size_t errlen);
int memsys_sa_start(struct sys_agent *sa, char *err, size_t errlen);
/* The GPU's memory agent in front of mc, its controller with DRAM of
 * gpu_dram in the GPU's DRAM domain: off the ring, fed by the hubs. */
int memsys_gpu_sa_create(struct cgm_memsys *m, struct sys_agent *sa, struct mem_ctrl *mc,
                         const struct cgm_dram_config *gpu_dram, char *err, size_t errlen);
/* The ring's packet for the system agent: false when its queue is full. */
bool memsys_sa_receive(struct sys_agent *sa, struct pkt *p);
/* Whether the GPU's memory agent can take a packet from a hub, and its
 * taking of p, which reaches it at GPU cycle arrival. */
bool memsys_sa_has_room(const struct sys_agent *sa);
void memsys_sa_receive_at(struct sys_agent *sa, struct pkt *p, uint64_t arrival);
void memsys_sa_stop(struct sys_agent *sa);
void memsys_sa_free(struct sys_agent *sa);

/* topology.c: the ring and what sits on it besides the caches (memory
 * controllers, system agents, hubs), after the coherence system; started
 * (their contexts) after the caches' controllers. */
int memsys_topology_create(struct cgm_memsys *m, ks_engine *eng, cgm_net_deliver_fn deliver, char *err,
                           size_t errlen);
int memsys_topology_start(struct cgm_memsys *m, char *err, size_t errlen);
void memsys_topology_stop(struct cgm_memsys *m);
void memsys_topology_free(struct cgm_memsys *m);
/* The hub at ring endpoint ep, or NULL. */
static inline struct hub *memsys_hub_at(const struct cgm_memsys *m, int ep)
{
    const struct endpoint *e = &m->topo.eps[ep];
    return e->kind == EP_HUB ? e->obj : NULL;
}
/* The ring endpoint of the system agent owning a block. */
static inline int memsys_mem_ep(const struct cgm_memsys *m, uint64_t block)
{
    return m->topo.sas[mem_map_controller(&m->topo.map, block)].ep;
}

#endif
