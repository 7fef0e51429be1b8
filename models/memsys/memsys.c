/* The timed memory system: the coherence controllers of models/coh wrapped in
 * KnightSim contexts, joined by the ring and backed by the memory
 * controllers and their DRAM behind their system agents.
 *
 * The nodes of the coherence system become a node table here: each node's
 * kind chooses its controller's work (a core's takes the CPU's requests
 * too), its latency, clock domain and ring endpoint. The topology says
 * which switch and port each endpoint sits on.
 *
 * The GPU (cgm_memsys_gpu_port): a vector L1 controller per compute unit and
 * the L2 banks run in the GPU clock domain. L1s and banks exchange messages
 * through a crossbar (a message waits its sender's latency, then enters the
 * destination's input queue if it has room); the banks reach the rest of
 * the system through a hub, a ring endpoint that routes what arrives to
 * the bank it is for. The memory side (system agents, memory controllers,
 * hubs) is built in topology.c. */
#include "memsys_internal.h"

#include "cgm/check.h"

#include <string.h>

void cgm_memsys_default_config(struct cgm_memsys_config *c)
{
    memset(c, 0, sizeof *c);
    c->cores = 4;
    c->slices = 4;
    c->block_bytes = 64;
    c->header_bytes = 8;
    c->coh = (struct cgm_coh_config){ .l1_sets = 64, .l1_ways = 8, .l1i_sets = 64, .l1i_ways = 8,
                                      .l2_sets = 512, .l2_ways = 8, .l1_wb_entries = 4,
                                      .l3_sets = 2048, .l3_ways = 16, .mshr = 16, .coalesce = 16,
                                      .wb_entries = 8, .l3_wb_entries = 16, .l3_mshr = 32 };
    c->l1_latency = 4;
    c->l2_latency = 8;
    c->l3_latency = 20;
    c->ports = 2;
    c->rx_queue = 8;
    c->cpu_queue = 16;
    c->retry_cycles = 8;
    c->net = (struct cgm_net_config){ .switches = 0 /* derived */, .local_ports = 2, .queue_size = 8,
                                      .flit_bytes = 32, .latency = 1 };
    c->sa_latency = 4;
    c->mc_queue = 64;
    c->mem_controllers = 1;
    c->mem_interleave = 64;
    cgm_dram_preset("DDR3-1600", &c->dram);
    c->mem_bytes = 256ull << 20;
}

void cgm_memsys_default_gpu(struct cgm_memsys_config *c, unsigned cus, bool coherent, bool shared_llc)
{
    unsigned banks = 1;
    while (banks * 2 <= cus / 4)
        banks *= 2;
    c->coh.gpu = (struct cgm_coh_gpu_config){ .cus = cus, .banks = banks, .l1_sets = 64, .l1_ways = 4,
                                              .l1_mshr = 16, .l1_coalesce = 32, .l1_wb_entries = 16,
                                              .l2_sets = 64, .l2_ways = 16, .l2_mshr = 32, .l2_coalesce = 64,
                                              .l2_wb_entries = 16, .shared_llc = shared_llc,
                                              .coherent = coherent && shared_llc };
    c->gpu_own_pages = !coherent;
    c->gpu_l1_latency = 1;
    c->gpu_l2_latency = 3;
    c->gpu_ports = 1;
    c->gpu_queue = 64;
    c->gpu_link_bytes = 32;
    c->gpu_xbar_bytes = 32; /* seed 000's GPU L1 and L2 buses: 32 bytes per GPU cycle */
    c->hub_latency = 1;
    c->gpu_hubs = 1;
    c->gpu_scalar_latency = 2;
    c->gpu_scalar_share = 1;
    c->gpu_tlb_sets = 16; /* as the CPU's TLBs in replay */
    c->gpu_tlb_ways = 4;
    c->gpu_tlb_latency = 0; /* a hit is part of the vector L1's latency */
    c->gpu_tlb_shared_entries = 1024; /* seed 002 Fig. 5: a 1024-entry TLB */
    /* The thesis gives no figure, only that the IOMMU's walk is much
     * slower than the CPU's: replay's CPU walk (30 cycles) in GPU cycles,
     * four times as long at 1 GHz. Faults are not charged, as replay's CPU
     * does not by default. */
    c->iommu_walk_latency = 30;
    /* Nor how many walks the IOMMU makes at once: Power et al. (HPCA 2014)
     * serve per-CU TLBs with one shared, 32-way threaded walker. */
    c->iommu_walkers = 32;
}

int cgm_memsys_domains_create(ks_engine *eng, uint64_t cpu_hz, uint64_t gpu_hz, uint64_t sys_hz,
                              const struct cgm_dram_config *dram, struct cgm_memsys_domains *d, char *err,
                              size_t errlen)
{
    *d = (struct cgm_memsys_domains){ 0 };
    if (!cpu_hz || !gpu_hz || !sys_hz || !(dram->t.tck_ns > 0)) {
        snprintf(err, errlen, "memsys: clock frequencies must be non-zero");
        return -1;
    }
    d->cpu = ks_domain_create(eng, "cpu", cpu_hz);
    d->sys = ks_domain_create(eng, "system", sys_hz);
    d->dram = ks_domain_create(eng, "dram", (uint64_t)(1e9 / dram->t.tck_ns + 0.5));
    d->gpu = ks_domain_create(eng, "gpu", gpu_hz);
    if (!d->cpu || !d->sys || !d->dram || !d->gpu) {
        snprintf(err, errlen, "memsys: clock domains refused: %s", ks_engine_error(eng));
        return -1;
    }
    return 0;
}

