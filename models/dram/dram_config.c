/* The [dram] keys: one table that sets, prints and documents every field of
 * struct cgm_dram_config. Programs read their INI files themselves and hand
 * each [dram] key to cgm_dram_config_set; a section of another name with
 * the same keys (replay's [gpu.dram]) goes through cgm_dram_config_set_in,
 * whose messages name that section. */
#include "cgm/dram.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum key_kind { K_UINT, K_REAL, K_ENUM, K_MAPPING };

struct key {
    const char *name;
    enum key_kind kind;
    size_t off;
    unsigned min, max;   /* K_UINT; K_REAL: above min, at most max */
    const char *doc;
    const char *const *names; /* K_ENUM: the enum's values in order, NULL-ended */
};

/* K_ENUM fields are enums of non-negative values, stored as unsigned. */
_Static_assert(sizeof(enum cgm_dram_page_policy) == sizeof(unsigned) &&
                   sizeof(enum cgm_dram_write_drain) == sizeof(unsigned),
               "enum fields are set through unsigned");
static const char *const page_policies[] = { "open", "closed", NULL };
static const char *const write_drains[] = { "idle", "watermark", NULL };

#define T(f) offsetof(struct cgm_dram_config, t.f)
#define C(f) offsetof(struct cgm_dram_config, f)
#define P(f) offsetof(struct cgm_dram_config, power.f)
static const struct key keys[] = {
    { "tCK_ns", K_REAL, T(tck_ns), 0, 1000, "command clock period, ns", NULL },
    { "BL", K_UINT, T(bl), 2, 64, "burst length, beats (even)", NULL },
    { "CL", K_UINT, T(cl), 1, 1000, "read latency, nCK", NULL },
    { "CWL", K_UINT, T(cwl), 1, 1000, "write latency, nCK (at most CL)", NULL },
    { "AL", K_UINT, T(al), 0, 1000, "additive latency, nCK", NULL },
    { "tRCD", K_UINT, T(rcd), 1, 1000, "activate to column command, nCK", NULL },
    { "tRP", K_UINT, T(rp), 1, 1000, "precharge to activate, nCK", NULL },
    { "tRAS", K_UINT, T(ras), 1, 1000, "activate to precharge, nCK", NULL },
    { "tRC", K_UINT, T(rc), 1, 2000, "activate to activate in a bank, nCK (at least tRAS)", NULL },
    { "tWR", K_UINT, T(wr), 0, 1000, "write recovery, nCK", NULL },
    { "tRTP", K_UINT, T(rtp), 0, 1000, "read to precharge, nCK", NULL },
    { "tWTR_L", K_UINT, T(wtr_l), 0, 1000, "write to read, same bank group, nCK", NULL },
    { "tWTR_S", K_UINT, T(wtr_s), 0, 1000, "write to read, other bank group, nCK", NULL },
    { "tRRD_L", K_UINT, T(rrd_l), 1, 1000, "activate to activate, same bank group, nCK", NULL },
    { "tRRD_S", K_UINT, T(rrd_s), 1, 1000, "activate to activate, other bank group, nCK", NULL },
    { "tCCD_L", K_UINT, T(ccd_l), 1, 1000, "column to column, same bank group, nCK", NULL },
    { "tCCD_S", K_UINT, T(ccd_s), 1, 1000, "column to column, other bank group, nCK", NULL },
    { "tFAW", K_UINT, T(faw), 0, 10000, "window holding at most four activates per rank, nCK", NULL },
    { "tRTRS", K_UINT, T(rtrs), 0, 1000, "data-bus turnaround between ranks, nCK", NULL },
    { "tRFC", K_UINT, T(rfc), 0, 100000, "refresh cycle time, nCK", NULL },
    { "tREFI", K_UINT, T(refi), 0, 10000000, "refresh interval, nCK (0: no refresh)", NULL },
    { "channels", K_UINT, C(channels), 1, 64, "channels (power of two)", NULL },
    { "ranks", K_UINT, C(ranks), 1, 16, "ranks per channel (power of two)", NULL },
    { "bank_groups", K_UINT, C(bank_groups), 1, 64, "bank groups per rank (power of two)", NULL },
    { "banks_per_group", K_UINT, C(banks_per_group), 1, 64, "banks per group (power of two)", NULL },
    { "rows", K_UINT, C(rows), 1, 1u << 24, "rows per bank (power of two)", NULL },
    { "columns", K_UINT, C(columns), 2, 1u << 16, "columns per row, bus-width units", NULL },
    { "bus_bits", K_UINT, C(bus_bits), 8, 1024, "data bus width of a channel, bits", NULL },
    { "VDD", K_REAL, P(vdd), 0, 10, "a device's supply, V (energy)", NULL },
    { "IDD0", K_REAL, P(idd0), 0, 10000, "a device's current, one ACT-PRE every tRC, mA (energy)", NULL },
    { "IDD2N", K_REAL, P(idd2n), 0, 10000, "a device's precharged standby current, mA (energy)", NULL },
    { "IDD3N", K_REAL, P(idd3n), 0, 10000, "a device's active standby current, mA (energy)", NULL },
    { "IDD4R", K_REAL, P(idd4r), 0, 10000, "a device's current bursting reads, mA (energy)", NULL },
    { "IDD4W", K_REAL, P(idd4w), 0, 10000, "a device's current bursting writes, mA (energy)", NULL },
    { "IDD5", K_REAL, P(idd5), 0, 10000, "a device's current refreshing (all banks), mA (energy)", NULL },
    { "device_bits", K_UINT, P(device_bits), 1, 1024, "a device's data width, bits: bus_bits / device_bits devices a rank", NULL },
    { "page_policy", K_ENUM, C(page_policy), 0, 0, "row buffer policy: open or closed", page_policies },
    { "queue_size", K_UINT, C(queue_size), 1, 4096,
      "transaction queue per channel (reads only when there is a write queue)", NULL },
    { "write_queue_size", K_UINT, C(write_queue_size), 0, 4096,
      "write queue per channel (0: one queue for reads and writes)", NULL },
    { "write_high", K_UINT, C(write_high), 0, 4096,
      "writes queued that start a drain (reads wait meanwhile)", NULL },
    { "write_low", K_UINT, C(write_low), 0, 4095,
      "writes queued at which a drain stops while reads wait", NULL },
    { "write_drain", K_ENUM, C(write_drain), 0, 0,
      "watermark: drain above write_low only with nothing to schedule, take the writes queued at "
      "the start; idle: also drain when idle, stop at write_low",
      write_drains },
    { "bank_queue_size", K_UINT, C(bank_queue_size), 0, 256,
      "command queue per bank, fed one request a cycle, banks served in turn (0: none, FR-FCFS)",
      NULL },
    { "hit_cap", K_UINT, C(hit_cap), 1, 1u << 20,
      "row hits served ahead of an older request for another row", NULL },
    { "mapping", K_MAPPING, C(mapping), 0, 0,
      "address fields from the most significant bit: row, rank, bank, bg, chan, col", NULL },
};
#undef T
#undef C
#undef P
#define NKEYS (sizeof keys / sizeof keys[0])

