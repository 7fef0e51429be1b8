/* A work-group's wavefronts' instructions, read lazily from its stream.
 *
 * A work-group stream interleaves its wavefronts' runs of instructions,
 * and the record codec keeps state across all of them (each memory
 * instruction's last base address), so the stream is decoded in order,
 * once per work-group: the wavefront that asks for an instruction not yet
 * decoded moves the work-group's cursor on, and the instructions of the
 * others that it passes wait in their queues, in a compact form (static
 * index, EXEC, the active lanes' addresses).
 *
 * Memory stays bounded whatever the order the wavefronts ask in: a queue
 * that would hold more than the stream's limit of words detaches its
 * wavefront, which then reads the stream with a cursor of its own (decoding
 * every record again, its own instructions already taken included, and
 * skipping the others'), as every wavefront did before the queues. The
 * recorder runs a work-group's wavefronts in turns up to each barrier, so
 * a kernel with long barrier-free stretches detaches its wavefronts. */
#ifndef REPLAY_GPU_WAVE_READER_H
#define REPLAY_GPU_WAVE_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "cgm/sirec.h"
#include "cgm/trace.h"
#include "replay/gpu/program.h"

/* Words a wavefront's queue may hold (an instruction takes 2, plus one
 * per active lane's address): 32 KiB. */
#define RP_WAVE_QUEUE_WORDS 4096u

/* A cursor over one stream: the work-group's, or a detached wavefront's. */
struct rp_stream_cursor {
    struct cgm_riter *it;
    struct cgm_si_codec codec;     /* own slots, the program's table */
    struct cgm_si_run run;         /* the record being read */
};

struct rp_wave_queue {
    uint64_t *w;                   /* ring of words, cap a power of two */
    size_t cap, head, n;
};

struct rp_wg_stream {
    struct cgm_reader *r;
    size_t stream_index;
    const struct rp_si_program *prog;
    const char *trace_name;
    uint32_t stream_id;
    size_t queue_words;
    unsigned nwaves;
    struct rp_stream_cursor cur;
    struct rp_wave_queue q[CGM_SI_WAVES_MAX];
    uint64_t taken[CGM_SI_WAVES_MAX];   /* instructions handed to each wavefront */
    uint64_t closed, detached;          /* a bit per wavefront */
    struct rp_stream_cursor *own[CGM_SI_WAVES_MAX]; /* detached wavefronts' cursors */
};

/* Opens work-group stream STREAM_INDEX of R for NWAVES wavefronts, decoding
 * against PROG, each queue limited to QUEUE_WORDS. Returns 0, or -1 with
 * ERR set. */
int rp_wg_stream_open(struct rp_wg_stream *s, struct cgm_reader *r, size_t stream_index,
                      const struct rp_si_program *prog, unsigned nwaves, size_t queue_words,
                      const char *trace_name, char *err, size_t errlen);
/* Wavefront WAVE is done with the stream: what it has not read is skipped. */
void rp_wg_stream_close_wave(struct rp_wg_stream *s, unsigned wave);
void rp_wg_stream_close(struct rp_wg_stream *s);

/* Wavefront WAVE's next instruction into D: returns its static entry's
 * index, -1 at the end of the stream, or -2 with ERR set (a damaged chunk,
 * a malformed record, or no memory for a cursor). */
long rp_wg_stream_next(struct rp_wg_stream *s, unsigned wave, struct cgm_si_dyn *d, char *err, size_t errlen);

#endif
