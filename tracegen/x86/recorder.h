/* The recorder: turns executed blocks, memory accesses and events into
 * the records of cgm/x86rec.h and cgm/events.h in a .cgt trace, one stream
 * per guest thread. */
#ifndef TRACEGEN_X86_RECORDER_H
#define TRACEGEN_X86_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/events.h"
#include "tracegen/x86/cpu.h"
#include "tracegen/x86/decode_cache.h"

struct x86_recorder;
struct x86_rec_thread;
struct cgm_writer;

/* Creates the trace PATH for the code of CC (in memory M), whose static
 * table it writes as the code is decoded. ROI_ONLY: record only inside ROI
 * markers. CHUNK_BYTES: raw bytes per chunk (0: the format's default). */
struct x86_recorder *x86_rec_create(const char *path, int roi_only, uint32_t chunk_bytes,
                                    struct x86_code_cache *cc, struct gmem *m, char *err,
                                    size_t errlen);

/* Opens the stream of a guest thread and attaches the access hook to its
 * CPU. Returns NULL when the stream cannot be opened. */
struct x86_rec_thread *x86_rec_attach(struct x86_recorder *r, struct x86_cpu *c, uint64_t tid);
/* Closes a thread's stream (when the thread exits) and frees T. */
void x86_rec_detach(struct x86_rec_thread *t);

/* Around each block: BEGIN before it runs, END with the instructions it
 * retired (fewer than its length when it faulted). */
void x86_rec_block_begin(struct x86_rec_thread *t, const struct x86_block *b);
void x86_rec_block_end(struct x86_rec_thread *t, uint32_t retired);

void x86_rec_event(struct x86_rec_thread *t, const struct cgm_event *ev);
/* Records the event TYPE with fields F0..F3 (the others zero) in T's
 * stream; nothing when T is NULL (the thread is not being recorded). */
void x86_rec_event_fields(struct x86_rec_thread *t, uint8_t type, uint64_t f0, uint64_t f1,
                          uint64_t f2, uint64_t f3);
/* The trace being written (the GPU driver adds its streams to it). */
struct cgm_writer *x86_rec_writer(struct x86_recorder *r);
/* 0 outside the region of interest under --roi-only, else 1. */
int x86_rec_recording(const struct x86_recorder *r);
/* Region-of-interest markers: recording starts/stops here with --roi-only
 * (for every thread). */
void x86_rec_roi(struct x86_rec_thread *t, int begin, uint64_t seq);
/* Data accesses recorded so far, counted as valgrind's lackey counts them:
 * a write right after a read of the same address and size by the same
 * instruction is one "modify". */
void x86_rec_counts(const struct x86_recorder *r, uint64_t *loads, uint64_t *stores,
                    uint64_t *modifies);

/* Why writing the trace failed, or NULL while it has not. */
const char *x86_rec_error(const struct x86_recorder *r);
/* Bytes of records handed to the writer so far (before compression). */
uint64_t x86_rec_bytes(const struct x86_recorder *r);

/* Writes the "program" section: TEXT is lines "key=value" (see cgm/trace.h). */
int x86_rec_program(struct x86_recorder *r, const char *text);

/* Closes the static table and finalizes the file. Frees R and its
 * threads. Returns 0, or -1 with ERR. */
int x86_rec_finish(struct x86_recorder *r, char *err, size_t errlen);

/* Class of a decoded instruction for the static table. */
unsigned x86_insn_class(const struct x86_dinsn *in);

#endif
