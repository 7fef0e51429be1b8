/* Statistics over Southern Islands records for tracetool and replay
 * front ends: the instruction mix by unit, how many distinct 64-byte lines
 * each vector memory instruction touches (its coalescing potential), and
 * LDS bank conflicts (32 banks of 4 bytes, a half-wavefront per cycle). */
#ifndef CGM_SISTATS_H
#define CGM_SISTATS_H

#include <stdint.h>
#include <stdio.h>

#include "cgm/sirec.h"

#define CGM_SI_LINE_BYTES 64u
#define CGM_SI_LDS_BANKS  32u
#define CGM_SI_LDS_BANKS_MAX 64u
#define CGM_SI_LDS_WORDS_MAX 4u     /* dwords one lane's LDS access touches */

struct cgm_si_stats {
    uint64_t by_unit[CGM_SI_UNIT_COUNT];   /* wavefront instructions */
    uint64_t lanes;                        /* active lanes summed */
    uint64_t vmem_insts, vmem_lines;       /* lines summed over vector memory instructions */
    uint64_t vmem_lanes;
    uint64_t lds_insts, lds_cycles;        /* cycles: per half-wave the busiest bank */
    uint64_t smem_insts;
};

/* Distinct 64-byte lines the active lanes of D touch with SIZE bytes each. */
unsigned cgm_si_distinct_lines(const struct cgm_si_dyn *d, unsigned size);
/* Cycles an LDS access needs: for each half-wavefront, the largest number of
 * different dword addresses that fall in one bank (lanes reading the same
 * dword share it); at least 1 per half with an active lane. */
unsigned cgm_si_lds_cycles(const struct cgm_si_dyn *d);
/* The same for BANKS banks (at most CGM_SI_LDS_BANKS_MAX) of 4 bytes, each
 * lane touching the dwords of BYTES bytes from its address. */
unsigned cgm_si_lds_bank_cycles(const struct cgm_si_dyn *d, unsigned bytes, unsigned banks);

void cgm_si_stats_add(struct cgm_si_stats *st, const struct cgm_si_static *s,
                      const struct cgm_si_dyn *d);
void cgm_si_stats_print(FILE *out, const struct cgm_si_stats *st);

/* Prints " load 4 bytes/lane from ADDR (lane L), N lines" and the like
 * for a memory instruction; nothing for others. */
void cgm_si_print_access(FILE *out, const struct cgm_si_static *s, const struct cgm_si_dyn *d);

/* Prints one decoded WAVE record (one line per instruction) for dumps. */
void cgm_si_dump_wave(FILE *out, const struct cgm_si_codec *c, unsigned wave,
                      const struct cgm_si_dyn *insts, unsigned n);

#endif
