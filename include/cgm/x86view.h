/* Reading x86 traces for people and tools: the static code table with
 * capstone disassembly, a text dump of a thread stream, and statistics
 * (instruction mix by class, data footprint, per-thread counts). */
#ifndef CGM_X86VIEW_H
#define CGM_X86VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "cgm/trace.h"
#include "cgm/x86rec.h"

struct cgm_x86_view;

/* Loads the x86.static section of R. Returns NULL with ERR when the trace
 * has none or it is malformed (the message names the entry). */
struct cgm_x86_view *cgm_x86_view_open(struct cgm_reader *r, char *err, size_t errlen);
void cgm_x86_view_close(struct cgm_x86_view *v);

size_t cgm_x86_view_count(const struct cgm_x86_view *v);
/* The static instruction at ADDR, or NULL. */
const struct cgm_x86_static *cgm_x86_view_find(const struct cgm_x86_view *v, uint64_t addr);
/* "mnemonic operands" of the instruction at ADDR ("?" when unknown). */
const char *cgm_x86_view_disasm(struct cgm_x86_view *v, uint64_t addr);

/* Prints records [FROM, FROM+COUNT) of x86 thread stream SI as text:
 * blocks with each instruction's address, disassembly and accesses, and
 * events. Returns 0, or -1 with ERR on a damaged stream. */
int cgm_x86_dump_stream(FILE *out, struct cgm_x86_view *v, struct cgm_reader *r, size_t si,
                        uint64_t from, uint64_t count, char *err, size_t errlen);

struct cgm_x86_stats {
    uint64_t instructions;
    uint64_t by_class[CGM_X86_CLASS_COUNT];
    uint64_t blocks;
    uint64_t reads, writes, bytes_read, bytes_written;
    uint64_t events;
};

struct cgm_x86_footprint;
/* Distinct 64-byte lines and 4 KiB pages touched by data accesses,
 * accumulated over any number of streams. */
struct cgm_x86_footprint *cgm_x86_footprint_new(void);
void cgm_x86_footprint_free(struct cgm_x86_footprint *f);
uint64_t cgm_x86_footprint_lines(const struct cgm_x86_footprint *f);
uint64_t cgm_x86_footprint_pages(const struct cgm_x86_footprint *f);

/* Adds stream SI's counts to *S and its accesses to F (may be NULL).
 * Returns 0, or -1 with ERR on a damaged stream. */
int cgm_x86_stream_stats(struct cgm_x86_view *v, struct cgm_reader *r, size_t si,
                         struct cgm_x86_stats *s, struct cgm_x86_footprint *f, char *err,
                         size_t errlen);

#endif
