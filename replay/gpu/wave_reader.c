/* A wavefront's cursor over its work-group's stream (wave_reader.h). */
#include "replay/gpu/wave_reader.h"

#include <stdio.h>
#include <string.h>

int rp_wave_reader_open(struct rp_wave_reader *w, struct cgm_reader *r, size_t stream_index,
                        const struct rp_si_program *prog, unsigned wave, const char *trace_name,
                        char *err, size_t errlen)
{
    *w = (struct rp_wave_reader){ .wave = wave, .trace_name = trace_name,
                                  .stream_id = cgm_reader_stream(r, stream_index)->info.id };
    if (cgm_si_codec_init_like(&w->codec, &prog->proto)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->it = cgm_riter_open(r, stream_index);
    if (!w->it) {
        cgm_si_codec_free(&w->codec);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void rp_wave_reader_close(struct rp_wave_reader *w)
{
    if (w->it)
        cgm_riter_close(w->it);
    cgm_si_codec_free(&w->codec);
    w->it = NULL;
}

static long bad_record(struct rp_wave_reader *w, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: stream %u: record %llu is not a well-formed Southern Islands record",
             w->trace_name, w->stream_id, (unsigned long long)cgm_riter_position(w->it) - 1);
    return -2;
}

long rp_wave_reader_next(struct rp_wave_reader *w, struct cgm_si_dyn *d, char *err, size_t errlen)
{
    while (!w->run.left) {
        const uint8_t *rec;
        size_t len;
        int rc = cgm_riter_next(w->it, &rec, &len);
        if (rc == 0)
            return -1;
        if (rc < 0) {
            snprintf(err, errlen, "%s", cgm_riter_error(w->it));
            return -2;
        }
        uint8_t type;
        if (cgm_si_run_open(rec, len, &type, &w->run))
            return bad_record(w, err, errlen);
        /* Barrier and end marks repeat what the instructions say. */
        if (w->run.wave != w->wave && cgm_si_run_skip(&w->codec, &w->run))
            return bad_record(w, err, errlen);
    }
    long k = cgm_si_run_next(&w->codec, &w->run, d);
    return k < 0 ? bad_record(w, err, errlen) : k;
}
