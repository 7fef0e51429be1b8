/* The DRAM controller: per channel a transaction queue scheduled FR-FCFS
 * (row hits first, then the oldest request's next command), per bank the
 * earliest cycle each command may issue, per rank the activate window and
 * the refresh schedule. At most one command per channel per cycle.
 *
 * With a write queue, the transaction queue holds reads only. Writes are
 * acknowledged when queued and written in drains between the watermarks;
 * outside a drain only reads are scheduled, so they pass the writes (the
 * read-to-write turnarounds a controller avoids). A read of a queued write's
 * block is served from the write queue, a second write to it merges, and a
 * write never passes a read of its block that was queued before it.
 *
 * With bank queues, those queues are what the scheduler looks at, reads and
 * writes together, bank by bank in turn; the transaction queues only feed
 * them, one request a cycle after the cycle's command, from the queue the
 * drain rule says. A write in a bank queue still serves reads of its block
 * and merges writes. */
#include "cgm/dram.h"
#include "cgm/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bank {
    bool open;
    bool close_asap;          /* closed-page policy: precharge when idle */
    uint32_t row;
    unsigned hits_since_act;
    uint64_t next_act, next_pre, next_rd, next_wr;
};

struct rank {
    uint64_t act_hist[4];     /* last four activates, for tFAW */
    unsigned act_pos;
    uint64_t acts;
    uint64_t refresh_due;
    uint64_t next_ref;        /* earliest REF: tRP after PRE, tRFC after REF */
    bool ref_pending;
    unsigned open_banks;      /* active standby while any is open */
    uint64_t open_since;      /* when the first of them opened */
};

struct entry {
    struct cgm_dram_request r;
    struct cgm_dram_addr a;
    uint64_t block;           /* address of its burst */
    unsigned bank;            /* a's bank in the channel's [rank][bank index] */
    unsigned reads_before;    /* write queue: reads of its block queued before it */
    bool caused_act, caused_pre;
};

/* The queue a scheduling decision looks at. */
struct queue {
    struct entry *e;
    unsigned *n;
};

struct channel {
    struct entry *q;          /* reads and writes, or reads only with a write queue */
    unsigned n;
    struct entry *wq;         /* write queue, NULL without one */
    unsigned wn;
    unsigned wblocked;        /* writes whose reads_before is not 0 */
    bool writing;             /* draining the write queue */
    unsigned drain_left;      /* watermark policy: writes this drain still owes */
    /* Bank queues, NULL without them: bank b's holds bank_n[b] requests at
     * bq[b * bank_queue_size], in the order they moved there. */
    struct entry *bq;
    unsigned bqsize;          /* bank_queue_size */
    unsigned bn;              /* requests in all of them */
    unsigned *bank_n;         /* [rank][bank index]: requests in its bank queue */
    unsigned rr;              /* the bank queue that issued last */
    struct bank *banks;       /* [rank][bank index] */
    struct rank *ranks;
    /* No command can issue before this cycle: the soonest time at which a
     * constraint that blocked the last look at the queue lifts. Anything
     * else that blocks a request (an open row, a refresh owed, a read of
     * the block queued first, the hit cap) only changes by a command or a
     * new request, and both make the next cycle look again. */
    uint64_t wake;
    /* Banks whose open row a queued request wants: bank_hit[b] == hit_scan
     * while the scan numbered hit_scan runs (so marks need no clearing). */
    uint32_t *bank_hit;
    uint32_t hit_scan;
};

struct inflight {
    struct cgm_dram_request r;
    uint64_t done;
    bool notify;              /* completes the request (not a queued write's data) */
};

struct cgm_dram {
    struct cgm_dram_config cfg;
    struct cgm_dram_map map;
    unsigned nbanks;          /* per rank */
    unsigned burst;           /* data-bus cycles per burst */
    unsigned rl, wl;
    uint64_t now;
    struct channel *ch;
    struct inflight *fly;
    unsigned nfly, capfly;
    uint64_t next_done;       /* earliest done among fly (UINT64_MAX: none) */
    cgm_dram_done_fn done_fn;
    void *done_ctx;
    cgm_dram_observer_fn obs_fn;
    void *obs_ctx;
    struct cgm_dram_stats st;
    uint64_t active_standby;  /* rank-cycles of the stretches with banks open that ended */
};

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Bank b's queue of ch (with bank queues). */
static struct queue bank_queue(const struct channel *ch, unsigned b)
{
    return (struct queue){ ch->bq + (size_t)b * ch->bqsize, &ch->bank_n[b] };
}

