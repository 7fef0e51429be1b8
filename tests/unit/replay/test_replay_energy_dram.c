/* DRAM energy from IDD currents against the datasheet arithmetic, worked
 * out here from the commands the controller issued (its observer's log)
 * and Micron's DDR3L-1600 x8 and DDR4-2400 x8 figures written out again:
 * a row conflict, a write to another bank, a long idle stretch the
 * controller skips (its refreshes taken in bulk). Background: every
 * cycle of a rank with a bank open at IDD3N, every other at IDD2N; each
 * ACT-PRE pair (IDD0 * tRC - (IDD3N * tRAS + IDD2N * (tRC - tRAS))) * VDD;
 * bursts IDD4R/IDD4W above IDD3N for BL/2 clocks; a refresh IDD5 for tRFC,
 * in place of the precharged standby it spends them in. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/dram.h"
#include "cgm/stats.h"
#include "replay/energy_dram.h"
#include "replay/energy_sum.h"

/* One device's figures (mA, V) and the timings the arithmetic needs. */
struct datasheet {
    const char *preset;
    double vdd, idd0, idd2n, idd3n, idd4r, idd4w, idd5;
    double tck_ns, tras, trc, trfc, bl;
    unsigned devices; /* a 64-bit rank of x8 devices */
};
/* Micron MT41K512M8 -125 (DDR3L-1600, 1.35 V); JESD79-3F: tRAS 35 ns, tRC
 * 48.75 ns, tRFC 260 ns at 1.25 ns. */
static const struct datasheet ddr3 = { "DDR3-1600", 1.35, 55, 32, 38, 157, 125, 235, 1.25, 28, 39, 208, 8, 8 };
/* Micron MT40A1G8PM-083E (DDR4-2400, 1.2 V); JESD79-4: tRAS 32 ns, tRC
 * tRAS + tRP 13.32 ns, tRFC1 350 ns at 0.833 ns. */
static const struct datasheet ddr4 = { "DDR4-2400", 1.2, 48, 34, 43, 135, 123, 250, 1.0 / 1.2, 39, 55, 420, 8,
                                       8 };

/* What the log says: commands by kind, rank-cycles with a bank open. */
struct log {
    uint64_t n[5];
    unsigned open[4];
    uint64_t since[4], active;
};

static void observe(void *ctx, const struct cgm_dram_command *c)
{
    struct log *l = ctx;
    uint64_t times = c->times > 1 ? c->times : 1;
    l->n[c->cmd] += times;
    unsigned r = c->chan; /* one rank per channel */
    if (c->cmd == CGM_DRAM_ACT && !l->open[r]++)
        l->since[r] = c->cycle;
    if (c->cmd == CGM_DRAM_PRE && !--l->open[r])
        l->active += c->cycle - l->since[r];
}

static uint64_t value(const struct cgm_stats *reg, cgm_stat g, const char *name)
{
    cgm_stat x = cgm_stats_find(reg, g, name);
    assert_true(x >= 0);
    return cgm_stats_read_one(reg, x);
}

/* fJ measured against expected pJ, with the rounding of N rates (N / 2 fJ). */
static void near(uint64_t fj, double pj, uint64_t n)
{
    double diff = fabs((double)fj - pj * 1000);
    if (diff > 0.5 * (double)n + 1)
        fail_msg("%llu fJ against the datasheet's %.3f fJ", (unsigned long long)fj, pj * 1000);
}