int cgm_memsys_gpu_dram_domain_create(ks_engine *eng, const struct cgm_dram_config *gpu_dram,
                                      struct cgm_memsys_domains *d, char *err, size_t errlen)
{
    if (!(gpu_dram->t.tck_ns > 0)) {
        snprintf(err, errlen, "memsys: the GPU's DRAM clock must be non-zero");
        return -1;
    }
    d->gpu_dram = ks_domain_create(eng, "gpu-dram", (uint64_t)(1e9 / gpu_dram->t.tck_ns + 0.5));
    if (!d->gpu_dram) {
        snprintf(err, errlen, "memsys: clock domains refused: %s", ks_engine_error(eng));
        return -1;
    }
    return 0;
}

int cgm_memsys_default_domains(ks_engine *eng, const struct cgm_dram_config *dram, struct cgm_memsys_domains *d,
                               char *err, size_t errlen)
{
    return cgm_memsys_domains_create(eng, 4000000000ull, 1000000000ull, 2000000000ull, dram, d, err, errlen);
}

ks_domain *cgm_memsys_cpu_domain(const struct cgm_memsys *m) { return m->cpu; }
const struct cgm_memsys_config *cgm_memsys_config_of(const struct cgm_memsys *m) { return &m->cfg; }
const struct cgm_coh_sys *cgm_memsys_coh(const struct cgm_memsys *m) { return m->coh; }
const struct cgm_net *cgm_memsys_net(const struct cgm_memsys *m) { return m->net; }
const struct cgm_coh_msg_stats *cgm_memsys_l2_msgs(const struct cgm_memsys *m, int core)
{
    if (core < 0 || (unsigned)core >= m->cfg.cores)
        return NULL;
    return cgm_coh_node_msgs(m->coh, core);
}
const struct cgm_coh_msg_stats *cgm_memsys_l3_msgs(const struct cgm_memsys *m, int slice)
{
    if (slice < 0 || (unsigned)slice >= m->cfg.slices)
        return NULL;
    return cgm_coh_node_msgs(m->coh, (int)m->cfg.cores + slice);
}

static struct pkt *pkt_new(struct cgm_memsys *m)
{
    if (!m->free_pkts) {
        struct pkt_chunk *c = malloc(sizeof *c);
        if (!c) /* packets in flight are bounded by the queues and MSHRs */
            cgm_oom("memory system: a chunk of network packets");
        c->next = m->chunks;
        m->chunks = c;
        for (unsigned i = PKTS_PER_CHUNK; i-- > 0;) {
            c->p[i].next_free = m->free_pkts;
            m->free_pkts = &c->p[i];
        }
    }
    struct pkt *p = m->free_pkts;
    m->free_pkts = p->next_free;
    memset(p, 0, sizeof *p);
    return p;
}

static void pkt_free(struct cgm_memsys *m, struct pkt *p)
{
    p->next_free = m->free_pkts;
    m->free_pkts = p;
}

void memsys_push(struct fifo *f, void *p)
{
    if (!fifo_push(f, p))
        cgm_oom("memory system: a queue of packets or requests");
}

/* The lowest free request record of a core or GPU L1, marked in use; -1
 * if every one is. */
int memsys_record_take(struct node *n)
{
    for (unsigned w = 0; w * 64 < n->nreqs; w++) {
        if (~n->req_busy[w]) {
            unsigned idx = w * 64 + (unsigned)__builtin_ctzll(~n->req_busy[w]);
            if (idx >= n->nreqs)
                return -1;
            n->req_busy[w] |= 1ull << (idx % 64);
            return (int)idx;
        }
    }
    return -1;
}

void memsys_record_free(struct node *n, uint64_t idx)
{
    n->req_busy[idx / 64] &= ~(1ull << (idx % 64));
}

/* Latency histogram bucket: the value's bit length, at most 23. */
static unsigned bucket(uint64_t v)
{
    unsigned b = v ? 64u - (unsigned)__builtin_clzll(v) : 0;
    return b < 23 ? b : 23;
}

/* ---- the coherence environment ------------------------------------------ */

/* The network lane of a coherence message (cgm_coh_msg_lane). */
static uint8_t lane_of(const struct cgm_memsys *m, const struct cgm_coh_msg *msg)
{
    static const uint8_t lanes[] = { [COH_LANE_REQUEST] = CGM_LANE_REQUEST, [COH_LANE_REPLY] = CGM_LANE_REPLY,
                                     [COH_LANE_COHERENCE] = CGM_LANE_COHERENCE };
    return lanes[cgm_coh_msg_lane(m->coh, msg)];
}

