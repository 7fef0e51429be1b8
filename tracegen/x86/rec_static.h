/* The trace's x86.static section, written as the code is decoded: each
 * decoded block adds the entries of its instructions not described yet
 * (one record, whole entries, one address-delta chain across the
 * section), and the section's buffered records are flushed before any
 * other chunk is handed over, so a trace cut anywhere describes every
 * instruction its chunks run. An address is described once, by the first
 * code decoded there. */
#ifndef TRACEGEN_X86_REC_STATIC_H
#define TRACEGEN_X86_REC_STATIC_H

#include "tracegen/x86/decode_cache.h"

struct cgm_writer;
struct rec_static;

/* Opens the section in W and watches CC's decoding (bytes are read from
 * M). NULL when the section cannot be opened (see cgm_writer_error). */
struct rec_static *rec_static_open(struct cgm_writer *w, struct x86_code_cache *cc,
                                   struct gmem *m);
/* Stops watching, writes what is buffered and closes the section.
 * Returns 0, or -1 when a write failed. Frees T. */
int rec_static_close(struct rec_static *t);

#endif