struct cgm_dram *cgm_dram_create(const struct cgm_dram_config *cfg, char *err, size_t errlen)
{
    if (cgm_dram_config_validate(cfg, err, errlen))
        return NULL;
    struct cgm_dram *d = calloc(1, sizeof *d);
    if (!d)
        goto oom;
    d->cfg = *cfg;
    cgm_dram_map_init(&d->map, cfg, err, errlen);
    d->nbanks = cfg->bank_groups * cfg->banks_per_group;
    d->burst = cfg->t.bl / 2;
    d->rl = cfg->t.al + cfg->t.cl;
    d->wl = cfg->t.al + cfg->t.cwl;
    d->ch = calloc(cfg->channels, sizeof *d->ch);
    /* In flight: each column command's data is out within RL + burst
     * cycles, and there is at most one command per cycle per channel; the
     * write queue's acknowledgements add up to one per queued request (the
     * array grows if more arrive in one cycle). */
    d->capfly = cfg->channels * (d->rl + d->wl + 2 * d->burst + 2 + cfg->write_queue_size);
    d->fly = calloc(d->capfly, sizeof *d->fly);
    d->next_done = UINT64_MAX;
    if (!d->ch || !d->fly)
        goto oom;
    for (unsigned c = 0; c < cfg->channels; c++) {
        struct channel *ch = &d->ch[c];
        ch->q = calloc(cfg->queue_size, sizeof *ch->q);
        ch->banks = calloc((size_t)cfg->ranks * d->nbanks, sizeof *ch->banks);
        ch->ranks = calloc(cfg->ranks, sizeof *ch->ranks);
        ch->bank_hit = calloc((size_t)cfg->ranks * d->nbanks, sizeof *ch->bank_hit);
        if (cfg->write_queue_size && !(ch->wq = calloc(cfg->write_queue_size, sizeof *ch->wq)))
            goto oom;
        size_t nb = (size_t)cfg->ranks * d->nbanks;
        ch->bqsize = cfg->bank_queue_size;
        if (cfg->bank_queue_size && (!(ch->bq = calloc(nb * cfg->bank_queue_size, sizeof *ch->bq)) ||
                                     !(ch->bank_n = calloc(nb, sizeof *ch->bank_n))))
            goto oom;
        if (!ch->q || !ch->banks || !ch->ranks || !ch->bank_hit)
            goto oom;
        for (unsigned r = 0; r < cfg->ranks; r++) {
            /* Stagger the ranks' refreshes across the interval. */
            ch->ranks[r].refresh_due = cfg->t.refi
                ? (uint64_t)cfg->t.refi * (r + 1) / cfg->ranks : UINT64_MAX;
        }
    }
    return d;
oom:
    snprintf(err, errlen, "out of memory");
    cgm_dram_destroy(d);
    return NULL;
}

void cgm_dram_destroy(struct cgm_dram *d)
{
    if (!d)
        return;
    if (d->ch) {
        for (unsigned c = 0; c < d->cfg.channels; c++) {
            free(d->ch[c].q);
            free(d->ch[c].wq);
            free(d->ch[c].bq);
            free(d->ch[c].bank_n);
            free(d->ch[c].banks);
            free(d->ch[c].ranks);
            free(d->ch[c].bank_hit);
        }
    }
    free(d->ch);
    free(d->fly);
    free(d);
}

void cgm_dram_set_done(struct cgm_dram *d, cgm_dram_done_fn fn, void *ctx)
{
    d->done_fn = fn;
    d->done_ctx = ctx;
}

void cgm_dram_set_observer(struct cgm_dram *d, cgm_dram_observer_fn fn, void *ctx)
{
    d->obs_fn = fn;
    d->obs_ctx = ctx;
}

const struct cgm_dram_config *cgm_dram_config_of(const struct cgm_dram *d) { return &d->cfg; }
const struct cgm_dram_map *cgm_dram_map_of(const struct cgm_dram *d) { return &d->map; }
uint64_t cgm_dram_now(const struct cgm_dram *d) { return d->now; }
const struct cgm_dram_stats *cgm_dram_stats(const struct cgm_dram *d) { return &d->st; }

uint64_t cgm_dram_active_standby_cycles(const struct cgm_dram *d)
{
    uint64_t sum = d->active_standby;
    for (unsigned c = 0; c < d->cfg.channels; c++)
        for (unsigned r = 0; r < d->cfg.ranks; r++)
            if (d->ch[c].ranks[r].open_banks)
                sum += d->now - d->ch[c].ranks[r].open_since;
    return sum;
}

/* Writes that start a drain on a channel where nothing waits to be
 * scheduled. */
static unsigned idle_drain_writes(const struct cgm_dram *d)
{
    return d->cfg.write_drain == CGM_DRAM_DRAIN_WATERMARK ? d->cfg.write_low + 1 : 1;
}

/* Whether nothing waits to be scheduled: no read queued or, with bank
 * queues, nothing in them. */
static bool nothing_to_schedule(const struct channel *ch)
{
    return ch->bq ? !ch->bn : !ch->n;
}

