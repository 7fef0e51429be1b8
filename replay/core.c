/* The out-of-order core (seed 000 Sec. 3.2.2), one KnightSim context per
 * core in the CPU clock domain. Each cycle, back to front: commit in
 * order from the reorder buffer, issue ready micro-ops to the functional
 * units and the memory system, dispatch from the fetch queue into the
 * reorder buffer / issue queue / load-store queue, fetch through the L1I.
 *
 * An instruction becomes micro-ops in the order of its recorded accesses:
 * a load per read, one compute micro-op before the first write (or at the
 * end), a store per write; an access that straddles two blocks makes two.
 * Stores go to the L1 as soon as they issue (bringing the block early, as
 * the seed does) and leave the load-store queue when both committed and
 * performed. Branch outcomes come from the trace; a misprediction stops
 * fetch until the branch resolves plus the penalty. System calls serialise
 * and cost the trap latency; events are handled at an empty pipeline.
 * Fences and locked instructions commit once earlier stores performed.
 *
 * When a cycle changes nothing, the core sleeps until the next known
 * completion, or until the memory system reports one. */
#include <stdlib.h>
#include <string.h>

#include "replay/coh_sync.h"
#include "replay/core.h"
#include "replay/gpu/gpu.h"

#define TAG_LOAD  (0ull << 62)
#define TAG_STORE (1ull << 62)
#define TAG_FETCH (2ull << 62)
/* A synchronisation's (3 << 62 is the GPU copy engine's, RP_SYNC_TAG). */
#define TAG_SYNC  (TAG_FETCH | 1ull << 61)
#define TAG_KIND  (3ull << 62)
#define NEVER     UINT64_MAX

/* Ring storage is a power of two (indexing by mask, not division); the
 * configured sizes still bound the occupancy. */
static uint64_t ring_mask(uint64_t entries)
{
    uint64_t n = 1;
    while (n < entries)
        n <<= 1;
    return n - 1;
}

static int core_init(struct rp_core *c, struct rp_sim *s, int id)
{
    c->sim = s;
    c->id = id;
    c->self_inv = s->ms && cgm_coh_protocol_of(cgm_memsys_coh(s->ms), CGM_NODE_CORE)->self_invalidating;
    /* The fetch queue follows the reorder buffer in one ring (dispatch
     * moves the boundary, the micro-op stays where fetch wrote it). */
    c->uop_mask = ring_mask(s->cfg.rob_size + s->cfg.fetch_queue);
    c->line_mask = ring_mask(s->cfg.fetch_queue + 1);
    c->uops = calloc(c->uop_mask + 1, sizeof *c->uops);
    c->line_ready = calloc(c->line_mask + 1, sizeof *c->line_ready);
    c->cand = calloc((c->uop_mask + 64) / 64, sizeof *c->cand);
    c->wait = calloc(c->uop_mask + 1, sizeof *c->wait);
    ks_ec_init(&c->mem_ec, "core-memory", 0);
    if (!c->uops || !c->line_ready || !c->cand || !c->wait)
        return -1;
    const struct rp_config *cfg = &s->cfg;
    struct cgm_mmu_config mc = { .tlb_sets = (unsigned)cfg->tlb_sets, .tlb_ways = (unsigned)cfg->tlb_ways,
                                 .tlb_latency = (unsigned)cfg->tlb_latency,
                                 .walk_latency = (unsigned)cfg->walk_latency,
                                 .soft_fault_latency = (unsigned)cfg->soft_fault_latency,
                                 .hard_fault_latency = (unsigned)cfg->hard_fault_latency };
    if (cgm_mmu_init(&c->itlb, &mc, s->pt) || cgm_mmu_init(&c->dtlb, &mc, s->pt))
        return -1;
    return rp_bpred_init(&c->bp, (enum rp_predictor)s->cfg.predictor, s->cfg.predictor_entries,
                         (unsigned)s->cfg.history_bits, (uint8_t)s->cfg.predictor_init);
}

struct rp_core *rp_core_create(struct rp_sim *s, int id)
{
    struct rp_core *c = calloc(1, sizeof *c);
    if (c && core_init(c, s, id)) {
        rp_core_destroy(c);
        return NULL;
    }
    return c;
}

void rp_core_destroy(struct rp_core *c)
{
    if (!c)
        return;
    free(c->uops);
    free(c->line_ready);
    free(c->cand);
    free(c->wait);
    rp_bpred_free(&c->bp);
    cgm_mmu_free(&c->itlb);
    cgm_mmu_free(&c->dtlb);
    free(c);
}

void rp_core_wake(struct rp_core *c) { ks_advance(&c->mem_ec); }

const struct rp_core_stats *rp_core_stats(const struct rp_core *c) { return &c->st; }

unsigned rp_core_id(const struct rp_core *c) { return (unsigned)c->id; }

