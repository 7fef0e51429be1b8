/* The state-table rows and the messages as data. */
#include "cgm/coh.h"

const struct cgm_mesi_row_info cgm_mesi_rows[MESI_NROWS] = {
#define ROW(id, table, text) [id] = { table, text },
#include "cgm/coh_rows.def"
#undef ROW
};

/* Every row is modelled (the L2's flush-conflict rows by the flush wait
 * described in cgm/coh.h). */
bool cgm_mesi_row_implemented(enum cgm_mesi_row r) { return r < MESI_NROWS; }

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
