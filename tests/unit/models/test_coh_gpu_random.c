/* Random coherence tester for the mixed system: CPU cores and GPU compute
 * units issue loads and stores (cores also flushes) to a few
 * dozen blocks; every message and wake-up is delayed by a random amount
 * (each channel kept FIFO); stores write unique values.
 *
 * C-L3 (the L3 directory tracks the GPU): at every step a block has one
 * writer or many readers among all the cores' caches and all the CUs' L1s,
 * every readable copy (and the GPU L2's own, when no CU owns the block)
 * holds the last value stored, and every load returns it.
 *
 * The other organisations (NC-MC, NC-L3, C-MC): each side is coherent
 * within itself on the blocks it alone uses (the same checks, per side);
 * blocks handed from one side to the other are flushed from both sides'
 * caches by a core first, after which the side taking them over reads the
 * values the other side wrote last.
 *
 * Under si (gpu.protocol = si) the vector L1s are made coherent by
 * software and the L2 banks do not track them (non-inclusive): a CU's
 * copies may be stale and nothing but the CU's own invalidation drops
 * them, so they are left out of the census and of the last-value check.
 * What si promises is checked instead: a CU that invalidates its L1 with
 * nothing in flight (an acquire: s_waitcnt, then buffer_wbinvl1) reads
 * afterwards no value older than the last one released (the last store
 * completed) before the invalidation, and a GLC load none older than the
 * last released before it was issued. Each block's recent stores are kept
 * with the time they completed for that. A store takes effect at the bank
 * (its bytes merged) before the CU hears it is done, so si's programs are
 * data-race-free on stores: an agent stores to a block only while no
 * other agent's store to it is in flight, and a value read may be the last
 * released or that of a store in flight.
 *
 * Under nmoesi (gpu.protocol = nmoesi, a GPU not coherent with the CPU)
 * a CU writes without ownership: its N copy holds bytes no one else sees
 * until it is written back (evicted, taken by the bank, or at a release:
 * cgm_coh_gpu_invalidate). The CU L1 copies and the bank's copy are left
 * out of the census and last-value check, and each GPU block has one CU
 * that writes it (the others only read it: the data-race-free programs
 * the N state is for). What is checked instead: the writer reads its own
 * last store (its N bytes are never lost), and a CU that invalidates
 * (acquires) reads no value older than the last one released before it,
 * where a store is released once its writer invalidated after it and
 * every WriteBack that writer had sent by then reached its bank. A core's
 * reads of a block handed over from the GPU read the writer's last store
 * (the handover's flush takes the N bytes).
 *
 * Every request completes (a watchdog prints every controller's view of a
 * stuck block), every row of Tables 3.6 and 3.7 (and of si's) is reached,
 * and the same seed gives the same counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/coh_moesi.h"
#include "cgm/coh_si.h"
#include "cgm/coh_nmoesi.h"
#include "tests/unit/coh_events.h"

#define MAXN 128
#define K 4 /* requests in flight per agent */
#define MAX_AGENTS 64
#define MAX_BLOCKS 256
#define HISTORY 256 /* stores kept per block (si's read checks) */

enum { EV_MSG, EV_WAKE, EV_ISSUE };

struct outstanding {
    uint64_t issued, block, value;
    uint8_t op, flags;
    bool used;
};

/* A block's stores as they completed, the newest at (n - 1) % HISTORY. */
struct history {
    uint64_t value[HISTORY], done[HISTORY];
    uint64_t stored[HISTORY]; /* nmoesi: when the store completed (done: when released; UINT64_MAX not yet) */
    uint64_t n;
};

/* Who may use a block: the cores only, the CUs only, or whichever side
 * holds it now (handed over through flushes). */
enum { USE_CPU, USE_GPU, USE_HANDOFF };
struct block_info {
    uint8_t use;
    uint8_t side;          /* handoff blocks: 0 the CPU has it, 1 the GPU */
    bool handing;          /* being handed over: no new requests */
    unsigned busy;         /* requests in flight to it */
    unsigned stores;       /* si: stores in flight to it, all of agent storer */
    unsigned storer;
    unsigned flushes;      /* handover flushes in flight */
    bool check_next_read;  /* the new side has not read it yet */
};

struct tester {
    struct cgm_coh_sys *sys;
    unsigned cores, cus, nodes, agents; /* agents: cores then CUs */
    bool coherent;                      /* C-L3: one coherence domain */
    bool si;                            /* the CUs' L1s are made coherent by software */
    bool nm;                            /* nmoesi: the CUs write without ownership */
    int node_cu[MAXN];                  /* nmoesi: the CU of a vector L1's node, -1 for others */
    unsigned wb_inflight[MAX_AGENTS];   /* nmoesi: a CU agent's WriteBacks on their way to the banks */
    bool releasing[MAX_AGENTS];         /* nmoesi: the CU invalidated; its write-backs not all there */
    uint64_t release_start[MAX_AGENTS];
    uint64_t nm_own_reads, nm_releases;
    uint64_t nblocks;
    struct block_info blk[MAX_BLOCKS];
    struct coh_events q;
    uint64_t now, rng;
    uint64_t chan_last[MAXN][MAXN];
    uint64_t golden[MAX_BLOCKS];
    struct history hist[MAX_BLOCKS];
    uint64_t invalidated[MAX_AGENTS];   /* si: when the CU last invalidated its L1 */
    bool acquiring[MAX_AGENTS];         /* si: the CU waits for its requests, then invalidates */
    uint64_t si_reads_checked, si_stale_reads, invalidations;
    uint64_t next_value;
    struct outstanding out[MAX_AGENTS][K + 1]; /* slot K: a handover flush */
    unsigned inflight[MAX_AGENTS];
    uint64_t issued, completed, target, handovers, handover_reads;
    unsigned max_delay, mem_delay, issue_gap;
    bool stop_issue;
    int failed;
};

static uint64_t rnd(struct tester *t) { return coh_rnd(&t->rng); }

static void push(struct tester *t, struct coh_event e) { coh_events_push(&t->q, e); }

