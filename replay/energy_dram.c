/* DRAM energy from IDD currents: see energy_dram.h. Each rate is rounded
 * to whole femtojoules once (a DDR3-1600 rank's precharged standby is
 * 432000 fJ a cycle, an ACT about 4.3 nJ), so a count of N events is off by
 * at most N / 2 fJ. */
#include "replay/energy_dram.h"

#include <math.h>
#include <stddef.h>

#include "replay/energy_sum.h"

#include "cgm/check.h"

#define MAX_DRAMS 64 /* memory.controllers' largest */

struct drams {
    unsigned n;
    const struct cgm_dram *d[MAX_DRAMS];
};

static uint64_t read_bursts(const void *ctx)
{
    const struct drams *x = ctx;
    uint64_t sum = 0;
    for (unsigned i = 0; i < x->n; i++)
        sum += cgm_dram_stats(x->d[i])->read_bursts;
    return sum;
}

static uint64_t write_bursts(const void *ctx)
{
    const struct drams *x = ctx;
    uint64_t sum = 0;
    for (unsigned i = 0; i < x->n; i++)
        sum += cgm_dram_stats(x->d[i])->write_bursts;
    return sum;
}

static uint64_t active_standby(const void *ctx)
{
    const struct drams *x = ctx;
    uint64_t sum = 0;
    for (unsigned i = 0; i < x->n; i++)
        sum += cgm_dram_active_standby_cycles(x->d[i]);
    return sum;
}

static uint64_t precharged_standby(const void *ctx)
{
    const struct drams *x = ctx;
    uint64_t sum = 0;
    for (unsigned i = 0; i < x->n; i++) {
        const struct cgm_dram_config *c = cgm_dram_config_of(x->d[i]);
        sum += (uint64_t)c->channels * c->ranks * cgm_dram_stats(x->d[i])->cycles -
               cgm_dram_active_standby_cycles(x->d[i]);
    }
    return sum;
}

/* fJ for CYCLES command clocks at MA milliamperes per device of a rank:
 * mA * V * ns = pJ. */
static int64_t fj(const struct cgm_dram_config *c, double ma, double cycles)
{
    unsigned devices = c->power.device_bits ? c->bus_bits / c->power.device_bits : 0;
    return llround(ma * c->power.vdd * cycles * c->t.tck_ns * devices * 1000);
}

/* NAME: COUNT times WEIGHT, or with COUNT below 0 the counter at PATH of
 * every DRAM; joins TOTAL. */
static void energy(struct cgm_stats *reg, cgm_stat group, const char *name, cgm_stat count, const cgm_stat *stats,
                   unsigned n, const char *path, int64_t weight, struct rp_esum *total)
{
    struct rp_esum *s = rp_esum_new(reg, n);
    if (count >= 0)
        rp_esum_add(s, count, weight);
    else
        for (unsigned i = 0; i < n; i++)
            rp_esum_add_path(s, stats[i], path, weight);
    rp_esum_add(total, rp_esum_put(reg, group, name, s), 1);
}

int rp_energy_dram_counts(struct cgm_stats *reg, cgm_stat group, const struct cgm_dram *const *d, unsigned n,
                          struct rp_dram_counts *out)
{
    struct drams ctx = { .n = n };
    CGM_CHECK(n <= MAX_DRAMS);
    for (unsigned i = 0; i < n; i++)
        ctx.d[i] = d[i];
    const void *kept = cgm_stats_keep(reg, &ctx, sizeof ctx);
    if (!kept)
        return -1;
    out->read_bursts = cgm_stat_computed(reg, group, "read_bursts", read_bursts, kept);
    out->write_bursts = cgm_stat_computed(reg, group, "write_bursts", write_bursts, kept);
    out->active_standby_cycles = cgm_stat_computed(reg, group, "active_standby_cycles", active_standby, kept);
    out->precharged_standby_cycles =
        cgm_stat_computed(reg, group, "precharged_standby_cycles", precharged_standby, kept);
    return cgm_stats_failed(reg) ? -1 : 0;
}

void rp_energy_dram_idd(struct cgm_stats *reg, cgm_stat group, const struct cgm_dram_config *c,
                        const struct rp_dram_counts *k, const cgm_stat *stats, unsigned n, struct rp_esum *active,
                        struct rp_esum *passive)
{
    const struct cgm_dram_power *p = &c->power;
    const struct cgm_dram_timing *t = &c->t;
    energy(reg, group, "activate_fj", -1, stats, n, "activates", fj(c, p->idd0 - p->idd3n, t->ras), active);
    energy(reg, group, "precharge_fj", -1, stats, n, "precharges", fj(c, p->idd0 - p->idd2n, t->rp), active);
    energy(reg, group, "read_fj", k->read_bursts, stats, n, NULL, fj(c, p->idd4r - p->idd3n, t->bl / 2.0), active);
    energy(reg, group, "write_fj", k->write_bursts, stats, n, NULL, fj(c, p->idd4w - p->idd3n, t->bl / 2.0),
           active);
    energy(reg, group, "refresh_fj", -1, stats, n, "refreshes", fj(c, p->idd5 - p->idd2n, t->rfc), active);
    energy(reg, group, "active_standby_fj", k->active_standby_cycles, stats, n, NULL, fj(c, p->idd3n, 1), passive);
    energy(reg, group, "precharged_standby_fj", k->precharged_standby_cycles, stats, n, NULL, fj(c, p->idd2n, 1),
           passive);
}
