/* Lazy decoding of an x86 thread stream into dynamic instructions. */
#include "replay/x86_stream.h"

#include <stdio.h>
#include <string.h>

int rp_x86_stream_open(struct rp_x86_stream *s, struct cgm_reader *r, size_t stream_index,
                       const struct rp_static *st, const char *trace_name, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->st = st;
    s->trace_name = trace_name;
    s->stream_id = cgm_reader_stream(r, stream_index)->info.id;
    s->it = cgm_riter_open(r, stream_index);
    if (!s->it) {
        snprintf(err, errlen, "%s: stream %u: cannot open", trace_name, s->stream_id);
        return -1;
    }
    s->cur = &s->bufs[0];
    return 0;
}

void rp_x86_stream_close(struct rp_x86_stream *s)
{
    if (s->it)
        cgm_riter_close(s->it);
    s->it = NULL;
}

static void fail(struct rp_x86_stream *s, struct rp_item *out, const char *what)
{
    if (!s->error[0])
        snprintf(s->error, sizeof s->error, "%s: stream %u, record %llu: %s", s->trace_name,
                 s->stream_id, (unsigned long long)(s->it ? cgm_riter_position(s->it) : 0), what);
    out->kind = RP_ITEM_ERROR;
}

/* Reads one record: 1 block (into B), 2 event (into EV), 0 end, -1 error. */
static int read_record(struct rp_x86_stream *s, struct rp_block_buf *b, struct cgm_event *ev)
{
    if (s->ended)
        return 0;
    const uint8_t *rec;
    size_t len;
    int rc = cgm_riter_next(s->it, &rec, &len);
    if (rc == 0) {
        s->ended = true;
        return 0;
    }
    char what[400];
    if (rc < 0) {
        snprintf(what, sizeof what, "%s", cgm_riter_error(s->it));
        snprintf(s->error, sizeof s->error, "%s: stream %u: %s", s->trace_name, s->stream_id, what);
        return -1;
    }
    uint64_t pos = cgm_riter_position(s->it) - 1;
    if (len && (rec[0] == CGM_X86_REC_BLOCK || rec[0] == CGM_X86_REC_PARTIAL)) {
        if (cgm_x86_block_decode(&s->codec, rec, len, &b->rec, b->acc)) {
            snprintf(s->error, sizeof s->error, "%s: stream %u, record %llu: malformed x86 block record",
                     s->trace_name, s->stream_id, (unsigned long long)pos);
            return -1;
        }
        if (b->rec.ninsn > CGM_X86_BLOCK_INSNS_MAX) {
            snprintf(s->error, sizeof s->error, "%s: stream %u, record %llu: block of %u instructions "
                     "(at most %u)", s->trace_name, s->stream_id, (unsigned long long)pos,
                     b->rec.ninsn, CGM_X86_BLOCK_INSNS_MAX);
            return -1;
        }
        return 1;
    }
    if (len && rec[0] >= CGM_EVENT_FIRST && rec[0] <= CGM_EVENT_LAST && !cgm_event_decode(rec, len, ev))
        return 2;
    snprintf(s->error, sizeof s->error, "%s: stream %u, record %llu: unexpected record type 0x%02x in an "
             "x86 stream", s->trace_name, s->stream_id, (unsigned long long)pos, len ? rec[0] : 0);
    return -1;
}

/* Reads ahead to the next block record, queueing the events before it.
 * Returns 0 (s->next set, or NULL at the end or when the queue is full) or -1. */
static int look_ahead(struct rp_x86_stream *s)
{
    while (!s->next && s->npending < RP_EVENT_LOOKAHEAD) {
        struct rp_block_buf *b = s->cur == &s->bufs[0] ? &s->bufs[1] : &s->bufs[0];
        struct cgm_event *ev = &s->pending[(s->pending_head + s->npending) % RP_EVENT_LOOKAHEAD];
        int rc = read_record(s, b, ev);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return 0;
        if (rc == 1)
            s->next = b;
        else
            s->npending++;
    }
    return 0;
}

static void emit_insn(struct rp_x86_stream *s, struct rp_item *out)
{
    struct rp_block_buf *b = s->cur;
    bool partial = b->rec.type == CGM_X86_REC_PARTIAL;
    const struct rp_sinsn *si;
    if (partial) {
        /* The rep-string instruction of a running block: walk to it. */
        uint32_t want = b->acc[s->acc_idx].insn;
        if (want < s->insn_idx) {
            s->insn_idx = 0;
            s->pc = b->rec.start;
        }
        while (s->insn_idx < want) {
            const struct rp_sinsn *w = rp_static_find(s->st, s->pc);
            if (!w) {
                fail(s, out, "partial record names an instruction outside the static table");
                return;
            }
            s->pc += w->len;
            s->insn_idx++;
        }
    }
    si = rp_static_find(s->st, s->pc);
    if (!si) {
        char what[128];
        snprintf(what, sizeof what, "instruction at 0x%llx is not in the static table",
                 (unsigned long long)s->pc);
        fail(s, out, what);
        return;
    }
    /* Accesses of this instruction; any listed past the block's last
     * instruction are charged to it. */
    uint32_t first = s->acc_idx;
    bool last = !partial && s->insn_idx + 1 == b->rec.ninsn;
    while (s->acc_idx < b->rec.naccess &&
           (b->acc[s->acc_idx].insn <= s->insn_idx || last))
        s->acc_idx++;
    out->kind = RP_ITEM_INSN;
    out->si = si;
    out->acc = &b->acc[first];
    out->nacc = s->acc_idx - first;
    out->retire = !partial;
    out->taken = false;
    out->next_pc = si->addr + si->len;
    if (partial) {
        if (s->acc_idx >= b->rec.naccess)
            s->have_cur = false;
        return;
    }
    if (last) {
        if (look_ahead(s)) {
            out->kind = RP_ITEM_ERROR;
            return;
        }
        if (s->next) {
            out->next_pc = s->next->rec.start;
            out->taken = out->next_pc != si->addr + si->len;
        }
        s->have_cur = false;
    }
    s->pc += si->len;
    s->insn_idx++;
}

void rp_x86_stream_next(struct rp_x86_stream *s, struct rp_item *out)
{
    for (;;) {
        if (s->error[0]) {
            out->kind = RP_ITEM_ERROR;
            return;
        }
        if (s->have_cur) {
            emit_insn(s, out);
            if (out->kind == RP_ITEM_ERROR && !s->error[0])
                fail(s, out, "read error");
            return;
        }
        if (s->npending) {
            out->kind = RP_ITEM_EVENT;
            out->ev = s->pending[s->pending_head];
            s->pending_head = (s->pending_head + 1) % RP_EVENT_LOOKAHEAD;
            s->npending--;
            return;
        }
        if (s->next) {
            s->cur = s->next;
            s->next = NULL;
        } else {
            struct rp_block_buf *b = s->cur;
            int rc = read_record(s, b, &out->ev);
            if (rc < 0) {
                out->kind = RP_ITEM_ERROR;
                return;
            }
            if (rc == 0) {
                out->kind = RP_ITEM_END;
                return;
            }
            if (rc == 2) {
                out->kind = RP_ITEM_EVENT;
                return;
            }
        }
        s->insn_idx = 0;
        s->acc_idx = 0;
        s->pc = s->cur->rec.start;
        /* A block that retired nothing and accessed nothing has no items. */
        s->have_cur = s->cur->rec.type == CGM_X86_REC_PARTIAL ? s->cur->rec.naccess > 0 : s->cur->rec.ninsn > 0;
    }
}
