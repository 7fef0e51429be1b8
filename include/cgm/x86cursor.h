/* An x86 thread stream one instruction at a time, for tools and bindings
 * that want instructions rather than records (the Python reader, tracetool
 * export): each block record's instructions with their addresses, walked
 * through the static table; the memory accesses each made (those of the
 * PARTIAL records before its block first, in the order made); and the
 * event records that follow each instruction in the stream.
 *
 * Events belong to the instruction before them: the ones between a block
 * record and the next BLOCK record go with that block's last instruction
 * (a system call's event with its syscall instruction). Events before the
 * stream's first instruction come as one item of events only (st NULL). */
#ifndef CGM_X86CURSOR_H
#define CGM_X86CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/events.h"
#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "cgm/x86view.h"

struct cgm_x86_insn {
    uint64_t ip;                      /* 0 in an item of events only */
    const struct cgm_x86_static *st;  /* its static entry; NULL: events only */
    uint64_t record;                  /* stream record number of its block */
    uint32_t index;                   /* its position in the block */
    uint32_t naccess;
    uint32_t nevent;
    const struct cgm_x86_access *acc; /* NACCESS accesses (insn is INDEX) */
    const struct cgm_event *ev;       /* NEVENT events after it */
};

struct cgm_x86_cursor;

/* Walks x86 thread stream SI of R with the static table V (both must
 * outlive the cursor). Returns NULL with ERR when SI is not an x86 thread
 * stream or memory runs out. */
struct cgm_x86_cursor *cgm_x86_cursor_open(struct cgm_reader *r, const struct cgm_x86_view *v,
                                           size_t si, char *err, size_t errlen);
void cgm_x86_cursor_close(struct cgm_x86_cursor *c);

/* The next item: 1 with *OUT set (its pointers valid until the next call),
 * 0 at the end of the stream, -1 on a damaged or malformed stream (see
 * cgm_x86_cursor_error: it names the stream, the record and the fault). */
int cgm_x86_cursor_next(struct cgm_x86_cursor *c, struct cgm_x86_insn *out);
/* Makes the next cgm_x86_cursor_next return the item it returned last. */
void cgm_x86_cursor_unget(struct cgm_x86_cursor *c);
const char *cgm_x86_cursor_error(const struct cgm_x86_cursor *c);

/* Instructions as columns, for array consumers: up to CAP_INSN
 * instructions and CAP_ACC accesses. Items of events only are skipped;
 * NEVENT counts each instruction's events. */
struct cgm_x86_columns {
    size_t cap_insn, cap_acc;
    uint64_t *ip;
    uint32_t *naccess, *nevent;
    uint64_t *acc_addr;
    uint32_t *acc_size;
    uint8_t *acc_write;
    size_t n_insn, n_acc;             /* filled by cgm_x86_cursor_fill */
    size_t need_acc;                  /* see below */
};
/* Fills COL from the next instructions. Returns 1 when it filled any, 0
 * at the end of the stream, -1 as cgm_x86_cursor_next. An instruction
 * with more accesses than CAP_ACC (a long rep string) fills nothing: the
 * call returns 1 with N_INSN 0 and NEED_ACC set to its count, and the
 * next call with that much room returns it. */
int cgm_x86_cursor_fill(struct cgm_x86_cursor *c, struct cgm_x86_columns *col);

#endif
