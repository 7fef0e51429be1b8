/* The [dram] section of an INI configuration. The preset is applied before
 * any other key, wherever it appears in the section. */
#include "cgm/dram.h"

#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct load {
    struct cgm_dram_config *cfg;
    bool preset_pass;
    char msg[160];
};

struct ukey {
    const char *name;
    size_t off;
};

#define T(f) offsetof(struct cgm_dram_config, t.f)
#define C(f) offsetof(struct cgm_dram_config, f)
static const struct ukey ukeys[] = {
    { "BL", T(bl) }, { "CL", T(cl) }, { "CWL", T(cwl) }, { "AL", T(al) },
    { "tRCD", T(rcd) }, { "tRP", T(rp) }, { "tRAS", T(ras) }, { "tRC", T(rc) },
    { "tWR", T(wr) }, { "tRTP", T(rtp) }, { "tWTR_L", T(wtr_l) }, { "tWTR_S", T(wtr_s) },
    { "tRRD_L", T(rrd_l) }, { "tRRD_S", T(rrd_s) }, { "tCCD_L", T(ccd_l) }, { "tCCD_S", T(ccd_s) },
    { "tFAW", T(faw) }, { "tRTRS", T(rtrs) }, { "tRFC", T(rfc) }, { "tREFI", T(refi) },
    { "channels", C(channels) }, { "ranks", C(ranks) }, { "bank_groups", C(bank_groups) },
    { "banks_per_group", C(banks_per_group) }, { "rows", C(rows) }, { "columns", C(columns) },
    { "bus_bits", C(bus_bits) }, { "queue_size", C(queue_size) }, { "hit_cap", C(hit_cap) },
};
#undef T
#undef C

static bool parse_uint(const char *v, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 0);
    if (errno || end == v || *end || x > 0xffffffffu || v[0] == '-')
        return false;
    *out = (unsigned)x;
    return true;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct load *l = user;
    struct cgm_dram_config *cfg = l->cfg;
    if (l->msg[0])
        return 1; /* keep the first error's message; ini_parse reports its line */
    if (strcasecmp(section, "dram"))
        return 1; /* other sections belong to other parts of the configuration */
    bool is_preset = !strcasecmp(name, "preset");
    if (l->preset_pass != is_preset)
        return 1;
    if (is_preset) {
        if (cgm_dram_preset(value, cfg)) {
            snprintf(l->msg, sizeof l->msg, "key dram.preset: unknown preset \"%s\" "
                     "(DDR3-1600, DDR4-2400, GDDR5)", value);
            return 0;
        }
        return 1;
    }
    for (size_t i = 0; i < sizeof ukeys / sizeof ukeys[0]; i++) {
        if (strcasecmp(name, ukeys[i].name))
            continue;
        if (!parse_uint(value, (unsigned *)((char *)cfg + ukeys[i].off))) {
            snprintf(l->msg, sizeof l->msg, "key dram.%s: \"%s\" is not a non-negative integer",
                     name, value);
            return 0;
        }
        return 1;
    }
    unsigned v;
    if (!strcasecmp(name, "tWTR") || !strcasecmp(name, "tRRD") || !strcasecmp(name, "tCCD")) {
        if (!parse_uint(value, &v)) {
            snprintf(l->msg, sizeof l->msg, "key dram.%s: \"%s\" is not a non-negative integer",
                     name, value);
            return 0;
        }
        if (!strcasecmp(name, "tWTR"))
            cfg->t.wtr_l = cfg->t.wtr_s = v;
        else if (!strcasecmp(name, "tRRD"))
            cfg->t.rrd_l = cfg->t.rrd_s = v;
        else
            cfg->t.ccd_l = cfg->t.ccd_s = v;
        return 1;
    }
    if (!strcasecmp(name, "tCK_ns")) {
        char *end;
        double x = strtod(value, &end);
        if (end == value || *end || !(x > 0) || x > 1000) {
            snprintf(l->msg, sizeof l->msg, "key dram.tCK_ns: \"%s\" is not a period in ns", value);
            return 0;
        }
        cfg->t.tck_ns = x;
        return 1;
    }
    if (!strcasecmp(name, "page_policy")) {
        if (!strcasecmp(value, "open"))
            cfg->page_policy = CGM_DRAM_OPEN_PAGE;
        else if (!strcasecmp(value, "closed"))
            cfg->page_policy = CGM_DRAM_CLOSED_PAGE;
        else {
            snprintf(l->msg, sizeof l->msg, "key dram.page_policy: \"%s\" is not open or closed", value);
            return 0;
        }
        return 1;
    }
    if (!strcasecmp(name, "mapping")) {
        if (strlen(value) >= sizeof cfg->mapping) {
            snprintf(l->msg, sizeof l->msg, "key dram.mapping: too long");
            return 0;
        }
        snprintf(cfg->mapping, sizeof cfg->mapping, "%s", value);
        return 1;
    }
    snprintf(l->msg, sizeof l->msg, "unknown key dram.%s", name);
    return 0;
}

int cgm_dram_config_load(const char *path, struct cgm_dram_config *cfg, char *err, size_t errlen)
{
    struct load l = { .cfg = cfg, .preset_pass = true };
    for (int pass = 0; pass < 2; pass++) {
        l.preset_pass = pass == 0;
        l.msg[0] = 0;
        int rc = ini_parse(path, handler, &l);
        if (rc == -1) {
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
            return -1;
        }
        if (rc == -2) {
            snprintf(err, errlen, "%s: out of memory", path);
            return -1;
        }
        if (rc > 0) {
            snprintf(err, errlen, "%s:%d: %s", path, rc, l.msg[0] ? l.msg : "syntax error");
            return -1;
        }
    }
    char why[200];
    if (cgm_dram_config_validate(cfg, why, sizeof why)) {
        snprintf(err, errlen, "%s: [dram]: %s", path, why);
        return -1;
    }
    return 0;
}
