/* Southern Islands record statistics (see cgm/sistats.h). */
#include "cgm/sistats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

unsigned cgm_si_distinct_lines(const struct cgm_si_dyn *d, unsigned size)
{
    uint64_t lines[2 * CGM_SI_LANES];
    unsigned n = 0;
    if (size == 0)
        size = 1;
    for (uint64_t m = d->exec; m; m &= m - 1) {
        int l = __builtin_ctzll(m);
        uint64_t first = d->addr[l] / CGM_SI_LINE_BYTES;
        uint64_t last = (d->addr[l] + size - 1) / CGM_SI_LINE_BYTES;
        lines[n++] = first;
        if (last != first)                  /* an access spans two lines at most (size <= 64) */
            lines[n++] = last;
    }
    qsort(lines, n, sizeof lines[0], cmp_u64);
    unsigned distinct = 0;
    for (unsigned i = 0; i < n; i++)
        distinct += i == 0 || lines[i] != lines[i - 1];
    return distinct;
}

unsigned cgm_si_lds_bank_cycles(const struct cgm_si_dyn *d, unsigned bytes, unsigned banks)
{
    unsigned words = bytes > 4 ? (bytes + 3) / 4 : 1, cycles = 0;
    if (words > CGM_SI_LDS_WORDS_MAX)
        words = CGM_SI_LDS_WORDS_MAX;
    if (banks == 0 || banks > CGM_SI_LDS_BANKS_MAX)
        banks = CGM_SI_LDS_BANKS;
    for (unsigned half = 0; half < 2; half++) {
        uint64_t dw[32 * CGM_SI_LDS_WORDS_MAX];
        unsigned n = 0;
        for (uint64_t m = d->exec >> (32 * half) & 0xffffffffu; m; m &= m - 1) {
            unsigned l = 32 * half + (unsigned)__builtin_ctzll(m);
            for (unsigned w = 0; w < words; w++) {
                /* insertion in order: a half-wave has few words */
                uint64_t v = d->addr[l] / 4 + w;
                unsigned i = n++;
                for (; i && dw[i - 1] > v; i--)
                    dw[i] = dw[i - 1];
                dw[i] = v;
            }
        }
        if (n == 0)
            continue;
        unsigned per_bank[CGM_SI_LDS_BANKS_MAX] = { 0 }, worst = 0;
        for (unsigned i = 0; i < n; i++) {
            if (i && dw[i] == dw[i - 1])
                continue;                       /* same dword: broadcast */
            unsigned b = (unsigned)(dw[i] % banks);
            if (++per_bank[b] > worst)
                worst = per_bank[b];
        }
        cycles += worst;
    }
    return cycles;
}

unsigned cgm_si_lds_cycles(const struct cgm_si_dyn *d)
{
    return cgm_si_lds_bank_cycles(d, 4, CGM_SI_LDS_BANKS);
}

void cgm_si_stats_add(struct cgm_si_stats *st, const struct cgm_si_static *s,
                      const struct cgm_si_dyn *d)
{
    unsigned lanes = (unsigned)__builtin_popcountll(d->exec);
    if (s->unit < CGM_SI_UNIT_COUNT)
        st->by_unit[s->unit]++;
    st->lanes += lanes;
    if (s->access == CGM_SI_NONE)
        return;
    if (s->unit == CGM_SI_VMEM && lanes) {
        st->vmem_insts++;
        st->vmem_lanes += lanes;
        st->vmem_lines += cgm_si_distinct_lines(d, s->access_size);
    } else if (s->unit == CGM_SI_LDS && lanes) {
        st->lds_insts++;
        st->lds_cycles += cgm_si_lds_cycles(d);
    } else if (s->unit == CGM_SI_SMEM) {
        st->smem_insts++;
    }
}

void cgm_si_stats_print(FILE *out, const struct cgm_si_stats *st)
{
    uint64_t total = 0;
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        total += st->by_unit[u];
    fprintf(out, "wavefront instructions %" PRIu64 ", %.1f active lanes each\n", total,
            total ? (double)st->lanes / (double)total : 0.0);
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        if (st->by_unit[u])
            fprintf(out, "  %-8s %12" PRIu64 "  %5.1f%%\n", cgm_si_unit_name(u), st->by_unit[u],
                    100.0 * (double)st->by_unit[u] / (double)total);
    if (st->vmem_insts)
        fprintf(out, "vector memory: %" PRIu64 " instructions, %.2f distinct 64-byte lines each "
                "(%.1f lanes each)\n", st->vmem_insts,
                (double)st->vmem_lines / (double)st->vmem_insts,
                (double)st->vmem_lanes / (double)st->vmem_insts);
    if (st->lds_insts)
        fprintf(out, "LDS: %" PRIu64 " instructions, %.2f cycles each (2 without bank "
                "conflicts)\n", st->lds_insts, (double)st->lds_cycles / (double)st->lds_insts);
    if (st->smem_insts)
        fprintf(out, "scalar memory: %" PRIu64 " loads\n", st->smem_insts);
}

void cgm_si_print_access(FILE *out, const struct cgm_si_static *s, const struct cgm_si_dyn *d)
{
    if (!s || s->access == CGM_SI_NONE)
        return;
    static const char *const kinds[] = { "", "load", "store", "atomic" };
    if (s->unit == CGM_SI_SMEM) {
        fprintf(out, " %s %u bytes at 0x%" PRIx64, kinds[s->access], s->access_size, d->addr[0]);
    } else if (d->exec) {
        int first = __builtin_ctzll(d->exec);
        fprintf(out, " %s %u bytes/lane from 0x%" PRIx64 " (lane %d)", kinds[s->access],
                s->access_size, d->addr[first], first);
        if (s->unit == CGM_SI_VMEM)
            fprintf(out, ", %u lines", cgm_si_distinct_lines(d, s->access_size));
        else
            fprintf(out, ", %u cycles", cgm_si_lds_cycles(d));
    }
}

void cgm_si_dump_wave(FILE *out, const struct cgm_si_codec *c, unsigned wave,
                      const struct cgm_si_dyn *insts, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct cgm_si_dyn *d = &insts[i];
        long k = cgm_si_static_find(c, d->offset);
        const struct cgm_si_static *s = k >= 0 ? &c->table[k] : NULL;
        fprintf(out, "wave %u 0x%06" PRIx32 " %-7s exec=%016" PRIx64, wave, d->offset,
                s ? cgm_si_unit_name(s->unit) : "?", d->exec);
        cgm_si_print_access(out, s, d);
        fputc('\n', out);
    }
}