const struct cgm_mmu *rp_core_tlb(const struct rp_core *c, bool data) { return data ? &c->dtlb : &c->itlb; }

bool rp_core_done(const struct rp_core *c) { return c->finished; }

void rp_core_drop_page(struct rp_core *c, uint32_t asid, uint64_t vpn)
{
    cgm_mmu_flush_page(&c->itlb, asid, vpn);
    cgm_mmu_flush_page(&c->dtlb, asid, vpn);
}

void rp_core_drop_pages(struct rp_core *c)
{
    cgm_mmu_flush(&c->itlb, 0);
    cgm_mmu_flush(&c->dtlb, 0);
}

static struct rp_uop *rob_at(struct rp_core *c, uint64_t seq)
{
    return &c->uops[seq & c->uop_mask];
}

static struct rp_uop *fq_at(struct rp_core *c, uint64_t seq)
{
    return &c->uops[seq & c->uop_mask];
}

/* The arrival cycle of line fetch LINE (sequence + 1, as in rp_uop). */
static uint64_t *line_slot(struct rp_core *c, uint64_t line)
{
    return &c->line_ready[(line - 1) & c->line_mask];
}

static void set_done(struct rp_core *c, uint64_t seq, uint64_t done);

void rp_core_mem_done(struct rp_core *c, uint64_t tag, uint64_t cycle)
{
    uint64_t seq = tag & ~TAG_KIND;
    switch (tag & TAG_KIND) {
    case TAG_FETCH:
        if ((tag & TAG_SYNC) == TAG_SYNC)
            c->sync_out--;
        else
            *line_slot(c, seq + 1) = cycle;
        break;
    case TAG_LOAD:
        set_done(c, seq, cycle);
        break;
    default:
        if (seq < c->rob_head) {
            c->stores_after_commit--;
            c->lsq_used--;
        } else {
            rob_at(c, seq)->store_done = true;
        }
    }
    c->mem_unknown--;
    ks_advance(&c->mem_ec);
}

/* ---- commit ---------------------------------------------------------- */

const char *const rp_uop_class_names[RP_UC_COUNT] = { "int", "mul", "div", "fp", "simd", "branch", "other" };

static enum rp_uop_class uop_class(unsigned cls)
{
    switch (cls) {
    case CGM_X86_INT: case CGM_X86_ATOMIC: case CGM_X86_STRING: return RP_UC_INT;
    case CGM_X86_MUL: return RP_UC_MUL;
    case CGM_X86_DIV: return RP_UC_DIV;
    case CGM_X86_FP: return RP_UC_FP;
    case CGM_X86_SIMD: case CGM_X86_GATHER: return RP_UC_SIMD;
    case CGM_X86_BRANCH_COND: case CGM_X86_JUMP: case CGM_X86_JUMP_INDIRECT: case CGM_X86_CALL:
    case CGM_X86_CALL_INDIRECT: case CGM_X86_RET: return RP_UC_BRANCH;
    default: return RP_UC_OTHER;
    }
}

void rp_core_sync(struct rp_core *c, int e)
{
    if (!c->self_inv || !rp_sync_acts(e))
        return;
    c->sync_want |= (uint8_t)((rp_sync_rules[e].release ? 1 : 0) | (rp_sync_rules[e].acquire ? 2 : 0));
}

/* Asks the memory system for the synchronisations wanted (the release
 * first); true once none is wanted or in flight. */
static bool sync_step(struct rp_core *c)
{
    static const uint8_t ops[3] = { 0, CGM_OP_RELEASE, CGM_OP_ACQUIRE };
    for (uint8_t bit = 1; bit <= 2; bit++) {
        if (!(c->sync_want & bit))
            continue;
        c->sync_out++;
        c->mem_unknown++; /* the answer may come from inside the call */
        if (!cgm_memsys_access(c->sim->ms, c->id, ops[bit], 0, TAG_SYNC | bit, 0)) {
            c->sync_out--;
            c->mem_unknown--;
            return false;
        }
        c->sync_want &= (uint8_t)~bit;
    }
    return !c->sync_out;
}

static unsigned commit(struct rp_core *c, uint64_t now)
{
    unsigned n = 0;
    while (n < c->sim->cfg.commit_width && c->rob_head < c->rob_tail) {
        struct rp_uop *u = rob_at(c, c->rob_head);
        if (!u->issued || u->done > now)
            break;
        /* Fences and locked instructions wait for the store buffer. */
        if (u->kind == UOP_ALU && (u->cls == CGM_X86_FENCE || u->cls == CGM_X86_ATOMIC) &&
            c->stores_after_commit)
            break;
        /* ... and under a self-invalidating protocol a locked instruction,
         * or any micro-op after a futex or thread event, for its release
         * and acquire. */
        if (c->self_inv && u->kind == UOP_ALU && u->cls == CGM_X86_ATOMIC && c->sync_seq != u->seq + 1) {
            c->sync_seq = u->seq + 1;
            rp_core_sync(c, RP_SYNC_LOCKED);
        }
        if ((c->sync_want || c->sync_out) && !sync_step(c))
            break;
        if (u->kind == UOP_LOAD)
            c->lsq_used--;
        else if (u->kind == UOP_STORE) {
            if (u->store_done)
                c->lsq_used--;
            else
                c->stores_after_commit++;
        }
        if (u->syscall && c->sim->timeline)
            rp_timeline_syscall_commit(c->sim->timeline, c->id, now);
        if (u->retire) {
            c->st.instructions++;
            if (c->thread)
                c->thread->instructions++;
        }
        c->st.uops++;
        if (u->kind == UOP_ALU)
            c->st.uops_by_class[uop_class(u->cls)]++;
        c->rob_head++;
        n++;
    }
    return n;
}

