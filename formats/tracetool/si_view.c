/* Decoding a work-group stream against its static table, for dump and
 * stats. The records are delta-coded from the stream's start, so a dump
 * from record N decodes (without printing) the records before it. */
#include "formats/tracetool/si_view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/si_isa.h"
#include "cgm/sirec.h"

#define SI_SECTION_LIMIT (1u << 24)

struct si_stream {
    struct cgm_si_static *table;
    size_t n;
    struct cgm_si_codec codec;
    struct cgm_si_dyn *insts;    /* CGM_SI_RUN_MAX */
    struct cgm_riter *it;
};

static void close_stream(struct si_stream *s)
{
    cgm_riter_close(s->it);
    cgm_si_codec_free(&s->codec);
    free(s->table);
    free(s->insts);
}

static int open_stream(struct si_stream *s, struct cgm_reader *r, size_t si, char *err,
                       size_t errlen)
{
    memset(s, 0, sizeof *s);
    const struct cgm_reader_stream *rs = cgm_reader_stream(r, si);
    uint8_t *sec;
    size_t len;
    if (strncmp(rs->info.name, CGM_SI_STATIC_PREFIX, strlen(CGM_SI_STATIC_PREFIX))) {
        snprintf(err, errlen, "stream %u does not name its static table", rs->info.id);
        return -1;
    }
    if (cgm_reader_read_section(r, rs->info.name, SI_SECTION_LIMIT, &sec, &len, err, errlen))
        return -1;
    /* Every entry takes at least 4 bytes. */
    s->table = malloc((len / 4 + 1) * sizeof *s->table);
    s->insts = malloc(CGM_SI_RUN_MAX * sizeof *s->insts);
    const uint8_t *p = sec, *end = sec + len;
    uint32_t prev = 0;
    int rc = s->table && s->insts ? 0 : -1;
    while (!rc && p < end)
        if (cgm_si_static_decode(&p, end, &prev, &s->table[s->n++])) {
            snprintf(err, errlen, "section %s: entry %zu is malformed", rs->info.name, s->n - 1);
            rc = -1;
        }
    free(sec);
    if (!rc && cgm_si_codec_init(&s->codec, s->table, s->n))
        rc = -1;
    if (!rc && !(s->it = cgm_riter_open(r, si)))
        rc = -1;
    if (rc && !err[0])
        snprintf(err, errlen, "out of memory");
    if (rc)
        close_stream(s);
    return rc;
}

/* Decodes the next record: 1 with *TYPE, *WAVE, *N set, 0 at the end, -1. */
static int next_record(struct si_stream *s, const struct cgm_reader_stream *rs, uint8_t *type,
                       unsigned *wave, unsigned *n, char *err, size_t errlen)
{
    const uint8_t *rec;
    size_t len;
    int k = cgm_riter_next(s->it, &rec, &len);
    if (k < 0)
        snprintf(err, errlen, "%s", cgm_riter_error(s->it));
    if (k <= 0)
        return k;
    *n = 0;
    if (cgm_si_record_decode(&s->codec, rec, len, type, wave, s->insts, n)) {
        snprintf(err, errlen, "stream %u record %" PRIu64 ": malformed SI record", rs->info.id,
                 cgm_riter_position(s->it) - 1);
        return -1;
    }
    return 1;
}

/* A SOPP branch's operand is a signed count of words from the next
 * instruction (LLVM writes a label there): shown as the address it goes
 * to, in the offsets' own form. */
static void show_branch_target(const struct cgm_si_inst *in, uint32_t offset, char *text, size_t len)
{
    const char *name = cgm_si_opcodes[in->opcode].name;
    if (in->fmt != CGM_SI_FMT_SOPP || !name ||
        (in->opcode != CGM_SI_s_branch && strncmp(name, "s_cbranch_", strlen("s_cbranch_"))))
        return;
    int64_t target = (int64_t)offset + 4 + 4 * (int64_t)in->simm16;
    char *operand = strrchr(text, ' ');
    if (target >= 0 && operand)
        snprintf(operand + 1, len - (size_t)(operand + 1 - text), "0x%06" PRIx64, (uint64_t)target);
}

/* One line per instruction: offset, LLVM-syntax disassembly of the bytes
 * in the static table (branch targets as addresses), exec mask and the
 * access. */
static void print_wave(FILE *out, const struct si_stream *s, const struct cgm_si_dyn *insts,
                       unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct cgm_si_dyn *d = &insts[i];
        long k = cgm_si_static_find(&s->codec, d->offset);
        const struct cgm_si_static *st = k >= 0 ? &s->table[k] : NULL;
        char text[160] = "?";
        struct cgm_si_inst inst;
        if (st && cgm_si_decode(st->bytes, st->size, &inst)) {
            if (cgm_si_disasm(&inst, text, sizeof text) < 0)
                snprintf(text, sizeof text, "?");
            else
                show_branch_target(&inst, d->offset, text, sizeof text);
        }
        fprintf(out, "    0x%06" PRIx32 "  %-48s exec=%016" PRIx64, d->offset, text, d->exec);
        cgm_si_print_access(out, st, d);
        fputc('\n', out);
    }
}

int si_dump_stream(FILE *out, struct cgm_reader *r, size_t si, uint64_t from,
                   uint64_t count, char *err, size_t errlen)
{
    const struct cgm_reader_stream *rs = cgm_reader_stream(r, si);
    struct si_stream s;
    err[0] = 0;
    if (open_stream(&s, r, si, err, errlen))
        return -1;
    uint8_t type;
    unsigned wave, n;
    int k;
    for (uint64_t rec = 0; rec < from + count && (k = next_record(&s, rs, &type, &wave, &n, err,
                                                                   errlen)) == 1; rec++) {
        if (rec < from)
            continue;
        fprintf(out, "%u:%" PRIu64 " ", rs->info.id, rec);
        if (type == CGM_SI_REC_WAVE) {
            fprintf(out, "wave %u: %u instructions\n", wave, n);
            print_wave(out, &s, s.insts, n);
        } else {
            fprintf(out, "%s wave %u\n", type == CGM_SI_REC_BARRIER ? "barrier" : "end", wave);
        }
    }
    close_stream(&s);
    return err[0] ? -1 : 0;
}

int si_stream_stats(struct cgm_reader *r, size_t si, struct cgm_si_stats *st, char *err,
                    size_t errlen)
{
    const struct cgm_reader_stream *rs = cgm_reader_stream(r, si);
    struct si_stream s;
    err[0] = 0;
    if (open_stream(&s, r, si, err, errlen))
        return -1;
    uint8_t type;
    unsigned wave, n;
    while (next_record(&s, rs, &type, &wave, &n, err, errlen) == 1)
        for (unsigned i = 0; i < n; i++) {
            long e = cgm_si_static_find(&s.codec, s.insts[i].offset);
            if (e >= 0)
                cgm_si_stats_add(st, &s.table[e], &s.insts[i]);
        }
    close_stream(&s);
    return err[0] ? -1 : 0;
}
