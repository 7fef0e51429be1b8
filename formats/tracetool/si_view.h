/* tracetool's view of GPU work-group streams: each stream names the SI
 * static-table section its records decode against (cgm/sirec.h). */
#ifndef CGM_TRACETOOL_SI_VIEW_H
#define CGM_TRACETOOL_SI_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "cgm/sistats.h"
#include "cgm/trace.h"

/* Prints records [FROM, FROM+COUNT) of work-group stream SI: one line per
 * wavefront instruction with its disassembly, exec mask and addresses.
 * Returns 0, or -1 with ERR. */
int si_dump_stream(FILE *out, struct cgm_reader *r, size_t si, uint64_t from,
                   uint64_t count, char *err, size_t errlen);

/* Adds work-group stream SI's instructions to ST. Returns 0, or -1 with ERR. */
int si_stream_stats(struct cgm_reader *r, size_t si, struct cgm_si_stats *st, char *err,
                    size_t errlen);

#endif