static void env_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct tester *t = ctx;
    uint64_t at = coh_msg_arrival(&t->rng, t->now, t->max_delay, &t->chan_last[m->src][m->dst]);
    if (t->nm && m->type == COH_WB && t->node_cu[m->src] >= 0)
        t->wb_inflight[t->cores + (unsigned)t->node_cu[m->src]]++;
    push(t, (struct coh_event){ .time = at, .kind = EV_MSG, .m = *m });
}

static void env_later(void *ctx, int node, uint64_t block, int what)
{
    struct tester *t = ctx;
    uint64_t d = coh_wake_delay(&t->rng, what, t->mem_delay);
    push(t, (struct coh_event){ .time = t->now + d, .kind = EV_WAKE, .node = node, .block = block, .what = what });
}

static void fail_block(struct tester *t, uint64_t block)
{
    cgm_coh_dump_block(t->sys, block, stderr);
    t->failed = 1;
}

/* si: value is that of a store to block in flight (merged at a bank,
 * perhaps, before its CU hears it is done). */
static bool si_in_flight(const struct tester *t, uint64_t block, uint64_t value)
{
    const struct block_info *b = &t->blk[block];
    if (!t->si || !b->stores)
        return false;
    for (unsigned k = 0; k < K; k++) {
        const struct outstanding *o = &t->out[b->storer][k];
        if (o->used && o->block == block && o->op == CGM_OP_STORE && o->value == value)
            return true;
    }
    return false;
}

/* The value a copy or a load may hold: the last stored, or under si one in flight. */
static bool current(const struct tester *t, uint64_t block, uint64_t value)
{
    return value == t->golden[block] || si_in_flight(t, block, value);
}

/* Single writer or many readers, and the last value, among the copies of
 * one side (or of both, coherent). */
static void check_block(struct tester *t, uint64_t block)
{
    const struct block_info *b = &t->blk[block];
    bool cpu_side = t->coherent || b->use == USE_CPU || (b->use == USE_HANDOFF && b->side == 0);
    bool gpu_side = t->coherent || b->use == USE_GPU || (b->use == USE_HANDOFF && b->side == 1);
    if (b->use == USE_HANDOFF && (b->handing || b->check_next_read) && !t->coherent)
        return; /* between the sides: checked by the new side's first read */
    const struct cgm_coh_protocol *cpu = cgm_coh_protocol_of(t->sys, CGM_NODE_CORE);
    const struct cgm_coh_protocol *gpu = cgm_coh_protocol_of(t->sys, CGM_NODE_GPU_L1);
    struct cgm_coh_census census = { 0 };
    for (unsigned a = 0; a < t->agents; a++) {
        bool core = a < t->cores;
        if ((core && !cpu_side) || (!core && !gpu_side) || (!core && (t->si || t->nm)))
            continue;
        uint64_t data = 0;
        const struct cgm_coh_protocol *p = core ? cpu : gpu;
        unsigned st = core ? cgm_coh_core_copy(t->sys, (int)a, block, &data)
                           : cgm_coh_gpu_copy(t->sys, (int)(a - t->cores), block, &data);
        if (p->permission[st] == CGM_COH_NO_COPY)
            continue;
        if (p->permission[st] == CGM_COH_WRITE)
            census.writers++;
        else
            census.readers++;
        if (!current(t, block, data)) {
            fprintf(stderr, "time %llu: %s %u holds block %llu in %s with value %llu, last store %llu\n",
                    (unsigned long long)t->now, core ? "core" : "CU", core ? a : a - t->cores,
                    (unsigned long long)block, cgm_coh_state_name(p, st), (unsigned long long)data,
                    (unsigned long long)t->golden[block]);
            fail_block(t, block);
        }
    }
    /* The bank's FRC holds the block in one place at most (an entry, or a
     * line of the L2 once swapped in). */
    if (t->cus && cgm_coh_gpu_frc_copies(t->sys, cgm_coh_gpu_bank_of(t->sys, block), block) > 1) {
        fprintf(stderr, "time %llu: block %llu held twice by its bank's FRC\n", (unsigned long long)t->now,
                (unsigned long long)block);
        fail_block(t, block);
    }
    uint64_t data = 0;
    const struct cgm_coh_protocol *banks = cgm_coh_protocol_of(t->sys, CGM_NODE_GPU_L2);
    if (gpu_side && t->cus && !t->nm && banks->permission[cgm_coh_gpu_l2_copy(t->sys, block, &data)] != CGM_COH_NO_COPY &&
        !current(t, block, data)) {
        fprintf(stderr, "time %llu: the GPU L2 holds block %llu with value %llu, last store %llu\n",
                (unsigned long long)t->now, (unsigned long long)block, (unsigned long long)data,
                (unsigned long long)t->golden[block]);
        fail_block(t, block);
    }
    /* One invariant over both sides' copies: the system's protocol's
     * (each side's when they are checked apart). */
    const char *wrong = cgm_coh_check_census(cpu_side ? cpu : gpu, &census);
    if (!wrong && gpu != cpu && gpu_side)
        wrong = cgm_coh_check_census(gpu, &census);
    if (wrong) {
        fprintf(stderr, "time %llu: block %llu has %u writers and %u readers: %s\n", (unsigned long long)t->now,
                (unsigned long long)block, census.writers, census.readers, wrong);
        fail_block(t, block);
    }
}

/* ---- nmoesi's releases ------------------------------------------------------- */

static unsigned writer_of(const struct tester *t, uint64_t block) { return t->cores + (unsigned)(block % t->cus); }

/* CU agent's stores completed before its release started are released
 * now: its write-backs are all at the banks. */
static void nm_release_done(struct tester *t, unsigned agent)
{
    t->releasing[agent] = false;
    t->nm_releases++;
    for (uint64_t b = 0; b < t->nblocks; b++) {
        if (writer_of(t, b) != agent)
            continue;
        struct history *h = &t->hist[b];
        uint64_t first = h->n > HISTORY ? h->n - HISTORY : 0;
        for (uint64_t i = h->n; i-- > first;) {
            uint64_t k = i % HISTORY;
            if (h->done[k] != UINT64_MAX)
                break;
            if (h->stored[k] <= t->release_start[agent])
                h->done[k] = t->now;
        }
    }
}

