/* A Southern Islands compute unit (seed 000 Sec. 3.2.4, M2S-CGM's compute-unit.c),
 * one KnightSim context in the GPU clock domain. Each cycle:
 *   1. memory instructions whose requests have all completed retire
 *      (vmcnt counts vector memory instructions in issue order, lgkmcnt
 *      scalar loads; the wavefront waits for its LDS instructions itself);
 *   2. the vector memory unit sends up to vmem_requests_per_cycle block
 *      requests and the scalar unit one, oldest instruction first, through
 *      the memory port;
 *   3. issue: only the pool whose turn it is (cycle mod simds) issues, at
 *      most one instruction per unit type (branch, scalar, SIMD, vector
 *      memory, LDS), the oldest of each type whose fetch latency has passed,
 *      if its unit can take it;
 *   4. fetch: every pool takes up to fetch_width instructions, at most one
 *      per wavefront, scanning its wavefronts in slot order, while its fetch
 *      buffer has room; a wavefront may fetch again when its previous
 *      instruction allows (below).
 * When a wavefront may fetch again (M2S-CGM's fetch rules): vector ALU when it enters
 * its SIMD (the next cycle); vector and scalar memory right after issue
 * (their counters track them); scalar ALU and branches at completion; LDS
 * when its accesses have finished. There is no register dependency
 * tracking: one instruction of a wavefront in flight at a time, and
 * s_waitcnt for memory.
 * Where this differs from M2S-CGM's code: MUBUF, MTBUF and
 * MIMG all go to the vector memory unit; s_waitcnt waits for its
 * vmcnt/lgkmcnt counts (gpu.cu.waitcnt = drain: for everything); vector
 * memory counts in vmcnt; a SIMD takes a 64-lane instruction for 64 /
 * simd_lanes cycles (4: seed 001) instead of 8; the LDS has banks; a
 * work-group's wavefronts spread over the pools, so work-groups of up to 16
 * wavefronts run; s_endpgm frees nothing until the wavefront's memory
 * accesses are done.
 * A cycle that changes nothing puts the unit to sleep until the next known
 * event, or until a memory completion or a new work-group wakes it. While
 * the port refuses a request or memory is in flight, the unit would try
 * every cycle; it waits instead (ks_await_until) to the first cycle in which
 * a try could differ, resuming where the tries would have, and counts the
 * cycles it skipped as they would have counted (poll_wait). */
#include "replay/coh_sync.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/memsys.h"
#include "cgm/sistats.h"
#include "replay/gpu/gpu_internal.h"
#include "replay/sim.h"

#define SCALAR_SLOTS 32u

static void free_wgs(struct rp_wg *wg);

static enum rp_issue_type issue_type(const struct cgm_si_static *s)
{
    switch (s->unit) {
    case CGM_SI_BRANCH: return IT_BRANCH;
    case CGM_SI_VALU: return IT_SIMD;
    case CGM_SI_VMEM: return IT_VMEM;
    case CGM_SI_LDS: return IT_LDS;
    default: return IT_SCALAR; /* SALU, SMRD, s_waitcnt, s_barrier, s_endpgm, s_nop, ... */
    }
}

static uint64_t *ring_alloc(unsigned n) { return calloc(n ? n : 1, sizeof(uint64_t)); }

int rp_cu_init(struct rp_cu *cu, struct rp_gpu *g, unsigned id)
{
    const struct rp_cu_cfg *c = &g->cfg->cu;
    memset(cu, 0, sizeof *cu);
    cu->gpu = g;
    cu->id = id;
    ks_ec_init(&cu->ec, "compute-unit", 0);
    cu->why = CS_FETCH;
    cu->counted = RP_NEVER;
    cu->pools = calloc(c->simds, sizeof *cu->pools);
    if (!cu->pools)
        return -1;
    for (unsigned p = 0; p < c->simds; p++) {
        struct rp_pool *pool = &cu->pools[p];
        pool->slot = calloc(c->wavefronts_per_simd, sizeof *pool->slot);
        pool->wake = ring_alloc((unsigned)c->wavefronts_per_simd);
        pool->fb = calloc(c->fetch_buffer, sizeof *pool->fb);
        if (!pool->slot || !pool->wake || !pool->fb)
            return -1;
        for (unsigned s = 0; s < c->wavefronts_per_simd; s++)
            pool->wake[s] = RP_NEVER;
    }
    cu->lds_done = ring_alloc((unsigned)c->lds_queue);
    cu->vmb_size = (unsigned)c->vmem_buffer;
    cu->nvslots = c->nonblocking_stores ? 64 : cu->vmb_size;
    cu->nslots = cu->nvslots + SCALAR_SLOTS;
    cu->slots = calloc(cu->nslots, sizeof *cu->slots);
    cu->send = ring_alloc(cu->nslots);
    cu->fin = ring_alloc(cu->nslots);
    struct rp_mreq *reqs = calloc((size_t)cu->nvslots * RP_MREQ_MAX + 2 * SCALAR_SLOTS, sizeof *reqs);
    if (!cu->lds_done || !cu->slots || !cu->send || !cu->fin || !reqs) {
        free(reqs);
        return -1;
    }
    cu->free_mask[1] = cu->nvslots == 64 ? ~0ull : (1ull << cu->nvslots) - 1;
    cu->free_mask[0] = (1ull << SCALAR_SLOTS) - 1;
    for (unsigned i = 0; i < cu->nslots; i++) {
        cu->slots[i].vector = i < cu->nvslots;
        cu->slots[i].req = i < cu->nvslots ? reqs + (size_t)i * RP_MREQ_MAX
                                           : reqs + (size_t)cu->nvslots * RP_MREQ_MAX + 2 * (i - cu->nvslots);
    }
    return 0;
}

