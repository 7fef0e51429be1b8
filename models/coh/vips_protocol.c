/* The VIPS-G protocol as the system sees it: V/I (and D for a core's
 * written private block), its rows (cgm/vips_rows.def), no invariant on
 * the copies (without a directory stale shared copies coexist until the
 * next acquire: the testers check data-race-free programs instead), and
 * its controllers for every kind. */
#include "vips_internal.h"

static const struct cgm_coh_row_info rows[VIPS_NROWS] = {
#define ROW(id, kind, table, text) [id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/vips_rows.def"
#undef ROW
};

static const char *const state_names[VIPS_NSTATES] = { "I", "V", "D" };

static const uint8_t permission[VIPS_NSTATES] = { [VIPS_V] = CGM_COH_READ, [VIPS_D] = CGM_COH_WRITE };

static const char *no_invariant(const struct cgm_coh_census *c)
{
    (void)c;
    return NULL;
}

static int core_access(struct cgm_coh_sys *s, void *c, const struct cgm_coh_req *r)
{
    struct vips_client v = vips_core_view(s, c);
    return vips_client_access(s, &v, r);
}
static void core_deliver(struct cgm_coh_sys *s, void *c, const struct cgm_coh_msg *m)
{
    struct vips_client v = vips_core_view(s, c);
    vips_client_deliver(s, &v, m);
}
static void core_wake(struct cgm_coh_sys *s, void *c, uint64_t block, int what)
{
    struct vips_client v = vips_core_view(s, c);
    vips_client_wake(s, &v, block, what);
}
static unsigned core_copy(const struct cgm_coh_sys *s, void *c, uint64_t block, uint64_t *data)
{
    struct vips_client v = vips_core_view((struct cgm_coh_sys *)s, c);
    return vips_client_copy(&v, block, data);
}
static void core_dump(const struct cgm_coh_sys *s, void *c, uint64_t block, FILE *out)
{
    struct vips_client v = vips_core_view((struct cgm_coh_sys *)s, c);
    vips_client_dump(&v, block, out);
}
static int l1_access(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_req *r)
{
    struct vips_client v = vips_gpu_l1_view(s, l1);
    return vips_client_access(s, &v, r);
}
static void l1_deliver(struct cgm_coh_sys *s, void *l1, const struct cgm_coh_msg *m)
{
    struct vips_client v = vips_gpu_l1_view(s, l1);
    vips_client_deliver(s, &v, m);
}
static void l1_wake(struct cgm_coh_sys *s, void *l1, uint64_t block, int what)
{
    struct vips_client v = vips_gpu_l1_view(s, l1);
    vips_client_wake(s, &v, block, what);
}
static unsigned l1_copy(const struct cgm_coh_sys *s, void *l1, uint64_t block, uint64_t *data)
{
    struct vips_client v = vips_gpu_l1_view((struct cgm_coh_sys *)s, l1);
    return vips_client_copy(&v, block, data);
}
static void l1_dump(const struct cgm_coh_sys *s, void *l1, uint64_t block, FILE *out)
{
    struct vips_client v = vips_gpu_l1_view((struct cgm_coh_sys *)s, l1);
    vips_client_dump(&v, block, out);
}

static const struct coh_kind_ops core_ops = {
    .access = core_access, .deliver = core_deliver, .wake = core_wake, .copy = core_copy, .dump = core_dump,
};
static const struct coh_kind_ops slice_ops = {
    .deliver = vips_slice_deliver, .wake = vips_slice_wake, .dump = vips_slice_dump,
};
static const struct coh_kind_ops gpu_l1_ops = {
    .access = l1_access, .deliver = l1_deliver, .wake = l1_wake, .copy = l1_copy, .dump = l1_dump,
};
static const struct coh_kind_ops gpu_l2_ops = {
    .deliver = vips_gpu_l2_deliver, .wake = vips_gpu_l2_wake, .copy = vips_gpu_l2_copy, .dump = vips_gpu_l2_dump,
    .admits = vips_gpu_l2_admits, .refusal_counted = vips_gpu_l2_refusal_counted,
};

const struct cgm_coh_protocol cgm_coh_vips_g = {
    .name = "vips-g",
    .summary = "seed 002's directory-less VIPS-G: self-invalidation at acquires, diffs of shared words "
               "written through at releases, private pages written back (every cache; the GPU shares the L3)",
    .id = CGM_COH_PROTOCOL_vips_g,
    .nstates = VIPS_NSTATES,
    .state_names = state_names,
    .permission = permission,
    .nrows = VIPS_NROWS,
    .rows = rows,
    .messages = 1u << COH_GETS | 1u << COH_WB | 1u << COH_PUTS | 1u << COH_NACK | 1u << COH_WB_ACK |
                1u << COH_DIFF | 1u << COH_DIFF_ACK | 1u << COH_SELF_INV | 1u << COH_SELF_INV_ACK,
    .invariant = no_invariant,
    .ops = { [CGM_NODE_CORE] = &core_ops, [CGM_NODE_SLICE] = &slice_ops, [CGM_NODE_GPU_L1] = &gpu_l1_ops,
             [CGM_NODE_GPU_L2] = &gpu_l2_ops },
    .self_invalidating = true,
};
