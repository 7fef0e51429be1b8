/* DRAM presets. Cycle counts are the JEDEC nanosecond figures rounded up to
 * whole clocks (DDR3: JESD79-3F speed bin 1600K 11-11-11, x8 1 KB page, 4 Gb
 * density; DDR4: JESD79-4 speed bin 2400R 16-16-16, x8 1 KB page, 8 Gb
 * density). GDDR5 takes the DRAMSim2 timings of seed 001 Table 4.2; that
 * table has no CWL or tREFI (its tCK, 0.667 ns, is 1.5 GHz rounded: the
 * preset states it exactly, as DDR4-2400's 1 / 1.2 GHz), so CWL = 6 and tREFI = 3.9 us are assumed here,
 * and its tBL = 16 is read as a burst of 16 beats on a 32-bit bus (64 B).
 *
 * Supply and IDD currents (mA, per device; struct cgm_dram_power) are the
 * [power] sections of DRAMsim3's device files (github.com/umd-memsys/DRAMsim3,
 * configs/), which copy them from the datasheets named below. */
#include "cgm/dram.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static void common(struct cgm_dram_config *c, const char *name)
{
    memset(c, 0, sizeof *c);
    snprintf(c->preset, sizeof c->preset, "%s", name);
    c->channels = 2;
    c->ranks = 1;
    c->page_policy = CGM_DRAM_OPEN_PAGE;
    c->queue_size = 32;
    /* Writes wait in their own queue and go in drains that feed per-bank
     * command queues (see dram.h): a drain starts when the write queue is
     * full, or when the bank queues are empty and more than 8 writes wait,
     * and takes the writes queued at its start. This is DRAMsim3's
     * controller, which the model matches on DDR3-1600 and DDR4-2400
     * (tests/validate/dram_vs_dramsim3.table). */
    c->write_queue_size = 32;
    c->write_high = 32;
    c->write_low = 8;
    c->write_drain = CGM_DRAM_DRAIN_WATERMARK;
    c->bank_queue_size = 8;
    c->hit_cap = 16;
    c->t.rtrs = 1;
}

static void ddr3_1600(struct cgm_dram_config *c)
{
    struct cgm_dram_timing *t = &c->t;
    t->tck_ns = 1.25;
    t->bl = 8;
    t->cl = 11; t->cwl = 8; t->al = 0;
    t->rcd = 11; t->rp = 11;
    t->ras = 28;             /* 35 ns */
    t->rc = 39;              /* 48.75 ns */
    t->wr = 12;              /* 15 ns */
    t->rtp = 6;              /* max(4 nCK, 7.5 ns) */
    t->wtr_l = t->wtr_s = 6; /* max(4 nCK, 7.5 ns) */
    t->rrd_l = t->rrd_s = 5; /* max(4 nCK, 6 ns) */
    t->ccd_l = t->ccd_s = 4;
    t->faw = 24;             /* 30 ns */
    t->rfc = 208;            /* 260 ns */
    t->refi = 6240;          /* 7.8 us */
    c->bank_groups = 1;
    c->banks_per_group = 8;
    c->rows = 65536;         /* 4 Gb x8: A0-A15 */
    c->columns = 1024;       /* A0-A9: a 1 KB page per device */
    c->bus_bits = 64;
    /* DRAMsim3 DDR3_4Gb_x8_1600.ini: Micron 4 Gb x8 DDR3L-1600 (MT41K512M8,
     * speed grade -125), whose IDD figures are given at 1.35 V; the
     * JESD79-3F timings above are the same for DDR3 and DDR3L. */
    c->power = (struct cgm_dram_power){ .vdd = 1.35, .idd0 = 55, .idd2n = 32, .idd3n = 38,
                                        .idd4r = 157, .idd4w = 125, .idd5 = 235, .device_bits = 8 };
    snprintf(c->mapping, sizeof c->mapping, "row:bank:rank:col:bg:chan");
}