/* A release, and an acquire when the CU has nothing in flight (a
 * kernel's start may find requests of the CU in flight: not an acquire). */
static void nm_invalidate(struct tester *t, unsigned agent, bool acquire)
{
    cgm_coh_gpu_invalidate(t->sys, (int)(agent - t->cores));
    if (acquire)
        t->invalidated[agent] = t->now;
    t->invalidations++;
    if (!t->releasing[agent]) {
        t->releasing[agent] = true;
        t->release_start[agent] = t->now;
    }
    if (!t->wb_inflight[agent])
        nm_release_done(t, agent);
}

/* A WriteBack reached its bank. */
static void nm_delivered(struct tester *t, const struct cgm_coh_msg *m)
{
    if (!t->nm || m->type != COH_WB || t->node_cu[m->src] < 0)
        return;
    unsigned agent = t->cores + (unsigned)t->node_cu[m->src];
    if (--t->wb_inflight[agent] == 0 && t->releasing[agent])
        nm_release_done(t, agent);
}

/* ---- handing a block to the other side ------------------------------------- */

static void flush_issue(struct tester *t, uint64_t block, uint8_t op)
{
    /* Any core may ask; each core keeps slot K for it. */
    for (unsigned tries = 0; tries < t->cores; tries++) {
        unsigned c = (unsigned)(rnd(t) % t->cores);
        struct outstanding *o = &t->out[c][K];
        if (o->used)
            continue;
        *o = (struct outstanding){ .issued = t->now, .block = block, .op = op, .used = true };
        int rc = cgm_coh_access(t->sys, (int)c, &(struct cgm_coh_req){ .block = block, .tag = K, .op = op });
        if (rc < 0) {
            o->used = false;
            continue;
        }
        return;
    }
    /* Every core is busy with a flush or refused it: try again later. */
    push(t, (struct coh_event){ .time = t->now + 1 + rnd(t) % 8, .kind = EV_WAKE, .node = -1, .block = block,
                            .what = op });
}

static void handover_flushes(struct tester *t, uint64_t block)
{
    t->blk[block].flushes = 2; /* the side changes once both are done */
    flush_issue(t, block, CGM_OP_FLUSH_CPU);
    flush_issue(t, block, CGM_OP_FLUSH_GPU);
}

static void flush_done(struct tester *t, uint64_t block)
{
    struct block_info *b = &t->blk[block];
    if (--b->flushes)
        return;
    b->side ^= 1;
    if (t->si && b->side == 1)
        for (unsigned cu = 0; cu < t->cus; cu++) /* the GPU side starts a kernel: its L1s invalidated */
            cgm_coh_gpu_invalidate(t->sys, (int)cu);
    if (t->nm && b->side == 1)
        for (unsigned cu = 0; cu < t->cus; cu++)
            nm_invalidate(t, t->cores + cu, !t->inflight[t->cores + cu]);
    b->handing = false;
    b->check_next_read = true;
    t->handovers++;
}

static void maybe_hand_over(struct tester *t, uint64_t block)
{
    struct block_info *b = &t->blk[block];
    if (b->handing && !b->busy && !b->flushes)
        handover_flushes(t, block);
}

/* ---- completions --------------------------------------------------------- */

/* si: whether value was still the block's last release at time since or
 * became it later (its successor completed after since, or it has none).
 * The initial value 0 counts as released at time 0; a value older than
 * the history reaches is counted and let pass only if the history cannot
 * tell. */
static bool si_read_ok(struct tester *t, uint64_t block, uint64_t value, uint64_t since)
{
    const struct history *h = &t->hist[block];
    uint64_t first = h->n > HISTORY ? h->n - HISTORY : 0;
    t->si_reads_checked++;
    if (si_in_flight(t, block, value))
        return true; /* newer than every release */
    for (uint64_t i = h->n; i-- > first;)
        if (h->value[i % HISTORY] == value) {
            bool ok = i + 1 == h->n || h->done[(i + 1) % HISTORY] > since;
            t->si_stale_reads += i + 1 != h->n;
            return ok;
        }
    if (first == 0) /* the value before every store */
        return value == 0 && (h->n == 0 || h->done[0] > since);
    return h->done[first % HISTORY] > since;
}

static void complete(struct tester *t, unsigned agent, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    struct outstanding *o = &t->out[agent][tag];
    if (!o->used || o->block != block) {
        fprintf(stderr, "agent %u: request %llu completed twice or for the wrong block\n", agent,
                (unsigned long long)tag);
        t->failed = 1;
        return;
    }
    o->used = false;
    if (tag == K) {
        flush_done(t, block); /* a handover's */
        return;
    }
    struct block_info *b = &t->blk[block];
    if (op == CGM_OP_FLUSH_CPU || op == CGM_OP_FLUSH_GPU) {
        /* nothing to check: copies may come back at once */
    } else if (op == CGM_OP_STORE) {
        b->stores -= t->si;
        t->golden[block] = value;
        struct history *h = &t->hist[block];
        h->value[h->n % HISTORY] = value;
        h->done[h->n % HISTORY] = t->nm && agent >= t->cores ? UINT64_MAX : t->now;
        h->stored[h->n % HISTORY] = t->now;
        h->n++;
    } else if (t->nm && agent >= t->cores && !b->check_next_read && agent == writer_of(t, block)) {
        t->nm_own_reads++;
        if (value != t->golden[block]) {
            fprintf(stderr, "time %llu: CU %u, the writer of block %llu, read %llu, not its own last store %llu\n",
                    (unsigned long long)t->now, agent - t->cores, (unsigned long long)block,
                    (unsigned long long)value, (unsigned long long)t->golden[block]);
            fail_block(t, block);
        }
    } else if ((t->si || t->nm) && agent >= t->cores && !b->check_next_read) {
        uint64_t since = o->flags ? o->issued : t->invalidated[agent];
        if (!si_read_ok(t, block, value, since)) {
            fprintf(stderr, "time %llu: CU %u %sload of block %llu returned %llu, older than the last release "
                    "before %llu (last store %llu)\n", (unsigned long long)t->now, agent - t->cores,
                    o->flags ? "GLC " : "", (unsigned long long)block, (unsigned long long)value,
                    (unsigned long long)since, (unsigned long long)t->golden[block]);
            fail_block(t, block);
        }
    } else if (!current(t, block, value)) {
        fprintf(stderr, "time %llu: %s %u %s of block %llu returned %llu, last store %llu\n",
                (unsigned long long)t->now, agent < t->cores ? "core" : "CU",
                agent < t->cores ? agent : agent - t->cores, op == CGM_OP_LOAD ? "load" : "fetch",
                (unsigned long long)block, (unsigned long long)value, (unsigned long long)t->golden[block]);
        fail_block(t, block);
    } else if (b->check_next_read) {
        t->handover_reads++;
    }
    b->check_next_read = false;
    check_block(t, block);
    t->inflight[agent]--;
    t->completed++;
    b->busy--;
    maybe_hand_over(t, block);
}