unsigned cgm_dram_pending(const struct cgm_dram *d)
{
    unsigned n = d->nfly;
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        const struct channel *ch = &d->ch[c];
        bool held = !ch->writing && !ch->n && !ch->bn && ch->wn < idle_drain_writes(d);
        n += ch->n + ch->bn + (held ? 0 : ch->wn);
    }
    return n;
}

unsigned cgm_dram_writes_queued(const struct cgm_dram *d)
{
    unsigned n = 0;
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        const struct channel *ch = &d->ch[c];
        n += ch->wn;
        for (unsigned b = 0; ch->bq && b < d->cfg.ranks * d->nbanks; b++)
            for (unsigned i = 0; i < ch->bank_n[b]; i++)
                n += bank_queue(ch, b).e[i].r.write;
    }
    return n;
}

bool cgm_dram_can_accept(const struct cgm_dram *d, uint64_t addr)
{
    struct cgm_dram_addr a = cgm_dram_map_decode(&d->map, addr);
    const struct channel *ch = &d->ch[a.chan];
    return ch->n < d->cfg.queue_size && (!ch->wq || ch->wn < d->cfg.write_queue_size);
}

/* Whether a write of block is in the write queue or a bank queue. */
static bool queued_write(const struct cgm_dram *d, const struct channel *ch, uint64_t block)
{
    for (unsigned i = 0; i < ch->wn; i++)
        if (ch->wq[i].block == block)
            return true;
    for (unsigned b = 0; ch->bq && b < d->cfg.ranks * d->nbanks; b++)
        for (unsigned i = 0; i < ch->bank_n[b]; i++)
            if (bank_queue(ch, b).e[i].r.write && bank_queue(ch, b).e[i].block == block)
                return true;
    return false;
}

bool cgm_dram_can_enqueue(const struct cgm_dram *d, const struct cgm_dram_request *r)
{
    struct cgm_dram_addr a = cgm_dram_map_decode(&d->map, r->addr);
    const struct channel *ch = &d->ch[a.chan];
    if (!ch->wq)
        return ch->n < d->cfg.queue_size;
    if (queued_write(d, ch, r->addr >> d->map.offset_bits))
        return true;
    return r->write ? ch->wn < d->cfg.write_queue_size : ch->n < d->cfg.queue_size;
}

static void fly_add(struct cgm_dram *d, const struct cgm_dram_request *r, uint64_t done, bool notify)
{
    if (d->nfly == d->capfly) {
        struct inflight *f = realloc(d->fly, 2 * d->capfly * sizeof *f);
        if (!f) {
            fprintf(stderr, "dram: out of memory\n");
            abort();
        }
        d->fly = f;
        d->capfly *= 2;
    }
    d->fly[d->nfly++] = (struct inflight){ .r = *r, .done = done, .notify = notify };
    if (done < d->next_done)
        d->next_done = done;
}

static void add_entry(struct cgm_dram *d, struct entry *e, const struct cgm_dram_request *r,
                      struct cgm_dram_addr a)
{
    memset(e, 0, sizeof *e);
    e->r = *r;
    e->a = a;
    e->block = r->addr >> d->map.offset_bits;
    e->bank = a.rank * d->nbanks + a.bg * d->cfg.banks_per_group + a.bank;
}

/* Reads, writes merged into a queued one, and acknowledgements: served from
 * the write queue in the next cycle. */
static void from_write_queue(struct cgm_dram *d, const struct cgm_dram_request *r)
{
    fly_add(d, r, d->now + 1, true);
}

int cgm_dram_enqueue(struct cgm_dram *d, const struct cgm_dram_request *r)
{
    struct cgm_dram_addr a = cgm_dram_map_decode(&d->map, r->addr);
    struct channel *ch = &d->ch[a.chan];
    if (!cgm_dram_can_enqueue(d, r)) {
        d->st.queue_full_stalls++;
        return -1;
    }
    uint64_t block = r->addr >> d->map.offset_bits;
    ch->wake = 0;
    if (!ch->wq) {
        add_entry(d, &ch->q[ch->n++], r, a);
    } else if (r->write) {
        if (queued_write(d, ch, block)) {
            d->st.writes_merged++;
        } else {
            struct entry *e = &ch->wq[ch->wn++];
            add_entry(d, e, r, a);
            for (unsigned i = 0; i < ch->n; i++)
                e->reads_before += ch->q[i].block == block;
            if (ch->bq) {
                struct queue bq = bank_queue(ch, e->bank);
                for (unsigned i = 0; i < *bq.n; i++)
                    e->reads_before += !bq.e[i].r.write && bq.e[i].block == block;
            }
            ch->wblocked += e->reads_before != 0;
        }
        from_write_queue(d, r);
    } else if (queued_write(d, ch, block)) {
        d->st.reads_forwarded++;
        from_write_queue(d, r);
    } else {
        add_entry(d, &ch->q[ch->n++], r, a);
    }
    if (!d->st.any || r->arrival < d->st.first_arrival)
        d->st.first_arrival = r->arrival;
    d->st.any = true;
    return 0;
}