static unsigned *uint_at(struct cgm_dram_config *c, const struct key *k)
{
    return (unsigned *)((char *)c + k->off);
}

/* Whether field k holds the same value in a and b. */
static bool same(const struct cgm_dram_config *a, const struct cgm_dram_config *b, const struct key *k)
{
    const char *x = (const char *)a + k->off, *y = (const char *)b + k->off;
    switch (k->kind) {
    case K_REAL: return *(const double *)x == *(const double *)y;
    case K_MAPPING: return !strcmp(x, y);
    default: return *(const unsigned *)x == *(const unsigned *)y;
    }
}

static void copy(struct cgm_dram_config *to, const struct cgm_dram_config *from, const struct key *k)
{
    switch (k->kind) {
    case K_REAL: *(double *)((char *)to + k->off) = *(const double *)((const char *)from + k->off); break;
    case K_MAPPING: memcpy(to->mapping, from->mapping, sizeof to->mapping); break;
    default: *uint_at(to, k) = *(const unsigned *)((const char *)from + k->off); break;
    }
}

/* A preset replaces every value that still comes from the previous one;
 * values set away from it stay. */
static int set_preset(struct cgm_dram_config *c, const char *section, const char *value, char *err,
                      size_t errlen)
{
    struct cgm_dram_config next, old;
    if (cgm_dram_preset(value, &next)) {
        char names[128];
        cgm_dram_preset_list(", ", names, sizeof names);
        snprintf(err, errlen, "%s.preset: unknown preset \"%s\" (%s)", section, value, names);
        return -1;
    }
    bool had = cgm_dram_preset(c->preset, &old) == 0;
    for (size_t i = 0; i < NKEYS; i++)
        if (had && !same(c, &old, &keys[i]))
            copy(&next, c, &keys[i]);
    *c = next;
    return 0;
}