static unsigned data_bytes(const struct cgm_memsys *m) { return m->cfg.header_bytes + m->cfg.block_bytes; }

/* The crossbar: into the destination's input queue at once, first come,
 * first served; the destination takes it once it has crossed. Its queues
 * are bounded by what the protocol lets be in flight (MSHRs, write-back
 * entries), not by rx_queue (as in seed 000, whose 512-entry queues never
 * fill): a sender turned away by a full queue could be turned away for
 * ever by others that always come first, and a CU's acknowledgement stuck
 * behind it would stall its bank.
 *
 * Each crossbar port (a vector L1's, a bank's) carries gpu_xbar_bytes per
 * GPU cycle each way, as seed 000's L1 and L2 buses (a transfer takes size
 * / bus width GPU cycles, one sender at a time into a bank). A packet
 * starts once its sender's latency has passed and both its sender's output
 * and its destination's input are free, and arrives when its last byte
 * has crossed. The links are counted in bytes, as the hub's, so a small
 * packet may follow another in the same cycle and a link never carries
 * more than its width (the seed truncates: 72 bytes at 32 per cycle in 2
 * cycles). */
static bool xbar_send(struct cgm_memsys *m, struct node *s, struct node *d, struct pkt *p)
{
    uint64_t w = m->cfg.gpu_xbar_bytes, ready = (ks_domain_cycle(m->gpu) + s->latency) * w;
    uint64_t start = ready > s->xbar_out ? ready : s->xbar_out;
    if (d->xbar_in > start)
        start = d->xbar_in;
    s->xbar_out = d->xbar_in = start + p->p.bytes;
    p->due = ks_domain_cycle_tick(m->gpu, (start + p->p.bytes + w - 1) / w);
    memsys_push(&d->rx[p->p.lane], p);
    d->rx_n++;
    ks_advance(&d->ec);
    return true;
}

/* Into a controller's input queue, if p is due and its lane has room: the
 * hub's delivery to its banks. */
bool memsys_node_receive(struct cgm_memsys *m, struct node *d, struct pkt *p)
{
    struct fifo *q = &d->rx[p->p.lane];
    if (ks_now(m->eng) < p->due || q->n >= m->cfg.rx_queue)
        return false;
    memsys_push(q, p);
    d->rx_n++;
    ks_advance(&d->ec);
    return true;
}

/* A packet leaves its controller: across the crossbar, from an L2 bank
 * into the hub, or into the ring at
 * once (it waits there until its latency has passed). */
static bool forward(struct cgm_memsys *m, struct pkt *p)
{
    if (p->xbar)
        return xbar_send(m, &m->nodes[p->m.src], &m->nodes[p->m.dst], p);
    struct hub *h = memsys_hub_at(m, p->p.src);
    if (h)
        return memsys_hub_down(h, p);
    return cgm_net_inject_at(m->net, &p->p, p->due);
}

/* The cache's output controller: the packet goes on at once, or behind
 * the packets of its lane that could not go on yet. */
static void send_packet(struct cgm_memsys *m, struct node *n, struct pkt *p)
{
    struct fifo *q = &n->tx[p->p.lane];
    if (!q->n && forward(m, p))
        return;
    memsys_push(q, p);
    n->tx_n++;
}

/* A bank's fetches from below start with its request to its parent (or
 * memory) and end with the block's arrival (from the parent, or from the
 * core it forwarded the request to). */
static bool is_fetch(uint8_t type)
{
    return type == COH_GETS || type == COH_GET || type == COH_GETX || type == COH_UPGRADE;
}

static bool is_fetch_answer(uint8_t type)
{
    return type == COH_PUTS || type == COH_PUTCLNX || type == COH_PUTX || type == COH_UPGRADE_ACK;
}

static void env_send(void *ctx, const struct cgm_coh_msg *msg)
{
    struct cgm_memsys *m = ctx;
    struct node *src = &m->nodes[msg->src], *dst = &m->nodes[msg->dst];
    struct pkt *p = pkt_new(m);
    p->kind = PK_COH;
    p->m = *msg;
    p->p.src = src->ep;
    p->p.dst = dst->ep;
    p->p.bytes = m->cfg.header_bytes + cgm_coh_msgs[msg->type].extra + msg->bytes;
    p->p.lane = lane_of(m, msg);
    p->xbar = src->ep < 0 || dst->ep < 0;
    p->due = ks_domain_cycle_tick(src->domain, ks_cycle() + src->latency);
    if (src->kind == CGM_NODE_GPU_L2 && dst->kind == CGM_NODE_SLICE && is_fetch(msg->type))
        fetch_clock_start(&src->fetch, msg->block, ks_cycle());
    send_packet(m, src, p);
}

static void timer_add(struct node *n, uint64_t due, uint64_t block, int what)
{
    if (n->ntimers == n->captimers) {
        unsigned cap = n->captimers ? 2 * n->captimers : 16;
        struct timer *t = realloc(n->timers, cap * sizeof *t);
        if (!t)
            cgm_oom("memory system: a controller's timers");
        n->timers = t;
        n->captimers = cap;
    }
    n->timers[n->ntimers++] = (struct timer){ due, block, what };
}