static void env_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t block, uint64_t value, unsigned level)
{
    (void)level;
    complete(ctx, (unsigned)core, tag, op, block, value);
}

static void env_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    struct tester *t = ctx;
    complete(t, t->cores + (unsigned)cu, tag, op, block, value);
}

/* ---- issuing ------------------------------------------------------------- */

static bool usable(const struct tester *t, unsigned agent, uint64_t block)
{
    const struct block_info *b = &t->blk[block];
    bool core = agent < t->cores;
    if (t->coherent)
        return true;
    if (b->use == USE_HANDOFF)
        return !b->handing && b->side == (core ? 0 : 1);
    return b->use == (core ? USE_CPU : USE_GPU);
}

static void issue(struct tester *t, unsigned agent)
{
    if (t->stop_issue || t->inflight[agent] >= K)
        return;
    unsigned slot = 0;
    while (t->out[agent][slot].used)
        slot++;
    uint64_t r = rnd(t);
    bool core = agent < t->cores;
    uint64_t block = (r >> 8) % t->nblocks;
    if (!usable(t, agent, block))
        return;
    uint8_t op = (r >> 4) % 3 == 0 ? CGM_OP_STORE : CGM_OP_LOAD;
    if (core && t->coherent && r % 64 == 0)
        op = (r >> 6) % 2 ? CGM_OP_FLUSH_CPU : CGM_OP_FLUSH_GPU; /* allowed, if never needed */
    struct block_info *bi = &t->blk[block];
    if (t->si && op == CGM_OP_STORE && bi->stores && bi->storer != agent)
        return; /* data-race-free: another agent's store to it is in flight */
    uint64_t value = op == CGM_OP_STORE ? ++t->next_value : 0;
    uint8_t flags = 0;
    if (t->nm && !core) {
        /* One writer per block; an acquire (and release) now and then. */
        if (op == CGM_OP_STORE && agent != writer_of(t, block))
            op = CGM_OP_LOAD, value = 0;
        if ((r >> 12) % 64 == 0)
            t->acquiring[agent] = true;
        if (t->acquiring[agent] && t->inflight[agent])
            return;
        if (t->acquiring[agent]) {
            nm_invalidate(t, agent, true);
            t->acquiring[agent] = false;
        }
    }
    if (t->si && !core) {
        /* An acquire now and then (nothing in flight), and GLC or SLC
         * accesses. */
        if ((r >> 12) % 64 == 0)
            t->acquiring[agent] = true;
        if (t->acquiring[agent] && t->inflight[agent])
            return;
        if (t->acquiring[agent]) {
            cgm_coh_gpu_invalidate(t->sys, (int)(agent - t->cores));
            t->invalidated[agent] = t->now;
            t->invalidations++;
            t->acquiring[agent] = false;
        }
        if ((r >> 16) % 8 == 0)
            flags = (r >> 19) % 4 ? CGM_COH_GLC : CGM_COH_SLC;
    }
    /* Mark the slot first: a hit completes inside the call. */
    t->out[agent][slot] = (struct outstanding){ .issued = t->now, .block = block, .value = value, .op = op,
                                                .flags = flags, .used = true };
    t->inflight[agent]++;
    t->blk[block].busy++;
    if (t->si && op == CGM_OP_STORE) {
        bi->stores++;
        bi->storer = agent;
    }
    struct cgm_coh_req req = { .block = block, .tag = slot, .value = value, .op = op, .flags = flags };
    int rc = core ? cgm_coh_access(t->sys, (int)agent, &req) : cgm_coh_gpu_access(t->sys, (int)(agent - t->cores), &req);
    if (rc < 0) {
        t->out[agent][slot].used = false;
        t->inflight[agent]--;
        t->blk[block].busy--;
        if (t->si && op == CGM_OP_STORE)
            bi->stores--;
        return;
    }
    t->issued++;
    if (t->issued >= t->target)
        t->stop_issue = true;
    /* Now and then a handoff block changes sides. */
    if (!t->coherent && !t->stop_issue && r % 31 == 3) {
        uint64_t hb = (r >> 20) % t->nblocks;
        struct block_info *b = &t->blk[hb];
        if (b->use == USE_HANDOFF && !b->handing && !b->check_next_read) {
            b->handing = true;
            maybe_hand_over(t, hb);
        }
    }
}

static void watchdog(struct tester *t, uint64_t limit)
{
    for (unsigned a = 0; a < t->agents; a++)
        for (unsigned k = 0; k <= K; k++) {
            struct outstanding *o = &t->out[a][k];
            if (o->used && t->now - o->issued > limit) {
                fprintf(stderr, "deadlock: %s %u request (op %u) on block %llu issued at %llu, now %llu\n",
                        a < t->cores ? "core" : "CU", a < t->cores ? a : a - t->cores, o->op,
                        (unsigned long long)o->block, (unsigned long long)o->issued, (unsigned long long)t->now);
                fail_block(t, o->block);
                return;
            }
        }
}

