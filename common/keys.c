/* The key-table engine (cgm/keys.h): parsing with units, range and rule
 * checks, defaults and printing, for every table's rows. */
#include "cgm/keys.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgm/bits.h"
#include "cgm/nearest.h"

const char *cgm_key_unit(const struct cgm_key *k)
{
    switch (CGM_KEY_TYPE(k)) {
    case CGM_KEY_BYTES: return "bytes (KiB, MiB, GiB suffixes)";
    case CGM_KEY_HZ: return "Hz (kHz, MHz, GHz suffixes)";
    case CGM_KEY_CYCLES: return "cycles";
    case CGM_KEY_ENUM: return "name";
    case CGM_KEY_MODEL: return "name";
    default: return "count";
    }
}

/* A fraction is taken when the value it gives is whole (1.5GHz, 0.5KiB;
 * not 1.5 cores or 0.3B). KB, MB and GB, in any case, are the powers of
 * 1024 that KiB, MiB and GiB are: a cache's 16KB means 16 KiB. */
int cgm_key_parse(const char *text, enum cgm_key_type type, uint64_t *out)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno)
        return -1;
    /* at most 9 digits of fraction: fraction x unit stays within 64 bits */
    uint64_t frac = 0, frac_scale = 1;
    if (*end == '.') {
        end++;
        if (!isdigit((unsigned char)*end))
            return -1;
        for (; isdigit((unsigned char)*end); end++) {
            if (frac_scale == 1000000000u)
                return -1;
            frac = frac * 10 + (uint64_t)(*end - '0');
            frac_scale *= 10;
        }
    }
    while (isspace((unsigned char)*end))
        end++;
    uint64_t mult = 1;
    if (*end) {
        static const struct { const char *s; enum cgm_key_type t; uint64_t m; } sfx[] = {
            { "KiB", CGM_KEY_BYTES, 1ull << 10 }, { "MiB", CGM_KEY_BYTES, 1ull << 20 },
            { "GiB", CGM_KEY_BYTES, 1ull << 30 }, { "KB", CGM_KEY_BYTES, 1ull << 10 },
            { "MB", CGM_KEY_BYTES, 1ull << 20 }, { "GB", CGM_KEY_BYTES, 1ull << 30 },
            { "K", CGM_KEY_BYTES, 1ull << 10 }, { "M", CGM_KEY_BYTES, 1ull << 20 },
            { "G", CGM_KEY_BYTES, 1ull << 30 }, { "B", CGM_KEY_BYTES, 1 },
            { "Hz", CGM_KEY_HZ, 1 }, { "kHz", CGM_KEY_HZ, 1000 }, { "MHz", CGM_KEY_HZ, 1000000 },
            { "GHz", CGM_KEY_HZ, 1000000000 },
        };
        size_t n = strlen(end);
        while (n && isspace((unsigned char)end[n - 1]))
            n--;
        bool found = false;
        for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
            if (sfx[i].t == type && strlen(sfx[i].s) == n && !strncasecmp(end, sfx[i].s, n)) {
                mult = sfx[i].m;
                found = true;
                break;
            }
        if (!found)
            return -1;
    }
    if (frac * mult % frac_scale)
        return -1;
    uint64_t part = frac * mult / frac_scale;
    if (v > UINT64_MAX / mult || v * mult > UINT64_MAX - part)
        return -1;
    *out = v * mult + part;
    return 0;
}

