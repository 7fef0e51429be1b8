/* An independent DRAM timing checker. The controller keeps "earliest next
 * command" times per bank; this checker instead keeps the recent command
 * history of each channel and tests every new command pairwise against it
 * with the minimum separations of the DDR standard, checks the bank state
 * each command needs, that no two bursts overlap on the data bus, the
 * four-activate window, and that refreshes are not postponed beyond the
 * eight intervals JEDEC allows. A REF repeated (an idle rank's refreshes
 * reported at once) is checked as its first and the spacing of the rest. */
#include "cgm/dram.h"

#include <stdlib.h>
#include <string.h>

struct hcmd {
    uint64_t cycle;
    enum cgm_dram_cmd cmd;
    unsigned rank, bg, bank;
};

struct kchan {
    struct hcmd *ring;
    unsigned head, n;
    bool *open;          /* [rank][bank] */
    uint32_t *row;
    uint64_t *last_ref;  /* per rank; the most recent binds REF->ACT and REF->REF */
    bool *any_ref;
};

struct cgm_dram_checker {
    struct cgm_dram_config cfg;
    unsigned nbanks, burst, rl, wl, window, cap;
    struct kchan *ch;
    uint64_t violations, commands;
    char first[256];
};

static unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }

struct cgm_dram_checker *cgm_dram_checker_create(const struct cgm_dram_config *cfg)
{
    struct cgm_dram_checker *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    const struct cgm_dram_timing *t = &cfg->t;
    k->cfg = *cfg;
    k->nbanks = cfg->bank_groups * cfg->banks_per_group;
    k->burst = t->bl / 2;
    k->rl = t->al + t->cl;
    k->wl = t->al + t->cwl;
    /* The longest separation between two commands other than refresh. */
    unsigned w = umax(t->rc, t->faw);
    w = umax(w, t->ras);
    w = umax(w, k->wl + k->burst + t->wr);
    w = umax(w, k->wl + k->burst + umax(t->wtr_l, t->wtr_s) + t->rtrs);
    w = umax(w, k->rl + k->burst + t->rtrs);
    w = umax(w, t->al + t->rtp);
    w = umax(w, t->rp);
    w = umax(w, umax(t->rrd_l, t->ccd_l));
    k->window = w + 1;
    k->cap = k->window + 1; /* at most one command per cycle per channel */
    k->ch = calloc(cfg->channels, sizeof *k->ch);
    if (!k->ch)
        goto fail;
    for (unsigned c = 0; c < cfg->channels; c++) {
        struct kchan *ch = &k->ch[c];
        size_t nb = (size_t)cfg->ranks * k->nbanks;
        ch->ring = calloc(k->cap, sizeof *ch->ring);
        ch->open = calloc(nb, sizeof *ch->open);
        ch->row = calloc(nb, sizeof *ch->row);
        ch->last_ref = calloc(cfg->ranks, sizeof *ch->last_ref);
        ch->any_ref = calloc(cfg->ranks, sizeof *ch->any_ref);
        if (!ch->ring || !ch->open || !ch->row || !ch->last_ref || !ch->any_ref)
            goto fail;
    }
    return k;
fail:
    cgm_dram_checker_destroy(k);
    return NULL;
}

void cgm_dram_checker_destroy(struct cgm_dram_checker *k)
{
    if (!k)
        return;
    if (k->ch) {
        for (unsigned c = 0; c < k->cfg.channels; c++) {
            free(k->ch[c].ring);
            free(k->ch[c].open);
            free(k->ch[c].row);
            free(k->ch[c].last_ref);
            free(k->ch[c].any_ref);
        }
    }
    free(k->ch);
    free(k);
}

static void violation(struct cgm_dram_checker *k, const struct cgm_dram_command *c, const char *what,
                      uint64_t prev_cycle, long need)
{
    if (!k->violations)
        snprintf(k->first, sizeof k->first,
                 "cycle %llu %s ch%u rank%u bg%u bank%u: %s (previous at %llu, need %ld)",
                 (unsigned long long)c->cycle, cgm_dram_cmd_name(c->cmd), c->chan, c->rank, c->bg,
                 c->bank, what, (unsigned long long)prev_cycle, need);
    k->violations++;
}

static bool is_col(enum cgm_dram_cmd c) { return c == CGM_DRAM_RD || c == CGM_DRAM_WR; }

