/* Recording SI execution (see si_record.h): the static table classifies
 * each instruction once (unit, access, bytes per lane, GLC/SLC); the observer
 * gathers a wavefront's consecutive instructions into WAVE records of up to
 * CGM_SI_RUN_MAX, flushed when another wavefront runs or the group ends. */
#include "tracegen/si/si_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unit and s_waitcnt counts by format and opcode; access kind and bytes per
 * lane from the opcode table; GLC/SLC/GDS from the encoding. */
static void classify(const struct cgm_si_inst *in, struct cgm_si_static *s)
{
    const struct cgm_si_opcode_info *info = cgm_si_info(in);
    s->unit = CGM_SI_OTHER;
    s->access = info->access;
    s->access_size = info->bytes;
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2: case CGM_SI_FMT_SOPK: case CGM_SI_FMT_SOPC: case CGM_SI_FMT_SOP1:
        s->unit = info->branch ? CGM_SI_BRANCH : CGM_SI_SALU;
        break;
    case CGM_SI_FMT_SOPP:
        if (info->branch) {
            s->unit = CGM_SI_BRANCH;
        } else if (in->opcode == CGM_SI_s_barrier) {
            s->unit = CGM_SI_BARRIER;
        } else if (in->opcode == CGM_SI_s_endpgm) {
            s->unit = CGM_SI_END;
        } else if (in->opcode == CGM_SI_s_waitcnt) {
            uint32_t u = (uint16_t)in->simm16;
            s->unit = CGM_SI_WAITCNT;
            s->vmcnt = u & 0xf;
            s->expcnt = (u >> 4) & 7;
            s->lgkmcnt = (u >> 8) & 0xf;
        }
        break;
    case CGM_SI_FMT_SMRD:
        s->unit = CGM_SI_SMEM;
        break;
    case CGM_SI_FMT_VOP2: case CGM_SI_FMT_VOP1: case CGM_SI_FMT_VOPC: case CGM_SI_FMT_VOP3:
        s->unit = CGM_SI_VALU;
        break;
    case CGM_SI_FMT_DS:
        s->unit = CGM_SI_LDS;
        if (in->gds) s->flags |= CGM_SI_GDS;
        break;
    case CGM_SI_FMT_MUBUF: case CGM_SI_FMT_MTBUF: case CGM_SI_FMT_MIMG:
        s->unit = CGM_SI_VMEM;
        if (in->glc) s->flags |= CGM_SI_GLC;
        if (in->slc) s->flags |= CGM_SI_SLC;
        break;
    default:
        break;
    }
}

int si_static_table(const struct si_program *p, struct cgm_si_static **table, size_t *n)
{
    size_t cap = (size_t)((p->text_end - p->text_start) / 4 + 1), count = 0;
    struct cgm_si_static *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (uint64_t off = p->text_start; off + 4 <= p->text_end;) {
        struct cgm_si_inst in;
        size_t len = cgm_si_decode(p->image + off, p->text_end - off, &in);
        if (!len) {
            off += 4;
            continue;
        }
        struct cgm_si_static *s = &t[count++];
        memset(s, 0, sizeof *s);
        s->offset = (uint32_t)off;
        s->size = (uint8_t)len;
        memcpy(s->bytes, p->image + off, len);
        classify(&in, s);
        off += len;
    }
    *table = t;
    *n = count;
    return 0;
}

int si_static_write(struct cgm_writer *w, uint32_t stream_id, uint32_t program,
                    const struct cgm_si_static *table, size_t n)
{
    uint8_t *buf = malloc(n * CGM_SI_STATIC_BYTES_MAX + 1);
    if (!buf)
        return -1;
    size_t len = 0;
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++)
        len += cgm_si_static_encode(buf + len, &prev, &table[i]);
    char name[CGM_STREAM_NAME_MAX];
    snprintf(name, sizeof name, CGM_SI_STATIC_PREFIX "%u", program);
    int rc = cgm_writer_add_section(w, stream_id, name, buf, len ? len : 0);
    free(buf);
    return rc;
}

/* ---- the observer ------------------------------------------------------------ */

struct si_recorder {
    struct si_observer obs;
    struct cgm_writer *w;
    struct cgm_si_codec codec;
    const struct cgm_si_static *table;
    int32_t *index_of;              /* static index by (offset - text start) / 4 */
    uint32_t text_start, text_words;
    uint64_t code_address;
    uint32_t launch, first_stream, streams;
    struct cgm_wstream *stream;
    struct cgm_si_dyn run[CGM_SI_RUN_MAX];
    unsigned run_len, run_wave;
    uint8_t *buf;
    int failed;
    char why[256];
    uint64_t encoded_bytes;
    char section[CGM_STREAM_NAME_MAX];  /* name given to work-group streams */
};

static void flush_run(struct si_recorder *r)
{
    if (!r->run_len || r->failed)
        return;
    size_t len = cgm_si_wave_encode(&r->codec, r->buf, r->run_wave, r->run, r->run_len);
    r->encoded_bytes += len;
    if (!len || (r->w && cgm_wstream_append(r->stream, r->buf, len, r->run_len))) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "cannot record wave %u of launch %u: %s", r->run_wave,
                 r->launch, len ? cgm_writer_error(r->w) : "instruction not in the static table");
    }
    r->run_len = 0;
}

