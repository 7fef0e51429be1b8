/* The coherence random testers' event queue: messages, wake-ups and
 * issue turns ordered by time, then by the order they were queued (so the
 * same seed replays the same run), and their random numbers. */
#ifndef CGM_TEST_COH_EVENTS_H
#define CGM_TEST_COH_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/coh.h"

struct coh_event {
    uint64_t time, seq;
    int kind;
    struct cgm_coh_msg m;
    int node, what;
    uint64_t block;
};

struct coh_events {
    struct coh_event *heap;
    size_t n, cap;
    uint64_t seq;    /* events queued so far */
};

/* Queues e (its seq is set here). Aborts if out of memory. */
void coh_events_push(struct coh_events *q, struct coh_event e);
/* The earliest event; q must not be empty. */
struct coh_event coh_events_pop(struct coh_events *q);
void coh_events_free(struct coh_events *q);
/* A run's fingerprint (its row and message counts and its end time), the
 * rows of the cores' protocol also added to rows_total (indexed as its
 * rows). */
uint64_t coh_run_signature(const struct cgm_coh_sys *s, uint64_t *rows_total, uint64_t now);
/* The testers' length: CGM_COH_SCALE (1 by default; 0.1 for a quick run),
 * a twentieth of it under the sanitizers. */
double coh_scale_factor(void);
/* n requests scaled so (at least 1). */
uint64_t coh_scale(uint64_t n);
/* When a message sent at now arrives: 1..max_delay cycles later, but
 * never before the last one on its channel (*last, updated): channels are
 * FIFO. */
uint64_t coh_msg_arrival(uint64_t *rng, uint64_t now, unsigned max_delay, uint64_t *last);
/* How long a wake-up of kind what takes: memory about mem_delay, a
 * write-back drain up to 30 cycles, the rest up to 16. */
uint64_t coh_wake_delay(uint64_t *rng, int what, unsigned mem_delay);
/* xorshift64. */
uint64_t coh_rnd(uint64_t *state);

#endif
