/* An x86 thread stream one instruction at a time: see cgm/x86cursor.h.
 *
 * The cursor holds the block whose instructions it is handing out and,
 * once that block's last instruction is reached, reads ahead to the next
 * BLOCK record: the events met on the way are that instruction's, and the
 * PARTIAL records' accesses are the next block's. */
#include "cgm/x86cursor.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct access_list {
    struct cgm_x86_access *a;
    size_t n, cap;
};

struct cgm_x86_cursor {
    struct cgm_riter *it;
    const struct cgm_x86_view *v;
    uint32_t stream_id;
    int started, have_cur, have_next, failed, held;
    /* the block being handed out: instruction I at ADDR, its accesses from A */
    struct cgm_x86_block_rec cur;
    struct cgm_x86_access *cur_acc;
    uint64_t cur_record, addr;
    uint32_t i, a;
    struct access_list cur_partial;
    /* the block read ahead, and the PARTIAL accesses before it */
    struct cgm_x86_block_rec next;
    struct cgm_x86_access *next_acc;
    uint64_t next_record;
    struct access_list next_partial;
    /* what the last item points at */
    struct access_list out_acc;
    struct cgm_event *ev;
    size_t nev, ev_cap;
    struct cgm_x86_insn last;
    struct cgm_x86_codec codec;
    char err[512];
};

static int fail(struct cgm_x86_cursor *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    c->failed = 1;
    return -1;
}

static int list_add(struct access_list *l, const struct cgm_x86_access *a, size_t n)
{
    if (l->n + n > l->cap) {
        size_t cap = l->cap ? l->cap : 64;
        while (cap < l->n + n)
            cap *= 2;
        struct cgm_x86_access *p = realloc(l->a, cap * sizeof *p);
        if (!p)
            return -1;
        l->a = p;
        l->cap = cap;
    }
    memcpy(l->a + l->n, a, n * sizeof *a);
    l->n += n;
    return 0;
}

static int add_event(struct cgm_x86_cursor *c, const struct cgm_event *ev)
{
    if (c->nev == c->ev_cap) {
        size_t cap = c->ev_cap ? 2 * c->ev_cap : 16;
        struct cgm_event *p = realloc(c->ev, cap * sizeof *p);
        if (!p)
            return -1;
        c->ev = p;
        c->ev_cap = cap;
    }
    c->ev[c->nev++] = *ev;
    return 0;
}

