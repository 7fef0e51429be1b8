/* The event records, described by one table: the encoder, the decoder and
 * the printer all read it, so a new event is one line here. */
#include "cgm/events.h"

#include <inttypes.h>
#include <string.h>

#include "cgm/codec.h"

struct event_desc {
    const char *name;
    const char *fields[CGM_EVENT_FIELDS_MAX];
    uint16_t signed_mask;  /* bit i: field i is signed */
    uint16_t hex_mask;     /* bit i: field i prints in hexadecimal */
};

static const struct event_desc events[CGM_EVENT_LAST + 1] = {
    [CGM_EV_THREAD_CREATE] = { "thread_create", { "seq", "child_tid", "clone_flags" }, 0, 1u << 2 },
    [CGM_EV_THREAD_EXIT]   = { "thread_exit", { "seq", "tid", "status" }, 1u << 2, 0 },
    [CGM_EV_FUTEX_WAIT]    = { "futex_wait", { "seq", "uaddr", "woken_by", "result" }, 1u << 3, 1u << 1 },
    [CGM_EV_FUTEX_WAKE]    = { "futex_wake", { "seq", "uaddr", "woken", "op" }, 0, 1u << 1 },
    [CGM_EV_SYSCALL]       = { "syscall", { "nr", "result", "blocked" }, 1u << 1, 0 },
    [CGM_EV_MMAP]          = { "mmap", { "addr", "length", "prot", "flags" }, 0, (1u << 0) | (1u << 3) },
    [CGM_EV_MUNMAP]        = { "munmap", { "addr", "length" }, 0, 1u << 0 },
    [CGM_EV_MPROTECT]      = { "mprotect", { "addr", "length", "prot" }, 0, 1u << 0 },
    [CGM_EV_BRK]           = { "brk", { "old_end", "new_end" }, 0, 3u },
    [CGM_EV_GPU_LOAD]      = { "gpu_load", { "program", "code_bytes" }, 0, 0 },
    [CGM_EV_GPU_ALLOC]     = { "gpu_alloc", { "addr", "bytes" }, 0, 1u << 0 },
    [CGM_EV_GPU_FREE]      = { "gpu_free", { "addr" }, 0, 1u << 0 },
    [CGM_EV_GPU_COPY]      = { "gpu_copy", { "dst", "src", "bytes" }, 0, 3u },
    [CGM_EV_GPU_LAUNCH]    = { "gpu_launch", { "launch", "kernel", "dims", "grid_x", "grid_y",
                                               "grid_z", "group_x", "group_y", "group_z",
                                               "lds_bytes" }, 0, 0 },
    [CGM_EV_GPU_LAUNCH_MEM] = { "gpu_launch_mem", { "launch", "scratch_bytes", "args_bytes" }, 0, 0 },
    [CGM_EV_GPU_DONE]      = { "gpu_done", { "launch" }, 0, 0 },
    [CGM_EV_GPU_WAIT]      = { "gpu_wait", { "seq" }, 0, 0 },
    [CGM_EV_ROI_BEGIN]     = { "roi_begin", { "seq" }, 0, 0 },
    [CGM_EV_ROI_END]       = { "roi_end", { "seq" }, 0, 0 },
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

size_t cgm_event_encode(uint8_t *out, const struct cgm_event *ev)
{
    int n = cgm_event_field_count(ev->type);
    if (n < 0)
        return 0;
    uint16_t sm = events[ev->type].signed_mask;
    size_t len = 0;
    out[len++] = ev->type;
    for (int i = 0; i < n; i++) {
        uint64_t v = ev->f[i];
        if (sm & (1u << i))
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
    uint16_t sm = events[ev->type].signed_mask;
    const uint8_t *p = rec + 1, *end = rec + len;
    for (int i = 0; i < n; i++) {
        if (cgm_get_varint(&p, end, &ev->f[i]))
            return -1;
        if (sm & (1u << i))
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
        if (d->signed_mask & (1u << i))
            fprintf(out, " %s=%" PRId64, d->fields[i], (int64_t)ev->f[i]);
        else if (d->hex_mask & (1u << i))
            fprintf(out, " %s=0x%" PRIx64, d->fields[i], ev->f[i]);
        else
            fprintf(out, " %s=%" PRIu64, d->fields[i], ev->f[i]);
    }
}