void rp_cu_free(struct rp_cu *cu)
{
    const struct rp_cu_cfg *c = &cu->gpu->cfg->cu;
    free_wgs(cu->wgs);
    free_wgs(cu->dead);
    cu->wgs = cu->dead = NULL;
    for (unsigned p = 0; cu->pools && p < c->simds; p++) {
        free(cu->pools[p].slot);
        free(cu->pools[p].wake);
        free(cu->pools[p].fb);
    }
    free(cu->pools);
    free(cu->lds_done);
    if (cu->slots)
        free(cu->slots[0].req);
    free(cu->slots);
    free(cu->send);
    free(cu->fin);
}

/* ---- wavefront states ---------------------------------------------------- */

/* W (READY: waiting to fetch) needs looking at from cycle AT on (RP_NEVER:
 * when something pokes it). */
static void set_wake(struct rp_cu *cu, const struct rp_wave *w, uint64_t at, bool ready)
{
    struct rp_pool *pool = &cu->pools[w->pool];
    uint64_t bit = 1ull << w->slot;
    pool->wake[w->slot] = at;
    pool->timed_bits = at != RP_NEVER ? pool->timed_bits | bit : pool->timed_bits & ~bit;
    pool->ready_bits = ready ? pool->ready_bits | bit : pool->ready_bits & ~bit;
}

/* W enters STATE; READY_AT: for W_READY and W_BUSY, the cycle it may fetch
 * (RP_NEVER: an event will say). The fetch stage looks only at wavefronts
 * whose wake cycle has come. */
static void set_state(struct rp_cu *cu, struct rp_wave *w, enum rp_wave_state state, uint64_t ready_at)
{
    cu->nstate[w->state]--;
    cu->nstate[state]++;
    w->state = state;
    w->ready_at = ready_at;
    set_wake(cu, w, state == W_READY || state == W_BUSY ? ready_at : RP_NEVER, state == W_READY);
}

void rp_cu_wave_start(struct rp_cu *cu, struct rp_wave *w, uint64_t at)
{
    w->cu = cu;
    w->then = THEN_NONE;
    w->state = W_READY;
    w->ready_at = at;
    cu->nstate[W_READY]++;
    set_wake(cu, w, at, true);
}

static uint64_t vm_out(const struct rp_wave *w) { return w->vm_issued - w->vm_retired; }

/* ---- memory instructions ------------------------------------------------- */

/* The free slot of the kind with the lowest number, NULL if none is free
 * (it takes it). */
static struct rp_mslot *take_slot(struct rp_cu *cu, bool vector)
{
    uint64_t *mask = &cu->free_mask[vector];
    if (!*mask)
        return NULL;
    unsigned i = (unsigned)__builtin_ctzll(*mask);
    *mask &= *mask - 1;
    return &cu->slots[vector ? i : cu->nvslots + i];
}

/* Slot M's requests have all been sent: if all are answered, it retires at
 * the latest answer's cycle. */
static void maybe_finished(struct rp_cu *cu, struct rp_mslot *m)
{
    if (m->sent == m->nreq && !m->pending)
        cu->fin[cu->fin_n++] = (uint64_t)(m - cu->slots);
}

/* Synchronisations are asked for and not waited for: the vector L1 takes
 * its requests in order, so the later ones find it self-invalidated (or
 * its write buffer draining). */
#define SYNC_TAG UINT64_MAX

static void sync_ask(struct rp_cu *cu)
{
    static const uint8_t op[3] = { CGM_GPU_RELEASE, CGM_GPU_ACQUIRE, CGM_GPU_ACQUIRE };
    for (unsigned b = 0; b < 3; b++) {
        if (!(cu->sync_want >> b & 1))
            continue;
        struct cgm_gpu_request r = { .tag = SYNC_TAG, .cu = (uint16_t)cu->id, .op = op[b],
                                     .flags = b < 2 ? CGM_GPU_SCOPE_SYSTEM : 0 };
        if (!cu->gpu->port.access(cu->gpu->port.ctx, &r))
            return;
        cu->sync_want &= (uint8_t)~(1u << b);
    }
}

static void sync_event(struct rp_cu *cu, enum rp_sync_event e)
{
    if (!cu->gpu->self_inv || !rp_sync_acts(e))
        return;
    const struct rp_sync_rule *r = &rp_sync_rules[e];
    bool system = r->scope == RP_SCOPE_SYSTEM;
    cu->sync_want |= (uint8_t)((r->release ? 1 : 0) | (r->acquire ? (system ? 2 : 4) : 0));
    sync_ask(cu);
}

void rp_cu_wg_start(struct rp_cu *cu, const struct rp_kernel *k)
{
    if (cu->synced_kernel == k)
        return;
    cu->synced_kernel = k;
    sync_event(cu, RP_SYNC_KERNEL_START);
}