static void env_later(void *ctx, int node, uint64_t block, int what)
{
    struct cgm_memsys *m = ctx;
    struct node *n = &m->nodes[node];
    if (what == COH_WAKE_MEM_READ || what == COH_WAKE_MEM_WRITE) {
        struct pkt *p = pkt_new(m);
        p->kind = what == COH_WAKE_MEM_READ ? PK_MEM_READ : PK_MEM_WRITE;
        p->block = block;
        p->slice = node;
        p->p.src = n->ep;
        p->p.dst = memsys_mem_ep(m, block);
        p->p.bytes = what == COH_WAKE_MEM_READ ? m->cfg.header_bytes : data_bytes(m);
        p->p.lane = CGM_LANE_REQUEST;
        p->due = ks_domain_cycle_tick(n->domain, ks_cycle() + n->latency);
        if (n->kind == CGM_NODE_GPU_L2 && what == COH_WAKE_MEM_READ)
            fetch_clock_start(&n->fetch, block, ks_cycle());
        send_packet(m, n, p);
        return;
    }
    unsigned delay = cgm_coh_wake_is_retry(what) ? m->cfg.retry_cycles : 1;
    timer_add(n, ks_cycle() + delay, block, what);
}

static void env_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t block, uint64_t value,
                     unsigned level)
{
    struct cgm_memsys *m = ctx;
    (void)op;
    if (m->pages && memsys_pages_downgraded(m, tag, block))
        return;
    struct node *n = &m->nodes[core];
    struct cpu_req *r = &n->reqs[tag];
    uint64_t when = ks_cycle() + n->latency + (level >= 2 ? m->cfg.l2_latency : 0);
    uint64_t lat = when - r->issued;
    m->st.completed++;
    m->st.latency_sum += lat;
    if (lat > m->st.latency_max)
        m->st.latency_max = lat;
    m->st.latency_hist[bucket(lat)]++;
    r->missing = false;
    memsys_record_free(n, tag);
    if (m->done)
        m->done(m->ctx, core, r->tag, r->op, r->addr, value, when);
}

/* ---- delivery from the ring ------------------------------------------- */

static bool net_deliver(void *ctx, int ep, struct cgm_net_packet *np)
{
    struct cgm_memsys *m = ctx;
    struct pkt *p = (struct pkt *)np;
    const struct endpoint *e = &m->topo.eps[ep];
    if (e->kind == EP_SA)
        return memsys_sa_receive(e->obj, p);
    if (e->kind == EP_HUB)
        return memsys_hub_up(e->obj, p);
    struct node *n = e->obj;
    struct fifo *q = &n->rx[np->lane];
    if (q->n >= m->cfg.rx_queue)
        return false;
    memsys_push(q, p);
    n->rx_n++;
    ks_advance(&n->ec);
    return true;
}

/* ---- cache controller contexts ------------------------------------------ */

static bool node_idle(const struct node *n)
{
    return !n->ntimers && !n->cpu.n && !n->rx_n && !n->tx_n;
}

/* A GPU L2 bank takes a CU's request only when it has an MSHR entry and a
 * write-back entry for it (cgm_coh_gpu_bank_admits); until then the
 * request stays at the head of the bank's request lane. */
static bool request_waits(struct cgm_memsys *m, const struct node *n, const struct pkt *p)
{
    return n->kind == CGM_NODE_GPU_L2 && p->p.lane == CGM_LANE_REQUEST && !m->cfg.gpu_l2_nack_when_full &&
           !cgm_coh_gpu_bank_admits(m->coh, n->index);
}

/* The cycles a CU's request waits at a bank's door, timed from the first
 * refusal to its taking. */
static void note_wait(struct node *n, struct pkt *p, uint64_t now)
{
    if (!p->waiting) {
        p->waiting = true;
        p->wait_from = now;
        n->fetch.st.entry_waits++;
    }
}

/* Nothing to do until a message arrives: idle, or a bank whose only work
 * is CU requests waiting for an entry, which only its own handling of an
 * answer from a CU or its parent (a message) can free. */
static bool node_sleeps(struct cgm_memsys *m, const struct node *n)
{
    if (node_idle(n))
        return true;
    const struct pkt *p = fifo_peek(&n->rx[CGM_LANE_REQUEST]);
    return n->kind == CGM_NODE_GPU_L2 && p && !n->ntimers && !n->tx_n && n->rx_n == n->rx[CGM_LANE_REQUEST].n &&
           ks_now(m->eng) >= p->due && request_waits(m, n, p);
}

/* Hands request record idx to the node's first-level cache; -1 if it
 * cannot take it now (a GPU request still being translated, or the cache
 * refused it). */
/* Whether core N's L1 of request R's kind (instructions or data) may take
 * it: it has an MSHR file of its own (l1i_mshr, l1d_mshr) and fewer blocks
 * than that missing, or R's block is one of them. */