static void ddr4_2400(struct cgm_dram_config *c)
{
    struct cgm_dram_timing *t = &c->t;
    t->tck_ns = 1.0 / 1.2;   /* 1200 MHz */
    t->bl = 8;
    t->cl = 16; t->cwl = 12; t->al = 0;
    t->rcd = 16; t->rp = 16;
    t->ras = 39;             /* 32 ns */
    t->rc = 55;              /* tRAS + tRP */
    t->wr = 18;              /* 15 ns */
    t->rtp = 9;              /* max(4 nCK, 7.5 ns) */
    t->wtr_l = 9;            /* max(4 nCK, 7.5 ns) */
    t->wtr_s = 3;            /* max(2 nCK, 2.5 ns) */
    t->rrd_l = 6;            /* max(4 nCK, 4.9 ns) */
    t->rrd_s = 4;            /* max(4 nCK, 3.3 ns) */
    t->ccd_l = 6;            /* max(5 nCK, 5 ns) */
    t->ccd_s = 4;
    t->faw = 26;             /* 21 ns */
    t->rfc = 420;            /* 350 ns */
    t->refi = 9360;          /* 7.8 us */
    c->bank_groups = 4;
    c->banks_per_group = 4;
    c->rows = 65536;         /* 8 Gb x8: A0-A15 */
    c->columns = 1024;       /* A0-A9: a 1 KB page per device */
    c->bus_bits = 64;
    /* DRAMsim3 DDR4_8Gb_x8_2400.ini: Micron MT40A1G8PM-083E (8 Gb x8,
     * DDR4-2400), VDD 1.2 V; its VPP (2.5 V) current is left out as there. */
    c->power = (struct cgm_dram_power){ .vdd = 1.2, .idd0 = 48, .idd2n = 34, .idd3n = 43,
                                        .idd4r = 135, .idd4w = 123, .idd5 = 250, .device_bits = 8 };
    snprintf(c->mapping, sizeof c->mapping, "row:bank:rank:col:bg:chan");
}

static void gddr5(struct cgm_dram_config *c)
{
    struct cgm_dram_timing *t = &c->t;
    t->tck_ns = 2.0 / 3.0;   /* 1500 MHz; Table 4.2's 0.667 ns rounds it, and a clock of
                              * 1 / 0.667 ns has no common time base with 1 and 4 GHz */
    t->bl = 16;
    t->cl = 18; t->cwl = 6; t->al = 17;
    t->rcd = 18; t->rp = 18;
    t->ras = 42; t->rc = 60;
    t->wr = 4; t->rtp = 3;
    t->wtr_l = t->wtr_s = 8;
    t->rrd_l = t->rrd_s = 9;
    t->ccd_l = t->ccd_s = 3;
    t->faw = 35;
    t->rtrs = 1;
    t->rfc = 278;
    t->refi = 5847;          /* 3.9 us */
    c->bank_groups = 1;
    c->banks_per_group = 16;
    c->rows = 16384;
    c->columns = 512;
    c->bus_bits = 32;
    /* DRAMsim3 GDDR5_8Gb_x32.ini: one x32 device at 1.5 V; that file calls
     * its currents estimates (no datasheet publishes GDDR5 IDD figures for
     * these timings), so GDDR5 energy is the least sure of the three. */
    c->power = (struct cgm_dram_power){ .vdd = 1.5, .idd0 = 75, .idd2n = 45, .idd3n = 55,
                                        .idd4r = 211, .idd4w = 198, .idd5 = 286, .device_bits = 32 };
    snprintf(c->mapping, sizeof c->mapping, "row:bank:rank:col:bg:chan");
}

/* The presets: one row each, its name and the device's values; every list
 * of their names (messages, --print-config) is made from it. */
#define PRESETS(X) X("DDR3-1600", ddr3_1600) X("DDR4-2400", ddr4_2400) X("GDDR5", gddr5)
#define ROW(name, fill) { name, fill },
#define NAME(name, fill) name,
static const struct {
    const char *name;
    void (*fill)(struct cgm_dram_config *c);
} presets[] = { PRESETS(ROW) };
const char *const cgm_dram_preset_names[] = { PRESETS(NAME) NULL };
#undef ROW
#undef NAME

int cgm_dram_preset(const char *name, struct cgm_dram_config *cfg)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (!strcasecmp(name, presets[i].name)) {
            common(cfg, presets[i].name);
            presets[i].fill(cfg);
            return 0;
        }
    return -1;
}

void cgm_dram_preset_list(const char *last_sep, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (unsigned i = 0; cgm_dram_preset_names[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s",
                               !i ? "" : cgm_dram_preset_names[i + 1] ? ", " : last_sep, cgm_dram_preset_names[i]);
}

unsigned cgm_dram_burst_bytes(const struct cgm_dram_config *cfg)
{
    return cfg->t.bl * cfg->bus_bits / 8;
}

double cgm_dram_peak_gbytes_per_s(const struct cgm_dram_config *cfg)
{
    /* One burst per BL/2 clocks per channel at best. */
    double per_channel = cgm_dram_burst_bytes(cfg) / (cfg->t.bl / 2.0 * cfg->t.tck_ns);
    return per_channel * cfg->channels;
}
