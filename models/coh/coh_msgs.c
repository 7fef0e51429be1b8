/* The coherence messages: their table (cgm/coh_msgs.def) as data, their
 * lanes and sizes, and sending (counted by type and node). */
#include "coh_internal.h"

const struct cgm_coh_msg_info cgm_coh_msgs[COH_NTYPES] = {
#define MSG(id, name, cls, data, extra) [id] = { name, COH_CLASS_##cls, COH_DATA_##data, extra },
#include "cgm/coh_msgs.def"
#undef MSG
};

#define CARRIES_NONE 0
#define CARRIES_BLOCK 3
#define CARRIES_MASKED 3
#define CARRIES_WRITTEN 2
const uint8_t cgm_coh_msg_carries[COH_NTYPES] = {
#define MSG(id, name, cls, data, extra) [id] = CARRIES_##data,
#include "cgm/coh_msgs.def"
#undef MSG
};

const char *const cgm_coh_msg_names[COH_NTYPES] = {
#define MSG(id, name, cls, data, extra) [id] = name,
#include "cgm/coh_msgs.def"
#undef MSG
};

/* The kind of each kind's directory: a core's and a GPU L2 bank's is an
 * L3 slice (a bank's when the GPU shares the last level), a GPU L1's its
 * bank; a slice's is memory. */
static const uint8_t parent_kind[CGM_NODE_KINDS] = {
    [CGM_NODE_CORE] = CGM_NODE_SLICE, [CGM_NODE_SLICE] = CGM_NODE_KINDS,
    [CGM_NODE_GPU_L1] = CGM_NODE_GPU_L2, [CGM_NODE_GPU_L2] = CGM_NODE_SLICE,
};

enum cgm_coh_lane cgm_coh_msg_lane(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m)
{
    uint8_t src = s->nodes[m->src].kind, dst = s->nodes[m->dst].kind;
    if (parent_kind[src] == dst)
        return dst == CGM_NODE_GPU_L2 && cgm_coh_msgs[m->type].cls == COH_CLASS_ANSWER ? COH_LANE_COHERENCE
                                                                                      : COH_LANE_REQUEST;
    if (parent_kind[dst] == src)
        return COH_LANE_REPLY;
    return COH_LANE_COHERENCE;
}

uint64_t cgm_coh_byte_mask(unsigned block_bytes, unsigned offset, unsigned bytes)
{
    unsigned granule = block_bytes > 64 ? block_bytes / 64 : 1, span = block_bytes / granule;
    if (!bytes || offset >= block_bytes)
        return 0;
    unsigned first = offset / granule, last = (offset + bytes - 1) / granule;
    if (last >= span)
        last = span - 1;
    if (!first && last == span - 1)
        return 0; /* the whole block */
    uint64_t upto = last == 63 ? ~0ull : (1ull << (last + 1)) - 1;
    return upto & ~((1ull << first) - 1);
}

static inline unsigned msg_bytes(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m)
{
    if (!cgm_coh_msg_has_data(m))
        return 0;
    unsigned block = s->cfg.block_bytes;
    if (!m->mask || cgm_coh_msgs[m->type].data != COH_DATA_MASKED)
        return block;
    unsigned granule = block > 64 ? block / 64 : 1;
    return (unsigned)__builtin_popcountll(m->mask) * granule;
}

unsigned cgm_coh_msg_bytes(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m) { return msg_bytes(s, m); }

void coh_send(struct cgm_coh_sys *s, struct cgm_coh_msg m)
{
    m.bytes = (uint16_t)msg_bytes(s, &m);
    s->msgs[m.type]++;
    s->node_msgs[m.src].sent[m.type]++;
    s->node_msgs[m.dst].received[m.type]++;
    s->env.send(s->env.ctx, &m);
}