/* buffer_wbinvl1 and buffer_wbinvl1_sc (MUBUF opcodes 113, 112). */
static bool is_l1_invalidate(const struct cgm_si_static *s)
{
    uint32_t w = (uint32_t)s->bytes[0] | (uint32_t)s->bytes[1] << 8 | (uint32_t)s->bytes[2] << 16 |
                 (uint32_t)s->bytes[3] << 24;
    unsigned code = (w >> 18) & 0x7f;
    return w >> 26 == 0x38 && (code == 112 || code == 113);
}

void rp_cu_mem_done(struct rp_cu *cu, uint64_t tag, uint64_t cycle)
{
    if (tag == SYNC_TAG)
        return;
    struct rp_mslot *m = &cu->slots[tag];
    if (cycle > m->done_at)
        m->done_at = cycle;
    m->pending--;
    cu->mem_unknown--;
    maybe_finished(cu, m);
    ks_advance(&cu->ec);
}

/* M gives its vector memory buffer entry back. */
static void release_vmb(struct rp_cu *cu, struct rp_mslot *m)
{
    if (m->holds_vmb) {
        m->holds_vmb = false;
        cu->vmb_used--;
    }
}

/* Finished slots whose cycle has come retire. Returns how many retired. */
static unsigned retire(struct rp_cu *cu, uint64_t now)
{
    unsigned n = 0;
    for (unsigned i = 0; i < cu->fin_n;) {
        struct rp_mslot *m = &cu->slots[cu->fin[i]];
        if (m->done_at > now) {
            i++;
            continue;
        }
        cu->fin[i] = cu->fin[--cu->fin_n];
        struct rp_wave *w = m->w;
        if (m->vector) {
            uint64_t lat = m->done_at - m->issued;
            cu->st.vmem_done++;
            cu->st.vmem_latency += lat;
            if (lat > cu->st.vmem_latency_max)
                cu->st.vmem_latency_max = lat;
            release_vmb(cu, m);
            w->vm_done_bits |= 1ull << (m->vm_seq % 64);
            while (w->vm_retired < w->vm_issued && (w->vm_done_bits >> (w->vm_retired % 64) & 1)) {
                w->vm_done_bits &= ~(1ull << (w->vm_retired % 64));
                w->vm_retired++;
            }
        } else {
            w->lgkm--;
        }
        if (w->state == W_WAITCNT || w->state == W_ENDING)
            set_wake(cu, w, now, false); /* its counters moved */
        m->busy = false;
        unsigned i_slot = (unsigned)(m - cu->slots);
        cu->free_mask[m->vector] |= 1ull << (m->vector ? i_slot : i_slot - cu->nvslots);
        n++;
    }
    return n;
}

/* Sends what the port takes this cycle, oldest instruction first: up to
 * vmem_requests_per_cycle vector requests and one scalar request. */
static unsigned send(struct rp_cu *cu)
{
    struct rp_gpu *g = cu->gpu;
    if (cu->sync_want)
        sync_ask(cu);
    unsigned budget[2] = { 1, (unsigned)g->cfg->cu.vmem_requests_per_cycle }, sent = 0;
    unsigned ahead[2] = { cu->send_kind[0], cu->send_kind[1] }; /* from position i on, by kind */
    for (unsigned i = 0; i < cu->send_n;) {
        unsigned idx = (unsigned)cu->send[(cu->send_head + i) % cu->nslots];
        struct rp_mslot *m = &cu->slots[idx];
        unsigned *left = &budget[m->vector];
        ahead[m->vector]--;
        while (*left && m->sent < m->nreq) {
            const struct rp_mreq *q = &m->req[m->sent];
            struct cgm_gpu_request r = { .vaddr = q->vaddr, .tag = idx, .cu = (uint16_t)cu->id,
                                         .bytes = (uint16_t)q->bytes, .op = m->op, .flags = m->flags };
            bool watched = m->op != CGM_GPU_LOAD && m->op != CGM_GPU_SCALAR_LOAD &&
                           q->vaddr >= g->sim->gpu_watch_lo && q->vaddr < g->sim->gpu_watch_hi;
            if (watched)
                rp_sync_gpu_store(&g->sync, q->vaddr);
            /* The answer may come from inside the call: the slot is not
             * finished until the last request is sent. */
            m->sent++;
            m->pending++;
            cu->mem_unknown++;
            bool last = m->sent == m->nreq;
            if (last)
                m->sent--; /* counted as sent once the call returns */
            if (!g->port.access(g->port.ctx, &r)) {
                if (!last)
                    m->sent--;
                m->pending--;
                cu->mem_unknown--;
                cu->st.port_refused++;
                cu->refused_watched |= watched; /* each try marks the buffer again */
                *left = 0;
                break;
            }
            if (last) {
                m->sent++;
                maybe_finished(cu, m);
            }
            if (m->vector)
                cu->st.vmem_requests++;
            else
                cu->st.smem_requests++;
            (*left)--;
            sent++;
        }
        if (m->sent == m->nreq) {
            /* A non-blocking store leaves the buffer once sent: the
             * instructions before it have sent theirs (oldest first), so a
             * work-item's stores still reach the L1 in order. */
            if (m->op == CGM_GPU_STORE && g->cfg->cu.nonblocking_stores)
                release_vmb(cu, m);
            /* out of the queue, the order of the rest kept */
            for (unsigned j = i; j + 1 < cu->send_n; j++)
                cu->send[(cu->send_head + j) % cu->nslots] = cu->send[(cu->send_head + j + 1) % cu->nslots];
            cu->send_n--;
            cu->send_kind[m->vector]--;
        } else {
            i++;
        }
        /* nothing further can go: each kind is out of budget or of slots */
        if ((!budget[0] || !ahead[0]) && (!budget[1] || !ahead[1]))
            break;
    }
    return sent;
}

