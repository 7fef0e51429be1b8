/* Recording Southern Islands execution into a trace: the static instruction
 * table of a loaded program, and an emulator observer that writes one stream
 * per work-group of a launch (records of cgm/sirec.h). */
#ifndef CGM_TRACEGEN_SI_RECORD_H
#define CGM_TRACEGEN_SI_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "tracegen/si/si_emu.h"
#include "cgm/sirec.h"
#include "cgm/trace.h"

/* Every instruction of the program's executable segments (undecodable words
 * are skipped), in address order.  Returns 0, or -1 when out of memory. */
int si_static_table(const struct si_program *p, struct cgm_si_static **table, size_t *n);

/* Writes the table as section "si.static.PROGRAM" in stream STREAM_ID. */
int si_static_write(struct cgm_writer *w, uint32_t stream_id, uint32_t program,
                    const struct cgm_si_static *table, size_t n);

struct si_recorder;

/* A recorder for one launch: work-group streams get ids FIRST_STREAM,
 * FIRST_STREAM + 1, ... in dispatch order.  With W NULL the records are
 * encoded and counted but not written (to measure the codec alone). */
struct si_recorder *si_recorder_create(struct cgm_writer *w, const struct cgm_si_static *table,
                                       size_t n, uint64_t code_address, uint32_t launch_id,
                                       uint32_t first_stream);
/* Names every work-group stream opened from now on after the static table
 * its records decode against: section "si.static.PROGRAM". */
void si_recorder_section(struct si_recorder *r, uint32_t program);
/* The observer to hand to si_run. */
const struct si_observer *si_recorder_observer(struct si_recorder *r);
/* Stream ids used so far. */
uint32_t si_recorder_streams(const struct si_recorder *r);
/* Bytes of records encoded so far (before the container compresses them). */
uint64_t si_recorder_encoded_bytes(const struct si_recorder *r);
/* Closes open streams and frees R; returns 0, or -1 with ERR filled when a
 * write failed during the run. */
int si_recorder_finish(struct si_recorder *r, char *err, size_t errlen);

#endif
