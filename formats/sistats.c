/* Southern Islands record statistics (see cgm/sistats.h). */
#include "cgm/sistats.h"

#include <inttypes.h>
#include <stdbool.h>
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

/* Whether the one-dword accesses of the lanes in EXEC each fall in a bank
 * of their own (BANK_MASK + 1 banks): then a cycle serves them all. */
static bool banks_apart(const struct cgm_si_dyn *d, uint64_t exec, unsigned first_lane, uint64_t bank_mask)
{
    uint64_t in_use = 0;
    for (uint64_t m = exec; m; m &= m - 1) {
        uint64_t bit = 1ull << (d->addr[first_lane + (unsigned)__builtin_ctzll(m)] / 4 & bank_mask);
        if (in_use & bit)
            return false;
        in_use |= bit;
    }
    return true;
}

/* A half-wave takes as many cycles as its busiest bank has distinct dwords
 * to serve. Each bank keeps a chain of the dwords it serves, met in lane
 * order: a lane's dword costs a test of its bank's bit and, when the bank
 * is in use already (a conflict or a broadcast), a walk of a chain that is
 * rarely more than a few long. */
unsigned cgm_si_lds_bank_cycles(const struct cgm_si_dyn *d, unsigned bytes, unsigned banks)
{
    enum { END = 0xff }; /* a chain's end: 32 lanes x 4 words stay below it */
    unsigned words = bytes > 4 ? (bytes + 3) / 4 : 1, cycles = 0;
    if (words > CGM_SI_LDS_WORDS_MAX)
        words = CGM_SI_LDS_WORDS_MAX;
    if (banks == 0 || banks > CGM_SI_LDS_BANKS_MAX)
        banks = CGM_SI_LDS_BANKS;
    uint64_t bank_mask = banks & (banks - 1) ? 0 : banks - 1; /* a power of two: no division */
    for (unsigned half = 0; half < 2; half++) {
        uint64_t dword[32 * CGM_SI_LDS_WORDS_MAX], in_use = 0;
        uint8_t next[32 * CGM_SI_LDS_WORDS_MAX], head[CGM_SI_LDS_BANKS_MAX], served[CGM_SI_LDS_BANKS_MAX];
        unsigned n = 0, worst = 0;
        uint64_t exec = d->exec >> (32 * half) & 0xffffffffu;
        if (words == 1 && bank_mask && banks_apart(d, exec, 32 * half, bank_mask)) {
            cycles += exec != 0;
            continue;
        }
        for (uint64_t m = exec; m; m &= m - 1) {
            unsigned l = 32 * half + (unsigned)__builtin_ctzll(m);
            for (unsigned w = 0; w < words; w++) {
                uint64_t v = d->addr[l] / 4 + w;
                unsigned b = (unsigned)(bank_mask ? v & bank_mask : v % banks);
                if (in_use >> b & 1) {
                    unsigned e = head[b];
                    while (e != END && dword[e] != v)
                        e = next[e];
                    if (e != END)
                        continue; /* the same dword: a broadcast */
                    next[n] = head[b];
                    served[b]++;
                } else {
                    in_use |= 1ull << b;
                    next[n] = END;
                    served[b] = 1;
                }
                dword[n] = v;
                head[b] = (uint8_t)n++;
                if (served[b] > worst)
                    worst = served[b];
            }
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