/* A memory instruction of W enters a slot. False if none is free. */
static bool start_memory(struct rp_cu *cu, struct rp_wave *w, bool vector, uint64_t now)
{
    if (vector && (vm_out(w) >= 63 || cu->vmb_used >= cu->vmb_size))
        return false; /* the wavefront's vmcnt would wrap, or the buffer is full */
    struct rp_mslot *m = take_slot(cu, vector);
    if (!m)
        return false;
    m->issued = now;
    m->holds_vmb = vector;
    cu->vmb_used += vector;
    const struct rp_winst *in = &w->inst;
    m->busy = true;
    m->w = w;
    m->nreq = in->nreq;
    m->sent = m->pending = 0;
    m->done_at = now + 1;
    m->flags = in->s->flags & (CGM_GPU_GLC | CGM_GPU_SLC);
    m->op = !vector ? CGM_GPU_SCALAR_LOAD : in->s->access == CGM_SI_STORE ? CGM_GPU_STORE
          : in->s->access == CGM_SI_ATOMIC ? CGM_GPU_ATOMIC : CGM_GPU_LOAD;
    memcpy(m->req, in->req, in->nreq * sizeof *m->req);
    if (vector && in->s->access == CGM_SI_NONE && cu->gpu->port.invalidate) /* buffer_wbinvl1 */
        m->done_at += cu->gpu->port.invalidate(cu->gpu->port.ctx, cu->id);
    if (vector && !in->nreq && cu->gpu->self_inv && is_l1_invalidate(in->s))
        sync_event(cu, RP_SYNC_L1_INVALIDATE);
    if (vector) {
        m->vm_seq = w->vm_issued++;
        cu->st.vmem_insts++;
    } else {
        w->lgkm++;
    }
    if (m->nreq) {
        cu->send[(cu->send_head + cu->send_n++) % cu->nslots] = (uint64_t)(m - cu->slots);
        cu->send_kind[vector]++;
    } else
        maybe_finished(cu, m);
    return true;
}

/* ---- issue --------------------------------------------------------------- */

/* What an instruction of UNIT with lanes EXEC counts in OPC. */
static unsigned operations(enum cgm_si_unit unit, uint64_t exec)
{
    switch (unit) {
    case CGM_SI_VALU:
    case CGM_SI_VMEM:
    case CGM_SI_LDS: return (unsigned)__builtin_popcountll(exec);
    case CGM_SI_SALU:
    case CGM_SI_SMEM:
    case CGM_SI_BRANCH: return 1;
    default: return 0;
    }
}

/* Hands W's fetched instruction to its unit; false if the unit is full. */
static bool try_issue(struct rp_cu *cu, struct rp_pool *pool, struct rp_wave *w, enum rp_issue_type t,
                      uint64_t now)
{
    struct rp_gpu *g = cu->gpu;
    const struct rp_cu_cfg *c = &g->cfg->cu;
    const struct cgm_si_static *s = w->inst.s;
    enum rp_wave_then then = THEN_NONE;
    uint64_t ready;
    switch (t) {
    case IT_SIMD:
        if (pool->simd_free > now)
            return false;
        pool->simd_free = now + g->simd_cycles;
        ready = now + 1;
        break;
    case IT_BRANCH:
        ready = now + c->branch_latency;
        break;
    case IT_VMEM:
        if (!start_memory(cu, w, true, now)) {
            cu->st.vmem_stall++;
            return false;
        }
        ready = now + 1;
        break;
    case IT_LDS: {
        while (cu->lds_n && cu->lds_done[cu->lds_head] <= now) {
            cu->lds_head = (cu->lds_head + 1) % (unsigned)c->lds_queue;
            cu->lds_n--;
        }
        if (cu->lds_n >= c->lds_queue)
            return false;
        uint64_t start = cu->lds_free > now + 1 ? cu->lds_free : now + 1;
        cu->lds_free = start + w->inst.lds_cycles;
        ready = cu->lds_free + c->lds_latency;
        cu->lds_done[(cu->lds_head + cu->lds_n++) % (unsigned)c->lds_queue] = ready;
        cu->st.lds_insts++;
        cu->st.lds_cycles += w->inst.lds_cycles;
        break;
    }
    default: /* the scalar unit */
        if (s->unit == CGM_SI_SMEM && s->access != CGM_SI_NONE) {
            if (!start_memory(cu, w, false, now))
                return false;
            ready = now + 1;
        } else {
            ready = now + c->scalar_latency;
            if (s->unit == CGM_SI_WAITCNT) {
                bool drain = c->waitcnt == RP_WAITCNT_DRAIN;
                w->wait_vm = drain ? 0 : s->vmcnt;
                w->wait_lgkm = drain ? 0 : s->lgkmcnt;
                then = THEN_WAITCNT;
            } else if (s->unit == CGM_SI_BARRIER) {
                then = THEN_BARRIER;
            } else if (s->unit == CGM_SI_END) {
                then = THEN_END;
            }
        }
    }
    w->then = then;
    set_state(cu, w, W_BUSY, ready);
    cu->st.insts[s->unit]++;
    cu->st.lanes[s->unit] += (uint64_t)__builtin_popcountll(w->inst.exec);
    cu->st.lane_ops += operations(s->unit, w->inst.exec);
    w->instructions++;
    g->issued++;
    return true;
}

