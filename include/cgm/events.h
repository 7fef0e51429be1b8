/* Event records: what happens between instructions that replay must
 * reproduce (threads, synchronization, system calls, memory map changes,
 * GPU calls, region-of-interest markers). They travel in the stream of the
 * thread that caused them, ordered against its instruction records.
 *
 * Every record starts with a type byte:
 *   0x01..0x3f  events (this file)
 *   0x40..0x7f  x86 instruction records (cgm/x86rec.h)
 *   0x80..0xbf  Southern Islands records
 *   0xc0..0xff  reserved
 * An event is its type byte followed by its fields as varints (signed
 * fields zigzag-coded), in the order the table in formats/events.c gives. */
#ifndef CGM_EVENTS_H
#define CGM_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CGM_EVENT_FIRST 0x01
#define CGM_EVENT_LAST  0x3f
#define CGM_EVENT_FIELDS_MAX 10
#define CGM_EVENT_BYTES_MAX (1 + CGM_EVENT_FIELDS_MAX * 10)

enum cgm_event_type {
    /* Threads. seq: a number tracegen gives every synchronizing event, in the
     * order it executed them; replay orders events by it. */
    CGM_EV_THREAD_CREATE = 0x01, /* seq, child_tid, clone_flags */
    CGM_EV_THREAD_EXIT   = 0x02, /* seq, tid, status */
    /* Futexes. A wait that was woken names the seq of the wake that woke it
     * (woken_by = 0: it returned without sleeping or timed out). */
    CGM_EV_FUTEX_WAIT    = 0x03, /* seq, uaddr, woken_by, result */
    CGM_EV_FUTEX_WAKE    = 0x04, /* seq, uaddr, woken, op */
    /* A system call: number, result, and 1 if the thread blocked in it. */
    CGM_EV_SYSCALL       = 0x05, /* nr, result, blocked */
    /* Memory map changes. */
    CGM_EV_MMAP          = 0x06, /* addr, length, prot, flags */
    CGM_EV_MUNMAP        = 0x07, /* addr, length */
    CGM_EV_MPROTECT      = 0x08, /* addr, length, prot */
    CGM_EV_BRK           = 0x09, /* old_end, new_end */
    /* GPU calls from the host thread. */
    CGM_EV_GPU_LOAD      = 0x10, /* program, code_bytes */
    CGM_EV_GPU_ALLOC     = 0x11, /* addr, bytes */
    CGM_EV_GPU_FREE      = 0x12, /* addr */
    CGM_EV_GPU_COPY      = 0x13, /* dst, src, bytes */
    CGM_EV_GPU_LAUNCH    = 0x14, /* launch, kernel, dims, grid_x, grid_y, grid_z,
                                    group_x, group_y, group_z, lds_bytes */
    CGM_EV_GPU_LAUNCH_MEM = 0x15, /* launch, scratch_bytes, args_bytes */
    CGM_EV_GPU_DONE      = 0x16, /* launch */
    CGM_EV_GPU_WAIT      = 0x17, /* seq */
    /* Region of interest, set by the guest. */
    CGM_EV_ROI_BEGIN     = 0x20, /* seq */
    CGM_EV_ROI_END       = 0x21, /* seq */
};

struct cgm_event {
    uint8_t type;
    uint64_t f[CGM_EVENT_FIELDS_MAX]; /* signed fields hold int64_t values */
};

/* The type's name ("futex_wait"), or NULL for a type that is not an event. */
const char *cgm_event_name(uint8_t type);
/* Number of fields of TYPE (-1 for an unknown type), and their names. */
int cgm_event_field_count(uint8_t type);
const char *cgm_event_field_name(uint8_t type, int field);

/* Encodes EV into OUT (at least CGM_EVENT_BYTES_MAX bytes); returns the
 * length, or 0 for an unknown type. */
size_t cgm_event_encode(uint8_t *out, const struct cgm_event *ev);
/* Decodes one whole record. Returns 0, or -1 when the record is not a
 * well-formed event (unknown type, short, or trailing bytes). */
int cgm_event_decode(const uint8_t *rec, size_t len, struct cgm_event *ev);
/* Prints "name field=value ..." (no newline). */
void cgm_event_print(FILE *out, const struct cgm_event *ev);

#endif
