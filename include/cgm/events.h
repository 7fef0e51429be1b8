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
 * fields zigzag-coded), in the order cgm/events.def gives. */
#ifndef CGM_EVENTS_H
#define CGM_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CGM_EVENT_FIRST 0x01
#define CGM_EVENT_LAST  0x3f
#define CGM_EVENT_FIELDS_MAX 10
#define CGM_EVENT_BYTES_MAX (1 + CGM_EVENT_FIELDS_MAX * 10)

/* The types and their fields: cgm/events.def. */
enum cgm_event_type {
#define CGM_EVENT(e, code, name) CGM_EV_##e = code,
#define CGM_FIELD(e, i, f, name, kind)
#include "cgm/events.def"
#undef CGM_EVENT
#undef CGM_FIELD
};

/* Field indices into struct cgm_event's f[]: CGM_EVF_FUTEX_WAIT_WOKEN_BY. */
enum cgm_event_field {
#define CGM_EVENT(e, code, name)
#define CGM_FIELD(e, i, f, name, kind) CGM_EVF_##e##_##f = i,
#include "cgm/events.def"
#undef CGM_EVENT
#undef CGM_FIELD
};

/* mmap flags are Linux's: the one replay needs. */
#define CGM_MMAP_FIXED 0x10u

/* What a gpu_map event maps. */
enum cgm_gpu_map_what { CGM_GPU_MAP_CODE = 1, CGM_GPU_MAP_LAUNCH = 2 };

struct cgm_event {
    uint8_t type;
    uint64_t f[CGM_EVENT_FIELDS_MAX]; /* signed fields hold int64_t values */
};

/* The type's name ("futex_wait"), or NULL for a type that is not an event. */
const char *cgm_event_name(uint8_t type);
/* Number of fields of TYPE (-1 for an unknown type), and their names. */
int cgm_event_field_count(uint8_t type);
const char *cgm_event_field_name(uint8_t type, int field);
/* A field's kind as cgm/events.def gives it: 'U', 'X' or 'S' (0 when TYPE
 * has no such field); 'S' fields hold int64_t values. */
char cgm_event_field_kind(uint8_t type, int field);

/* Encodes EV into OUT (at least CGM_EVENT_BYTES_MAX bytes); returns the
 * length, or 0 for an unknown type. */
size_t cgm_event_encode(uint8_t *out, const struct cgm_event *ev);
/* Decodes one whole record. Returns 0, or -1 when the record is not a
 * well-formed event (unknown type, short, or trailing bytes). */
int cgm_event_decode(const uint8_t *rec, size_t len, struct cgm_event *ev);
/* Prints "name field=value ..." (no newline). */
void cgm_event_print(FILE *out, const struct cgm_event *ev);

#endif
