/* MOESI's controllers: MESI's (mesi_internal.h), with the handlers of the
 * rows cgm/moesi_rows.def adds in front of them (moesi_core.c,
 * moesi_dir.c). An O block is, in a core's L2, a line in state S whose
 * data is written (dirty), or such a line upgrading (SM, written), or a
 * victim queued with shared set; at the slice, a line in state S with an
 * owner, who is one of its holders. */
#ifndef CGM_MOESI_INTERNAL_H
#define CGM_MOESI_INTERNAL_H

#include "cgm/coh_moesi.h"
#include "mesi_internal.h"

static inline void moesi_row(struct cgm_coh_sys *s, enum cgm_moesi_row r)
{
    coh_count_row(s, CGM_COH_PROTOCOL_moesi, r);
}

void moesi_core_deliver(struct cgm_coh_sys *s, void *core, const struct cgm_coh_msg *m);
unsigned moesi_core_copy(const struct cgm_coh_sys *s, void *core, uint64_t block, uint64_t *data);
void moesi_dir_deliver(struct cgm_coh_sys *s, void *slice, const struct cgm_coh_msg *m);

#endif