/* ---- runs ----------------------------------------------------------------- */

struct run_cfg {
    const char *name;
    struct cgm_coh_config c;
    uint64_t nblocks, requests;
    unsigned max_delay, mem_delay, issue_gap;
    uint64_t seed;
};

struct run_result {
    uint64_t signature, handovers, handover_reads;
    uint64_t victim_waits, invalidate_cycles, evict_cycles; /* summed over the banks */
    uint64_t frc_fetches, frc_full, frc_swaps, frc_hits;
};

static uint64_t env_now(void *ctx) { return ((const struct tester *)ctx)->now; }

/* Where run adds the row counts of the GPU's protocol, when it is this one. */
static uint64_t *gpu_rows_sink;
static const struct cgm_coh_protocol *gpu_rows_sink_protocol;

static void run(const struct run_cfg *rc, uint64_t *rows_total, struct run_result *res)
{
    const char *tb = getenv("CGM_COH_TRACE"); /* a block whose messages to print */
    long trace_block = tb ? atol(tb) : -1;
    struct tester *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->cores = rc->c.cores;
    t->cus = rc->c.gpu.cus;
    t->agents = t->cores + t->cus;
    t->coherent = rc->c.gpu.coherent;
    t->si = rc->c.gpu.protocol == &cgm_coh_si;
    t->nm = rc->c.gpu.protocol == &cgm_coh_nmoesi;
    t->nodes = rc->c.cores + rc->c.slices + rc->c.gpu.cus + rc->c.gpu.banks;
    assert_true(t->nodes <= MAXN && t->agents <= MAX_AGENTS && rc->nblocks <= MAX_BLOCKS);
    t->nblocks = rc->nblocks;
    t->target = rc->requests;
    t->max_delay = rc->max_delay;
    t->mem_delay = rc->mem_delay;
    t->issue_gap = rc->issue_gap;
    t->rng = rc->seed;
    /* Without coherence: a third of the blocks each side's own, a third
     * handed over. */
    for (uint64_t b = 0; b < t->nblocks; b++)
        t->blk[b] = (struct block_info){ .use = t->coherent ? USE_HANDOFF : (uint8_t)(b % 3) };
    struct cgm_coh_config c = rc->c;
    c.blocks = rc->nblocks;
    struct cgm_coh_env env = { .ctx = t, .send = env_send, .later = env_later, .done = env_done,
                               .gpu_done = env_gpu_done, .now = env_now };
    char err[256] = "";
    t->sys = cgm_coh_create(&c, &env, err, sizeof err);
    if (!t->sys)
        fail_msg("%s", err);
    for (unsigned n = 0; n < MAXN; n++)
        t->node_cu[n] = -1;
    for (unsigned cu = 0; cu < t->cus; cu++)
        t->node_cu[cgm_coh_gpu_l1_node(t->sys, (int)cu)] = (int)cu;
    for (unsigned a = 0; a < t->agents; a++)
        push(t, (struct coh_event){ .time = a, .kind = EV_ISSUE, .node = (int)a });
    uint64_t steps = 0;
    while (t->q.n && !t->failed) {
        struct coh_event e = coh_events_pop(&t->q);
        t->now = e.time;
        if (e.kind == EV_MSG) {
            if (trace_block >= 0 && e.m.block == (uint64_t)trace_block)
                fprintf(stderr, "%llu: %s %d -> %d req %d data %llu%s\n", (unsigned long long)t->now,
                        cgm_coh_msg_names[e.m.type], e.m.src, e.m.dst, e.m.req, (unsigned long long)e.m.data,
                        e.m.bytes ? " (data)" : "");
            cgm_coh_deliver(t->sys, &e.m);
            nm_delivered(t, &e.m);
            check_block(t, e.m.block);
        } else if (e.kind == EV_WAKE && e.node < 0) {
            flush_issue(t, e.block, (uint8_t)e.what);
        } else if (e.kind == EV_WAKE) {
            cgm_coh_wake(t->sys, e.node, e.block, e.what);
        } else {
            issue(t, (unsigned)e.node);
            if (!t->stop_issue)
                push(t, (struct coh_event){ .time = t->now + 1 + rnd(t) % t->issue_gap, .kind = EV_ISSUE,
                                        .node = e.node });
        }
        if (++steps % 65536 == 0)
            watchdog(t, 2000000);
    }
    if (!t->failed && t->completed != t->issued) {
        fprintf(stderr, "%s: %llu requests never completed and nothing is left to happen:\n", rc->name,
                (unsigned long long)(t->issued - t->completed));
        watchdog(t, 0);
    }
    assert_false(t->failed);
    assert_int_equal(t->completed, t->issued);
    assert_true(t->issued >= rc->requests);
    uint64_t sig = coh_run_signature(t->sys, rows_total, t->now);
    const struct cgm_coh_protocol *gp = cgm_coh_protocol_of(t->sys, CGM_NODE_GPU_L1);
    if (gpu_rows_sink && gp == gpu_rows_sink_protocol) {
        const uint64_t *g = cgm_coh_row_counts(t->sys, gp);
        for (unsigned i = 0; i < gp->nrows; i++)
            gpu_rows_sink[i] += g[i];
    }
    if (t->si)
        printf("%s: %llu invalidations, %llu CU reads checked against the last release (%llu of an older value "
               "that was still allowed)\n", rc->name, (unsigned long long)t->invalidations,
               (unsigned long long)t->si_reads_checked, (unsigned long long)t->si_stale_reads);
    if (t->nm)
        printf("%s: %llu releases, %llu writer reads of its own stores, %llu CU reads checked against the last "
               "release (%llu of an older value that was still allowed)\n", rc->name,
               (unsigned long long)t->nm_releases, (unsigned long long)t->nm_own_reads,
               (unsigned long long)t->si_reads_checked, (unsigned long long)t->si_stale_reads);
    uint64_t hits = 0, nacks = 0;
    for (unsigned i = 0; i < t->cus; i++) {
        hits += cgm_coh_gpu_l1_stats(t->sys, (int)i)->hits;
        nacks += cgm_coh_gpu_l1_stats(t->sys, (int)i)->nacks_received;
    }
    printf("%s: %llu requests (%llu GPU L1 hits, %llu GPU NACKs), %llu handovers (%llu checked reads), "
           "%llu messages, %llu cycles, signature %016llx\n",
           rc->name, (unsigned long long)t->completed, (unsigned long long)hits, (unsigned long long)nacks,
           (unsigned long long)t->handovers, (unsigned long long)t->handover_reads, (unsigned long long)t->q.seq,
           (unsigned long long)t->now, (unsigned long long)sig);
    if (res) {
        *res = (struct run_result){ sig, t->handovers, t->handover_reads, 0, 0, 0, 0, 0, 0, 0 };
        for (unsigned i = 0; i < rc->c.gpu.banks; i++) {
            const struct cgm_coh_gpu_l2_stats *bs = cgm_coh_gpu_l2_stats(t->sys, (int)i);
            res->victim_waits += bs->victim_waits;
            res->invalidate_cycles += bs->invalidate_cycles;
            res->evict_cycles += bs->evict_cycles;
            res->frc_fetches += bs->frc_fetches;
            res->frc_full += bs->frc_full;
            res->frc_swaps += bs->frc_swaps;
            res->frc_hits += bs->frc_hits;
        }
    }
    cgm_coh_destroy(t->sys);
    coh_events_free(&t->q);
    free(t);
}