/* Keys that set a same- and an other-bank-group pair at once. */
static const struct { const char *name, *l, *s; } pairs[] = {
    { "tWTR", "tWTR_L", "tWTR_S" }, { "tRRD", "tRRD_L", "tRRD_S" }, { "tCCD", "tCCD_L", "tCCD_S" },
};

int cgm_dram_config_set(struct cgm_dram_config *c, const char *key, const char *value, char *err,
                        size_t errlen)
{
    return cgm_dram_config_set_in(c, "dram", key, value, err, errlen);
}

int cgm_dram_config_set_in(struct cgm_dram_config *c, const char *section, const char *key, const char *value,
                           char *err, size_t errlen)
{
    if (!strcasecmp(key, "preset"))
        return set_preset(c, section, value, err, errlen);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (!strcasecmp(key, pairs[i].name))
            return cgm_dram_config_set_in(c, section, pairs[i].l, value, err, errlen) ||
                           cgm_dram_config_set_in(c, section, pairs[i].s, value, err, errlen)
                       ? -1
                       : 0;
    const struct key *k = NULL;
    for (size_t i = 0; i < NKEYS && !k; i++)
        if (!strcasecmp(key, keys[i].name))
            k = &keys[i];
    if (!k) {
        snprintf(err, errlen, "unknown key %s in [%s]", key, section);
        return -1;
    }
    switch (k->kind) {
    case K_REAL: {
        char *end;
        double x = strtod(value, &end);
        if (end == value || *end || !(x > k->min) || x > k->max) {
            snprintf(err, errlen, "%s.%s: \"%s\" is not a number above %u, at most %u", section, k->name,
                     value, k->min, k->max);
            return -1;
        }
        *(double *)((char *)c + k->off) = x;
        return 0;
    }
    case K_ENUM:
        for (unsigned v = 0; k->names[v]; v++)
            if (!strcasecmp(value, k->names[v])) {
                *uint_at(c, k) = v;
                return 0;
            }
        snprintf(err, errlen, "%s.%s: \"%s\" is not %s or %s", section, k->name, value, k->names[0],
                 k->names[1]);
        return -1;
    case K_MAPPING:
        if (strlen(value) >= sizeof c->mapping) {
            snprintf(err, errlen, "%s.%s: longer than %zu characters", section, k->name,
                     sizeof c->mapping - 1);
            return -1;
        }
        snprintf(c->mapping, sizeof c->mapping, "%s", value);
        return 0;
    case K_UINT: {
        char *end;
        errno = 0;
        unsigned long x = strtoul(value, &end, 0);
        if (errno || end == value || *end || value[0] == '-' || x < k->min || x > k->max) {
            snprintf(err, errlen, "%s.%s: \"%s\" is not an integer in %u..%u", section, k->name, value,
                     k->min, k->max);
            return -1;
        }
        *uint_at(c, k) = (unsigned)x;
        return 0;
    }
    }
    return -1;
}

bool cgm_dram_config_uint_key(const char *key, unsigned *min, unsigned *max)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (keys[i].kind == K_UINT && !strcasecmp(key, keys[i].name)) {
            *min = keys[i].min;
            *max = keys[i].max;
            return true;
        }
    return false;
}

void cgm_dram_config_print(const struct cgm_dram_config *c, FILE *out)
{
    struct cgm_dram_config p;
    bool has_preset = cgm_dram_preset(c->preset, &p) == 0;
    char names[128];
    cgm_dram_preset_list(" or ", names, sizeof names);
    fprintf(out, "; %s: sets every key below, before the others\n"
                 "preset = %s\n",
            names, c->preset);
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        const char *field = (const char *)c + k->off;
        fprintf(out, "; %s", k->doc);
        if (k->kind == K_UINT)
            fprintf(out, "; %u..%u", k->min, k->max);
        if (has_preset && !same(c, &p, k))
            fprintf(out, "; changed from the preset");
        fprintf(out, "\n%s = ", k->name);
        switch (k->kind) {
        case K_REAL: fprintf(out, "%.17g\n", *(const double *)field); break;
        case K_ENUM: fprintf(out, "%s\n", k->names[*(const unsigned *)field]); break;
        case K_MAPPING: fprintf(out, "%s\n", c->mapping); break;
        default: fprintf(out, "%u\n", *(const unsigned *)field); break;
        }
    }
}
