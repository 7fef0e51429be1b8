/* DRAM address mapping: a physical address is split into bit fields whose
 * order (most to least significant) the configuration's mapping string
 * gives, above the offset of one burst. */
#include "cgm/dram.h"
#include "cgm/bits.h"

#include <stdio.h>
#include <string.h>

static const char *const field_names[CGM_DRAM_NFIELDS] = {
    [CGM_DRAM_F_ROW] = "row", [CGM_DRAM_F_RANK] = "rank", [CGM_DRAM_F_BG] = "bg",
    [CGM_DRAM_F_BANK] = "bank", [CGM_DRAM_F_CHAN] = "chan", [CGM_DRAM_F_COL] = "col",
};

static uint64_t field_count(const struct cgm_dram_config *c, int f)
{
    switch (f) {
    case CGM_DRAM_F_ROW:  return c->rows;
    case CGM_DRAM_F_RANK: return c->ranks;
    case CGM_DRAM_F_BG:   return c->bank_groups;
    case CGM_DRAM_F_BANK: return c->banks_per_group;
    case CGM_DRAM_F_CHAN: return c->channels;
    case CGM_DRAM_F_COL:  return c->t.bl ? c->columns / c->t.bl : 0;
    }
    return 0;
}

int cgm_dram_map_init(struct cgm_dram_map *m, const struct cgm_dram_config *cfg,
                      char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    int off = cgm_log2_exact(cgm_dram_burst_bytes(cfg));
    if (off < 0) {
        snprintf(err, errlen, "burst size %u bytes (bl * bus_bits / 8) is not a power of two",
                 cgm_dram_burst_bytes(cfg));
        return -1;
    }
    m->offset_bits = (unsigned)off;
    for (int f = 0; f < CGM_DRAM_NFIELDS; f++) {
        int b = cgm_log2_exact(field_count(cfg, f));
        if (b < 0) {
            snprintf(err, errlen, "%s count %llu is not a power of two", field_names[f],
                     (unsigned long long)field_count(cfg, f));
            return -1;
        }
        m->bits[f] = (unsigned)b;
    }

    /* Parse the order, most significant first. */
    int order[CGM_DRAM_NFIELDS];
    int n = 0;
    bool seen[CGM_DRAM_NFIELDS] = { false };
    const char *p = cfg->mapping;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int f = -1;
        for (int i = 0; i < CGM_DRAM_NFIELDS; i++)
            if (strlen(field_names[i]) == len && !strncmp(p, field_names[i], len))
                f = i;
        if (f < 0) {
            snprintf(err, errlen, "mapping \"%s\": unknown field \"%.*s\" (row, rank, bg, bank, chan, col)",
                     cfg->mapping, (int)len, p);
            return -1;
        }
        if (seen[f]) {
            snprintf(err, errlen, "mapping \"%s\": field \"%s\" appears twice", cfg->mapping,
                     field_names[f]);
            return -1;
        }
        seen[f] = true;
        order[n++] = f;
        p = e ? e + 1 : p + len;
    }
    for (int f = 0; f < CGM_DRAM_NFIELDS; f++) {
        if (!seen[f]) {
            snprintf(err, errlen, "mapping \"%s\": field \"%s\" is missing", cfg->mapping,
                     field_names[f]);
            return -1;
        }
    }
    unsigned shift = m->offset_bits;
    for (int i = n - 1; i >= 0; i--) {
        m->shift[order[i]] = shift;
        shift += m->bits[order[i]];
    }
    if (shift > 64) {
        snprintf(err, errlen, "the address fields need %u bits, more than 64", shift);
        return -1;
    }
    return 0;
}

static uint64_t get(const struct cgm_dram_map *m, uint64_t a, int f)
{
    if (!m->bits[f])
        return 0;
    return (a >> m->shift[f]) & ((1ull << m->bits[f]) - 1);
}

struct cgm_dram_addr cgm_dram_map_decode(const struct cgm_dram_map *m, uint64_t addr)
{
    /* Address bits above the mapped fields wrap around (they alias). */
    struct cgm_dram_addr a = {
        .chan = (unsigned)get(m, addr, CGM_DRAM_F_CHAN),
        .rank = (unsigned)get(m, addr, CGM_DRAM_F_RANK),
        .bg = (unsigned)get(m, addr, CGM_DRAM_F_BG),
        .bank = (unsigned)get(m, addr, CGM_DRAM_F_BANK),
        .row = (uint32_t)get(m, addr, CGM_DRAM_F_ROW),
        .col = (uint32_t)get(m, addr, CGM_DRAM_F_COL),
    };
    return a;
}