static void run(const struct datasheet *ds)
{
    struct cgm_dram_config cfg;
    char err[256];
    assert_int_equal(cgm_dram_preset(ds->preset, &cfg), 0);
    cfg.channels = 1;
    cfg.write_drain = CGM_DRAM_DRAIN_IDLE; /* the one write goes when nothing else waits */
    struct cgm_dram *d = cgm_dram_create(&cfg, err, sizeof err);
    assert_non_null(d);
    struct log l = { 0 };
    cgm_dram_set_observer(d, observe, &l);
    const struct cgm_dram_map *m = cgm_dram_map_of(d);
    struct cgm_dram_addr a0 = { .row = 3 }, a1 = { .row = 9 }, b = { .bank = 1, .row = 5 };
    struct cgm_dram_request rq[] = {
        { .addr = cgm_dram_map_encode(m, &a0) },
        { .addr = cgm_dram_map_encode(m, &a1) },              /* a row conflict: PRE, ACT */
        { .addr = cgm_dram_map_encode(m, &b), .write = true }, /* another bank, written */
    };
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(cgm_dram_enqueue(d, &rq[i]), 0);
    while ((cgm_dram_pending(d) || cgm_dram_writes_queued(d)) && cgm_dram_now(d) < 1000)
        cgm_dram_tick(d);
    uint64_t end = 10 * (uint64_t)cfg.t.refi + 123;
    cgm_dram_skip_idle(d, end); /* the first refresh closes the banks; the rest go in bulk */

    struct cgm_stats *reg = cgm_stats_create();
    cgm_stat stats = cgm_dram_stats_register(d, reg, CGM_STATS_ROOT);
    cgm_stat g = cgm_stats_object(reg, CGM_STATS_ROOT, "energy");
    struct rp_dram_counts k;
    assert_int_equal(rp_energy_dram_counts(reg, g, (const struct cgm_dram *const[]){ d }, 1, &k), 0);
    struct rp_esum *act = rp_esum_new(reg, 5), *pas = rp_esum_new(reg, 2);
    rp_energy_dram_idd(reg, g, &cfg, &k, &stats, 1, act, pas);
    rp_esum_put(reg, g, "active_fj", act);
    rp_esum_put(reg, g, "passive_fj", pas);
    assert_false(cgm_stats_failed(reg));

    /* the sequence did what it is meant to */
    assert_int_equal(cgm_dram_now(d), end);
    assert_int_equal(l.n[CGM_DRAM_ACT], 3);
    assert_int_equal(l.n[CGM_DRAM_PRE], 3); /* the conflict's and the two the first refresh needs */
    assert_int_equal(l.n[CGM_DRAM_RD], 2);
    assert_int_equal(l.n[CGM_DRAM_WR], 1);
    assert_int_equal(l.n[CGM_DRAM_REF], 10);
    assert_int_equal(l.open[0], 0);

    double dev = ds->devices * ds->vdd * ds->tck_ns; /* mA x cycles -> pJ for a rank */
    uint64_t cycles = end, active = l.active, precharged = cycles - active;
    assert_int_equal(value(reg, g, "active_standby_cycles"), active);
    assert_int_equal(value(reg, g, "precharged_standby_cycles"), precharged);
    double pair = (ds->idd0 * ds->trc - (ds->idd3n * ds->tras + ds->idd2n * (ds->trc - ds->tras))) * dev;
    near(value(reg, g, "activate_fj") + value(reg, g, "precharge_fj"), 3 * pair, 6);
    near(value(reg, g, "read_fj"), 2 * (ds->idd4r - ds->idd3n) * ds->bl / 2 * dev, 2);
    near(value(reg, g, "write_fj"), (ds->idd4w - ds->idd3n) * ds->bl / 2 * dev, 1);
    near(value(reg, g, "refresh_fj"), 10 * (ds->idd5 - ds->idd2n) * ds->trfc * dev, 10);
    near(value(reg, g, "active_standby_fj"), (double)active * ds->idd3n * dev, active);
    near(value(reg, g, "precharged_standby_fj"), (double)precharged * ds->idd2n * dev, precharged);
    /* the whole: every cycle at its standby current, plus each command's share above it */
    double whole = ((double)active * ds->idd3n + (double)precharged * ds->idd2n) * dev + 3 * pair +
                   2 * (ds->idd4r - ds->idd3n) * ds->bl / 2 * dev + (ds->idd4w - ds->idd3n) * ds->bl / 2 * dev +
                   10 * (ds->idd5 - ds->idd2n) * ds->trfc * dev;
    near(value(reg, g, "active_fj") + value(reg, g, "passive_fj"), whole, cycles + 20);
    cgm_stats_destroy(reg);
    cgm_dram_destroy(d);
}

static void ddr3_sequence(void **state)
{
    (void)state;
    run(&ddr3);
}

static void ddr4_sequence(void **state)
{
    (void)state;
    run(&ddr4);
}

/* A configuration whose currents make a command's energy negative. */
static void currents_out_of_order(void **state)
{
    (void)state;
    struct cgm_dram_config cfg;
    char err[256];
    assert_int_equal(cgm_dram_preset("DDR4-2400", &cfg), 0);
    assert_int_equal(cgm_dram_config_set(&cfg, "IDD0", "20", err, sizeof err), 0);
    assert_int_equal(cgm_dram_config_validate(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "IDD0"));
    assert_int_equal(cgm_dram_config_set(&cfg, "IDD0", "-3", err, sizeof err), -1);
    assert_non_null(strstr(err, "dram.IDD0"));
    assert_int_equal(cgm_dram_config_set(&cfg, "device_bits", "24", err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ddr3_sequence),
        cmocka_unit_test(ddr4_sequence),
        cmocka_unit_test(currents_out_of_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