static bool l1_mshr_room(const struct cgm_memsys *m, const struct node *n, const struct cpu_req *r)
{
    bool fetch = r->op == CGM_OP_FETCH;
    unsigned cap = fetch ? m->cfg.l1i_mshr : m->cfg.l1d_mshr;
    if (!cap || r->op == CGM_OP_FLUSH_CPU || r->op == CGM_OP_FLUSH_GPU)
        return true;
    uint64_t block = r->addr >> m->block_shift, seen[64];
    unsigned nseen = 0;
    for (unsigned w = 0; w * 64 < n->nreqs; w++)
        for (uint64_t bits = n->req_busy[w]; bits; bits &= bits - 1) {
            const struct cpu_req *q = &n->reqs[w * 64 + (unsigned)__builtin_ctzll(bits)];
            if (!q->missing || (q->op == CGM_OP_FETCH) != fetch)
                continue;
            uint64_t b = q->addr >> m->block_shift;
            if (b == block)
                return true; /* joins its block's entry */
            unsigned i = 0;
            while (i < nseen && seen[i] != b)
                i++;
            if (i == nseen && nseen < 64)
                seen[nseen++] = b;
        }
    return nseen < cap;
}

static int node_issue(struct cgm_memsys *m, struct node *n, unsigned idx, uint64_t now)
{
    if (n->kind == CGM_NODE_GPU_L1) {
        const struct gpu_req *g = &n->greqs[idx];
        if (g->ready > now)
            return -1;
        struct cgm_coh_req q = g->req;
        if (m->pages && memsys_pages_request(m, CGM_PAGE_AGENT_GPU, &q) < 0)
            return -1;
        int rc = cgm_coh_gpu_access(m->coh, n->index, &q);
        if (rc == 0 && (q.op == CGM_OP_LOAD || q.op == CGM_OP_STORE))
            n->greqs[idx].to_l2 = now + 1;
        return rc;
    }
    struct cpu_req *r = &n->reqs[idx];
    if (!l1_mshr_room(m, n, r))
        return -1;
    struct cgm_coh_req q = { .block = r->addr >> m->block_shift, .tag = idx, .value = r->value, .op = r->op };
    if (m->pages && memsys_pages_request(m, (unsigned)n->index, &q) < 0)
        return -1;
    r->missing = true; /* until done, which may be inside the call (a hit) */
    int rc = cgm_coh_access(m->coh, n->coh, &q);
    if (rc < 0)
        r->missing = false;
    return rc;
}

/* One cycle of a controller; true if it did something (took a request or
 * a message, fired a timer, sent a packet on). */
