/* The timed memory system's insides, shared by its files: packets, the
 * controllers' node table, the hub, and the system itself. */
#ifndef CGM_MEMSYS_INTERNAL_H
#define CGM_MEMSYS_INTERNAL_H

#include "cgm/memsys.h"

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
};

/* A compute unit's request as the caller gave it, and as its vector L1
 * takes it (its physical block, the bytes it touches, its flags; its tag
 * the record's index). */
struct gpu_req {
    struct cgm_gpu_request r;
    struct cgm_coh_req req;
    uint64_t ready;            /* GPU cycle its translation is done */
};

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
};

/* Which switch and local port each endpoint sits on. Switch i carries core
 * i on port 0 and slice i on port 1; one more switch carries the system
 * agent on port 0 and the GPU hub on port 1 (as in seed 000 Fig. 3.2). */
struct topology {
    unsigned switches;
    int sa_ep, hub_ep;
};

/* One direction of the hub's link: packets wait in their lane until the
 * link can take them; it carries gpu_link_bytes per GPU cycle, so several small
 * packets may cross in one cycle and a large one takes several. */
struct hub_link {
    struct fifo q[CGM_NLANES];        /* waiting to cross */
    struct fifo arriving[CGM_NLANES]; /* upward only: crossed, handed to their bank when due */
    uint64_t busy_until;              /* in bytes: GPU cycle x gpu_link_bytes + bytes sent in it */
    unsigned rr;                      /* lane to look at first */
    struct cgm_memsys_hub_stats st;
};

/* The GPU hub: one context in the GPU domain between the L2 banks and the
 * ring endpoint on the system agent's switch. */
struct hub {
    struct hub_link down, up;
    unsigned held;                    /* packets in its queues */
    ks_eventcount ec;
};

/* A scalar cache: the GPU cycle it is free again, and its counts. */
struct scalar_cache {
    uint64_t free;
    struct cgm_memsys_scalar_stats st;
};

struct cgm_memsys {
    struct cgm_memsys_config cfg;
    ks_engine *eng;
    ks_domain *cpu, *gpu, *sys, *dram_dom;
    unsigned block_shift;      /* log2 of the block size */
    struct topology topo;
    struct cgm_coh_sys *coh;
    struct cgm_net *net;
    struct cgm_dram *dram;
    struct cgm_dram_checker *checker;
    struct node *nodes;        /* by coherence node id */
    unsigned nnodes;
    int *ep_node;              /* endpoint -> node index, -1 for the system agent, -2 unused */
    /* system agent */
    ks_eventcount sa_ec, dram_ec;
    struct fifo sa_rx, sa_tx;
    unsigned mc_inflight;
    struct pkt *free_pkts;
    struct pkt_chunk *chunks;
    cgm_memsys_done_fn done;
    void *ctx;
    /* the compute units' port */
    struct cgm_page_table *pt;
    cgm_gpu_done_fn gpu_done;
    void *gpu_ctx;
    char gpu_error[160];
    struct cgm_mmu *gpu_tlbs;  /* per CU; set up by cgm_memsys_gpu_port with a page table */
    struct iommu_walker {      /* the IOMMU's page walkers */
        uint64_t free;         /* GPU cycle its walk ends */
        uint64_t vpn;          /* the page it walks (or walked last) */
        uint32_t asid;
    } *walkers;
    struct cgm_memsys_iommu_stats iommu;
    struct scalar_cache *scalar;
    unsigned nscalar;
    struct hub hub;
    struct cgm_memsys_stats st;
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

/* hub.c */
int memsys_hub_create(struct cgm_memsys *m, char *err, size_t errlen);
/* A bank's packet for the ring, or the ring's packet for a bank (at the
 * hub's endpoint): false when its lane is full. */
bool memsys_hub_down(struct cgm_memsys *m, struct pkt *p);
bool memsys_hub_up(struct cgm_memsys *m, struct pkt *p);
void memsys_hub_stop(struct cgm_memsys *m);
void memsys_hub_free(struct cgm_memsys *m);

#endif
