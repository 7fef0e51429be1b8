/* The state-table rows as data, and the message names. */
#include "cgm/coh.h"

const struct cgm_mesi_row_info cgm_mesi_rows[MESI_NROWS] = {
#define ROW(id, table, text) [id] = { table, text },
#include "cgm/coh_rows.def"
#undef ROW
};

/* Every row is modelled (the L2's flush-conflict rows by the flush wait
 * described in cgm/coh.h). */
bool cgm_mesi_row_implemented(enum cgm_mesi_row r) { return r < MESI_NROWS; }

const char *const cgm_coh_msg_names[COH_NTYPES] = {
    [COH_GETS] = "GetS", [COH_GET] = "Get", [COH_GETX] = "GetX", [COH_UPGRADE] = "Upgrade",
    [COH_WB] = "WriteBack", [COH_EVICT] = "Evict", [COH_FWD_ACK] = "Fwd_Ack", [COH_FWD_NACK] = "Fwd_Nack",
    [COH_INV_ACK] = "Inval_Ack", [COH_UNBLOCK] = "Unblock", [COH_PUTS] = "PutS", [COH_PUTCLNX] = "PutClnX",
    [COH_PUTX] = "PutX", [COH_UPGRADE_ACK] = "Upgrade_Ack", [COH_NACK] = "Nack",
    [COH_GET_FWD] = "GetFwd", [COH_GETX_FWD] = "GetXFwd", [COH_INVAL] = "Inval",
    [COH_FLUSH] = "Flush", [COH_WB_ACK] = "WriteBack_Ack",
};
