/* One x86 thread stream read lazily, chunk by chunk, and turned into
 * dynamic instructions (static entry, memory accesses, control outcome)
 * and events in recorded order. Memory use is fixed: two decoded records
 * and a short queue of events read ahead while looking for the next block
 * (which tells whether a block's last branch was taken). */
#ifndef REPLAY_X86_STREAM_H
#define REPLAY_X86_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "cgm/events.h"
#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "replay/x86_static.h"

enum rp_item_kind { RP_ITEM_INSN, RP_ITEM_EVENT, RP_ITEM_END, RP_ITEM_ERROR };

struct rp_item {
    enum rp_item_kind kind;
    /* RP_ITEM_INSN */
    const struct rp_sinsn *si;
    const struct cgm_x86_access *acc;
    unsigned nacc;
    bool retire;        /* false: accesses of a rep string still running (PARTIAL) */
    bool taken;         /* control left the block here (not to the next address) */
    uint64_t next_pc;   /* where control went after the instruction */
    /* RP_ITEM_EVENT */
    struct cgm_event ev;
};

#define RP_EVENT_LOOKAHEAD 32

struct rp_block_buf {
    struct cgm_x86_block_rec rec;
    struct cgm_x86_access acc[CGM_X86_ACCESS_MAX];
};

struct rp_x86_stream {
    const struct rp_static *st;
    struct cgm_riter *it;
    const char *trace_name;
    uint32_t stream_id;
    struct cgm_x86_codec codec;
    struct rp_block_buf bufs[2];
    struct rp_block_buf *cur, *next;   /* next: read ahead, or NULL */
    bool have_cur;
    uint32_t insn_idx, acc_idx;
    uint64_t pc;
    struct cgm_event pending[RP_EVENT_LOOKAHEAD];
    unsigned npending, pending_head;
    bool ended;
    char error[512];
};

/* Opens stream STREAM_INDEX of R. Returns 0, or -1 with ERR set. */
int rp_x86_stream_open(struct rp_x86_stream *s, struct cgm_reader *r, size_t stream_index,
                       const struct rp_static *st, const char *trace_name, char *err, size_t errlen);
void rp_x86_stream_close(struct rp_x86_stream *s);
/* Next item; RP_ITEM_ERROR leaves the reason in s->error. The item's
 * pointers stay valid until the next call. */
void rp_x86_stream_next(struct rp_x86_stream *s, struct rp_item *out);

#endif