static enum rp_stall stall_reason(struct rp_core *c)
{
    if (c->rob_head == c->rob_tail) {
        if (c->fetch_starved)
            return ST_ICACHE;
        return c->thread ? (enum rp_stall)c->fetch_cause : ST_IDLE;
    }
    const struct rp_uop *u = rob_at(c, c->rob_head);
    if (u->syscall)
        return ST_SYSCALL;
    if (u->kind == UOP_LOAD)
        return ST_MEMORY;
    return ST_EXECUTE;
}

/* ---- issue ------------------------------------------------------------ */

/* Operand readiness. A producer's completion, once known, never changes
 * (an unissued producer, or a load in flight, has done == NEVER). So each
 * micro-op in the issue queue looks at its sources once each, in order:
 * known completions are folded into its ready_at, and at the first source
 * whose completion is unknown it joins that producer's list of waiters, to
 * go on when the completion becomes known (set_done). Once all are known
 * it waits on a timing wheel for ready_at, then becomes an issue candidate
 * (a bit per reorder-buffer slot); the issue scan looks at the candidates
 * only. A committed producer (below the reorder buffer's head) is complete. */

static struct rp_wait *wait_of(struct rp_core *c, uint64_t seq)
{
    return &c->wait[seq & c->uop_mask];
}

/* SEQ's sources are complete at its ready_at: a candidate from then on. */
static void schedule(struct rp_core *c, uint64_t seq)
{
    struct rp_wait *w = wait_of(c, seq);
    if (w->ready_at <= c->wheel_time) {
        uint64_t slot = seq & c->uop_mask;
        c->cand[slot / 64] |= 1ull << (slot % 64);
        return;
    }
    uint64_t *bucket = &c->wheel[w->ready_at % RP_WHEEL];
    w->next = *bucket;
    *bucket = seq + 1;
}

/* Candidates up to cycle NOW: the wheel's buckets since the last call, all
 * of them once after a longer sleep; the micro-ops due later (by a multiple
 * of the wheel's span) go back in. */
static void advance_wheel(struct rp_core *c, uint64_t now)
{
    if (now <= c->wheel_time)
        return;
    uint64_t from = c->wheel_time + 1;
    if (now - from >= RP_WHEEL)
        from = now - RP_WHEEL + 1;
    c->wheel_time = now;
    for (uint64_t t = from; t <= now; t++) {
        uint64_t next = c->wheel[t % RP_WHEEL];
        c->wheel[t % RP_WHEEL] = 0;
        while (next) {
            uint64_t seq = next - 1;
            next = wait_of(c, seq)->next;
            schedule(c, seq);
        }
    }
}

/* Looks at the sources of SEQ from next_src on. */
static void scan_sources(struct rp_core *c, uint64_t seq)
{
    struct rp_wait *w = wait_of(c, seq);
    const struct rp_uop *u = rob_at(c, seq);
    while (w->next_src < u->nsrc) {
        uint64_t back = u->src_back[w->next_src++];
        if (back > seq - c->rob_head)
            continue; /* committed */
        uint64_t src = seq - back;
        uint64_t done = rob_at(c, src)->done;
        if (done == NEVER) {
            struct rp_wait *p = wait_of(c, src);
            w->next = p->first_waiter;
            p->first_waiter = seq + 1;
            return;
        }
        if (done > w->ready_at)
            w->ready_at = done;
    }
    schedule(c, seq);
}

/* A micro-op entering the issue queue. */
static void wait_init(struct rp_core *c, uint64_t seq)
{
    *wait_of(c, seq) = (struct rp_wait){ .ready_at = 0 };
    scan_sources(c, seq);
}

/* SEQ's result is available at DONE: its waiters go on with their sources. */
static void set_done(struct rp_core *c, uint64_t seq, uint64_t done)
{
    rob_at(c, seq)->done = done;
    struct rp_wait *p = wait_of(c, seq);
    uint64_t next = p->first_waiter;
    p->first_waiter = 0;
    while (next) {
        uint64_t waiter = next - 1;
        struct rp_wait *w = wait_of(c, waiter);
        next = w->next;
        if (done > w->ready_at)
            w->ready_at = done;
        scan_sources(c, waiter);
    }
}