uint64_t cgm_dram_map_encode(const struct cgm_dram_map *m, const struct cgm_dram_addr *a)
{
    const uint64_t v[CGM_DRAM_NFIELDS] = {
        [CGM_DRAM_F_ROW] = a->row, [CGM_DRAM_F_RANK] = a->rank, [CGM_DRAM_F_BG] = a->bg,
        [CGM_DRAM_F_BANK] = a->bank, [CGM_DRAM_F_CHAN] = a->chan, [CGM_DRAM_F_COL] = a->col,
    };
    uint64_t addr = 0;
    for (int f = 0; f < CGM_DRAM_NFIELDS; f++)
        if (m->bits[f])
            addr |= (v[f] & ((1ull << m->bits[f]) - 1)) << m->shift[f];
    return addr;
}

int cgm_dram_config_validate(const struct cgm_dram_config *cfg, char *err, size_t errlen)
{
    const struct cgm_dram_timing *t = &cfg->t;
    if (!(t->tck_ns > 0)) {
        snprintf(err, errlen, "tCK must be positive");
        return -1;
    }
    if (t->bl < 2 || t->bl % 2) {
        snprintf(err, errlen, "burst length %u must be even and at least 2", t->bl);
        return -1;
    }
    if (!cfg->channels || !cfg->ranks || !cfg->bank_groups || !cfg->banks_per_group ||
        !cfg->rows || !cfg->bus_bits || cfg->bus_bits % 8) {
        snprintf(err, errlen, "channels, ranks, bank groups, banks and rows must be at least 1 "
                 "and bus_bits a multiple of 8");
        return -1;
    }
    if (cfg->power.device_bits && cfg->bus_bits % cfg->power.device_bits) {
        snprintf(err, errlen, "device_bits (%u) must divide bus_bits (%u): a rank is whole devices",
                 cfg->power.device_bits, cfg->bus_bits);
        return -1;
    }
    const struct cgm_dram_power *p = &cfg->power;
    if (p->device_bits && !(p->idd3n >= p->idd2n && p->idd0 >= p->idd3n && p->idd4r >= p->idd3n &&
                            p->idd4w >= p->idd3n && p->idd5 >= p->idd2n)) {
        snprintf(err, errlen, "IDD currents out of order: IDD3N must be at least IDD2N, IDD0, IDD4R and "
                 "IDD4W at least IDD3N, IDD5 at least IDD2N (each command's energy is its current above "
                 "the standby one)");
        return -1;
    }
    if (cfg->columns < t->bl) {
        snprintf(err, errlen, "columns (%u) must hold at least one burst of %u", cfg->columns, t->bl);
        return -1;
    }
    if (cfg->channels > 64 || cfg->ranks > 16 || cfg->bank_groups * cfg->banks_per_group > 64) {
        snprintf(err, errlen, "at most 64 channels, 16 ranks and 64 banks per rank");
        return -1;
    }
    if (!cfg->queue_size || cfg->queue_size > 4096) {
        snprintf(err, errlen, "queue_size must be 1..4096");
        return -1;
    }
    if (cfg->write_queue_size > 4096 ||
        (cfg->write_queue_size &&
         !(cfg->write_low < cfg->write_high && cfg->write_high <= cfg->write_queue_size))) {
        snprintf(err, errlen, "write_queue_size (%u) must be 0..4096 and, if not 0, at least "
                 "write_high (%u), which must exceed write_low (%u)",
                 cfg->write_queue_size, cfg->write_high, cfg->write_low);
        return -1;
    }
    if (cfg->bank_queue_size > 256) {
        snprintf(err, errlen, "bank_queue_size (%u) must be 0..256", cfg->bank_queue_size);
        return -1;
    }
    if (!t->cl || !t->cwl || !t->rcd || !t->rp || !t->ras || !t->ccd_s || !t->ccd_l ||
        !t->rrd_s || !t->rrd_l) {
        snprintf(err, errlen, "CL, CWL, tRCD, tRP, tRAS, tCCD and tRRD must be at least 1");
        return -1;
    }
    if (t->cwl > t->cl) {
        snprintf(err, errlen, "CWL (%u) larger than CL (%u) is not supported", t->cwl, t->cl);
        return -1;
    }
    if (t->al >= t->rcd + t->cl) {
        snprintf(err, errlen, "AL (%u) too large", t->al);
        return -1;
    }
    if (t->rc < t->ras || t->cl + t->al > 1000 || t->rfc > 100000) {
        snprintf(err, errlen, "timings out of range (tRC >= tRAS, RL <= 1000, tRFC <= 100000)");
        return -1;
    }
    if (t->refi && t->refi <= t->rfc + t->rp) {
        snprintf(err, errlen, "tREFI (%u) must exceed tRFC + tRP", t->refi);
        return -1;
    }
    struct cgm_dram_map m;
    return cgm_dram_map_init(&m, cfg, err, errlen);
}