static unsigned issue(struct rp_cu *cu, uint64_t now)
{
    struct rp_pool *pool = &cu->pools[now % cu->gpu->cfg->cu.simds];
    unsigned n = 0;
    memset(cu->issued_type, 0, sizeof cu->issued_type);
    cu->unit_blocked = false;
    for (unsigned i = 0; i < pool->fb_n;) {
        struct rp_wave *w = pool->fb[i];
        enum rp_issue_type t = issue_type(w->inst.s);
        if (w->inst.fetch_ready > now || cu->issued_type[t]) {
            i++;
            continue;
        }
        cu->issued_type[t] = true; /* the oldest of its type: it goes, or none of its type does */
        if (!try_issue(cu, pool, w, t, now)) {
            cu->unit_blocked = true;
            i++;
            continue;
        }
        memmove(&pool->fb[i], &pool->fb[i + 1], (pool->fb_n - i - 1) * sizeof *pool->fb);
        pool->fb_n--;
        n++;
    }
    return n;
}

/* ---- wavefront progress and fetch --------------------------------------- */

static void barrier_check(struct rp_cu *cu, struct rp_wg *wg, uint64_t now)
{
    if (!wg->at_barrier || wg->at_barrier < wg->live)
        return;
    for (unsigned i = 0; i < wg->nwaves; i++)
        if (wg->waves[i].state == W_BARRIER)
            set_state(cu, &wg->waves[i], W_READY, now + 1);
    wg->at_barrier = 0;
}

static void wg_end(struct rp_cu *cu, struct rp_wg *wg)
{
    const struct rp_cu_cfg *c = &cu->gpu->cfg->cu;
    struct rp_wg **pp = &cu->wgs;
    while (*pp != wg)
        pp = &(*pp)->next;
    *pp = wg->next;
    cu->nwgs--;
    cu->lds_used -= wg->lds;
    for (unsigned i = 0; i < wg->nwaves; i++) {
        struct rp_wave *w = &wg->waves[i];
        struct rp_pool *pool = &cu->pools[w->pool];
        pool->slot[w->slot] = NULL;
        pool->wake[w->slot] = RP_NEVER;
        pool->timed_bits &= ~(1ull << w->slot);
        pool->ready_bits &= ~(1ull << w->slot);
        pool->waves--;
        pool->vgprs -= wg->k->vgprs;
        pool->sgprs -= wg->k->sgprs;
        cu->nstate[W_DONE]--;
        cu->waves--;
    }
    (void)c;
    sync_event(cu, RP_SYNC_KERNEL_END);
    cu->st.work_groups++;
    cu->st.work_group_cycles += ks_cycle() + 1 - wg->start;
    if (cu->gpu->sim->timeline)
        rp_timeline_wg_end(cu->gpu->sim->timeline, cu->id, wg, ks_domain_cycle_tick(cu->gpu->domain, ks_cycle() + 1),
                           ks_cycle() + 1 - wg->start);
    /* Freed at the start of the next cycle: callers still hold its waves. */
    wg->next = cu->dead;
    cu->dead = wg;
    rp_dispatch_wg_done(cu->gpu, wg);
}

static void free_wgs(struct rp_wg *wg)
{
    while (wg) {
        struct rp_wg *next = wg->next;
        rp_wg_stream_close(&wg->stream);
        free(wg->waves);
        free(wg);
        wg = next;
    }
}

/* A wavefront in s_waitcnt or s_endpgm looks at its counters. True if it
 * moved on. */
static bool settle(struct rp_cu *cu, struct rp_wave *w, uint64_t now)
{
    if (w->state == W_WAITCNT) {
        if (vm_out(w) > w->wait_vm || w->lgkm > w->wait_lgkm)
            return false;
        set_state(cu, w, W_READY, now);
        return true;
    }
    if (vm_out(w) || w->lgkm)
        return false;
    set_state(cu, w, W_DONE, RP_NEVER);
    rp_wg_stream_close_wave(&w->wg->stream, w->index);
    if (--w->wg->waves_left == 0)
        wg_end(cu, w->wg);
    return true;
}

/* Moves W on if what it waits for has happened. True if it changed. */
static bool advance(struct rp_cu *cu, struct rp_wave *w, uint64_t now)
{
    if (w->state == W_WAITCNT || w->state == W_ENDING) {
        set_wake(cu, w, RP_NEVER, false); /* until its counters move again */
        return settle(cu, w, now);
    }
    if (w->state != W_BUSY || w->ready_at > now)
        return false;
    enum rp_wave_then then = w->then;
    w->then = THEN_NONE;
    switch (then) {
    case THEN_WAITCNT:
        set_state(cu, w, W_WAITCNT, RP_NEVER);
        settle(cu, w, now);
        break;
    case THEN_BARRIER:
        set_state(cu, w, W_BARRIER, RP_NEVER);
        w->wg->at_barrier++;
        barrier_check(cu, w->wg, now);
        break;
    case THEN_END:
        set_state(cu, w, W_ENDING, RP_NEVER);
        w->wg->live--;
        barrier_check(cu, w->wg, now);
        settle(cu, w, now);
        break;
    default:
        set_state(cu, w, W_READY, now);
    }
    return true;
}