/* Functional units and memory ports taken this cycle. */
struct issue_slots {
    unsigned alus, ports, walks;
};

/* Issues candidate SEQ if a unit is free; false if it stays queued. */
static bool issue_one(struct rp_core *c, uint64_t seq, uint64_t now, struct issue_slots *used, bool *retry)
{
    const struct rp_config *cfg = &c->sim->cfg;
    struct rp_uop *u = rob_at(c, seq);
    if (u->kind == UOP_ALU) {
        if (used->alus >= cfg->alus)
            return false;
        if (u->cls == CGM_X86_DIV) {
            if (c->div_free > now)
                return false;
            c->div_free = now + u->lat;
        }
        used->alus++;
        set_done(c, seq, now + u->lat);
    } else {
        if (u->xlat) {
            /* TLB miss: the walk starts once the address is known. */
            u->xlat_done = now + u->xlat;
            u->xlat = 0;
            used->walks++;
            return false;
        }
        if (u->xlat_done > now || used->ports >= cfg->mem_ports)
            return false;
        uint64_t tag = (u->kind == UOP_LOAD ? TAG_LOAD : TAG_STORE) | u->seq;
        /* The memory system may report completion from inside the call. */
        u->done = NEVER;
        c->mem_unknown++;
        if (!cgm_memsys_access(c->sim->ms, c->id, u->kind == UOP_LOAD ? CGM_OP_LOAD : CGM_OP_STORE,
                               u->addr, tag, 0)) {
            c->mem_unknown--;
            c->st.mem_refused++;
            *retry = true;
            return false;
        }
        used->ports++;
        /* A store's result is its place in the store buffer. */
        if (u->kind == UOP_STORE)
            set_done(c, seq, now + 1);
    }
    u->issued = true;
    if (u->redirect) {
        /* The branch resolves (or the trap returns) at done. */
        c->fetch_wait_redirect = false;
        uint64_t resume = u->done + (u->syscall ? 0 : cfg->mispredict_penalty);
        if (resume > c->fetch_ready)
            c->fetch_ready = resume;
    }
    return true;
}

/* The first issue candidate at or after OFF (micro-ops from the reorder
 * buffer's head), or COUNT if none before it. A word of the bitmap covers
 * 64 slots, or the whole ring when it is smaller. */
static uint64_t next_candidate(const struct rp_core *c, uint64_t off, uint64_t count)
{
    const uint64_t word_slots = c->uop_mask < 64 ? c->uop_mask + 1 : 64;
    while (off < count) {
        uint64_t slot = (c->rob_head + off) & c->uop_mask;
        uint64_t bits = c->cand[slot / 64] >> (slot % 64);
        if (bits)
            return off + (uint64_t)__builtin_ctzll(bits);
        off += word_slots - slot % 64;
    }
    return count;
}

/* Oldest first, up to issue_width micro-ops. Only the candidates are
 * looked at: a micro-op whose sources are not complete could not issue
 * and takes no unit, so skipping it changes nothing. */
static unsigned issue(struct rp_core *c, uint64_t now, bool *retry)
{
    const unsigned width = c->sim->cfg.issue_width;
    const uint64_t count = c->rob_tail - c->rob_head;
    struct issue_slots used = { 0, 0, 0 };
    unsigned issued = 0;
    advance_wheel(c, now);
    for (uint64_t off = next_candidate(c, 0, count); off < count && issued < width;
         off = next_candidate(c, off + 1, count)) {
        if (issue_one(c, c->rob_head + off, now, &used, retry)) {
            uint64_t slot = (c->rob_head + off) & c->uop_mask;
            c->cand[slot / 64] &= ~(1ull << (slot % 64));
            c->iq_used--;
            issued++;
        }
    }
    return issued + used.walks;
}

/* ---- dispatch --------------------------------------------------------- */

/* Takes micro-ops in order once their line has arrived. */
static unsigned dispatch(struct rp_core *c, uint64_t now)
{
    const struct rp_config *cfg = &c->sim->cfg;
    unsigned n = 0;
    c->fetch_starved = false;
    while (n < cfg->dispatch_width && c->fq_head < c->fq_tail) {
        struct rp_uop *u = fq_at(c, c->fq_head);
        bool mem = u->kind != UOP_ALU;
        if (u->line && *line_slot(c, u->line) > now) {
            c->fetch_starved = true;
            break;
        }
        if (c->rob_tail - c->rob_head >= cfg->rob_size) {
            c->st.rob_full++;
            break;
        }
        if (c->iq_used >= cfg->iq_size) {
            c->st.iq_full++;
            break;
        }
        if (mem && c->lsq_used >= cfg->lsq_size) {
            c->st.lsq_full++;
            break;
        }
        c->iq_used++;
        wait_init(c, c->rob_tail++);
        c->fq_head++;
        if (mem)
            c->lsq_used++;
        n++;
    }
    return n;
}

