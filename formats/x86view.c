/* x86 trace views: see cgm/x86view.h. */
#include "cgm/x86view.h"

#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/events.h"

#define STATIC_SECTION_LIMIT (256u << 20)

struct cgm_x86_view {
    struct cgm_x86_static *e;
    char **text;           /* lazily disassembled, parallel to e */
    size_t n;
    csh cs;
    int cs_open;
};

struct cgm_x86_view *cgm_x86_view_open(struct cgm_reader *r, char *err, size_t errlen)
{
    struct cgm_x86_view *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (cgm_x86_static_read(r, STATIC_SECTION_LIMIT, &v->e, &v->n, err, errlen) != 0) {
        free(v);
        return NULL;
    }
    v->text = calloc(v->n ? v->n : 1, sizeof *v->text);
    if (!v->text) {
        cgm_x86_view_close(v);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &v->cs) == CS_ERR_OK)
        v->cs_open = 1;
    return v;
}

void cgm_x86_view_close(struct cgm_x86_view *v)
{
    if (!v)
        return;
    if (v->text)
        for (size_t i = 0; i < v->n; i++)
            free(v->text[i]);
    free(v->text);
    free(v->e);
    if (v->cs_open)
        cs_close(&v->cs);
    free(v);
}

size_t cgm_x86_view_count(const struct cgm_x86_view *v)
{
    return v->n;
}

static long find_index(const struct cgm_x86_view *v, uint64_t addr)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->e[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->n && v->e[lo].addr == addr ? (long)lo : -1;
}

const struct cgm_x86_static *cgm_x86_view_find(const struct cgm_x86_view *v, uint64_t addr)
{
    long i = find_index(v, addr);
    return i < 0 ? NULL : &v->e[i];
}

static const char *disasm_index(struct cgm_x86_view *v, long i)
{
    if (i < 0)
        return "?";
    if (!v->text[i]) {
        char buf[224] = "(bytes do not decode)";
        cs_insn *ci = NULL;
        size_t k = v->cs_open ? cs_disasm(v->cs, v->e[i].bytes, v->e[i].len, v->e[i].addr, 1, &ci)
                              : 0;
        if (k) {
            snprintf(buf, sizeof buf, "%s%s%s", ci->mnemonic, ci->op_str[0] ? " " : "",
                     ci->op_str);
            cs_free(ci, k);
        }
        v->text[i] = strdup(buf);
        if (!v->text[i])
            return "?";
    }
    return v->text[i];
}

const char *cgm_x86_view_disasm(struct cgm_x86_view *v, uint64_t addr)
{
    return disasm_index(v, find_index(v, addr));
}

/* Walks a block: the index of instruction K given the previous one. */
static long next_index(const struct cgm_x86_view *v, long prev, uint64_t *addr)
{
    if (prev >= 0 && (size_t)prev + 1 < v->n && v->e[prev + 1].addr == *addr)
        return prev + 1;
    return find_index(v, *addr);
}

int cgm_x86_dump_stream(FILE *out, struct cgm_x86_view *v, struct cgm_reader *r, size_t si,
                        uint64_t from, uint64_t count, char *err, size_t errlen)
{
    const struct cgm_reader_stream *s = cgm_reader_stream(r, si);
    struct cgm_riter *it = cgm_riter_open(r, si);
    struct cgm_x86_codec *codec = calloc(1, sizeof *codec);
    struct cgm_x86_access *acc = malloc(CGM_X86_ACCESS_MAX * sizeof *acc);
    int rc = 0;
    if (!it || !codec || !acc) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
        goto out;
    }
    const uint8_t *rec;
    size_t len;
    int k;
    /* records before FROM are decoded (the delta state needs them) but not printed */
    for (uint64_t n = 0; n < from + count && (k = cgm_riter_next(it, &rec, &len)) == 1; n++) {
        int show = n >= from;
        if (len && (rec[0] == CGM_X86_REC_BLOCK || rec[0] == CGM_X86_REC_PARTIAL)) {
            struct cgm_x86_block_rec b;
            if (cgm_x86_block_decode(codec, rec, len, &b, acc) != 0) {
                snprintf(err, errlen, "stream %u record %" PRIu64 ": malformed x86 block record",
                         s->info.id, n);
                rc = -1;
                break;
            }
            if (!show)
                continue;
            fprintf(out, "%u:%" PRIu64 " %s 0x%" PRIx64 " insts=%u accesses=%u\n", s->info.id, n,
                    b.type == CGM_X86_REC_BLOCK ? "block" : "partial", b.start, b.ninsn,
                    b.naccess);
            uint64_t addr = b.start;
            long idx = -1;
            uint32_t a = 0;
            uint32_t shown = b.type == CGM_X86_REC_BLOCK ? b.ninsn : 0;
            for (uint32_t i = 0; i < shown; i++) {
                idx = next_index(v, idx, &addr);
                fprintf(out, "    0x%" PRIx64 "  %s\n", addr, disasm_index(v, idx));
                for (; a < b.naccess && acc[a].insn == i; a++)
                    fprintf(out, "        %c 0x%" PRIx64 " %u\n", acc[a].write ? 'W' : 'R',
                            acc[a].addr, acc[a].size);
                if (idx < 0)
                    break;
                addr += v->e[idx].len;
            }
            for (; a < b.naccess; a++)
                fprintf(out, "        [insn %u] %c 0x%" PRIx64 " %u\n", acc[a].insn,
                        acc[a].write ? 'W' : 'R', acc[a].addr, acc[a].size);
            continue;
        }
        if (!show)
            continue;
        struct cgm_event ev;
        fprintf(out, "%u:%" PRIu64 " ", s->info.id, n);
        if (cgm_event_decode(rec, len, &ev) == 0)
            cgm_event_print(out, &ev);
        else
            fprintf(out, "record type 0x%02x len=%zu", len ? rec[0] : 0, len);
        fputc('\n', out);
    }
    if (rc == 0 && it && cgm_riter_error(it)[0]) {
        snprintf(err, errlen, "%s", cgm_riter_error(it));
        rc = -1;
    }