static double scale_factor(void) { return coh_scale_factor(); }
static uint64_t scale(uint64_t n) { return coh_scale(n); }

static struct cgm_coh_config small_system(unsigned cores, unsigned cus, bool shared_llc, bool coherent)
{
    return (struct cgm_coh_config){
        .cores = cores, .slices = 2, .l1_sets = 1, .l1_ways = 2, .l1i_sets = 1, .l1i_ways = 2, .l2_sets = 2,
        .l2_ways = 2, .l1_wb_entries = 1, .l3_sets = 4, .l3_ways = 4, .mshr = 4, .coalesce = 4, .wb_entries = 2,
        .l3_wb_entries = 2, .l3_mshr = 4,
        .gpu = { .cus = cus, .banks = 2, .l1_sets = 1, .l1_ways = 2, .l1_mshr = 2, .l1_coalesce = 2,
                 .l1_wb_entries = 1, .l2_sets = 2, .l2_ways = 2, .l2_mshr = 3, .l2_coalesce = 4,
                 .l2_wb_entries = 2, .shared_llc = shared_llc, .coherent = coherent }
    };
}

/* Every row of p's controllers of the GPU's kinds was reached. */
static void check_rows(const struct cgm_coh_protocol *p, const uint64_t *rows, bool required)
{
    int missing = 0;
    for (unsigned r = 0; r < p->nrows; r++) {
        if (p->rows[r].kind != CGM_NODE_GPU_L1 && p->rows[r].kind != CGM_NODE_GPU_L2)
            continue;
        if (!rows[r]) {
            printf("  Table %s row \"%s\": never reached\n", p->rows[r].table, p->rows[r].text);
            missing++;
        }
    }
    if (required)
        assert_int_equal(missing, 0);
}

/* Rows of Tables 3.6 and 3.7 reached, over every run of the organisations. */
static uint64_t gpu_rows[MESI_NROWS];
static uint64_t total_requests;

static void run_all(const struct run_cfg *runs, size_t n, bool handovers)
{
    for (size_t i = 0; i < n; i++) {
        struct run_result res;
        run(&runs[i], gpu_rows, &res);
        total_requests += runs[i].requests;
        if (handovers)
            assert_true(res.handovers > 0 && res.handover_reads > 0);
    }
}

static void test_mixed_coherent(void **state)
{
    (void)state;
    struct run_cfg runs[] = {
        { "C-L3, 4 cores + 8 CUs", small_system(4, 8, true, true), 24, scale(3000000), 20, 60, 6, 11 },
        { "C-L3, 2 cores + 32 CUs", small_system(2, 32, true, true), 40, scale(1500000), 20, 60, 10, 12 },
    };
    run_all(runs, sizeof runs / sizeof runs[0], false);
}

/* The cores and slices under MOESI beside the GPU's MESI caches, the L3
 * tracking the GPU: one invariant over both sides' copies, and blocks the
 * cores own (O) read by the CUs through the owner. */
static void test_mixed_coherent_moesi(void **state)
{
    (void)state;
    uint64_t *rows = calloc(MOESI_NROWS, sizeof *rows);
    assert_non_null(rows);
    struct run_cfg r = { "C-L3 under MOESI, 4 cores + 8 CUs", small_system(4, 8, true, true), 24, scale(2000000),
                         20, 60, 6, 13 };
    r.c.protocol = &cgm_coh_moesi;
    run(&r, rows, NULL);
    assert_true(rows[MO34_FWD_ACK_OWNER] > 0 && rows[MO33_O_GETFWD] > 0 && rows[MO34_O_WB] > 0);
    free(rows);
}

static void test_mixed_noncoherent(void **state)
{
    (void)state;
    struct run_cfg runs[] = {
        { "NC-MC, 4 cores + 8 CUs", small_system(4, 8, false, false), 24, scale(2000000), 20, 60, 6, 21 },
        { "NC-L3, 4 cores + 8 CUs", small_system(4, 8, true, false), 24, scale(2000000), 20, 60, 6, 22 },
        { "C-MC, 2 cores + 32 CUs", small_system(2, 32, false, false), 40, scale(1500000), 20, 60, 10, 23 },
    };
    run_all(runs, sizeof runs / sizeof runs[0], true);
}

/* Every row of Tables 3.6 and 3.7 is modelled and reached. The rarest
 * take a few million requests; shortened runs only report them. */
static void test_every_gpu_row_reached(void **state)
{
    (void)state;
    check_rows(&cgm_coh_mesi, gpu_rows, scale_factor() >= 0.3);
    printf("%llu requests in all\n", (unsigned long long)total_requests);
}

/* The vector L1s and banks under si in the four organisations: si's
 * read checks, and every row of si's tables (the vector L1's and the
 * bank's) reached. */