static struct bank *bank_of(struct cgm_dram *d, struct channel *ch, unsigned rank, unsigned bg,
                            unsigned b)
{
    return &ch->banks[(size_t)rank * d->nbanks + bg * d->cfg.banks_per_group + b];
}

static void emit(struct cgm_dram *d, enum cgm_dram_cmd cmd, unsigned chan, unsigned rank,
                 unsigned bg, unsigned b, uint32_t row)
{
    if (!d->obs_fn)
        return;
    struct cgm_dram_command c = { .cycle = d->now, .cmd = cmd, .chan = chan, .rank = rank,
                                  .bg = bg, .bank = b, .row = row };
    d->obs_fn(d->obs_ctx, &c);
}

/* ---- command issue: apply each command's constraints to later commands -- */

static void do_act(struct cgm_dram *d, unsigned c, unsigned rank, unsigned bg, unsigned b,
                   uint32_t row)
{
    const struct cgm_dram_timing *t = &d->cfg.t;
    struct channel *ch = &d->ch[c];
    uint64_t now = d->now;
    struct bank *bk = bank_of(d, ch, rank, bg, b);
    struct rank *rk = &ch->ranks[rank];
    CGM_CHECK(!bk->open);
    if (!rk->open_banks++)
        rk->open_since = now;
    bk->open = true;
    bk->close_asap = false;
    bk->row = row;
    bk->hits_since_act = 0;
    bk->next_act = now + t->rc;
    bk->next_pre = max64(bk->next_pre, now + t->ras);
    uint64_t col = now + (t->rcd > t->al ? t->rcd - t->al : 1);
    bk->next_rd = max64(bk->next_rd, col);
    bk->next_wr = max64(bk->next_wr, col);
    for (unsigned g = 0; g < d->cfg.bank_groups; g++)
        for (unsigned i = 0; i < d->cfg.banks_per_group; i++) {
            struct bank *o = bank_of(d, ch, rank, g, i);
            if (o != bk)
                o->next_act = max64(o->next_act, now + (g == bg ? t->rrd_l : t->rrd_s));
        }
    rk->act_hist[rk->act_pos] = now;
    rk->act_pos = (rk->act_pos + 1) % 4;
    rk->acts++;
    d->st.activates++;
    emit(d, CGM_DRAM_ACT, c, rank, bg, b, row);
}

static void do_pre(struct cgm_dram *d, unsigned c, unsigned rank, unsigned bg, unsigned b)
{
    struct channel *ch = &d->ch[c];
    struct bank *bk = bank_of(d, ch, rank, bg, b);
    struct rank *rk = &ch->ranks[rank];
    CGM_CHECK(bk->open);
    if (!--rk->open_banks)
        d->active_standby += d->now - rk->open_since;
    bk->open = false;
    bk->close_asap = false;
    bk->next_act = max64(bk->next_act, d->now + d->cfg.t.rp);
    ch->ranks[rank].next_ref = max64(ch->ranks[rank].next_ref, d->now + d->cfg.t.rp);
    d->st.precharges++;
    emit(d, CGM_DRAM_PRE, c, rank, bg, b, bk->row);
}

static void do_column(struct cgm_dram *d, unsigned c, struct entry *e)
{
    const struct cgm_dram_timing *t = &d->cfg.t;
    struct channel *ch = &d->ch[c];
    uint64_t now = d->now;
    bool wr = e->r.write;
    struct bank *bk = bank_of(d, ch, e->a.rank, e->a.bg, e->a.bank);
    for (unsigned r = 0; r < d->cfg.ranks; r++)
        for (unsigned g = 0; g < d->cfg.bank_groups; g++)
            for (unsigned i = 0; i < d->cfg.banks_per_group; i++) {
                struct bank *o = bank_of(d, ch, r, g, i);
                uint64_t rd, wrt;
                if (r == e->a.rank) {
                    unsigned ccd = g == e->a.bg ? t->ccd_l : t->ccd_s;
                    if (ccd < d->burst)
                        ccd = d->burst; /* the data bus holds one burst at a time */
                    if (wr) {
                        wrt = now + ccd;
                        rd = now + d->wl + d->burst + (g == e->a.bg ? t->wtr_l : t->wtr_s);
                    } else {
                        rd = now + ccd;
                        wrt = now + d->rl + d->burst + t->rtrs - d->wl;
                    }
                } else if (wr) {
                    wrt = now + d->burst + t->rtrs;
                    rd = now + d->wl + d->burst + t->rtrs > d->rl
                        ? now + d->wl + d->burst + t->rtrs - d->rl : now + 1;
                } else {
                    rd = now + d->burst + t->rtrs;
                    wrt = now + d->rl + d->burst + t->rtrs - d->wl;
                }
                o->next_rd = max64(o->next_rd, rd);
                o->next_wr = max64(o->next_wr, wrt);
            }
    bk->next_pre = max64(bk->next_pre, wr ? now + d->wl + d->burst + t->wr : now + t->al + t->rtp);
    bk->hits_since_act++;
    if (wr)
        d->st.write_bursts++;
    else
        d->st.read_bursts++;

    if (e->caused_act) {
        d->st.row_misses++;
        if (e->caused_pre)
            d->st.row_conflicts++;
    } else {
        d->st.row_hits++;
    }
    /* a write from the write queue was acknowledged when it was queued */
    fly_add(d, &e->r, now + (wr ? d->wl : d->rl) + d->burst, !(wr && ch->wq));
    if (!wr && ch->wblocked) {
        for (unsigned i = 0; i < ch->wn; i++) {
            struct entry *w = &ch->wq[i];
            if (w->block == e->block && w->reads_before && !--w->reads_before)
                ch->wblocked--;
        }
    }
    emit(d, wr ? CGM_DRAM_WR : CGM_DRAM_RD, c, e->a.rank, e->a.bg, e->a.bank, e->a.row);
}