out:
    if (it)
        cgm_riter_close(it);
    free(codec);
    free(acc);
    return rc;
}

/* ---- footprint: open-addressing sets of line and page numbers ---------- */

struct set {
    uint64_t *slot;   /* value + 1; 0 is empty */
    size_t cap, n;
};

struct cgm_x86_footprint {
    struct set lines, pages;
};

static int set_add(struct set *s, uint64_t v)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        uint64_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i]) {
                size_t h = (size_t)((s->slot[i] * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
                while (slot[h])
                    h = (h + 1) & (cap - 1);
                slot[h] = s->slot[i];
            }
        free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    uint64_t key = v + 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (s->cap - 1);
    while (s->slot[h]) {
        if (s->slot[h] == key)
            return 0;
        h = (h + 1) & (s->cap - 1);
    }
    s->slot[h] = key;
    s->n++;
    return 0;
}

struct cgm_x86_footprint *cgm_x86_footprint_new(void)
{
    return calloc(1, sizeof(struct cgm_x86_footprint));
}

void cgm_x86_footprint_free(struct cgm_x86_footprint *f)
{
    if (!f)
        return;
    free(f->lines.slot);
    free(f->pages.slot);
    free(f);
}

uint64_t cgm_x86_footprint_lines(const struct cgm_x86_footprint *f)
{
    return f->lines.n;
}

uint64_t cgm_x86_footprint_pages(const struct cgm_x86_footprint *f)
{
    return f->pages.n;
}

int cgm_x86_stream_stats(struct cgm_x86_view *v, struct cgm_reader *r, size_t si,
                         struct cgm_x86_stats *s, struct cgm_x86_footprint *f, char *err,
                         size_t errlen)
{
    struct cgm_riter *it = cgm_riter_open(r, si);
    struct cgm_x86_codec *codec = calloc(1, sizeof *codec);
    struct cgm_x86_access *acc = malloc(CGM_X86_ACCESS_MAX * sizeof *acc);
    int rc = 0, k;
    const uint8_t *rec;
    size_t len;
    if (!it || !codec || !acc) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
        goto out;
    }
    while ((k = cgm_riter_next(it, &rec, &len)) == 1) {
        if (!len || (rec[0] != CGM_X86_REC_BLOCK && rec[0] != CGM_X86_REC_PARTIAL)) {
            s->events++;
            continue;
        }
        struct cgm_x86_block_rec b;
        if (cgm_x86_block_decode(codec, rec, len, &b, acc) != 0) {
            snprintf(err, errlen, "stream %u: malformed x86 block record",
                     cgm_reader_stream(r, si)->info.id);
            rc = -1;
            break;
        }
        if (b.type == CGM_X86_REC_BLOCK) {
            s->blocks++;
            s->instructions += b.ninsn;
            uint64_t addr = b.start;
            long idx = -1;
            for (uint32_t i = 0; i < b.ninsn; i++) {
                idx = next_index(v, idx, &addr);
                s->by_class[idx < 0 ? CGM_X86_OTHER : v->e[idx].cls]++;
                if (idx < 0) {
                    s->by_class[CGM_X86_OTHER] += b.ninsn - i - 1;
                    break;
                }
                addr += v->e[idx].len;
            }
        }
        for (uint32_t a = 0; a < b.naccess; a++) {
            if (acc[a].write) {
                s->writes++;
                s->bytes_written += acc[a].size;
            } else {
                s->reads++;
                s->bytes_read += acc[a].size;
            }
            if (f) {
                uint64_t first = acc[a].addr >> 6, last = (acc[a].addr + acc[a].size - 1) >> 6;
                for (uint64_t l = first; l <= last; l++)
                    if (set_add(&f->lines, l) < 0 || set_add(&f->pages, l >> 6) < 0) {
                        snprintf(err, errlen, "out of memory");
                        rc = -1;
                        goto out;
                    }
            }
        }
    }
    if (k < 0) {
        snprintf(err, errlen, "%s", cgm_riter_error(it));
        rc = -1;
    }
out:
    if (it)
        cgm_riter_close(it);
    free(codec);
    free(acc);
    return rc;
}
