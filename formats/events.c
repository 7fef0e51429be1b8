/* The event records, described by one table (cgm/events.def): the encoder,
 * the decoder and the printer all read it. */
#include "cgm/events.h"

#include <inttypes.h>
#include <string.h>

#include "cgm/codec.h"

struct event_desc {
    const char *name;
    const char *fields[CGM_EVENT_FIELDS_MAX];
    char kind[CGM_EVENT_FIELDS_MAX];  /* 'U' unsigned, 'X' unsigned in hex, 'S' signed */
};

enum { KIND_U = 'U', KIND_X = 'X', KIND_S = 'S' };

static const struct event_desc events[CGM_EVENT_LAST + 1] = {
#define CGM_EVENT(e, code, nm) [code].name = nm,
#define CGM_FIELD(e, i, f, nm, k) [CGM_EV_##e].fields[i] = nm, [CGM_EV_##e].kind[i] = KIND_##k,
#include "cgm/events.def"
#undef CGM_EVENT
#undef CGM_FIELD
};

static const struct event_desc *desc(uint8_t type)
{
    if (type < CGM_EVENT_FIRST || type > CGM_EVENT_LAST || !events[type].name)
        return NULL;
    return &events[type];
}

const char *cgm_event_name(uint8_t type)
{
    const struct event_desc *d = desc(type);
    return d ? d->name : NULL;
}

int cgm_event_field_count(uint8_t type)
{
    const struct event_desc *d = desc(type);
    if (!d)
        return -1;
    int n = 0;
    while (n < CGM_EVENT_FIELDS_MAX && d->fields[n])
        n++;
    return n;
}

const char *cgm_event_field_name(uint8_t type, int field)
{
    int n = cgm_event_field_count(type);
    return field >= 0 && field < n ? events[type].fields[field] : NULL;
}

char cgm_event_field_kind(uint8_t type, int field)
{
    int n = cgm_event_field_count(type);
    return field >= 0 && field < n ? events[type].kind[field] : 0;
}

size_t cgm_event_encode(uint8_t *out, const struct cgm_event *ev)
{
    int n = cgm_event_field_count(ev->type);
    if (n < 0)
        return 0;
    const char *kind = events[ev->type].kind;
    size_t len = 0;
    out[len++] = ev->type;
    for (int i = 0; i < n; i++) {
        uint64_t v = ev->f[i];
        if (kind[i] == 'S')
            v = cgm_zigzag((int64_t)v);
        len += cgm_put_varint(out + len, v);
    }
    return len;
}

int cgm_event_decode(const uint8_t *rec, size_t len, struct cgm_event *ev)
{
    if (len == 0)
        return -1;
    int n = cgm_event_field_count(rec[0]);
    if (n < 0)
        return -1;
    memset(ev, 0, sizeof *ev);
    ev->type = rec[0];
    const char *kind = events[ev->type].kind;
    const uint8_t *p = rec + 1, *end = rec + len;
    for (int i = 0; i < n; i++) {
        if (cgm_get_varint(&p, end, &ev->f[i]))
            return -1;
        if (kind[i] == 'S')
            ev->f[i] = (uint64_t)cgm_unzigzag(ev->f[i]);
    }
    return p == end ? 0 : -1;
}

void cgm_event_print(FILE *out, const struct cgm_event *ev)
{
    int n = cgm_event_field_count(ev->type);
    if (n < 0) {
        fprintf(out, "unknown_event type=0x%02x", ev->type);
        return;
    }
    const struct event_desc *d = &events[ev->type];
    fputs(d->name, out);
    for (int i = 0; i < n; i++) {
        if (d->kind[i] == 'S')
            fprintf(out, " %s=%" PRId64, d->fields[i], (int64_t)ev->f[i]);
        else if (d->kind[i] == 'X')
            fprintf(out, " %s=0x%" PRIx64, d->fields[i], ev->f[i]);
        else
            fprintf(out, " %s=%" PRIu64, d->fields[i], ev->f[i]);
    }
}
