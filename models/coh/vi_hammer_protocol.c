/* The vi-hammer protocol as the system sees it: MOESI's states (a vector
 * L1's V copy shown as S), MOESI's rows, si's and its own, MOESI's
 * controllers for the cores and slices, its vector L1 (vi_hammer_gpu_l1.c
 * over si's) and si's L2 banks. Its invariant is si's: a V copy may
 * coexist with a writer (the vector L1 is made coherent by invalidating
 * it), the data values are what the testers check. */
#include "vi_hammer_internal.h"

static const struct cgm_coh_row_info rows[VIH_NROWS] = {
#define ROW(id, kind, table, text) [id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/mesi_rows.def"
#include "cgm/moesi_rows.def"
#undef ROW
#define ROW(id, kind, table, text) [VIH_##id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/si_rows.def"
#undef ROW
#define ROW(id, kind, table, text) [id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/vi_hammer_rows.def"
#undef ROW
};

static const char *const state_names[MOESI_NSTATES] = { "I", "S", "E", "M", "IS", "IM", "SM", "O" };

static const uint8_t permission[MOESI_NSTATES] = {
    [MESI_S] = CGM_COH_READ, [MESI_E] = CGM_COH_WRITE, [MESI_M] = CGM_COH_WRITE, [MOESI_O] = CGM_COH_READ,
};

static const char *copies_coexist(const struct cgm_coh_census *c)
{
    (void)c;
    return NULL;
}

/* The cores and slices run MOESI's operations (through extends). */
static const struct coh_kind_ops vi_hammer_cpu_ops = { 0 };
static const struct coh_kind_ops vi_hammer_gpu_l1_ops = {
    .access = vi_hammer_gpu_l1_access, .deliver = si_gpu_l1_deliver, .wake = si_gpu_l1_wake,
    .invalidate = si_gpu_l1_invalidate,
};
/* si's banks: si's vector L1 writes its stores through as WriteDiffs,
 * which only they merge. */
static const struct coh_kind_ops vi_hammer_gpu_l2_ops = { .deliver = si_gpu_l2_deliver, .wake = si_gpu_l2_wake };

const struct cgm_coh_protocol cgm_coh_vi_hammer = {
    .name = "vi-hammer",
    .summary = "VI_Hammer: MOESI cores and directory, write-through no-write-allocate vector L1s that invalidate "
               "after every store, si's L2 banks",
    .id = CGM_COH_PROTOCOL_vi_hammer,
    .nstates = MOESI_NSTATES,
    .state_names = state_names,
    .permission = permission,
    .nrows = VIH_NROWS,
    .rows = rows,
    .extends = &cgm_coh_moesi,
    .messages = ((1u << (COH_WB_ACK + 1)) - 1) | 1u << COH_DIFF | 1u << COH_DIFF_ACK, /* si's, as its L1 and banks are */
    .invariant = copies_coexist,
    .ops = { [CGM_NODE_CORE] = &vi_hammer_cpu_ops, [CGM_NODE_SLICE] = &vi_hammer_cpu_ops,
             [CGM_NODE_GPU_L1] = &vi_hammer_gpu_l1_ops, [CGM_NODE_GPU_L2] = &vi_hammer_gpu_l2_ops },
    .borrows = &cgm_coh_si,
    .borrowed_at = VIH_SI_V_LOAD,
};
