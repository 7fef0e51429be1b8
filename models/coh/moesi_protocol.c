/* The MOESI protocol as the system sees it: MESI's states and O, MESI's
 * rows and its own, MESI's invariant (O is a reader: one writer excludes
 * every other copy, O and S copies coexist), and its controllers: the
 * cores' and slices' (moesi_core.c, moesi_dir.c, over MESI's), none for
 * the GPU, whose caches then run MESI. */
#include "moesi_internal.h"

static const struct cgm_coh_row_info rows[MOESI_NROWS] = {
#define ROW(id, kind, table, text) [id] = { CGM_NODE_##kind, table, text, table " " text },
#include "cgm/mesi_rows.def"
#include "cgm/moesi_rows.def"
#undef ROW
};

static const char *const state_names[MOESI_NSTATES] = { "I", "S", "E", "M", "IS", "IM", "SM", "O" };

static const uint8_t permission[MOESI_NSTATES] = {
    [MESI_S] = CGM_COH_READ, [MESI_E] = CGM_COH_WRITE, [MESI_M] = CGM_COH_WRITE, [MOESI_O] = CGM_COH_READ,
};

/* Every operation and the invariant it leaves out are MESI's (through
 * extends): an O line is an S line with written data to the rest of
 * MESI's handlers, and O is a reader to the checker. */
static const struct coh_kind_ops moesi_core_ops = {
    .deliver = moesi_core_deliver, .copy = moesi_core_copy,
};
static const struct coh_kind_ops moesi_slice_ops = {
    .deliver = moesi_dir_deliver,
};

const struct cgm_coh_protocol cgm_coh_moesi = {
    .name = "moesi",
    .summary = "MESI with an owned state, cores and slices (the GPU's caches run mesi)",
    .id = CGM_COH_PROTOCOL_moesi,
    .nstates = MOESI_NSTATES,
    .state_names = state_names,
    .permission = permission,
    .nrows = MOESI_NROWS,
    .rows = rows,
    .extends = &cgm_coh_mesi,
    .messages = (1u << (COH_WB_ACK + 1)) - 1, /* cgm/coh_msgs.def's types up to WriteBack_Ack */
    .ops = { [CGM_NODE_CORE] = &moesi_core_ops, [CGM_NODE_SLICE] = &moesi_slice_ops },
};
