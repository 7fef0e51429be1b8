/* The si protocol as the system sees it: MESI's states (a vector L1's V
 * copy is shown as S), MESI's rows and its own, its vector L1
 * (si_gpu_l1.c) and its banks (si_gpu_l2.c; their checker views, dumps
 * and admission are MESI's banks'). Its invariant: copies of one block may
 * coexist, a V copy beside a writer included (the L1 is made coherent by
 * software, cgm_coh_gpu_invalidate); what it promises instead is that a CU
 * that invalidates reads the last value released (stored and acknowledged
 * by the bank) before it, which the random tester checks. */
#include "si_internal.h"

static const struct cgm_coh_row_info rows[SI_NROWS] = {
#define ROW(id, kind, table, text) [id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/mesi_rows.def"
#include "cgm/si_rows.def"
#undef ROW
};

static const char *const state_names[MESI_NSTATES] = { "I", "S", "E", "M", "IS", "IM", "SM" };

static const uint8_t permission[MESI_NSTATES] = {
    [MESI_S] = CGM_COH_READ, [MESI_E] = CGM_COH_WRITE, [MESI_M] = CGM_COH_WRITE,
};

static const char *copies_coexist(const struct cgm_coh_census *c)
{
    (void)c;
    return NULL;
}

static const struct coh_kind_ops si_gpu_l2_ops = { .deliver = si_gpu_l2_deliver, .wake = si_gpu_l2_wake };

static const struct coh_kind_ops si_gpu_l1_ops = {
    .access = si_gpu_l1_access, .deliver = si_gpu_l1_deliver, .wake = si_gpu_l1_wake,
    .invalidate = si_gpu_l1_invalidate,
};

const struct cgm_coh_protocol cgm_coh_si = {
    .name = "si",
    .summary = "Southern Islands write-through vector L1s (GLC bypass, invalidation) over non-inclusive write-back L2 banks merging byte-masked writes (GPU only)",
    .id = CGM_COH_PROTOCOL_si,
    .nstates = MESI_NSTATES,
    .state_names = state_names,
    .permission = permission,
    .nrows = SI_NROWS,
    .rows = rows,
    .extends = &cgm_coh_mesi,
    .messages = ((1u << (COH_WB_ACK + 1)) - 1) | 1u << COH_DIFF | 1u << COH_DIFF_ACK, /* MESI's below the banks, the writes above */
    .invariant = copies_coexist,
    .ops = { [CGM_NODE_GPU_L1] = &si_gpu_l1_ops, [CGM_NODE_GPU_L2] = &si_gpu_l2_ops },
};