static void do_ref(struct cgm_dram *d, unsigned c, unsigned rank)
{
    struct channel *ch = &d->ch[c];
    struct rank *rk = &ch->ranks[rank];
    for (unsigned i = 0; i < d->nbanks; i++) {
        struct bank *bk = &ch->banks[(size_t)rank * d->nbanks + i];
        bk->next_act = max64(bk->next_act, d->now + d->cfg.t.rfc);
    }
    rk->next_ref = d->now + d->cfg.t.rfc;
    rk->refresh_due += d->cfg.t.refi;
    rk->ref_pending = false;
    d->st.refreshes++;
    emit(d, CGM_DRAM_REF, c, rank, 0, 0, 0);
}

/* ---- scheduling ------------------------------------------------------- */

/* Lowers *wake to t, a cycle at which a constraint lifts. */
static void lift_at(uint64_t *wake, uint64_t t)
{
    if (t < *wake)
        *wake = t;
}

/* The first cycle a closed bank of rank may be activated: tRC, tRRD and tRP
 * (next_act), at most four activates in any tFAW window. */
static uint64_t act_ready(const struct cgm_dram *d, const struct channel *ch, unsigned rank,
                          const struct bank *bk)
{
    const struct rank *rk = &ch->ranks[rank];
    /* act_hist[act_pos] is the fourth most recent activate. */
    if (rk->acts >= 4)
        return max64(bk->next_act, rk->act_hist[rk->act_pos] + d->cfg.t.faw);
    return bk->next_act;
}

/* Whether a request of q other than entry skip wants row of bank. */
static bool queued_hit(struct queue q, unsigned skip, unsigned bank, uint32_t row)
{
    for (unsigned j = 0; j < *q.n; j++)
        if (q.e[j].bank == bank && q.e[j].a.row == row && j != skip)
            return true;
    return false;
}

/* Whether any queued request of the channel, other than entry skip of q,
 * wants row of bank. */
static bool row_wanted(struct channel *ch, struct queue q, unsigned skip, unsigned bank, uint32_t row)
{
    struct queue reads = { ch->q, &ch->n }, writes = { ch->wq, &ch->wn };
    struct queue banks = ch->bq ? bank_queue(ch, bank) : (struct queue){ NULL, NULL };
    return queued_hit(reads, q.e == ch->q ? skip : UINT32_MAX, bank, row) ||
           (ch->wq && queued_hit(writes, q.e == ch->wq ? skip : UINT32_MAX, bank, row)) ||
           (ch->bq && queued_hit(banks, q.e == banks.e ? skip : UINT32_MAX, bank, row));
}

static bool older_conflict(struct queue q, unsigned i, unsigned bank, uint32_t row)
{
    for (unsigned j = 0; j < i; j++)
        if (q.e[j].bank == bank && q.e[j].a.row != row)
            return true;
    return false;
}

static void remove_entry(struct queue q, unsigned i)
{
    memmove(&q.e[i], &q.e[i + 1], (*q.n - i - 1) * sizeof *q.e);
    (*q.n)--;
}

/* The transaction queue this cycle serves (schedules from or, with bank
 * queues, moves from): without a write queue the one queue; with one, the
 * writes from the cycle their count reaches write_high (or, nothing waiting
 * to be scheduled, idle_drain_writes) until the queue is empty or, by the
 * idle policy, write_low are left while reads wait, by the watermark
 * policy, the writes queued at the start are taken (reads wait meanwhile);
 * the reads otherwise, and also while every queued write waits for an older
 * read of its block. */
