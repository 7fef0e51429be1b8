/* The nmoesi protocol as the system sees it: MESI's states and N, MESI's
 * rows and its own, its vector L1 (nmoesi_gpu_l1.c) and MESI's banks with
 * the N write-back (nmoesi_gpu_l2.c). Its invariant: copies of one block
 * may coexist, N copies of several CUs included (each holds its own
 * bytes); what it promises instead is that what a CU wrote is in the bank
 * once that CU released it (cgm_coh_gpu_invalidate) and that a CU reads
 * its own writes, which the random tester checks. */
#include "nmoesi_internal.h"

static const struct cgm_coh_row_info rows[NMOESI_NROWS] = {
#define ROW(id, kind, table, text) [id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/mesi_rows.def"
#include "cgm/nmoesi_rows.def"
#undef ROW
};

static const char *const state_names[NMOESI_NSTATES] = { "I", "S", "E", "M", "IS", "IM", "SM", "N" };

static const uint8_t permission[NMOESI_NSTATES] = {
    [MESI_S] = CGM_COH_READ, [MESI_E] = CGM_COH_WRITE, [MESI_M] = CGM_COH_WRITE, [NMOESI_N] = CGM_COH_WRITE,
};

static const char *copies_coexist(const struct cgm_coh_census *c)
{
    (void)c;
    return NULL;
}

static const struct coh_kind_ops nmoesi_gpu_l1_ops = {
    .access = nmoesi_gpu_l1_access, .deliver = nmoesi_gpu_l1_deliver, .wake = nmoesi_gpu_l1_wake,
    .invalidate = nmoesi_gpu_l1_invalidate, .copy = nmoesi_gpu_l1_copy, .dump = nmoesi_gpu_l1_dump,
};
static const struct coh_kind_ops nmoesi_gpu_l2_ops = {
    .deliver = nmoesi_gpu_l2_deliver,
};

const struct cgm_coh_protocol cgm_coh_nmoesi = {
    .name = "nmoesi",
    .summary = "Multi2Sim's NMOESI vector L1s (stores without ownership: the N state) over MESI's L2 banks "
               "(GPU only, not coherent with the CPU)",
    .id = CGM_COH_PROTOCOL_nmoesi,
    .nstates = NMOESI_NSTATES,
    .state_names = state_names,
    .permission = permission,
    .nrows = NMOESI_NROWS,
    .rows = rows,
    .extends = &cgm_coh_mesi,
    .messages = (1u << COH_NTYPES) - 1,
    .invariant = copies_coexist,
    .gpu_noncoherent = true,
    .ops = { [CGM_NODE_GPU_L1] = &nmoesi_gpu_l1_ops, [CGM_NODE_GPU_L2] = &nmoesi_gpu_l2_ops },
};
