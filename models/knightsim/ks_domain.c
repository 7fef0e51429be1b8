/*
 * Clock domains and the global time base: one tick is 1/L seconds, L being the
 * least common multiple of every domain's frequency, so every period is an
 * exact integer number of ticks and no rounding ever happens.
 */
#include "ks_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KS_AUTO_ROWS_MAX 65536u

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

ks_domain *ks_domain_create(ks_engine *eng, const char *name, uint64_t freq_hz)
{
    if (eng->timebase_fixed) {
        ks_set_error(eng, "clock domain '%s': domains must be created before the first run",
                     name ? name : "?");
        return NULL;
    }
    if (freq_hz == 0 || freq_hz > KS_MAX_TICK_HZ) {
        ks_set_error(eng, "clock domain '%s': frequency %llu Hz is out of range (1..%llu)",
                     name ? name : "?", (unsigned long long)freq_hz,
                     (unsigned long long)KS_MAX_TICK_HZ);
        return NULL;
    }
    ks_domain *d = calloc(1, sizeof *d);
    if (!d) {
        ks_set_error(eng, "clock domain: out of memory");
        return NULL;
    }
    d->eng = eng;
    d->freq_hz = freq_hz;
    snprintf(d->name, sizeof d->name, "%s", name ? name : "domain");
    ks_domain **tail = &eng->domains;
    while (*tail)
        tail = &(*tail)->next;
    *tail = d;
    return d;
}

bool ks_timebase_fix(ks_engine *eng)
{
    if (eng->timebase_fixed)
        return !eng->timebase_bad;
    eng->timebase_fixed = true;
    uint64_t l = 1;
    for (ks_domain *d = eng->domains; d; d = d->next) {
        uint64_t step = d->freq_hz / gcd(l, d->freq_hz);
        if (l > KS_MAX_TICK_HZ / step) {
            ks_set_error(eng, "clock domains: the common time base of these frequencies "
                              "exceeds %llu Hz (domain '%s', %llu Hz)",
                         (unsigned long long)KS_MAX_TICK_HZ, d->name,
                         (unsigned long long)d->freq_hz);
            eng->timebase_bad = true;
            return false;
        }
        l *= step;
    }
    eng->tick_hz = l;
    ks_tick slowest = 1;
    for (ks_domain *d = eng->domains; d; d = d->next) {
        d->period = l / d->freq_hz;
        d->cycle_now = eng->now / d->period;
        d->edge = d->cycle_now * d->period;
        slowest = d->period > slowest ? d->period : slowest;
    }

    /* The seed's table covers 512 cycles; with a fine time base that takes
     * more rows (up to KS_AUTO_ROWS_MAX), so common pauses of the slowest
     * domain stay off the overflow heap. */
    if (eng->rows_auto) {
        size_t rows = eng->cfg.table_rows;
        while (rows < KS_AUTO_ROWS_MAX && rows < (size_t)slowest * eng->cfg.table_rows)
            rows *= 2;
        if (rows != eng->cfg.table_rows && !ks_tables_resize(eng, rows)) {
            ks_set_error(eng, "clock domains: out of memory for a %zu-row batch table", rows);
            eng->timebase_bad = true;
            return false;
        }
    }
    for (ks_context *c = eng->all; c; c = c->all_next)
        ks_context_timing(c);
    return true;
}

void ks_domains_free(ks_engine *eng)
{
    ks_domain *d = eng->domains;
    while (d) {
        ks_domain *n = d->next;
        free(d);
        d = n;
    }
    eng->domains = NULL;
}

ks_domain *ks_domain_default(ks_engine *eng) { return eng->default_domain; }
const char *ks_domain_name(const ks_domain *d) { return d->name; }
uint64_t ks_domain_freq_hz(const ks_domain *d) { return d->freq_hz; }

uint64_t ks_tick_hz(ks_engine *eng)
{
    return ks_timebase_fix(eng) ? eng->tick_hz : 0;
}

ks_tick ks_domain_period(const ks_domain *d)
{
    return ks_timebase_fix(d->eng) ? d->period : 0;
}

ks_tick ks_domain_cycle_tick(const ks_domain *d, uint64_t cycle)
{
    ks_tick p = ks_domain_period(d);
    return p && cycle > UINT64_MAX / p ? UINT64_MAX : cycle * p;
}

uint64_t ks_domain_cycle(const ks_domain *d)
{
    return ks_timebase_fix(d->eng) ? d->cycle_now : 0;
}

void ks_time_set(ks_engine *eng, ks_tick t)
{
    eng->now = t;
    for (unsigned i = 0; i < eng->nworkers; i++)
        eng->workers[i].now = t;
    if (eng->timebase_fixed && !eng->timebase_bad)
        ks_domains_step(eng, t);
}