static struct queue serving(struct cgm_dram *d, struct channel *ch)
{
    struct queue reads = { ch->q, &ch->n }, writes = { ch->wq, &ch->wn };
    if (!ch->wq)
        return reads;
    bool watermark = d->cfg.write_drain == CGM_DRAM_DRAIN_WATERMARK;
    if (!ch->writing &&
        (ch->wn >= d->cfg.write_high || (nothing_to_schedule(ch) && ch->wn >= idle_drain_writes(d)))) {
        ch->writing = true;
        ch->drain_left = watermark ? ch->wn : 0;
        d->st.write_drains++;
    } else if (ch->writing &&
               (!ch->wn || (watermark ? !ch->drain_left : ch->wn <= d->cfg.write_low && ch->n))) {
        ch->writing = false;
        ch->drain_left = 0;
    }
    return ch->writing && ch->wn > ch->wblocked ? writes : reads;
}

static bool schedule_refresh(struct cgm_dram *d, unsigned c, uint64_t *wake)
{
    struct channel *ch = &d->ch[c];
    for (unsigned r = 0; r < d->cfg.ranks; r++) {
        struct rank *rk = &ch->ranks[r];
        if (d->now >= rk->refresh_due)
            rk->ref_pending = true;
        if (!rk->ref_pending) {
            lift_at(wake, rk->refresh_due);
            continue;
        }
        bool all_closed = true;
        for (unsigned i = 0; i < d->nbanks; i++) {
            struct bank *bk = &ch->banks[(size_t)r * d->nbanks + i];
            if (!bk->open)
                continue;
            all_closed = false;
            if (d->now >= bk->next_pre) {
                do_pre(d, c, r, i / d->cfg.banks_per_group, i % d->cfg.banks_per_group);
                return true;
            }
            lift_at(wake, bk->next_pre);
        }
        if (all_closed) {
            if (d->now >= rk->next_ref) {
                do_ref(d, c, r);
                return true;
            }
            lift_at(wake, rk->next_ref);
        }
    }
    return false;
}

/* With bank queues: moves the oldest request of the transaction queue the
 * drain rule serves whose bank queue has room (a write not while a read of
 * its block is queued before it) to that bank queue. */
static void move_to_bank_queue(struct cgm_dram *d, struct channel *ch)
{
    struct queue from = serving(d, ch);
    for (unsigned i = 0; i < *from.n; i++) {
        struct entry *e = &from.e[i];
        if (ch->bank_n[e->bank] >= d->cfg.bank_queue_size || e->reads_before)
            continue;
        if (e->r.write && ch->drain_left)
            ch->drain_left--;
        struct queue to = bank_queue(ch, e->bank);
        to.e[(*to.n)++] = *e;
        ch->bn++;
        remove_entry(from, i);
        lift_at(&ch->wake, d->now + 1);
        return;
    }
}

/* Closed page: precharges a row nobody queued wants any more. */
static bool close_unwanted(struct cgm_dram *d, unsigned c, struct queue q, uint64_t *wake)
{
    struct channel *ch = &d->ch[c];
    for (unsigned r = 0; r < d->cfg.ranks; r++)
        for (unsigned i = 0; i < d->nbanks; i++) {
            struct bank *bk = &ch->banks[(size_t)r * d->nbanks + i];
            if (!bk->open || !bk->close_asap || row_wanted(ch, q, UINT32_MAX, r * d->nbanks + i, bk->row))
                continue;
            if (d->now >= bk->next_pre) {
                do_pre(d, c, r, i / d->cfg.banks_per_group, i % d->cfg.banks_per_group);
                return true;
            }
            lift_at(wake, bk->next_pre);
        }
    return false;
}

/* Bank queues: the banks in turn from the one after the last that issued;
 * in a bank's queue the first request whose next command may issue issues
 * it, a precharge only for the oldest and, while a request for the open row
 * waits behind it, only once the row has served hit_cap column commands. */
static bool issue_round_robin(struct cgm_dram *d, unsigned c, uint64_t *wake)
{
    struct channel *ch = &d->ch[c];
    unsigned nb = d->cfg.ranks * d->nbanks;
    for (unsigned k = 1; k <= nb; k++) {
        unsigned b = (ch->rr + k) % nb, rank = b / d->nbanks;
        struct bank *bk = &ch->banks[b];
        struct queue q = bank_queue(ch, b);
        if (!*q.n || ch->ranks[rank].ref_pending)
            continue;
        for (unsigned i = 0; i < *q.n; i++) {
            struct entry *e = &q.e[i];
            uint64_t ready;
            if (!bk->open) {
                ready = act_ready(d, ch, rank, bk);
                if (d->now >= ready) {
                    do_act(d, c, rank, e->a.bg, e->a.bank, e->a.row);
                    e->caused_act = true;
                }
            } else if (bk->row == e->a.row) {
                if (e->reads_before)
                    continue;
                ready = e->r.write ? bk->next_wr : bk->next_rd;
                if (d->now >= ready) {
                    do_column(d, c, e);
                    if (d->cfg.page_policy == CGM_DRAM_CLOSED_PAGE && !row_wanted(ch, q, i, b, e->a.row))
                        bk->close_asap = true;
                    remove_entry(q, i);
                    ch->bn--;
                }
            } else if (!i && (bk->hits_since_act >= d->cfg.hit_cap || !queued_hit(q, i, b, bk->row))) {
                ready = bk->next_pre;
                if (d->now >= ready) {
                    do_pre(d, c, rank, e->a.bg, e->a.bank);
                    e->caused_pre = true;
                }
            } else {
                continue;
            }
            if (d->now >= ready) {
                ch->rr = b;
                return true;
            }
            lift_at(wake, ready);
        }
    }
    return false;
}

