/* The MESI protocol as the system sees it: its states, its rows (cgm/
 * mesi_rows.def), its messages, its invariant and its controller per kind. */
#include "mesi_internal.h"

static const struct cgm_coh_row_info rows[MESI_NROWS] = {
#define ROW(id, kind, table, text) [id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/mesi_rows.def"
#undef ROW
};

static const char *const state_names[MESI_NSTATES] = { "I", "S", "E", "M", "IS", "IM", "SM" };

/* What the checker's views return: I, S, E, M (a transient state is shown
 * as the copy it still holds). */
static const uint8_t permission[MESI_NSTATES] = {
    [MESI_S] = CGM_COH_READ, [MESI_E] = CGM_COH_WRITE, [MESI_M] = CGM_COH_WRITE,
};

/* Single writer or many readers. */
static const char *swmr(const struct cgm_coh_census *c)
{
    if (c->writers > 1)
        return "more than one writer";
    if (c->writers && c->readers)
        return "a writer beside readers";
    return NULL;
}

static int core_access_op(struct cgm_coh_sys *s, void *c, const struct cgm_coh_req *r) { return core_access(s, c, r); }
static void core_deliver_op(struct cgm_coh_sys *s, void *c, const struct cgm_coh_msg *m) { core_deliver(s, c, m); }
static void core_wake_op(struct cgm_coh_sys *s, void *c, uint64_t block, int what) { core_wake(s, c, block, what); }
static void dir_deliver_op(struct cgm_coh_sys *s, void *d, const struct cgm_coh_msg *m) { dir_deliver(s, d, m); }
static void dir_wake_op(struct cgm_coh_sys *s, void *d, uint64_t block, int what) { dir_wake(s, d, block, what); }
static int gpu_l1_access_op(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_req *r)
{
    return gpu_l1_access(s, l1, r);
}
static void gpu_l1_deliver_op(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_msg *m)
{
    gpu_l1_deliver(s, l1, m);
}
static void gpu_l1_wake_op(struct cgm_coh_sys *s, void *l1, uint64_t block, int what)
{
    gpu_l1_wake(s, l1, block, what);
}
static void gpu_l2_deliver_op(struct cgm_coh_sys *s, void *b, const struct cgm_coh_msg *m) { gpu_l2_deliver(s, b, m); }
static void gpu_l2_wake_op(struct cgm_coh_sys *s, void *b, uint64_t block, int what) { gpu_l2_wake(s, b, block, what); }
static bool gpu_l2_admits_op(struct cgm_coh_sys *s, void *b) { return gpu_l2_admits(s, b); }
static bool gpu_l2_refusal_counted_op(const struct cgm_coh_sys *s, void *b)
{
    (void)s;
    return gpu_l2_refusal_counted(b);
}

const struct coh_kind_ops mesi_core_ops = {
    .access = core_access_op, .deliver = core_deliver_op, .wake = core_wake_op,
    .copy = mesi_core_copy, .dump = mesi_core_dump,
};
const struct coh_kind_ops mesi_slice_ops = {
    .deliver = dir_deliver_op, .wake = dir_wake_op, .dump = mesi_slice_dump,
};
const struct coh_kind_ops mesi_gpu_l1_ops = {
    .access = gpu_l1_access_op, .deliver = gpu_l1_deliver_op, .wake = gpu_l1_wake_op,
    .copy = mesi_gpu_l1_copy, .dump = mesi_gpu_l1_dump,
};
const struct coh_kind_ops mesi_gpu_l2_ops = {
    .deliver = gpu_l2_deliver_op, .wake = gpu_l2_wake_op, .copy = mesi_gpu_l2_copy, .dump = mesi_gpu_l2_dump,
    .admits = gpu_l2_admits_op, .refusal_counted = gpu_l2_refusal_counted_op,
};

const struct cgm_coh_protocol cgm_coh_mesi = {
    .name = "mesi",
    .summary = "seed 000's MESI directory (Tables 3.1-3.7), CPU and GPU",
    .id = CGM_COH_PROTOCOL_mesi,
    .nstates = MESI_NSTATES,
    .state_names = state_names,
    .permission = permission,
    .nrows = MESI_NROWS,
    .rows = rows,
    .messages = (1u << (COH_WB_ACK + 1)) - 1, /* cgm/coh_msgs.def's types up to WriteBack_Ack */
    .invariant = swmr,
    .ops = { [CGM_NODE_CORE] = &mesi_core_ops, [CGM_NODE_SLICE] = &mesi_slice_ops,
             [CGM_NODE_GPU_L1] = &mesi_gpu_l1_ops, [CGM_NODE_GPU_L2] = &mesi_gpu_l2_ops },
};