/* ---- fetch ------------------------------------------------------------ */

struct fetch_state {
    unsigned acc_pos;
    bool alu_emitted, started;
    uint64_t first_load, last_load, alu; /* seq + 1 */
};

static unsigned latency_of(const struct rp_config *cfg, unsigned cls)
{
    switch (cls) {
    case CGM_X86_INT: case CGM_X86_ATOMIC: case CGM_X86_STRING: return (unsigned)cfg->lat_int;
    case CGM_X86_MUL: return (unsigned)cfg->lat_mul;
    case CGM_X86_DIV: return (unsigned)cfg->lat_div;
    case CGM_X86_FP: return (unsigned)cfg->lat_fp;
    case CGM_X86_SIMD: case CGM_X86_GATHER: return (unsigned)cfg->lat_simd;
    case CGM_X86_SYSCALL: return (unsigned)cfg->syscall_latency;
    default: return (unsigned)cfg->lat_other;
    }
}

static struct rp_uop *new_uop(struct rp_core *c, uint8_t kind, const struct rp_sinsn *si)
{
    /* Every field but the sources beyond nsrc (never read). */
    struct rp_uop *u = fq_at(c, c->fq_tail);
    u->seq = c->fq_tail++;
    u->addr = 0;
    u->done = NEVER;
    u->xlat_done = 0;
    u->line = c->line_tail;
    u->xlat = 0;
    u->nsrc = 0;
    u->kind = kind;
    u->cls = si->cls;
    u->lat = 0;
    u->issued = u->retire = u->redirect = u->store_done = u->syscall = false;
    return u;
}

/* A source is kept as its distance back from U. One further back than
 * the reorder buffer holds has committed by the time U is in it, and any
 * distance from RP_SRC_FAR on says as much. */
static void add_src(struct rp_uop *u, uint64_t seq_plus1)
{
    if (seq_plus1 && u->nsrc < RP_SRC_MAX + 1) {
        uint64_t back = u->seq - (seq_plus1 - 1);
        u->src_back[u->nsrc++] = (uint16_t)(back < RP_SRC_FAR ? back : RP_SRC_FAR);
    }
}

static void reg_sources(struct rp_core *c, struct rp_uop *u, const struct rp_sinsn *si)
{
    for (unsigned i = 0; i < si->nsrc; i++)
        add_src(u, c->writer[si->src[i]]);
}

/* The compute micro-op waits for the instruction's source registers and
 * its last load; a gather's for every lane's load (its lanes are loads of
 * their own, issued as they can; each waits for the registers). Sources
 * hold RP_SRC_MAX + 1 entries: eight lanes fit, and a gather with more
 * loads (lanes straddling two blocks) waits for its first nine. */
static void emit_alu(struct rp_core *c, struct fetch_state *fs, const struct rp_sinsn *si)
{
    struct rp_uop *u = new_uop(c, UOP_ALU, si);
    if (si->cls == CGM_X86_GATHER && fs->first_load) {
        for (uint64_t l = fs->first_load; l <= fs->last_load; l++)
            add_src(u, l);
    } else {
        reg_sources(c, u, si);
        add_src(u, fs->last_load);
    }
    u->lat = (uint8_t)(latency_of(&c->sim->cfg, si->cls) > 255 ? 255 : latency_of(&c->sim->cfg, si->cls));
    fs->alu = u->seq + 1;
    fs->alu_emitted = true;
}

/* Translates VA through TLB (the translation is looked up in fetch order,
 * its latency charged when the micro-op issues). Returns the cycles beyond
 * a TLB hit, which the L1 access overlaps. */
static uint32_t translate(struct rp_core *c, struct cgm_mmu *tlb, uint64_t va, uint64_t *pa)
{
    long lat = cgm_mmu_translate(tlb, 0, va, pa);
    if (lat < 0) {
        char msg[800];
        snprintf(msg, sizeof msg, "%s: physical memory exhausted: the guest touched more than memory.size "
                 "(%llu bytes); raise memory.size", c->sim->trace_name, (unsigned long long)c->sim->cfg.mem_size);
        rp_sim_fail(c->sim, msg);
        *pa = 0;
        return 0;
    }
    uint64_t extra = (uint64_t)lat > tlb->cfg.tlb_latency ? (uint64_t)lat - tlb->cfg.tlb_latency : 0;
    return extra > UINT32_MAX ? UINT32_MAX : (uint32_t)extra;
}