/* At most one command for channel c this cycle. A look that finds none
 * notes in ch->wake when one could first issue, and the cycles before it
 * are not looked at. */
static void issue_command(struct cgm_dram *d, unsigned c)
{
    struct channel *ch = &d->ch[c];
    if (d->now < ch->wake)
        return;
    bool was_writing = ch->writing;
    struct queue q = ch->bq ? (struct queue){ NULL, NULL } : serving(d, ch);
    uint64_t wake = UINT64_MAX;
    if (schedule_refresh(d, c, &wake))
        return;
    if (ch->bq) {
        bool closed = d->cfg.page_policy == CGM_DRAM_CLOSED_PAGE && close_unwanted(d, c, q, &wake);
        if (!closed && !issue_round_robin(d, c, &wake))
            ch->wake = wake;
        return;
    }

    /* First ready: the oldest request whose row is open and whose column
     * command may issue now, unless its bank has served hit_cap hits while
     * an older request waits for another row. The scan also marks the
     * banks whose open row some request wants. */
    uint32_t scan = ++ch->hit_scan;
    for (unsigned i = 0; i < *q.n; i++) {
        struct entry *e = &q.e[i];
        struct bank *bk = &ch->banks[e->bank];
        if (!bk->open || bk->row != e->a.row)
            continue;
        ch->bank_hit[e->bank] = scan;
        if (ch->ranks[e->a.rank].ref_pending || e->reads_before)
            continue;
        uint64_t ready = e->r.write ? bk->next_wr : bk->next_rd;
        if (d->now < ready) {
            lift_at(&wake, ready);
            continue;
        }
        if (bk->hits_since_act >= d->cfg.hit_cap && older_conflict(q, i, e->bank, e->a.row))
            continue;
        do_column(d, c, e);
        if (e->r.write && ch->drain_left)
            ch->drain_left--;
        if (d->cfg.page_policy == CGM_DRAM_CLOSED_PAGE && !row_wanted(ch, q, i, e->bank, e->a.row))
            bk->close_asap = true;
        remove_entry(q, i);
        return;
    }

    if (d->cfg.page_policy == CGM_DRAM_CLOSED_PAGE && close_unwanted(d, c, q, &wake))
        return;

    /* Otherwise the oldest request whose next command (ACT or PRE) may issue. */
    for (unsigned i = 0; i < *q.n; i++) {
        struct entry *e = &q.e[i];
        struct bank *bk = &ch->banks[e->bank];
        if (ch->ranks[e->a.rank].ref_pending || e->reads_before)
            continue;
        if (!bk->open) {
            uint64_t ready = act_ready(d, ch, e->a.rank, bk);
            if (d->now >= ready) {
                do_act(d, c, e->a.rank, e->a.bg, e->a.bank, e->a.row);
                e->caused_act = true;
                return;
            }
            lift_at(&wake, ready);
        } else if (bk->row != e->a.row) {
            /* another request wants the open row (the scan above marked it) */
            bool hits_wait = ch->bank_hit[e->bank] == scan;
            if (hits_wait && bk->hits_since_act < d->cfg.hit_cap)
                continue;
            if (d->now >= bk->next_pre) {
                do_pre(d, c, e->a.rank, e->a.bg, e->a.bank);
                e->caused_pre = true;
                return;
            }
            lift_at(&wake, bk->next_pre);
        }
    }
    /* A drain that started or stopped this cycle may stop or start the
     * next (serving looks once per cycle): look again then. */
    ch->wake = ch->writing != was_writing ? d->now + 1 : wake;
}

static void schedule_channel(struct cgm_dram *d, unsigned c)
{
    issue_command(d, c);
    if (d->ch[c].bq)
        move_to_bank_queue(d, &d->ch[c]);
}

static unsigned hist_bucket(uint64_t v)
{
    unsigned b = 0;
    while (v && b < CGM_DRAM_HIST_BUCKETS - 1) {
        v >>= 1;
        b++;
    }
    return b;
}