static void test_si(void **state)
{
    (void)state;
    uint64_t *rows = calloc(SI_NROWS, sizeof *rows);
    uint64_t cpu_rows[MESI_NROWS] = { 0 };
    assert_non_null(rows);
    gpu_rows_sink = rows;
    gpu_rows_sink_protocol = &cgm_coh_si;
    struct run_cfg runs[] = {
        { "si, C-L3, 4 cores + 8 CUs", small_system(4, 8, true, true), 24, scale(1200000), 20, 60, 6, 31 },
        { "si, NC-MC, 4 cores + 8 CUs", small_system(4, 8, false, false), 24, scale(900000), 20, 60, 6, 32 },
        { "si, NC-L3, 4 cores + 8 CUs", small_system(4, 8, true, false), 24, scale(900000), 20, 60, 6, 33 },
        { "si, C-L3, 2 cores + 32 CUs", small_system(2, 32, true, true), 40, scale(900000), 20, 60, 10, 34 },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        runs[i].c.gpu.protocol = &cgm_coh_si;
        runs[i].c.gpu.l1_mshr = 4; /* more than the ways: a set whose every way waits */
        runs[i].c.gpu.l1_sets = 2; /* copies that stay long enough to go stale */
        struct run_result res;
        run(&runs[i], cpu_rows, &res);
    }
    gpu_rows_sink = NULL;
    int missing = 0;
    for (unsigned r = 0; r < SI_NROWS; r++) {
        bool gpu = cgm_coh_si.rows[r].kind == CGM_NODE_GPU_L1 || cgm_coh_si.rows[r].kind == CGM_NODE_GPU_L2;
        if (r >= MESI_NROWS && gpu && !rows[r]) {
            printf("  si: Table %s row \"%s\": never reached\n", cgm_coh_si.rows[r].table, cgm_coh_si.rows[r].text);
            missing++;
        }
        /* MESI's vector L1 and bank rows (Tables 3.6, 3.7) are not si's: never taken. */
        if (r < MESI_NROWS && gpu)
            assert_int_equal(rows[r], 0);
    }
    if (scale_factor() >= 0.3)
        assert_int_equal(missing, 0);
    free(rows);
}

/* The vector L1s and banks under nmoesi in the organisations where the
 * GPU is not coherent with the CPU: the writer's own reads and the reads
 * after an acquire checked, every row of nmoesi's own table reached and
 * none of MESI's vector-L1 rows (Table 3.6) taken. */
static void test_nmoesi(void **state)
{
    (void)state;
    uint64_t *rows = calloc(NMOESI_NROWS, sizeof *rows);
    uint64_t cpu_rows[MESI_NROWS] = { 0 };
    assert_non_null(rows);
    gpu_rows_sink = rows;
    gpu_rows_sink_protocol = &cgm_coh_nmoesi;
    struct run_cfg runs[] = {
        { "nmoesi, NC-MC, 4 cores + 8 CUs", small_system(4, 8, false, false), 24, scale(1200000), 20, 60, 6, 41 },
        { "nmoesi, NC-L3, 4 cores + 8 CUs", small_system(4, 8, true, false), 24, scale(1200000), 20, 60, 6, 42 },
        { "nmoesi, NC-MC, 2 cores + 32 CUs", small_system(2, 32, false, false), 48, scale(1200000), 20, 60, 10, 43 },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        runs[i].c.gpu.protocol = &cgm_coh_nmoesi;
        runs[i].c.gpu.l1_mshr = 4; /* more than the ways: a set whose every way waits */
        runs[i].c.gpu.l1_sets = 2; /* copies that stay long enough to be written by others */
        run(&runs[i], cpu_rows, NULL);
    }
    gpu_rows_sink = NULL;
    int missing = 0;
    for (unsigned r = 0; r < NMOESI_NROWS; r++) {
        if (r >= MESI_NROWS && !rows[r]) {
            printf("  nmoesi: Table %s row \"%s\": never reached\n", cgm_coh_nmoesi.rows[r].table,
                   cgm_coh_nmoesi.rows[r].text);
            missing++;
        }
        if (r < MESI_NROWS && cgm_coh_nmoesi.rows[r].kind == CGM_NODE_GPU_L1)
            assert_int_equal(rows[r], 0);
    }
    if (scale_factor() >= 0.3)
        assert_int_equal(missing, 0);
    free(rows);
}

/* gpu.l2.victim_policy = serialized under each GPU protocol in each
 * organisation it runs in: the checks hold with a way kept transient
 * through its victim's eviction and then the fetch; misses did wait for
 * their victims, for the CUs' copies (mesi's inclusive banks only: si's
 * keep no holders) and for the victim to leave; under early none does. */
static void test_serialized_victims(void **state)
{
    (void)state;
    const struct cgm_coh_protocol *protos[] = { &cgm_coh_mesi, &cgm_coh_si, &cgm_coh_nmoesi };
    static const struct { const char *name; bool shared, coherent; } orgs[] = {
        { "C-L3", true, true }, { "NC-MC", false, false }, { "NC-L3", true, false } };
    uint64_t rows[MESI_NROWS] = { 0 }; /* the cores' */
    for (size_t p = 0; p < 3; p++) {
        for (size_t o = 0; o < 3; o++) {
            if (protos[p] == &cgm_coh_nmoesi && orgs[o].coherent)
                continue; /* refused: test_nmoesi_refused_coherent */
            char name[64];
            snprintf(name, sizeof name, "serialized, %s, %s", protos[p]->name, orgs[o].name);
            struct run_cfg r = { name, small_system(4, 8, orgs[o].shared, orgs[o].coherent), 24, scale(400000),
                                 20, 60, 6, 51 + 3 * p + o };
            r.c.gpu.protocol = protos[p];
            r.c.gpu.l2_victim_policy = CGM_COH_VICTIM_SERIALIZED;
            struct run_result res;
            run(&r, rows, &res);
            assert_true(res.victim_waits > 0);
            assert_true(res.evict_cycles > 0);
            if (protos[p] == &cgm_coh_si)
                assert_int_equal(res.invalidate_cycles, 0);
            else
                assert_true(res.invalidate_cycles > 0);
            r.c.gpu.l2_victim_policy = CGM_COH_VICTIM_EARLY;
            run(&r, rows, &res);
            assert_int_equal(res.victim_waits, 0);
            assert_int_equal(res.invalidate_cycles + res.evict_cycles, 0);
        }
    }
}