/* Emits the micro-ops of one access (two if it straddles a block). */
static void emit_access(struct rp_core *c, struct fetch_state *fs, const struct rp_sinsn *si,
                        const struct cgm_x86_access *a)
{
    uint64_t first = a->addr, last = a->addr + (a->size ? a->size - 1 : 0);
    unsigned parts = (first / 64 != last / 64) ? 2 : 1;
    for (unsigned p = 0; p < parts; p++) {
        uint64_t va = p ? (last & ~63ull) : first;
        struct rp_uop *u = new_uop(c, a->write ? UOP_STORE : UOP_LOAD, si);
        u->xlat = translate(c, &c->dtlb, va, &u->addr);
        if (c->sim->gpu_watch_loads && va >= c->sim->gpu_watch_lo && va < c->sim->gpu_watch_hi) {
            /* a protection fault of the copy protocol: charged like a page walk */
            uint64_t wait = u->xlat + rp_gpu_cpu_touch(c->sim->gpu, va, a->write);
            u->xlat = wait > UINT32_MAX ? UINT32_MAX : (uint32_t)wait;
        }
        if (a->write) {
            if (va >= c->sim->gpu_watch_lo && va < c->sim->gpu_watch_hi)
                rp_gpu_cpu_store(c->sim->gpu, va);
            add_src(u, fs->alu);
            if (!fs->alu)
                reg_sources(c, u, si);
            c->st.stores++;
        } else {
            reg_sources(c, u, si);
            fs->last_load = u->seq + 1;
            if (!fs->first_load)
                fs->first_load = fs->last_load;
            c->st.loads++;
        }
    }
}

static bool pipeline_empty(const struct rp_core *c)
{
    return c->rob_head == c->rob_tail && c->fq_head == c->fq_tail;
}

/* Control flow at the end of an instruction: true if fetch must stop for
 * this cycle (a taken branch, or a redirect). */
static bool control(struct rp_core *c, const struct rp_item *it, struct rp_uop *last)
{
    const struct rp_sinsn *si = it->si;
    bool correct = true;
    switch (si->cls) {
    case CGM_X86_BRANCH_COND:
        c->st.branches++;
        c->st.cond_branches++;
        correct = rp_bpred_cond(&c->bp, si->addr, it->taken);
        c->st.cond_mispredictions += !correct;
        break;
    case CGM_X86_CALL:
        rp_bpred_call(&c->bp, si->addr + si->len);
        break;
    case CGM_X86_CALL_INDIRECT:
        c->st.branches++;
        correct = rp_bpred_indirect(&c->bp, si->addr, it->next_pc);
        rp_bpred_call(&c->bp, si->addr + si->len);
        break;
    case CGM_X86_JUMP_INDIRECT:
        c->st.branches++;
        correct = rp_bpred_indirect(&c->bp, si->addr, it->next_pc);
        break;
    case CGM_X86_RET:
        c->st.branches++;
        correct = rp_bpred_ret(&c->bp, it->next_pc);
        break;
    case CGM_X86_SYSCALL:
        c->st.syscalls++;
        c->fetch_cause = ST_SERIALIZE;
        last->syscall = true;
        last->redirect = true;
        c->fetch_wait_redirect = true;
        return true;
    default:
        break;
    }
    if (!correct) {
        c->st.mispredictions++;
        c->fetch_cause = ST_BRANCH;
        last->redirect = true;
        c->fetch_wait_redirect = true;
        return true;
    }
    return it->taken;
}

/* The compute micro-op carries a redirect: it resolves the branch. Usually
 * still in the fetch queue; when an instruction's micro-ops spanned cycles
 * it may be in the reorder buffer, even issued already (then SCRATCH is
 * returned and the caller resumes fetch from its known completion). */
static struct rp_uop *redirect_carrier(struct rp_core *c, uint64_t seq, struct rp_uop *scratch)
{
    if (seq >= c->fq_head)
        return fq_at(c, seq);
    struct rp_uop *u = rob_at(c, seq);
    if (!u->issued)
        return u;
    *scratch = *u;
    return scratch;
}

/* Requests physical block BLOCK from the L1I as a new line fetch. False
 * if it cannot be requested this cycle. */
/* Line fetches not yet arrived at NOW: the live lines are those of the
 * fetch queue's micro-ops and the current line. */
static unsigned lines_in_flight(struct rp_core *c, uint64_t now)
{
    if (!c->line_tail)
        return 0;
    uint64_t oldest = c->line_tail;
    if (c->fq_head < c->fq_tail && fq_at(c, c->fq_head)->line)
        oldest = fq_at(c, c->fq_head)->line;
    unsigned n = 0;
    for (uint64_t l = oldest; l <= c->line_tail; l++)
        n += *line_slot(c, l) > now;
    return n;
}

static bool request_line(struct rp_core *c, uint64_t block, uint64_t now)
{
    if (lines_in_flight(c, now) >= c->sim->cfg.fetch_lines) {
        c->fetch_cause = ST_ICACHE;
        return false;
    }
    uint64_t line = c->line_tail + 1;
    *line_slot(c, line) = NEVER; /* the access may complete from inside the call */
    c->mem_unknown++;
    if (!cgm_memsys_access(c->sim->ms, c->id, CGM_OP_FETCH, block * 64, TAG_FETCH | (line - 1), 0)) {
        c->mem_unknown--;
        c->st.mem_refused++;
        return false;
    }
    c->line_tail = line;
    c->st.fetches++;
    c->fetch_block = block + 1;
    return true;
}