/* W takes its next instruction from its stream into its pool's fetch
 * buffer. False (the run failed) on a damaged stream. */
static bool fetch_one(struct rp_cu *cu, struct rp_pool *pool, struct rp_wave *w, uint64_t now)
{
    struct rp_gpu *g = cu->gpu;
    const struct rp_cu_cfg *c = &g->cfg->cu;
    char err[600];
    long k = rp_wg_stream_next(&w->wg->stream, w->index, &w->dyn, err, sizeof err);
    if (k == -2) {
        rp_gpu_fail(g, err);
        return false;
    }
    struct rp_winst *in = &w->inst;
    if (k == -1) {
        /* A stream cut short ends as if at s_endpgm. */
        static const struct cgm_si_static end = { .unit = CGM_SI_END, .size = 4 };
        in->s = &end;
        in->exec = 0;
    } else {
        in->s = &w->wg->stream.prog->proto.table[k];
        in->exec = w->dyn.exec;
    }
    const struct cgm_si_static *s = in->s;
    in->fetch_ready = now + c->fetch_latency;
    in->nreq = 0;
    in->lds_cycles = 0;
    if (s->access != CGM_SI_NONE && s->unit == CGM_SI_VMEM) {
        /* hardware: loads coalesce per instruction, stores per subwavefront */
        enum rp_coalesce_mode mode = c->coalescer == RP_COALESCE_L1_MSHR ? RP_PER_LANE
                                   : c->coalescer == RP_COALESCE_HARDWARE && s->access == CGM_SI_STORE
                                       ? RP_PER_SUBWAVE : RP_PER_INSTRUCTION;
        in->nreq = (uint16_t)rp_coalesce(&w->dyn, s->access_size, mode, in->req);
    }
    else if (s->access != CGM_SI_NONE && s->unit == CGM_SI_SMEM)
        in->nreq = (uint16_t)rp_split_blocks(w->dyn.addr[0], s->access_size, in->req);
    if (s->unit == CGM_SI_LDS) {
        unsigned cyc = s->access != CGM_SI_NONE && in->exec
                           ? cgm_si_lds_bank_cycles(&w->dyn, s->access_size, (unsigned)c->lds_banks) : 0;
        unsigned words = s->access_size > 4 ? (s->access_size + 3u) / 4 : 1, ideal = 0;
        for (unsigned half = 0; half < 2 && s->access != CGM_SI_NONE; half++) {
            unsigned lanes = (unsigned)__builtin_popcountll(in->exec >> (32 * half) & 0xffffffffu);
            ideal += (lanes * words + (unsigned)c->lds_banks - 1) / (unsigned)c->lds_banks;
        }
        cu->st.lds_conflict_cycles += cyc > ideal ? cyc - ideal : 0;
        in->lds_cycles = cyc ? cyc : 1;
    }
    set_state(cu, w, W_BUSY, RP_NEVER);
    pool->fb[pool->fb_n++] = w;
    return true;
}

/* Wavefronts whose wake cycle has come move on; each pool fetches, its
 * wavefronts in slot order. Returns what changed. */
static unsigned fetch(struct rp_cu *cu, uint64_t now)
{
    const struct rp_cu_cfg *c = &cu->gpu->cfg->cu;
    unsigned changed = 0;
    for (unsigned p = 0; p < c->simds; p++) {
        struct rp_pool *pool = &cu->pools[p];
        unsigned fetched = 0;
        /* In slot order, the slots whose wake has come (none is brought
         * forward to this cycle by another's move); a full buffer takes
         * nothing, so the wavefronts ready to fetch wait. */
        uint64_t look = pool->timed_bits & ~(pool->fb_n >= c->fetch_buffer ? pool->ready_bits : 0);
        for (; look; look &= look - 1) {
            unsigned s = (unsigned)__builtin_ctzll(look);
            if (pool->wake[s] > now)
                continue;
            struct rp_wave *w = pool->slot[s];
            changed += advance(cu, w, now);
            if (pool->slot[s] != w)
                continue; /* its work-group ended */
            if (w->state == W_READY && w->ready_at <= now && fetched < c->fetch_width &&
                pool->fb_n < c->fetch_buffer) {
                if (!fetch_one(cu, pool, w, now))
                    return changed;
                fetched++;
            }
        }
        changed += fetched;
    }
    return changed;
}

/* ---- the cycle loop ------------------------------------------------------ */

static enum rp_cu_stall stall_cause(const struct rp_cu *cu, bool unit_blocked)
{
    if (unit_blocked)
        return CS_UNIT_BUSY;
    if (cu->nstate[W_WAITCNT] || cu->nstate[W_ENDING])
        return CS_MEMORY;
    if (cu->nstate[W_BARRIER])
        return CS_BARRIER;
    return cu->nstate[W_BUSY] ? CS_DEPENDENCY : CS_FETCH;
}

/* The first cycle from AT on in which pool P issues. */
static uint64_t turn(uint64_t at, unsigned p, unsigned simds)
{
    return at + (p + simds - at % simds) % simds;
}

static void earliest(uint64_t *next, uint64_t t, uint64_t now)
{
    if (t > now && t < *next)
        *next = t;
}

