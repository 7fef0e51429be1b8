/* A work-group's stream, decoded once for its wavefronts (wave_reader.h). */
#include "replay/gpu/wave_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cursor_open(struct rp_stream_cursor *c, const struct rp_wg_stream *s)
{
    *c = (struct rp_stream_cursor){ 0 };
    if (cgm_si_codec_init_like(&c->codec, &s->prog->proto))
        return -1;
    c->it = cgm_riter_open(s->r, s->stream_index);
    if (!c->it) {
        cgm_si_codec_free(&c->codec);
        return -1;
    }
    return 0;
}

static void cursor_close(struct rp_stream_cursor *c)
{
    if (c->it)
        cgm_riter_close(c->it);
    cgm_si_codec_free(&c->codec);
    c->it = NULL;
}

int rp_wg_stream_open(struct rp_wg_stream *s, struct cgm_reader *r, size_t stream_index,
                      const struct rp_si_program *prog, unsigned nwaves, size_t queue_words,
                      const char *trace_name, char *err, size_t errlen)
{
    *s = (struct rp_wg_stream){ .r = r, .stream_index = stream_index, .prog = prog, .trace_name = trace_name,
                                .stream_id = cgm_reader_stream(r, stream_index)->info.id,
                                .queue_words = queue_words, .nwaves = nwaves };
    if (nwaves > CGM_SI_WAVES_MAX) {
        snprintf(err, errlen, "%s: stream %u: %u wavefronts in a work-group, at most %u", trace_name, s->stream_id,
                 nwaves, CGM_SI_WAVES_MAX);
        return -1;
    }
    if (cursor_open(&s->cur, s)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void rp_wg_stream_close(struct rp_wg_stream *s)
{
    cursor_close(&s->cur);
    for (unsigned i = 0; i < CGM_SI_WAVES_MAX; i++) {
        free(s->q[i].w);
        s->q[i] = (struct rp_wave_queue){ 0 };
        if (s->own[i]) {
            cursor_close(s->own[i]);
            free(s->own[i]);
            s->own[i] = NULL;
        }
    }
}

void rp_wg_stream_close_wave(struct rp_wg_stream *s, unsigned wave)
{
    s->closed |= 1ull << wave;
    free(s->q[wave].w);
    s->q[wave] = (struct rp_wave_queue){ 0 };
    if (s->own[wave]) {
        cursor_close(s->own[wave]);
        free(s->own[wave]);
        s->own[wave] = NULL;
    }
}

static long bad_record(const struct rp_wg_stream *s, const struct rp_stream_cursor *c, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: stream %u: record %llu is not a well-formed Southern Islands record",
             s->trace_name, s->stream_id, (unsigned long long)cgm_riter_position(c->it) - 1);
    return -2;
}

/* Opens C's next record into its run. 1 when there is one, 0 at the end,
 * -2 with ERR set. */
static int next_record(const struct rp_wg_stream *s, struct rp_stream_cursor *c, char *err, size_t errlen)
{
    const uint8_t *rec;
    size_t len;
    int rc = cgm_riter_next(c->it, &rec, &len);
    if (rc == 0)
        return 0;
    if (rc < 0) {
        snprintf(err, errlen, "%s", cgm_riter_error(c->it));
        return -2;
    }
    uint8_t type;
    /* Barrier and end marks repeat what the instructions say: no run. */
    if (cgm_si_run_open(rec, len, &type, &c->run))
        return (int)bad_record(s, c, err, errlen);
    return 1;
}

/* The addresses an instruction carries: lanes of EXEC for a vector memory
 * instruction, addr[0] for a scalar load, none otherwise. */
static uint64_t address_lanes(const struct cgm_si_static *st, uint64_t exec)
{
    if (st->access == CGM_SI_NONE)
        return 0;
    return st->unit == CGM_SI_SMEM ? 1 : exec;
}

static bool queue_push(struct rp_wave_queue *q, size_t limit, const struct cgm_si_static *table, long k,
                       const struct cgm_si_dyn *d)
{
    uint64_t lanes = address_lanes(&table[k], d->exec);
    size_t need = 2 + (size_t)__builtin_popcountll(lanes);
    if (q->n + need > limit)
        return false;
    if (q->n + need > q->cap) {
        size_t old = q->cap, cap = old ? old : 256;
        while (cap < q->n + need)
            cap *= 2;
        uint64_t *w = realloc(q->w, cap * sizeof *w);
        if (!w)
            return false;
        /* the words that wrapped round to the start follow the old end:
           head + n stays below twice the old size */
        if (q->head + q->n > old)
            memcpy(w + old, w, (q->head + q->n - old) * sizeof *w);
        q->w = w;
        q->cap = cap;
    }
    size_t mask = q->cap - 1, at = q->head + q->n;
    q->w[at++ & mask] = (uint64_t)k;
    q->w[at++ & mask] = d->exec;
    for (uint64_t m = lanes; m; m &= m - 1)
        q->w[at++ & mask] = d->addr[__builtin_ctzll(m)];
    q->n += need;
    return true;
}

static long queue_pop(struct rp_wave_queue *q, const struct cgm_si_static *table, struct cgm_si_dyn *d)
{
    size_t mask = q->cap - 1, at = q->head;
    long k = (long)q->w[at++ & mask];
    d->exec = q->w[at++ & mask];
    d->offset = table[k].offset;
    for (uint64_t m = address_lanes(&table[k], d->exec); m; m &= m - 1)
        d->addr[__builtin_ctzll(m)] = q->w[at++ & mask];
    q->n -= at - q->head;
    q->head = at & mask;
    return k;
}

/* WAVE reads on with a cursor of its own, positioned after the
 * instructions it has taken. 0, or -2 with ERR set. */
static long detach(struct rp_wg_stream *s, unsigned wave, char *err, size_t errlen)
{
    struct rp_stream_cursor *c = malloc(sizeof *c);
    if (!c || cursor_open(c, s)) {
        free(c);
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    s->own[wave] = c;
    s->detached |= 1ull << wave;
    free(s->q[wave].w);
    s->q[wave] = (struct rp_wave_queue){ 0 };
    struct cgm_si_dyn d;
    for (uint64_t left = s->taken[wave]; left;) {
        if (!c->run.left) {
            int rc = next_record(s, c, err, errlen);
            if (rc <= 0)
                return rc < 0 ? -2 : bad_record(s, c, err, errlen);
            if (c->run.wave != wave && cgm_si_run_skip(&c->codec, &c->run))
                return bad_record(s, c, err, errlen);
            continue;
        }
        if (cgm_si_run_next(&c->codec, &c->run, &d) < 0)
            return bad_record(s, c, err, errlen);
        left--;
    }
    return 0;
}

/* A detached wavefront's next instruction, from its own cursor. */
static long own_next(struct rp_wg_stream *s, unsigned wave, struct cgm_si_dyn *d, char *err, size_t errlen)
{
    struct rp_stream_cursor *c = s->own[wave];
    while (!c->run.left) {
        int rc = next_record(s, c, err, errlen);
        if (rc <= 0)
            return rc < 0 ? -2 : -1;
        if (c->run.wave != wave && cgm_si_run_skip(&c->codec, &c->run))
            return bad_record(s, c, err, errlen);
    }
    long k = cgm_si_run_next(&c->codec, &c->run, d);
    return k < 0 ? bad_record(s, c, err, errlen) : k;
}

long rp_wg_stream_next(struct rp_wg_stream *s, unsigned wave, struct cgm_si_dyn *d, char *err, size_t errlen)
{
    long k;
    if (s->detached >> wave & 1) {
        k = own_next(s, wave, d, err, errlen);
    } else if (s->q[wave].n) {
        k = queue_pop(&s->q[wave], s->prog->proto.table, d);
    } else {
        struct rp_stream_cursor *c = &s->cur;
        for (;;) {
            if (!c->run.left) {
                int rc = next_record(s, c, err, errlen);
                if (rc <= 0)
                    return rc < 0 ? -2 : -1;
                continue;
            }
            unsigned v = c->run.wave;
            if (v == wave) {
                k = cgm_si_run_next(&c->codec, &c->run, d);
                if (k < 0)
                    return bad_record(s, c, err, errlen);
                break;
            }
            if (v >= s->nwaves || ((s->closed | s->detached) >> v & 1)) {
                /* nobody waits for these (a wave the dispatcher did not
                 * make ends the stream for it as for the others) */
                if (cgm_si_run_skip(&c->codec, &c->run))
                    return bad_record(s, c, err, errlen);
                continue;
            }
            /* Another wavefront's: into its queue, or it reads on alone. */
            long kv = cgm_si_run_next(&c->codec, &c->run, d);
            if (kv < 0)
                return bad_record(s, c, err, errlen);
            if (!queue_push(&s->q[v], s->queue_words, s->prog->proto.table, kv, d) && detach(s, v, err, errlen))
                return -2;
        }
    }
    if (k >= 0)
        s->taken[wave]++;
    return k;
}