static bool node_cycle(struct cgm_memsys *m, struct node *n, uint64_t now)
{
    unsigned done = 0;
    /* Timers (NACK retries, write-back drains, stalled replays). */
    for (unsigned i = 0; i < n->ntimers;) {
        if (n->timers[i].due > now) {
            i++;
            continue;
        }
        struct timer t = n->timers[i];
        n->timers[i] = n->timers[--n->ntimers];
        cgm_coh_wake(m->coh, n->coh, t.block, t.what);
        done++;
    }
    /* The scheduler: a new CPU request first, then one message from the
     * network (replies before coherence before requests). */
    if (n->port_cycle != now) {
        n->port_cycle = now;
        n->ports_used = 0;
    }
    while (n->cpu.n && n->ports_used < n->ports) { /* only cores and GPU L1s have requests */
        unsigned idx = (unsigned)(uintptr_t)fifo_peek(&n->cpu);
        n->ports_used++;
        if (node_issue(m, n, idx, now) < 0)
            break;
        fifo_pop(&n->cpu);
        if (n->room)
            ks_advance(n->room);
        done++;
    }
    static const int order[CGM_NLANES] = { CGM_LANE_REPLY, CGM_LANE_COHERENCE, CGM_LANE_REQUEST };
    unsigned taken = 0;
    for (int k = 0; n->rx_n && k < CGM_NLANES && taken < n->ports;) {
        struct fifo *q = &n->rx[order[k]];
        struct pkt *p = fifo_peek(q);
        if (!p || (p->xbar && ks_now(m->eng) < p->due)) {
            k++; /* empty, or the crossbar's head not there yet */
            continue;
        }
        if (request_waits(m, n, p)) {
            note_wait(n, p, now);
            k++; /* a request the bank cannot take yet */
            continue;
        }
        fifo_pop(q);
        n->rx_n--;
        if (p->waiting)
            n->fetch.st.entry_wait_cycles += now - p->wait_from;
        if (n->kind == CGM_NODE_GPU_L2 && (p->kind == PK_MEM_READ_DONE ||
                                           (p->kind == PK_COH && is_fetch_answer(p->m.type))))
            fetch_clock_stop(&n->fetch, p->kind == PK_COH ? p->m.block : p->block, now);
        if (p->kind == PK_COH)
            cgm_coh_deliver(m->coh, &p->m);
        else if (p->kind == PK_MEM_READ_DONE)
            cgm_coh_wake(m->coh, n->coh, p->block, COH_WAKE_MEM_READ);
        else if (p->kind == PK_MEM_WRITE_DONE)
            cgm_coh_wake(m->coh, n->coh, p->block, COH_WAKE_MEM_WRITE);
        pkt_free(m, p);
        taken++;
    }
    done += taken;
    /* The output controller: each lane's head once it is due. */
    for (int l = 0; n->tx_n && l < CGM_NLANES; l++) {
        struct pkt *p = fifo_peek(&n->tx[l]);
        if (p && forward(m, p)) {
            fifo_pop(&n->tx[l]);
            n->tx_n--;
            done++;
        }
    }
    return done > 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Whether a packet at the head of a tx lane (turned away) may go on any
 * cycle now: the ring has room, or it waits for the hub, whose room
 * nothing announces. The ring announces room at a ring endpoint
 * (cgm_net_watch_space) by advancing the endpoint's eventcount. */
static bool tx_may_go(const struct cgm_memsys *m, const struct fifo *q, int ep)
{
    const struct pkt *p = fifo_peek(q);
    return p && (memsys_hub_at(m, p->p.src) || cgm_net_can_inject(m->net, ep, p->p.lane));
}

/* The first cycle after `now` in which the controller may have work that
 * no advance of its eventcount announces (arrivals and new requests do
 * advance it): a timer falling due, the crossbar's packet at the head of a
 * lane arriving, a CU's request finishing its translation. now + 1 when
 * it has work that may be possible any cycle: a packet it can take, a
 * request its cache refused (each refusal is counted), a packet the hub
 * turned away or the ring has room for again, a bank's first refusal of a
 * request to count.
 * Polls before that cycle would change nothing, not even a statistic, so
 * waiting for it (ks_await_until) keeps the timing of polling. */
static uint64_t node_next_work(struct cgm_memsys *m, const struct node *n, uint64_t now)
{
    for (int l = 0; n->tx_n && l < CGM_NLANES; l++)
        if (tx_may_go(m, &n->tx[l], n->ep))
            return now + 1;
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < n->ntimers; i++)
        next = min_u64(next, n->timers[i].due);
    if (n->cpu.n) {
        if (n->kind != CGM_NODE_GPU_L1)
            return now + 1;
        const struct gpu_req *g = &n->greqs[(uintptr_t)fifo_peek(&n->cpu)];
        if (g->ready <= now)
            return now + 1;
        next = min_u64(next, g->ready);
    }
    ks_tick period = ks_domain_period(n->domain);
    for (int l = 0; n->rx_n && l < CGM_NLANES; l++) {
        const struct pkt *p = fifo_peek(&n->rx[l]);
        if (!p)
            continue;
        if (p->xbar && ks_now(m->eng) < p->due)
            next = min_u64(next, (p->due + period - 1) / period);
        else if (!(n->kind == CGM_NODE_GPU_L2 && l == CGM_LANE_REQUEST && !m->cfg.gpu_l2_nack_when_full &&
                   cgm_coh_gpu_bank_refusal_counted(m->coh, n->index)))
            return now + 1; /* a request waiting for a bank entry (once its stall is
                               counted) waits for the bank's own work */
    }
    return next > now ? next : now + 1;
}

static void node_main(void *arg)
{
    struct node *n = arg;
    struct cgm_memsys *m = n->ms;
    while (!m->stopping) {
        uint64_t seen = ks_ec_count(&n->ec);
        uint64_t now = ks_cycle();
        bool busy = node_cycle(m, n, now);
        if (node_sleeps(m, n)) {
            ks_await(&n->ec, seen + 1);
            continue;
        }
        /* After a cycle with work, the next one most likely has some too:
         * only a cycle that found nothing asks how long nothing will come. */
        uint64_t next = busy ? now + 1 : node_next_work(m, n, now);
        if (next > now + WAIT_MIN_CYCLES) /* the timing of polling each cycle, without the polls */
            ks_await_until(&n->ec, seen + 1, next);
        else
            ks_pause(1);
    }
}

/* Hands request record idx to the node's first-level cache. It takes the
 * request this cycle if its queue is empty and a port is free: done here
 * rather than by waking the controller (the same cycle, so the same
 * timing) when the caller runs in the node's clock domain. */
void memsys_node_request(struct cgm_memsys *m, struct node *n, unsigned idx, uint64_t now)
{
    ks_context *self = ks_self();
    bool in_domain = self && ks_context_domain(self) == n->domain;
    if (in_domain) {
        if (n->port_cycle != now) {
            n->port_cycle = now;
            n->ports_used = 0;
        }
        if (!n->cpu.n && n->ports_used < n->ports) {
            n->ports_used++;
            if (node_issue(m, n, idx, now) >= 0) {
                if (!node_idle(n))
                    ks_advance(&n->ec); /* timers or packets for the controller */
                return;
            }
        }
    }
    memsys_push(&n->cpu, (void *)(uintptr_t)idx);
    if (in_domain && n->ports_used >= n->ports)
        ks_advance_next(&n->ec); /* no port left this cycle: the controller's turn would be idle */
    else
        ks_advance(&n->ec);
}