/* The next cycle something known happens; RP_NEVER if only memory (or a
 * new work-group) can move the unit on. */
static uint64_t next_event(const struct rp_cu *cu, uint64_t now)
{
    const struct rp_cu_cfg *c = &cu->gpu->cfg->cu;
    unsigned simds = (unsigned)c->simds;
    uint64_t next = RP_NEVER;
    if (cu->send_n)
        return now + 1; /* the port refused: try again */
    for (unsigned p = 0; p < simds; p++) {
        const struct rp_pool *pool = &cu->pools[p];
        for (unsigned i = 0; i < pool->fb_n; i++) {
            const struct rp_wave *w = pool->fb[i];
            uint64_t at = w->inst.fetch_ready > now ? w->inst.fetch_ready : now + 1;
            if (issue_type(w->inst.s) == IT_SIMD && pool->simd_free > at)
                at = pool->simd_free;
            earliest(&next, turn(at, p, simds), now);
        }
        for (uint64_t m = pool->timed_bits; m; m &= m - 1) {
            uint64_t t = pool->wake[__builtin_ctzll(m)];
            earliest(&next, t > now ? t : now + 1, now);
        }
    }
    for (unsigned i = 0; i < cu->fin_n; i++)
        earliest(&next, cu->slots[cu->fin[i]].done_at, now);
    if (cu->lds_n)
        earliest(&next, cu->lds_done[cu->lds_head], now);
    return next;
}

/* N cycles with WAVES resident: idle (none), busy (issued) or stalled. */
static void count_cycles(struct rp_cu *cu, unsigned waves, bool busy, uint64_t n)
{
    if (!waves)
        cu->st.idle += n;
    else if (busy)
        cu->st.busy += n;
    else
        cu->st.stall[cu->why] += n;
    cu->st.wave_cycles += (uint64_t)waves * n;
    if (cu->vmb_used >= cu->vmb_size)
        cu->st.vmb_full += n;
}

/* ---- waiting instead of trying each cycle -------------------------------- */

/* Whether W's instruction, of type T, would go to its unit at cycle X (as
 * try_issue would decide, without doing it). An LDS instruction counts as
 * going: looking at it moves the LDS queue on. */
static bool would_go(const struct rp_cu *cu, const struct rp_pool *pool, const struct rp_wave *w,
                     enum rp_issue_type t, uint64_t x)
{
    const struct cgm_si_static *s = w->inst.s;
    switch (t) {
    case IT_SIMD: return pool->simd_free <= x;
    case IT_VMEM: return vm_out(w) < 63 && cu->vmb_used < cu->vmb_size && cu->free_mask[1];
    case IT_SCALAR: return s->unit != CGM_SI_SMEM || s->access == CGM_SI_NONE || cu->free_mask[0];
    default: return true;
    }
}

static void lower(uint64_t *until, uint64_t t)
{
    if (t < *until)
        *until = t;
}

/* Pool P's issue stage at X, one of its turns, without doing it: false if
 * an instruction would go. Otherwise *BLOCKED says whether one is blocked on
 * its unit, *VSTALL whether a vector memory one (it counts a stall), and
 * *UNTIL is lowered to the turn at which that may change (an instruction
 * whose fetch latency has not passed, a SIMD that is busy); memory slots
 * free only when memory retires. */
static bool pool_waits(const struct rp_cu *cu, unsigned p, uint64_t x, bool *blocked, bool *vstall,
                       uint64_t *until)
{
    const struct rp_pool *pool = &cu->pools[p];
    unsigned simds = (unsigned)cu->gpu->cfg->cu.simds;
    bool seen[IT_COUNT] = { false };
    *blocked = *vstall = false;
    for (unsigned i = 0; i < pool->fb_n; i++) {
        const struct rp_wave *w = pool->fb[i];
        enum rp_issue_type t = issue_type(w->inst.s);
        if (w->inst.fetch_ready > x) {
            lower(until, turn(w->inst.fetch_ready, p, simds));
            continue;
        }
        if (seen[t])
            continue;
        seen[t] = true;
        if (would_go(cu, pool, w, t, x))
            return false;
        *blocked = true;
        *vstall |= t == IT_VMEM;
        if (t == IT_SIMD)
            lower(until, turn(pool->simd_free, p, simds));
    }
    return true;
}

/* NOW did nothing: the first cycle after it whose try could differ, with
 * each pool's outcome at its turns before then; RP_NEVER if only memory (an
 * answer, room at the port) or a new work-group can change anything, which
 * advances the unit's eventcount. */
static uint64_t poll_until(struct rp_cu *cu, uint64_t now)
{
    const struct rp_cu_cfg *c = &cu->gpu->cfg->cu;
    unsigned simds = (unsigned)c->simds;
    uint64_t until = RP_NEVER;
    cu->poll_blocked = cu->poll_vstall = 0;
    for (unsigned i = 0; i < cu->fin_n; i++) {
        uint64_t t = cu->slots[cu->fin[i]].done_at;
        lower(&until, t > now ? t : now + 1);
    }
    for (unsigned p = 0; p < simds && until > now + 1; p++) {
        const struct rp_pool *pool = &cu->pools[p];
        uint64_t x = turn(now + 1, p, simds);
        bool blocked, vstall;
        if (!pool_waits(cu, p, x, &blocked, &vstall, &until))
            lower(&until, x);
        cu->poll_blocked |= (uint32_t)blocked << p;
        cu->poll_vstall |= (uint32_t)vstall << p;
        /* the wavefronts fetch looks at (a ready one only if its buffer has room) */
        uint64_t look = pool->timed_bits & ~(pool->fb_n >= c->fetch_buffer ? pool->ready_bits : 0);
        for (; look; look &= look - 1) {
            uint64_t t = pool->wake[__builtin_ctzll(look)];
            lower(&until, t > now ? t : now + 1);
        }
    }
    return until;
}

