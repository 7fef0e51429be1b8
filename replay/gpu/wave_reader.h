/* One wavefront's instructions, read lazily from its work-group's stream.
 *
 * A work-group stream interleaves its wavefronts' runs of instructions,
 * and the record codec keeps state across all of them (each memory
 * instruction's last base address), so a wavefront cannot start reading in
 * the middle. Each wavefront therefore has its own cursor over the stream:
 * it decodes every record in order, keeps its own instructions and skips
 * the others' (their addresses are not even materialised). Memory is one
 * chunk and one instruction per wavefront in flight, whatever the length of
 * the stream or the number of work-groups; the price is that a work-group
 * of W wavefronts parses its stream W times. */
#ifndef REPLAY_GPU_WAVE_READER_H
#define REPLAY_GPU_WAVE_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "cgm/sirec.h"
#include "cgm/trace.h"
#include "replay/gpu/program.h"

struct rp_wave_reader {
    struct cgm_riter *it;
    struct cgm_si_codec codec;     /* own slots, the program's table */
    struct cgm_si_run run;         /* this wavefront's record being read */
    unsigned wave;
    const char *trace_name;
    uint32_t stream_id;
};

/* Opens wavefront WAVE's view of stream STREAM_INDEX, decoding against
 * PROG. Returns 0, or -1 with ERR set. */
int rp_wave_reader_open(struct rp_wave_reader *w, struct cgm_reader *r, size_t stream_index,
                        const struct rp_si_program *prog, unsigned wave, const char *trace_name,
                        char *err, size_t errlen);
void rp_wave_reader_close(struct rp_wave_reader *w);

/* The wavefront's next instruction into D: returns its static entry's
 * index, -1 at the end of the stream, or -2 with ERR set (a damaged chunk
 * or a malformed record). */
long rp_wave_reader_next(struct rp_wave_reader *w, struct cgm_si_dyn *d, char *err, size_t errlen);

#endif