static void on_group_begin(void *ctx, const uint32_t group_id[3], unsigned waves)
{
    struct si_recorder *r = ctx;
    (void)waves;
    if (r->failed)
        return;
    struct cgm_stream_info info;
    memset(&info, 0, sizeof info);
    info.id = r->first_stream + r->streams++;
    info.kind = CGM_STREAM_GPU_WORKGROUP;
    info.launch_id = r->launch;
    memcpy(info.name, r->section, sizeof info.name);
    memcpy(info.group, group_id, sizeof info.group);
    r->stream = r->w ? cgm_writer_open_stream(r->w, &info) : NULL;
    /* every stream decodes on its own: fresh codec state */
    memset(r->codec.slot, 0, r->codec.n * sizeof *r->codec.slot);
    memset(r->codec.next, 0, sizeof r->codec.next);
    memset(r->codec.exec, 0, sizeof r->codec.exec);
    if (r->w && !r->stream) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "cannot open a stream: %s", cgm_writer_error(r->w));
    }
}

static void on_group_end(void *ctx, const uint32_t group_id[3])
{
    struct si_recorder *r = ctx;
    (void)group_id;
    flush_run(r);
    if (r->stream && cgm_wstream_close(r->stream) && !r->failed) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "cannot close a stream: %s", cgm_writer_error(r->w));
    }
    r->stream = NULL;
}

static void on_step(void *ctx, const struct si_step *s)
{
    struct si_recorder *r = ctx;
    if (r->failed)
        return;
    if (r->run_len && (s->wave != r->run_wave || r->run_len == CGM_SI_RUN_MAX))
        flush_run(r);
    uint64_t off = s->pc - r->code_address;
    uint64_t word = (off - r->text_start) / 4;
    int32_t k = off >= r->text_start && word < r->text_words ? r->index_of[word] : -1;
    if (k < 0) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "pc 0x%llx is not a static instruction",
                 (unsigned long long)s->pc);
        return;
    }
    struct cgm_si_dyn *d = &r->run[r->run_len++];
    r->run_wave = s->wave;
    d->offset = (uint32_t)off;
    d->exec = s->exec;
    const struct cgm_si_static *st = &r->table[k];
    if (st->access != CGM_SI_NONE) {
        int have = s->access != CGM_SI_NONE;
        if (st->unit == CGM_SI_SMEM)
            d->addr[0] = have ? s->addr[0] : 0;
        else
            for (uint64_t m = s->exec; m; m &= m - 1) {
                int l = __builtin_ctzll(m);
                d->addr[l] = have ? s->addr[l] : 0;
            }
    }
    if (st->unit == CGM_SI_BARRIER || st->unit == CGM_SI_END)
        flush_run(r);
}

struct si_recorder *si_recorder_create(struct cgm_writer *w, const struct cgm_si_static *table,
                                       size_t n, uint64_t code_address, uint32_t launch_id,
                                       uint32_t first_stream)
{
    struct si_recorder *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->w = w;
    r->table = table;
    r->code_address = code_address;
    r->launch = launch_id;
    r->first_stream = first_stream;
    r->buf = malloc(CGM_SI_RECORD_BYTES_MAX);
    uint32_t lo = n ? table[0].offset : 0, hi = n ? table[n - 1].offset + 4 : 0;
    r->text_start = lo;
    r->text_words = (hi - lo) / 4 + 1;
    r->index_of = malloc(r->text_words * sizeof *r->index_of);
    if (!r->buf || !r->index_of || cgm_si_codec_init(&r->codec, table, n)) {
        free(r->buf);
        free(r->index_of);
        free(r);
        return NULL;
    }
    for (uint32_t i = 0; i < r->text_words; i++)
        r->index_of[i] = -1;
    for (size_t i = 0; i < n; i++)
        r->index_of[(table[i].offset - lo) / 4] = (int32_t)i;
    r->obs.ctx = r;
    r->obs.step = on_step;
    r->obs.group_begin = on_group_begin;
    r->obs.group_end = on_group_end;
    return r;
}

void si_recorder_section(struct si_recorder *r, uint32_t program)
{
    snprintf(r->section, sizeof r->section, CGM_SI_STATIC_PREFIX "%u", program);
}

const struct si_observer *si_recorder_observer(struct si_recorder *r) { return &r->obs; }

uint32_t si_recorder_streams(const struct si_recorder *r) { return r->streams; }

uint64_t si_recorder_encoded_bytes(const struct si_recorder *r) { return r->encoded_bytes; }

int si_recorder_finish(struct si_recorder *r, char *err, size_t errlen)
{
    if (r->stream)
        on_group_end(r, NULL);
    int rc = r->failed ? -1 : 0;
    if (rc && errlen)
        snprintf(err, errlen, "%s", r->why);
    cgm_si_codec_free(&r->codec);
    free(r->index_of);
    free(r->buf);
    free(r);
    return rc;
}