/* Counts the cycles [FROM, TO) of a wait: each repeats the cycle before the
 * wait, but for the pool whose turn it is. */
static void count_polls(struct rp_cu *cu, uint64_t from, uint64_t to)
{
    if (to <= from)
        return;
    unsigned simds = (unsigned)cu->gpu->cfg->cu.simds;
    uint64_t n = to - from;
    cu->st.port_refused += cu->poll_refusals * n;
    if (!cu->sleep_waves || !cu->poll_blocked) {
        cu->why = cu->poll_why;
        count_cycles(cu, cu->sleep_waves, false, n);
        return;
    }
    for (unsigned p = 0; p < simds; p++) {
        uint64_t turns = n / simds + ((p + simds - from % simds) % simds < n % simds);
        cu->why = cu->poll_blocked >> p & 1 ? CS_UNIT_BUSY : cu->poll_why;
        count_cycles(cu, cu->sleep_waves, false, turns);
        cu->st.vmem_stall += cu->poll_vstall >> p & 1 ? turns : 0;
    }
    cu->why = cu->poll_blocked >> (to - 1) % simds & 1 ? CS_UNIT_BUSY : cu->poll_why;
}

void rp_cu_stats_at(const struct rp_cu *cu, uint64_t now, struct rp_cu_stats *out)
{
    struct rp_cu copy = *cu;
    if (cu->polling)
        count_polls(&copy, cu->counted, now);
    else if (cu->counted != RP_NEVER && now > cu->counted)
        count_cycles(&copy, cu->sleep_waves, false, now - cu->counted);
    *out = copy.st;
}

/* NOW did nothing while the port refused a request or memory is in flight
 * (REFUSALS refusals): the unit would try again each cycle. It waits until
 * the first cycle a try could differ, or its eventcount moves (memory
 * answers, a work-group arrives, the port's queue makes room), resuming
 * where a try would have run. A refused store into a buffer whose copies
 * are charged marks the buffer at each try: then it tries. */
static void poll_wait(struct rp_cu *cu, uint64_t now, uint64_t seen, uint64_t refusals)
{
    struct rp_gpu *g = cu->gpu;
    bool room = cu->send_n > 0;
    uint64_t until = poll_until(cu, now);
    if (until <= now + 1 || cu->refused_watched || (room && !g->room_ms)) {
        ks_pause(1);
        return;
    }
    cu->poll_refusals = refusals;
    cu->poll_why = cu->nwgs ? stall_cause(cu, false) : cu->why;
    cu->polling = true;
    if (room)
        cgm_memsys_gpu_watch_room(g->room_ms, cu->id, &cu->ec);
    ks_await_until(&cu->ec, seen + 1, until);
    if (room)
        cgm_memsys_gpu_watch_room(g->room_ms, cu->id, NULL);
    count_polls(cu, now + 1, ks_cycle());
    cu->polling = false;
}

void rp_cu_main(void *arg)
{
    struct rp_cu *cu = arg;
    struct rp_gpu *g = cu->gpu;
    uint64_t last = RP_NEVER;
    for (;;) {
        if (g->stopping)
            return;
        uint64_t now = ks_cycle();
        if (now == last) {
            /* woken again within a cycle it has run: the next one */
            ks_pause(1);
            continue;
        }
        last = now;
        uint64_t seen = ks_ec_count(&cu->ec), refused = cu->st.port_refused;
        cu->refused_watched = false;
        free_wgs(cu->dead);
        cu->dead = NULL;
        unsigned progress = retire(cu, now);
        progress += send(cu);
        unsigned issued = issue(cu, now);
        progress += issued + fetch(cu, now);
        if (cu->waves > cu->st.peak_waves)
            cu->st.peak_waves = cu->waves;
        if (!issued && cu->nwgs)
            cu->why = stall_cause(cu, cu->unit_blocked);
        count_cycles(cu, cu->waves, issued > 0, 1);
        if (g->stopping)
            return;
        if (progress) {
            ks_pause(1);
            continue;
        }
        /* The cycles it sleeps are like this one. */
        unsigned waves = cu->waves;
        cu->counted = now + 1;
        cu->sleep_waves = waves;
        uint64_t next = cu->nwgs ? next_event(cu, now) : RP_NEVER;
        if (cu->send_n || (next != RP_NEVER && cu->mem_unknown)) {
            poll_wait(cu, now, seen, cu->st.port_refused - refused);
            cu->counted = RP_NEVER;
            continue;
        }
        if (next != RP_NEVER)
            ks_pause(next - now);
        else
            ks_await(&cu->ec, seen + 1);
        uint64_t slept = ks_cycle() - now;
        if (slept > 1)
            count_cycles(cu, waves, false, slept - 1);
        cu->counted = RP_NEVER;
    }
}