bool cgm_memsys_access(struct cgm_memsys *m, int core, uint8_t op, uint64_t addr, uint64_t tag,
                       uint64_t store_value)
{
    if (core < 0 || (unsigned)core >= m->cfg.cores || (addr >> m->block_shift) >= (m->cfg.mem_bytes >> m->block_shift))
        return false;
    if (cgm_coh_op_is_sync(op) && !m->pages) { /* nothing to do without a self-invalidating protocol */
        if (m->done)
            m->done(m->ctx, core, tag, op, addr, 0, ks_domain_cycle(m->cpu));
        return true;
    }
    struct node *n = &m->nodes[core];
    if (n->cpu.n >= m->cfg.cpu_queue)
        return false;
    int idx = memsys_record_take(n);
    if (idx < 0)
        return false; /* every record in use: as good as a full queue */
    uint64_t now = ks_domain_cycle(m->cpu);
    n->reqs[idx] = (struct cpu_req){ .addr = addr, .tag = tag, .value = store_value,
                                     .issued = now, .op = op };
    memsys_node_request(m, n, (unsigned)idx, now);
    return true;
}


/* ---- construction ------------------------------------------------------- */

static unsigned log2_exact(unsigned v)
{
    unsigned n = 0;
    while ((1u << n) < v)
        n++;
    return (1u << n) == v ? n : 0;
}

/* A core and a slice per switch; the L2 banks behind the hub; the GPU L1s
 * on the crossbar only (-1). */
static int node_endpoint(const struct cgm_memsys *m, const struct node *n)
{
    switch (n->kind) {
    case CGM_NODE_CORE: return cgm_net_endpoint(m->net, (unsigned)n->index, 0);
    case CGM_NODE_SLICE: return cgm_net_endpoint(m->net, (unsigned)n->index, 1);
    case CGM_NODE_GPU_L2: return m->topo.hubs[(unsigned)n->index % m->topo.nhubs].ep;
    default: return -1;
    }
}

static const char *const node_names[CGM_NODE_KINDS] = {
    [CGM_NODE_CORE] = "l1", [CGM_NODE_SLICE] = "l3", [CGM_NODE_GPU_L1] = "gpu_l1v", [CGM_NODE_GPU_L2] = "gpu_l2"
};

/* Latency (cycles of its domain), domain and ports of a node's controller. */
static void node_timing(const struct cgm_memsys *m, struct node *n)
{
    const struct cgm_memsys_config *cfg = &m->cfg;
    bool gpu = n->kind == CGM_NODE_GPU_L1 || n->kind == CGM_NODE_GPU_L2;
    n->domain = gpu ? m->gpu : m->cpu;
    n->ports = gpu ? cfg->gpu_ports : cfg->ports;
    switch (n->kind) {
    case CGM_NODE_CORE: n->latency = cfg->l1_latency; break;
    case CGM_NODE_SLICE: n->latency = cfg->l3_latency; break;
    case CGM_NODE_GPU_L1: n->latency = cfg->gpu_l1_latency; break;
    default: n->latency = cfg->gpu_l2_latency; break;
    }
}

/* The node table: one controller context per coherence node, its kind
 * choosing its latency and endpoint. */
static int build_nodes(struct cgm_memsys *m, ks_engine *eng, char *err, size_t errlen)
{
    const struct cgm_memsys_config *cfg = &m->cfg;
    m->nnodes = cgm_coh_node_count(m->coh);
    m->nodes = calloc(m->nnodes, sizeof *m->nodes);
    if (!m->nodes) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (unsigned i = 0; i < m->nnodes; i++) {
        struct node *n = &m->nodes[i];
        n->ms = m;
        n->coh = (int)i;
        n->kind = (uint8_t)cgm_coh_node_kind(m->coh, (int)i);
        n->index = cgm_coh_node_index(m->coh, (int)i);
        node_timing(m, n);
        n->ep = node_endpoint(m, n);
        if (n->ep >= 0 && !memsys_hub_at(m, n->ep))
            m->topo.eps[n->ep] = (struct endpoint){ EP_NODE, n };
        ks_ec_init(&n->ec, "cache", 0);
        if (n->kind == CGM_NODE_CORE) {
            n->nreqs = cfg->cpu_queue + cfg->coh.mshr * cfg->coh.coalesce + 64;
            n->reqs = calloc(n->nreqs, sizeof *n->reqs);
            n->req_busy = calloc((n->nreqs + 63) / 64, sizeof *n->req_busy);
            if (!n->reqs || !n->req_busy) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        }
        if (n->kind == CGM_NODE_GPU_L1) {
            n->nreqs = cfg->gpu_queue + cfg->coh.gpu.l1_mshr * cfg->coh.gpu.l1_coalesce + 64;
            n->greqs = calloc(n->nreqs, sizeof *n->greqs);
            n->req_busy = calloc((n->nreqs + 63) / 64, sizeof *n->req_busy);
            if (!n->greqs || !n->req_busy) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        }
        char name[32];
        snprintf(name, sizeof name, "%s.%d", node_names[n->kind], n->index);
        ks_context_opts o = { .name = name, .domain = n->domain };
        if (!ks_context_create_opts(eng, node_main, n, &o)) {
            snprintf(err, errlen, "memsys: %s", ks_engine_error(eng));
            return -1;
        }
    }
    return 0;
}