static void complete_due(struct cgm_dram *d)
{
    if (d->now < d->next_done)
        return;
    d->next_done = UINT64_MAX;
    for (unsigned i = 0; i < d->nfly;) {
        struct inflight *f = &d->fly[i];
        if (f->done > d->now) {
            if (f->done < d->next_done)
                d->next_done = f->done;
            i++;
            continue;
        }
        struct inflight done = *f;
        d->fly[i] = d->fly[--d->nfly];
        d->st.last_done = max64(d->st.last_done, done.done);
        if (!done.notify)
            continue;
        uint64_t lat = done.done - done.r.arrival;
        if (done.r.write) {
            d->st.writes++;
            d->st.write_latency_sum += lat;
        } else {
            d->st.reads++;
            d->st.read_latency_sum += lat;
            if (lat > d->st.read_latency_max)
                d->st.read_latency_max = lat;
            d->st.read_hist[hist_bucket(lat)]++;
        }
        if (d->done_fn)
            d->done_fn(d->done_ctx, &done.r, done.done);
    }
}

void cgm_dram_tick(struct cgm_dram *d)
{
    complete_due(d);
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        d->st.queue_occupancy_sum += d->ch[c].n + d->ch[c].wn + d->ch[c].bn;
        schedule_channel(d, c);
    }
    d->now++;
    d->st.cycles = d->now;
}

/* With nothing queued and every bank of a rank closed, the rank's
 * refreshes issue exactly when due (nothing competes for the command bus,
 * tRP and tRFC have long passed since refi > rfc), so a long idle stretch
 * can take all but its last one at once: the result is what ticking
 * through them gives. An observer sees each rank's refreshes as one REF
 * repeated, the ranks in the order of their first refresh. */
static void refresh_in_bulk(struct cgm_dram *d, uint64_t to)
{
    const uint64_t refi = d->cfg.t.refi, rfc = d->cfg.t.rfc;
    if (!refi || refi <= rfc)
        return;
    for (unsigned c = 0; c < d->cfg.channels; c++) {
        uint64_t first[16], times[16]; /* per rank; 0: none taken */
        CGM_CHECK(d->cfg.ranks <= 16);
        d->ch[c].wake = 0; /* the refresh state below changes */
        for (unsigned r = 0; r < d->cfg.ranks; r++) {
            struct rank *rk = &d->ch[c].ranks[r];
            struct bank *banks = &d->ch[c].banks[(size_t)r * d->nbanks];
            uint64_t due = rk->refresh_due;
            times[r] = 0;
            if (rk->ref_pending || due < d->now || due >= to || due < rk->next_ref)
                continue;
            uint64_t n = (to - 1 - due) / refi + 1; /* refreshes due before `to` */
            if (n < 2)
                continue;
            bool closed = true;
            for (unsigned i = 0; i < d->nbanks; i++)
                closed &= !banks[i].open && !banks[i].close_asap;
            if (!closed)
                continue;
            uint64_t last = due + (n - 2) * refi; /* the last one taken here */
            for (unsigned i = 0; i < d->nbanks; i++)
                banks[i].next_act = max64(banks[i].next_act, last + rfc);
            rk->next_ref = last + rfc;
            rk->refresh_due = last + refi;
            d->st.refreshes += n - 1;
            first[r] = due;
            times[r] = n - 1;
        }
        for (unsigned k = 0; d->obs_fn && k < d->cfg.ranks; k++) {
            unsigned r = d->cfg.ranks;
            for (unsigned i = 0; i < d->cfg.ranks; i++)
                if (times[i] && (r == d->cfg.ranks || first[i] < first[r]))
                    r = i;
            if (r == d->cfg.ranks)
                break;
            struct cgm_dram_command x = { .cycle = first[r], .cmd = CGM_DRAM_REF, .chan = c, .rank = r,
                                          .times = times[r], .every = refi };
            d->obs_fn(d->obs_ctx, &x);
            times[r] = 0;
        }
    }
}

void cgm_dram_skip_idle(struct cgm_dram *d, uint64_t to)
{
    while (d->now < to) {
        if (cgm_dram_pending(d)) {
            cgm_dram_tick(d);
            continue;
        }
        refresh_in_bulk(d, to);
        uint64_t next = to;
        bool busy = false;
        for (unsigned c = 0; c < d->cfg.channels; c++)
            for (unsigned r = 0; r < d->cfg.ranks; r++) {
                const struct rank *rk = &d->ch[c].ranks[r];
                if (rk->ref_pending || rk->refresh_due <= d->now)
                    busy = true;
                for (unsigned i = 0; i < d->nbanks; i++)
                    if (d->ch[c].banks[(size_t)r * d->nbanks + i].close_asap)
                        busy = true; /* a closed-page precharge is still due */
                if (rk->refresh_due < next)
                    next = rk->refresh_due;
            }
        if (busy) {
            cgm_dram_tick(d);
        } else {
            /* writes the watermark policy holds stay queued meanwhile */
            d->st.queue_occupancy_sum += (next - d->now) * cgm_dram_writes_queued(d);
            d->now = next;
            d->st.cycles = d->now;
        }
    }
}