/* Each bank's FRC at 4 entries (fully associative) and 512 (8 ways) under
 * mesi and si (and nmoesi where it runs) in each organisation: the checks
 * hold (every copy the last value, so no written block is lost; one
 * writer or many readers, in C-L3 with the L3 directory still tracking the
 * blocks in the FRC: a fetched block is the bank's as a line in flight, an
 * arrived one's forwards and invalidations wait for its swap, a leaving
 * victim answers from its write-back entry), no block is held twice by an
 * FRC, misses were served by it and swapped into the L2, and with 4
 * entries some found it full and were conventional (with 512, more than
 * a bank's MSHR and write-back entries, none). One run with the
 * serialized victim policy too: the misses the FRC does not take wait for
 * their victims. */
static void test_frc(void **state)
{
    (void)state;
    const struct cgm_coh_protocol *protos[] = { &cgm_coh_mesi, &cgm_coh_si, &cgm_coh_nmoesi };
    static const struct { const char *name; bool shared, coherent; } orgs[] = {
        { "C-L3", true, true }, { "NC-MC", false, false }, { "NC-L3", true, false } };
    static const unsigned entries[] = { 4, 512 };
    uint64_t rows[MESI_NROWS] = { 0 }; /* the cores' */
    uint64_t hits = 0, full4 = 0;
    for (size_t p = 0; p < 3; p++) {
        for (size_t o = 0; o < 3; o++) {
            if (protos[p] == &cgm_coh_nmoesi && orgs[o].coherent)
                continue;
            for (size_t k = 0; k < 2; k++) {
                char name[80];
                snprintf(name, sizeof name, "FRC %u, %s, %s", entries[k], protos[p]->name, orgs[o].name);
                struct run_cfg r = { name, small_system(4, 8, orgs[o].shared, orgs[o].coherent), 24,
                                     scale(400000), 20, 60, 6, 71 + 6 * p + 2 * o + k };
                r.c.gpu.protocol = protos[p];
                r.c.gpu.l2_frc_entries = entries[k];
                r.c.gpu.l2_frc_ways = entries[k] == 4 ? 0 : 8;
                r.c.gpu.l2_victim_policy = p == 0 && o == 0 && k == 0 ? CGM_COH_VICTIM_SERIALIZED : CGM_COH_VICTIM_EARLY;
                struct run_result res;
                run(&r, rows, &res);
                printf("%s: %llu FRC fetches, %llu full, %llu swaps, %llu hits\n", name,
                       (unsigned long long)res.frc_fetches, (unsigned long long)res.frc_full,
                       (unsigned long long)res.frc_swaps, (unsigned long long)res.frc_hits);
                assert_true(res.frc_fetches > 0);
                assert_true(res.frc_swaps > 0 && res.frc_swaps <= res.frc_fetches);
                if (entries[k] == 4)
                    full4 += res.frc_full;
                else
                    assert_int_equal(res.frc_full, 0); /* more entries than MSHR and write-back entries */
                hits += res.frc_hits;
            }
        }
    }
    assert_true(hits > 0);
    assert_true(full4 > 0);
}

/* A bad FRC geometry is refused, with the reason. */
static void test_frc_refused(void **state)
{
    (void)state;
    static const unsigned bad[][2] = { { 2, 0 }, { 24, 8 }, { 1024, 8 }, { 64, 6 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cgm_coh_config c = small_system(2, 4, true, true);
        c.blocks = 16;
        c.gpu.l2_frc_entries = bad[i][0];
        c.gpu.l2_frc_ways = bad[i][1];
        struct cgm_coh_env env = { .send = env_send, .later = env_later, .done = env_done, .gpu_done = env_gpu_done };
        char err[256] = "";
        assert_null(cgm_coh_create(&c, &env, err, sizeof err));
        assert_non_null(strstr(err, "FRC"));
    }
}

/* nmoesi's banks merge N write-backs without asking their parent: a GPU
 * the L3 keeps coherent with the CPU is refused, with the reason. */
static void test_nmoesi_refused_coherent(void **state)
{
    (void)state;
    struct cgm_coh_config c = small_system(2, 4, true, true);
    c.gpu.protocol = &cgm_coh_nmoesi;
    c.blocks = 16;
    struct cgm_coh_env env = { .send = env_send, .later = env_later, .done = env_done, .gpu_done = env_gpu_done };
    char err[256] = "";
    struct cgm_coh_sys *s = cgm_coh_create(&c, &env, err, sizeof err);
    assert_null(s);
    assert_non_null(strstr(err, "nmoesi"));
    assert_non_null(strstr(err, "noncoherent"));
}

static void test_same_seed_same_counts(void **state)
{
    (void)state;
    uint64_t rows[MESI_NROWS] = { 0 };
    struct run_cfg r = { "determinism", small_system(2, 4, true, true), 16, 100000, 12, 60, 4, 99 };
    struct run_result a, b, c;
    run(&r, rows, &a);
    run(&r, rows, &b);
    r.seed = 100;
    run(&r, rows, &c);
    assert_int_equal(a.signature, b.signature);
    assert_int_not_equal(a.signature, c.signature);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_counts),
        cmocka_unit_test(test_mixed_coherent),
        cmocka_unit_test(test_mixed_coherent_moesi),
        cmocka_unit_test(test_mixed_noncoherent),
        cmocka_unit_test(test_every_gpu_row_reached),
        cmocka_unit_test(test_si),
        cmocka_unit_test(test_nmoesi),
        cmocka_unit_test(test_nmoesi_refused_coherent),
        cmocka_unit_test(test_serialized_victims),
        cmocka_unit_test(test_frc),
        cmocka_unit_test(test_frc_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