/* The minimum cycles from command p to command c, by the standard. */
static long min_gap(const struct cgm_dram_checker *k, const struct hcmd *p,
                    const struct cgm_dram_command *c, const char **what)
{
    const struct cgm_dram_timing *t = &k->cfg.t;
    long burst = k->burst, rl = k->rl, wl = k->wl;
    bool same_rank = p->rank == c->rank;
    bool same_bank = same_rank && p->bg == c->bg && p->bank == c->bank;
    bool same_bg = same_rank && p->bg == c->bg;
    enum cgm_dram_cmd a = p->cmd, b = c->cmd;

    if (same_bank) {
        if (a == CGM_DRAM_ACT && b == CGM_DRAM_ACT) { *what = "tRC"; return t->rc; }
        if (a == CGM_DRAM_ACT && b == CGM_DRAM_PRE) { *what = "tRAS"; return t->ras; }
        if (a == CGM_DRAM_ACT && is_col(b)) {
            *what = "tRCD";
            return t->rcd > t->al ? (long)(t->rcd - t->al) : 1;
        }
        if (a == CGM_DRAM_PRE && b == CGM_DRAM_ACT) { *what = "tRP"; return t->rp; }
        if (a == CGM_DRAM_RD && b == CGM_DRAM_PRE) { *what = "tRTP"; return t->al + t->rtp; }
        if (a == CGM_DRAM_WR && b == CGM_DRAM_PRE) { *what = "tWR"; return wl + burst + t->wr; }
    }
    if (same_rank) {
        if (a == CGM_DRAM_ACT && b == CGM_DRAM_ACT && !same_bank) {
            *what = "tRRD";
            return same_bg ? t->rrd_l : t->rrd_s;
        }
        if (is_col(a) && a == b) {
            long ccd = same_bg ? t->ccd_l : t->ccd_s;
            *what = "tCCD/burst";
            return ccd > burst ? ccd : burst;
        }
        if (a == CGM_DRAM_WR && b == CGM_DRAM_RD) {
            *what = "tWTR";
            return wl + burst + (same_bg ? t->wtr_l : t->wtr_s);
        }
        if (a == CGM_DRAM_RD && b == CGM_DRAM_WR) { *what = "read-to-write"; return rl + burst + t->rtrs - wl; }
        if (a == CGM_DRAM_PRE && b == CGM_DRAM_REF) { *what = "tRP before REF"; return t->rp; }
        if (a == CGM_DRAM_ACT && b == CGM_DRAM_REF) { *what = "tRC before REF"; return t->rc; }
    } else {
        if (is_col(a) && a == b) { *what = "rank-to-rank burst"; return burst + t->rtrs; }
        if (a == CGM_DRAM_RD && b == CGM_DRAM_WR) { *what = "read-to-write other rank"; return rl + burst + t->rtrs - wl; }
        if (a == CGM_DRAM_WR && b == CGM_DRAM_RD) { *what = "write-to-read other rank"; return wl + burst + t->rtrs - rl; }
    }
    return 0;
}

static void data_interval(const struct cgm_dram_checker *k, enum cgm_dram_cmd cmd, uint64_t cycle,
                          uint64_t *lo, uint64_t *hi)
{
    *lo = cycle + (cmd == CGM_DRAM_RD ? k->rl : k->wl);
    *hi = *lo + k->burst;
}

static void observe_one(struct cgm_dram_checker *k, const struct cgm_dram_command *c);

/* A REF repeated: the first is checked as any command; between the others
 * the rank sees only its own refreshes (a train is reported over an idle
 * stretch), so each later one needs `every` >= tRFC after the one before and
 * no more than nine intervals, and the rank's banks stay closed. */
static void observe_train(struct cgm_dram_checker *k, const struct cgm_dram_command *c)
{
    const struct cgm_dram_timing *t = &k->cfg.t;
    struct cgm_dram_command one = *c;
    one.times = 1;
    observe_one(k, &one);
    if (c->rank >= k->cfg.ranks || c->chan >= k->cfg.channels)
        return;
    if (c->every < t->rfc)
        violation(k, c, "tRFC between repeated refreshes", c->cycle, (long)t->rfc);
    if (t->refi && c->every > 9ull * t->refi)
        violation(k, c, "refresh postponed more than 8 intervals", c->cycle, 9l * t->refi);
    k->commands += c->times - 1;
    k->ch[c->chan].last_ref[c->rank] = c->cycle + (c->times - 1) * c->every;
}

void cgm_dram_checker_observe(void *checker, const struct cgm_dram_command *c)
{
    struct cgm_dram_checker *k = checker;
    if (c->cmd == CGM_DRAM_REF && c->times > 1)
        observe_train(k, c);
    else
        observe_one(k, c);
}