struct cgm_memsys *cgm_memsys_create(ks_engine *eng, const struct cgm_memsys_domains *d,
                                     const struct cgm_memsys_config *cfg, cgm_memsys_done_fn done, void *ctx,
                                     char *err, size_t errlen)
{
    if (!cfg->cores || cfg->cores > 64 || !cfg->slices || (cfg->slices & (cfg->slices - 1)) ||
        !cfg->rx_queue || !cfg->cpu_queue || !cfg->mc_queue || !cfg->ports || !log2_exact(cfg->block_bytes) ||
        !cfg->header_bytes || cfg->mem_bytes < cfg->block_bytes || cfg->net.local_ports < 2) {
        snprintf(err, errlen, "memsys: bad configuration (cores 1..64, slices and the block size powers of "
                 "two, queues and the header size non-zero, two local ports per switch)");
        return NULL;
    }
    if (cfg->coh.gpu.cus && (!cfg->gpu_l1_latency || !cfg->gpu_l2_latency || !cfg->gpu_ports || !cfg->gpu_queue ||
                             !cfg->gpu_link_bytes || !cfg->gpu_xbar_bytes)) {
        snprintf(err, errlen, "memsys: the GPU's cache latencies, ports, request queue, hub link and crossbar "
                 "widths must be non-zero");
        return NULL;
    }
    if (cfg->coh.gpu.cus && (cfg->gpu_hubs < 1 || cfg->gpu_hubs > 64)) {
        snprintf(err, errlen, "memsys: gpu_hubs is %u: a GPU needs 1 to 64 hubs", cfg->gpu_hubs);
        return NULL;
    }
    if (!d || !d->cpu || !d->gpu || !d->sys || !d->dram || (cfg->gpu_dram_on && !d->gpu_dram)) {
        snprintf(err, errlen, "memsys: a clock domain is missing");
        return NULL;
    }
    if (cfg->gpu_dram_on && (!cfg->coh.gpu.cus || cfg->coh.gpu.shared_llc || !cfg->gpu_own_pages)) {
        snprintf(err, errlen, "memsys: gpu_dram_on needs compute units whose L2 misses go to memory "
                 "(not shared_llc) on pages of their own (gpu_own_pages)");
        return NULL;
    }
    struct cgm_memsys *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->cfg = *cfg;
    m->eng = eng;
    m->done = done;
    m->ctx = ctx;
    m->cpu = d->cpu;
    m->gpu = d->gpu;
    m->sys = d->sys;
    m->dram_dom = d->dram;
    m->gpu_dram_dom = d->gpu_dram;
    m->block_shift = log2_exact(cfg->block_bytes);
    struct cgm_coh_config cc = cfg->coh;
    cc.cores = cfg->cores;
    cc.slices = cfg->slices;
    cc.blocks = cfg->mem_bytes >> m->block_shift;
    cc.block_bytes = cfg->block_bytes;
    struct cgm_coh_env env = { .ctx = m, .send = env_send, .later = env_later, .done = env_done,
                               .gpu_done = memsys_gpu_done };
    m->coh = cgm_coh_create(&cc, &env, err, errlen);
    if (!m->coh)
        goto fail;
    if (!memsys_pages_create(m)) {
        snprintf(err, errlen, "out of memory (the page classes)");
        goto fail;
    }

    /* The memory side's contexts after the caches': in a cycle they share,
     * the caches' controllers run first. */
    if (memsys_topology_create(m, eng, net_deliver, err, errlen) || build_nodes(m, eng, err, errlen) ||
        (cfg->coh.gpu.cus && memsys_gpu_side_create(m, err, errlen)) || memsys_topology_start(m, err, errlen))
        goto fail;
    /* Room in the ring for a packet it turned away wakes its sender. */
    for (unsigned i = 0; i < m->nnodes; i++)
        if (m->nodes[i].ep >= 0 && !memsys_hub_at(m, m->nodes[i].ep))
            cgm_net_watch_space(m->net, m->nodes[i].ep, &m->nodes[i].ec);
    return m;
fail:
    cgm_memsys_destroy(m);
    return NULL;
}

void cgm_memsys_stop(struct cgm_memsys *m)
{
    m->stopping = true;
    for (unsigned i = 0; i < m->nnodes; i++)
        ks_advance(&m->nodes[i].ec);
    memsys_topology_stop(m);
    ks_run(m->eng);
}


void cgm_memsys_destroy(struct cgm_memsys *m)
{
    if (!m)
        return;
    for (unsigned i = 0; m->nodes && i < m->nnodes; i++) {
        struct node *n = &m->nodes[i];
        for (int l = 0; l < CGM_NLANES; l++) {
            free(n->rx[l].buf);
            free(n->tx[l].buf);
        }
        free(n->cpu.buf);
        free(n->timers);
        fetch_clock_free(&n->fetch);
        free(n->reqs);
        free(n->greqs);
        free(n->req_busy);
    }
    memsys_topology_free(m);
    memsys_gpu_side_free(m);
    memsys_pages_free(m);
    while (m->chunks) {
        struct pkt_chunk *c = m->chunks;
        m->chunks = c->next;
        free(c);
    }
    free(m->nodes);
    cgm_coh_destroy(m->coh);
    free(m);
}