struct cgm_x86_cursor *cgm_x86_cursor_open(struct cgm_reader *r, const struct cgm_x86_view *v,
                                           size_t si, char *err, size_t errlen)
{
    const struct cgm_reader_stream *s = cgm_reader_stream(r, si);
    if (!s || s->info.kind != CGM_STREAM_X86_THREAD) {
        snprintf(err, errlen, "stream %u is not an x86 thread stream", s ? s->info.id : 0);
        return NULL;
    }
    struct cgm_x86_cursor *c = calloc(1, sizeof *c);
    if (c) {
        c->v = v;
        c->stream_id = s->info.id;
        c->it = cgm_riter_open(r, si);
        c->cur_acc = malloc(CGM_X86_ACCESS_MAX * sizeof *c->cur_acc);
        c->next_acc = malloc(CGM_X86_ACCESS_MAX * sizeof *c->next_acc);
    }
    if (!c || !c->it || !c->cur_acc || !c->next_acc) {
        cgm_x86_cursor_close(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return c;
}

void cgm_x86_cursor_close(struct cgm_x86_cursor *c)
{
    if (!c)
        return;
    if (c->it)
        cgm_riter_close(c->it);
    free(c->cur_acc);
    free(c->next_acc);
    free(c->cur_partial.a);
    free(c->next_partial.a);
    free(c->out_acc.a);
    free(c->ev);
    free(c);
}

const char *cgm_x86_cursor_error(const struct cgm_x86_cursor *c)
{
    return c->err;
}

/* Reads records up to the next BLOCK with instructions (into NEXT) or the
 * end: events are appended to the item's, PARTIAL accesses to NEXT's. */
static int read_ahead(struct cgm_x86_cursor *c)
{
    const uint8_t *rec;
    size_t len;
    for (;;) {
        uint64_t at = cgm_riter_position(c->it);
        int k = cgm_riter_next(c->it, &rec, &len);
        if (k == 0)
            return 0;
        if (k < 0)
            return fail(c, "%s", cgm_riter_error(c->it));
        if (len && (rec[0] == CGM_X86_REC_BLOCK || rec[0] == CGM_X86_REC_PARTIAL)) {
            if (cgm_x86_block_decode(&c->codec, rec, len, &c->next, c->next_acc))
                return fail(c, "stream %u record %" PRIu64 ": malformed x86 block record",
                            c->stream_id, at);
            if (c->next.type == CGM_X86_REC_BLOCK && c->next.ninsn) {
                c->have_next = 1;
                c->next_record = at;
                return 0;
            }
            if (list_add(&c->next_partial, c->next_acc, c->next.naccess))
                return fail(c, "out of memory");
            continue;
        }
        struct cgm_event ev;
        if (cgm_event_decode(rec, len, &ev))
            return fail(c, "stream %u record %" PRIu64 ": record type 0x%02x is neither an "
                        "event nor an x86 record", c->stream_id, at, len ? rec[0] : 0);
        if (add_event(c, &ev))
            return fail(c, "out of memory");
    }
}

static void promote(struct cgm_x86_cursor *c)
{
    struct cgm_x86_access *t = c->cur_acc;
    c->cur_acc = c->next_acc;
    c->next_acc = t;
    struct access_list l = c->cur_partial;
    c->cur_partial = c->next_partial;
    c->next_partial = l;
    c->next_partial.n = 0;
    c->cur = c->next;
    c->cur_record = c->next_record;
    c->addr = c->cur.start;
    c->i = c->a = 0;
    c->have_cur = 1;
    c->have_next = 0;
}

static int emit(struct cgm_x86_cursor *c, struct cgm_x86_insn *out)
{
    c->last = *out;
    return 1;
}

int cgm_x86_cursor_next(struct cgm_x86_cursor *c, struct cgm_x86_insn *out)
{
    if (c->held) {
        c->held = 0;
        *out = c->last;
        return 1;
    }
    if (c->failed)
        return -1;
    c->nev = 0;
    if (!c->have_cur) {
        if (!c->started) {
            c->started = 1;
            if (read_ahead(c))
                return -1;
            if (c->nev) {
                *out = (struct cgm_x86_insn){ .nevent = (uint32_t)c->nev, .ev = c->ev };
                return emit(c, out);
            }
        }
        if (!c->have_next)
            return 0;
        promote(c);
    }
    const struct cgm_x86_static *st = cgm_x86_view_find(c->v, c->addr);
    if (!st)
        return fail(c, "stream %u record %" PRIu64 ": instruction %u of the block at 0x%" PRIx64
                    " (0x%" PRIx64 ") is not in the static table", c->stream_id, c->cur_record,
                    c->i, c->cur.start, c->addr);
    c->out_acc.n = 0;
    for (size_t k = 0; k < c->cur_partial.n; k++)
        if (c->cur_partial.a[k].insn == c->i && list_add(&c->out_acc, &c->cur_partial.a[k], 1))
            return fail(c, "out of memory");
    int last = c->i + 1 == c->cur.ninsn;
    uint32_t a_end = c->a;
    /* the last instruction also takes accesses numbered past the block */
    while (a_end < c->cur.naccess && (last || c->cur_acc[a_end].insn == c->i))
        a_end++;
    if (list_add(&c->out_acc, c->cur_acc + c->a, a_end - c->a))
        return fail(c, "out of memory");
    *out = (struct cgm_x86_insn){
        .ip = c->addr, .st = st, .record = c->cur_record, .index = c->i,
        .naccess = (uint32_t)c->out_acc.n, .acc = c->out_acc.a,
    };
    c->a = a_end;
    c->i++;
    c->addr += st->len;
    if (last) {
        c->have_cur = 0;
        /* a fault reading ahead is reported by the next call */
        read_ahead(c);
        out->nevent = (uint32_t)c->nev;
        out->ev = c->ev;
    }
    return emit(c, out);
}

void cgm_x86_cursor_unget(struct cgm_x86_cursor *c)
{
    c->held = 1;
}

int cgm_x86_cursor_fill(struct cgm_x86_cursor *c, struct cgm_x86_columns *col)
{
    col->n_insn = col->n_acc = col->need_acc = 0;
    struct cgm_x86_insn x;
    int k = 0;
    while (col->n_insn < col->cap_insn && (k = cgm_x86_cursor_next(c, &x)) == 1) {
        if (!x.st)
            continue;
        if (col->n_acc + x.naccess > col->cap_acc) {
            cgm_x86_cursor_unget(c);
            if (!col->n_insn)
                col->need_acc = x.naccess;
            return 1;
        }
        size_t n = col->n_insn++;
        col->ip[n] = x.ip;
        col->naccess[n] = x.naccess;
        col->nevent[n] = x.nevent;
        for (uint32_t j = 0; j < x.naccess; j++, col->n_acc++) {
            col->acc_addr[col->n_acc] = x.acc[j].addr;
            col->acc_size[col->n_acc] = x.acc[j].size;
            col->acc_write[col->n_acc] = x.acc[j].write;
        }
    }
    if (col->n_insn)
        return 1;
    return k < 0 ? -1 : 0;
}