static void observe_one(struct cgm_dram_checker *k, const struct cgm_dram_command *c)
{
    const struct cgm_dram_timing *t = &k->cfg.t;
    k->commands++;
    if (c->chan >= k->cfg.channels || c->rank >= k->cfg.ranks || c->bg >= k->cfg.bank_groups ||
        c->bank >= k->cfg.banks_per_group) {
        violation(k, c, "address out of range", c->cycle, 0);
        return;
    }
    struct kchan *ch = &k->ch[c->chan];
    size_t bi = (size_t)c->rank * k->nbanks + c->bg * k->cfg.banks_per_group + c->bank;

    /* Bank state. */
    switch (c->cmd) {
    case CGM_DRAM_ACT:
        if (ch->open[bi])
            violation(k, c, "activate to an open bank", c->cycle, 0);
        break;
    case CGM_DRAM_PRE:
        if (!ch->open[bi])
            violation(k, c, "precharge of a closed bank", c->cycle, 0);
        break;
    case CGM_DRAM_RD:
    case CGM_DRAM_WR:
        if (!ch->open[bi] || ch->row[bi] != c->row)
            violation(k, c, "column command to a row that is not open", c->cycle, 0);
        break;
    case CGM_DRAM_REF:
        for (unsigned i = 0; i < k->nbanks; i++)
            if (ch->open[(size_t)c->rank * k->nbanks + i])
                violation(k, c, "refresh with a bank open", c->cycle, 0);
        break;
    }

    /* Refresh: the latest REF binds REF->ACT and REF->REF. */
    if (ch->any_ref[c->rank] && (c->cmd == CGM_DRAM_ACT || c->cmd == CGM_DRAM_REF) &&
        c->cycle < ch->last_ref[c->rank] + t->rfc)
        violation(k, c, "tRFC", ch->last_ref[c->rank], t->rfc);
    if (t->refi) {
        uint64_t since = ch->any_ref[c->rank] ? ch->last_ref[c->rank] : 0;
        if (c->cycle > since + 9ull * t->refi)
            violation(k, c, "refresh postponed more than 8 intervals", since, 9l * t->refi);
    }

    /* Pairwise against the window, newest first. */
    unsigned acts_in_faw = c->cmd == CGM_DRAM_ACT ? 1 : 0;
    uint64_t lo = 0, hi = 0;
    if (is_col(c->cmd))
        data_interval(k, c->cmd, c->cycle, &lo, &hi);
    for (unsigned i = 0; i < ch->n; i++) {
        const struct hcmd *p = &ch->ring[(ch->head + k->cap - 1 - i) % k->cap];
        if (p->cycle + k->window < c->cycle)
            break;
        if (p->cycle >= c->cycle) {
            violation(k, c, "two commands in one cycle or out of order", p->cycle, 1);
            continue;
        }
        const char *what = "";
        long need = min_gap(k, p, c, &what);
        if (need > 0 && c->cycle - p->cycle < (uint64_t)need)
            violation(k, c, what, p->cycle, need);
        if (c->cmd == CGM_DRAM_ACT && p->cmd == CGM_DRAM_ACT && p->rank == c->rank &&
            p->cycle + t->faw > c->cycle && ++acts_in_faw > 4)
            violation(k, c, "tFAW: a fifth activate in the window", p->cycle, t->faw);
        if (is_col(c->cmd) && is_col(p->cmd)) {
            uint64_t plo, phi;
            data_interval(k, p->cmd, p->cycle, &plo, &phi);
            uint64_t gap = p->rank == c->rank ? 0 : t->rtrs;
            if (lo < phi + gap && plo < hi + gap)
                violation(k, c, "data bursts overlap on the bus", p->cycle, (long)gap);
        }
    }

    /* Apply. */
    if (c->cmd == CGM_DRAM_ACT) {
        ch->open[bi] = true;
        ch->row[bi] = c->row;
    } else if (c->cmd == CGM_DRAM_PRE) {
        ch->open[bi] = false;
    } else if (c->cmd == CGM_DRAM_REF) {
        ch->last_ref[c->rank] = c->cycle;
        ch->any_ref[c->rank] = true;
    }
    struct hcmd *h = &ch->ring[ch->head];
    h->cycle = c->cycle;
    h->cmd = c->cmd;
    h->rank = c->rank;
    h->bg = c->bg;
    h->bank = c->bank;
    ch->head = (ch->head + 1) % k->cap;
    if (ch->n < k->cap)
        ch->n++;
}

void cgm_dram_checker_finish(struct cgm_dram_checker *k, uint64_t now)
{
    if (!k->cfg.t.refi)
        return;
    for (unsigned c = 0; c < k->cfg.channels; c++)
        for (unsigned r = 0; r < k->cfg.ranks; r++) {
            uint64_t since = k->ch[c].any_ref[r] ? k->ch[c].last_ref[r] : 0;
            if (now > since + 9ull * k->cfg.t.refi) {
                struct cgm_dram_command x = { .cycle = now, .cmd = CGM_DRAM_REF, .chan = c, .rank = r };
                violation(k, &x, "no refresh for more than 8 intervals", since, 9l * k->cfg.t.refi);
            }
        }
}

uint64_t cgm_dram_checker_violations(const struct cgm_dram_checker *k) { return k->violations; }
uint64_t cgm_dram_checker_commands(const struct cgm_dram_checker *k) { return k->commands; }
const char *cgm_dram_checker_first_error(const struct cgm_dram_checker *k) { return k->first; }

const char *cgm_dram_cmd_name(enum cgm_dram_cmd c)
{
    switch (c) {
    case CGM_DRAM_ACT: return "ACT";
    case CGM_DRAM_PRE: return "PRE";
    case CGM_DRAM_RD:  return "RD";
    case CGM_DRAM_WR:  return "WR";
    case CGM_DRAM_REF: return "REF";
    }
    return "?";
}