/* The thread the core runs changed at NOW (--timeline). */
static void timeline_thread(struct rp_core *c, uint64_t now)
{
    if (c->sim->timeline)
        rp_timeline_core_thread(c->sim->timeline, c->id, now, c->thread ? c->thread->tid : RP_TIMELINE_NO_THREAD);
}

/* Returns the instructions (or events) taken this cycle. Fetch is
 * pipelined: a new line is requested (one per cycle, up to cpu.fetch_lines
 * in flight) and its instructions enter the fetch queue at once, where
 * dispatch holds them until the line arrives. Fetch stops for a taken
 * branch (the rest of the cycle), a full fetch queue, the in-flight limit,
 * an ITLB miss, or a misprediction until it resolves. */
static unsigned fetch(struct rp_core *c, struct fetch_state *fs, uint64_t now)
{
    struct rp_sim *s = c->sim;
    const struct rp_config *cfg = &s->cfg;
    unsigned taken = 0;
    if (c->fetch_wait_redirect || c->fetch_ready > now)
        return 0;
    while (taken < cfg->fetch_width) {
        struct rp_thread *t = c->thread;
        if (!t) {
            if (!pipeline_empty(c))
                return taken;
            char err[600] = "";
            t = rp_sched_take(&s->sched, err, sizeof err);
            if (!t) {
                if (err[0])
                    rp_sim_fail(s, err);
                return taken;
            }
            c->thread = t;
            timeline_thread(c, now);
            c->fetch_cause = ST_FRONTEND;
            c->slice_start = now;
            c->st.context_switches++;
            memset(c->writer, 0, sizeof c->writer);
            c->fetch_block = 0;
            c->fetch_vpage = 0;
        }
        if (!t->has_held) {
            /* Time slice over and someone waits: switch at an empty pipeline. */
            if (rp_sched_preempt(&s->sched, now - c->slice_start)) {
                if (pipeline_empty(c)) {
                    rp_sched_yield(&s->sched, t);
                    c->thread = NULL;
                    timeline_thread(c, now);
                    taken++;
                    continue;
                }
                return taken;
            }
            rp_x86_stream_next(t->stream, &t->held);
            t->has_held = true;
            memset(fs, 0, sizeof *fs);
        }
        struct rp_item *it = &t->held;
        if (it->kind == RP_ITEM_ERROR) {
            rp_sim_fail(s, t->stream->error);
            return taken;
        }
        if (it->kind != RP_ITEM_INSN) {
            if (!pipeline_empty(c)) {
                c->fetch_cause = ST_SERIALIZE;
                return taken;
            }
            t->has_held = false;
            taken++;
            if (it->kind == RP_ITEM_END) {
                c->thread = NULL;
                timeline_thread(c, now);
                rp_sched_exit(&s->sched, t);
                continue;
            }
            if (!rp_sim_event(s, c, t, &it->ev)) {
                t->has_held = true; /* re-examined when it runs again */
                c->thread = NULL;
                timeline_thread(c, now);
            }
            return taken;
        }
        const struct rp_sinsn *si = it->si;
        if (!fs->started && it->retire) {
            /* Fetch keeps the translation of its current page. */
            unsigned pb = cgm_page_table_page_bits(s->pt);
            if ((si->addr >> pb) + 1 != c->fetch_vpage) {
                uint64_t pa;
                uint32_t extra = translate(c, &c->itlb, si->addr, &pa);
                c->fetch_vpage = (si->addr >> pb) + 1;
                c->fetch_ppage = pa >> pb;
                if (extra) {
                    c->fetch_cause = ST_ITLB;
                    c->fetch_ready = now + extra;
                    return taken + 1;
                }
            }
            uint64_t pa = (c->fetch_ppage << pb) | (si->addr & ((1ull << pb) - 1));
            uint64_t block = pa / 64;
            /* One line per cycle: a new line waits for the next cycle. */
            if (block + 1 != c->fetch_block && (taken || !request_line(c, block, now)))
                return taken;
        }
        fs->started = true;
        /* Room for the next access's micro-ops (2) or the compute one. */
        while (fs->acc_pos < it->nacc) {
            if (c->fq_tail - c->fq_head + 2 > cfg->fetch_queue)
                return taken;
            const struct cgm_x86_access *a = &it->acc[fs->acc_pos];
            if (a->write && !fs->alu_emitted)
                emit_alu(c, fs, si);
            else {
                emit_access(c, fs, si, a);
                fs->acc_pos++;
            }
        }
        if (!fs->alu_emitted) {
            if (c->fq_tail - c->fq_head + 1 > cfg->fetch_queue)
                return taken;
            emit_alu(c, fs, si);
        }
        struct rp_uop *last = fq_at(c, c->fq_tail - 1);
        if (fs->alu)
            for (unsigned i = 0; i < si->ndst; i++)
                c->writer[si->dst[i]] = fs->alu;
        t->has_held = false;
        taken++;
        if (!it->retire)
            continue; /* rep-string accesses: the instruction is still running */
        last->retire = true;
        struct rp_uop scratch;
        struct rp_uop *carrier = redirect_carrier(c, fs->alu - 1, &scratch);
        bool stop = control(c, it, carrier);
        if (carrier == &scratch && scratch.redirect) {
            c->fetch_wait_redirect = false;
            uint64_t resume = scratch.done + (scratch.syscall ? 0 : cfg->mispredict_penalty);
            if (resume > c->fetch_ready)
                c->fetch_ready = resume;
        }
        if (stop)
            return taken;
    }
    return taken;
}