void cgm_key_format(enum cgm_key_type type, uint64_t v, char *buf, size_t len)
{
    if (type == CGM_KEY_BYTES && v && !(v % (1ull << 30)))
        snprintf(buf, len, "%" PRIu64 "GiB", v >> 30);
    else if (type == CGM_KEY_BYTES && v && !(v % (1ull << 20)))
        snprintf(buf, len, "%" PRIu64 "MiB", v >> 20);
    else if (type == CGM_KEY_BYTES && v && !(v % 1024))
        snprintf(buf, len, "%" PRIu64 "KiB", v >> 10);
    else if (type == CGM_KEY_HZ && v && !(v % 1000000000))
        snprintf(buf, len, "%" PRIu64 "GHz", v / 1000000000);
    else if (type == CGM_KEY_HZ && v && !(v % 1000000))
        snprintf(buf, len, "%" PRIu64 "MHz", v / 1000000);
    else if (type == CGM_KEY_HZ)
        snprintf(buf, len, "%" PRIu64 "Hz", v);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

uint64_t cgm_key_get(const struct cgm_key *k, const void *cfg)
{
    const char *at = (const char *)cfg + k->offset;
    if (k->type & CGM_KEY_U32) {
        unsigned v;
        memcpy(&v, at, sizeof v);
        return v;
    }
    uint64_t v;
    memcpy(&v, at, sizeof v);
    return v;
}

void cgm_key_put(const struct cgm_key *k, void *cfg, uint64_t v)
{
    char *at = (char *)cfg + k->offset;
    if (k->type & CGM_KEY_U32) {
        unsigned u = (unsigned)v; /* the row's max keeps it in range */
        memcpy(at, &u, sizeof u);
    } else {
        memcpy(at, &v, sizeof v);
    }
}

__attribute__((format(printf, 3, 4)))
static int key_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int cgm_key_number(const struct cgm_key *k, const char *text, const char *at, uint64_t *out, char *err,
                   size_t errlen)
{
    uint64_t v = 0;
    if (cgm_key_parse(text, CGM_KEY_TYPE(k), &v))
        return key_error(err, errlen, "%s: %s.%s: '%s' is not a valid value (%s)", at, k->section, k->name, text,
                         cgm_key_unit(k));
    if (v < k->min || v > k->max)
        return key_error(err, errlen, "%s: %s.%s: %" PRIu64 " is out of range [%" PRIu64 ", %" PRIu64 "]", at,
                         k->section, k->name, v, k->min, k->max);
    *out = v;
    return 0;
}

int cgm_key_set(const struct cgm_key *k, void *cfg, const char *text, const char *at, char *err, size_t errlen)
{
    if (CGM_KEY_TYPE(k) == CGM_KEY_ENUM) {
        for (uint64_t i = 0; k->names[i]; i++)
            if (!strcmp(k->names[i], text)) {
                cgm_key_put(k, cfg, i);
                return 0;
            }
        char list[128] = "", hint[96] = "";
        struct cgm_nearest near = { NULL, 0 };
        for (size_t i = 0; k->names[i]; i++) {
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, k->names[i], sizeof list - strlen(list) - 1);
            cgm_nearest_offer(&near, text, k->names[i]);
        }
        if (near.best)
            snprintf(hint, sizeof hint, " (did you mean %s?)", near.best);
        return key_error(err, errlen, "%s: %s.%s: '%s' is not one of %s%s", at, k->section, k->name, text, list,
                         hint);
    }
    uint64_t v = 0;
    if (cgm_key_number(k, text, at, &v, err, errlen))
        return -1;
    cgm_key_put(k, cfg, v);
    return 0;
}

int cgm_keys_defaults(const struct cgm_key *keys, size_t n, void *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (CGM_KEY_TYPE(&keys[i]) != CGM_KEY_MODEL && cgm_key_set(&keys[i], cfg, keys[i].def, "default", err, errlen))
            return -1;
    return 0;
}

void cgm_keys_copy(const struct cgm_key *keys, size_t n, void *to, const void *from)
{
    for (size_t i = 0; i < n; i++)
        if (CGM_KEY_TYPE(&keys[i]) != CGM_KEY_MODEL)
            cgm_key_put(&keys[i], to, cgm_key_get(&keys[i], from));
}

int cgm_keys_check(const struct cgm_key *keys, size_t n, const void *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const struct cgm_key *k = &keys[i];
        if (!(k->type & (CGM_KEY_POW2 | CGM_KEY_POW2_OR_0)))
            continue;
        uint64_t v = cgm_key_get(k, cfg);
        if (!cgm_pow2(v) && !(v == 0 && (k->type & CGM_KEY_POW2_OR_0)))
            return key_error(err, errlen, "%s.%s: %" PRIu64 " is not a power of two", k->section, k->name, v);
    }
    return 0;
}

void cgm_key_print(const struct cgm_key *k, const void *cfg, FILE *out)
{
    fprintf(out, "; %s; %s", k->doc, cgm_key_unit(k));
    if (CGM_KEY_TYPE(k) != CGM_KEY_ENUM)
        fprintf(out, ", %" PRIu64 "..%" PRIu64, k->min, k->max);
    fprintf(out, "; default %s\n%s = ", k->def, k->name);
    uint64_t v = cgm_key_get(k, cfg);
    if (CGM_KEY_TYPE(k) == CGM_KEY_ENUM) {
        fputs(k->names[v], out);
    } else {
        char buf[32];
        cgm_key_format(CGM_KEY_TYPE(k), v, buf, sizeof buf);
        fputs(buf, out);
    }
    fputc('\n', out);
}