/* ---- the cycle loop --------------------------------------------------- */

static uint64_t next_known_event(struct rp_core *c, uint64_t now)
{
    uint64_t next = NEVER;
    if (!c->fetch_wait_redirect && c->fetch_ready > now)
        next = c->fetch_ready;
    if (c->fq_head < c->fq_tail) {
        const struct rp_uop *u = fq_at(c, c->fq_head);
        uint64_t arrives = u->line ? *line_slot(c, u->line) : 0;
        if (arrives != NEVER && arrives > now && arrives < next)
            next = arrives;
    }
    for (uint64_t q = c->rob_head; q < c->rob_tail; q++) {
        const struct rp_uop *u = rob_at(c, q);
        if (u->issued && u->done > now && u->done < next)
            next = u->done;
        if (!u->issued && u->xlat_done > now && u->xlat_done < next)
            next = u->xlat_done;
    }
    if (c->div_free > now && c->div_free < next)
        next = c->div_free;
    return next;
}

/* The core has nothing left to run (or the run failed): it returns. */
static void finish(struct rp_core *c, uint64_t now)
{
    c->finished = true;
    if (c->st.cycles == 0)
        c->st.cycles = now + 1;
    if (c->sim->timeline)
        rp_timeline_core_end(c->sim->timeline, c->id, now + 1);
    rp_sim_core_finished(c->sim, now + 1);
}

void rp_core_main(void *arg)
{
    struct rp_core *c = arg;
    struct rp_sim *s = c->sim;
    struct fetch_state fs;
    memset(&fs, 0, sizeof fs);
    for (;;) {
        if (s->stopping)
            return;
        uint64_t now = ks_cycle();
        uint64_t mem_seen = ks_ec_count(&c->mem_ec), sched_seen = ks_ec_count(&s->sched.ec);
        bool retry = false;
        unsigned committed = commit(c, now);
        unsigned progress = committed;
        progress += issue(c, now, &retry);
        progress += dispatch(c, now);
        progress += fetch(c, &fs, now);
        enum rp_stall why = stall_reason(c);
        if (!committed)
            c->st.stall[why]++;
        else
            c->st.commit_cycles++;
        if (s->timeline)
            rp_timeline_core_pass(s->timeline, c->id, now, committed ? ST_COUNT : why);
        if (s->failed) {
            finish(c, now);
            return;
        }
        if (!c->thread && pipeline_empty(c) && !c->stores_after_commit && !c->mem_unknown &&
            rp_sched_all_done(&s->sched)) {
            c->st.cycles = now + 1;
            finish(c, now);
            return;
        }
        if (progress || retry) {
            ks_pause(1);
            continue;
        }
        uint64_t next = next_known_event(c, now);
        c->asleep = true;
        c->asleep_why = (uint8_t)why;
        c->asleep_counted = now;
        if (!c->thread && pipeline_empty(c) && !c->mem_unknown) {
            ks_await(&s->sched.ec, sched_seen + 1);
        } else if (c->mem_unknown && next == NEVER) {
            ks_await(&c->mem_ec, mem_seen + 1);
        } else if (next != NEVER && !c->mem_unknown) {
            ks_pause(next - now);
        } else {
            ks_pause(1);
        }
        c->asleep = false;
        /* This cycle is counted by the next pass, so the stall runs to the
         * one before it; woken within the cycle it was counted, it is taken
         * back. */
        uint64_t woke = ks_cycle();
        if (woke > c->asleep_counted + 1)
            c->st.stall[why] += woke - 1 - c->asleep_counted;
        else if (woke == c->asleep_counted)
            c->st.stall[why]--;
    }
}

void rp_core_stats_settle(struct rp_core *c, uint64_t now)
{
    if (c->asleep && now > c->asleep_counted + 1) {
        c->st.stall[c->asleep_why] += now - 1 - c->asleep_counted;
        c->asleep_counted = now - 1;
    }
}
