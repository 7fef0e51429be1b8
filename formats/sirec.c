/* Southern Islands record codec (see cgm/sirec.h): the static instruction
 * table entries and the per-work-group WAVE/BARRIER/END records.  Vector
 * memory addresses are sent as one base plus a stride when the lanes are
 * evenly spaced (the common coalesced case), else as per-lane deltas. */
#include "cgm/sirec.h"
#include "cgm/codec.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cgm_si_unit_name(unsigned unit)
{
    static const char *const names[CGM_SI_UNIT_COUNT] = {
        "salu", "valu", "smem", "vmem", "lds", "branch", "barrier", "waitcnt", "end", "other"
    };
    return unit < CGM_SI_UNIT_COUNT ? names[unit] : "?";
}

size_t cgm_si_static_encode(uint8_t *out, uint32_t *prev, const struct cgm_si_static *s)
{
    size_t n = cgm_put_varint(out, (uint64_t)(s->offset - *prev));
    *prev = s->offset;
    out[n++] = s->size;
    out[n++] = s->unit;
    out[n++] = (uint8_t)(s->access | s->flags << 4);
    out[n++] = s->access_size;
    if (s->unit == CGM_SI_WAITCNT) {
        out[n++] = s->vmcnt;
        out[n++] = s->expcnt;
        out[n++] = s->lgkmcnt;
    }
    memcpy(out + n, s->bytes, s->size);
    return n + s->size;
}

int cgm_si_static_decode(const uint8_t **p, const uint8_t *end, uint32_t *prev,
                         struct cgm_si_static *s)
{
    uint64_t delta;
    memset(s, 0, sizeof *s);
    if (cgm_get_varint(p, end, &delta) || delta > UINT32_MAX || end - *p < 4)
        return -1;
    s->offset = *prev + (uint32_t)delta;
    *prev = s->offset;
    const uint8_t *q = *p;
    s->size = q[0];
    s->unit = q[1];
    s->access = q[2] & 0xf;
    s->flags = q[2] >> 4;
    s->access_size = q[3];
    q += 4;
    if ((s->size != 4 && s->size != 8 && s->size != 12) || s->unit >= CGM_SI_UNIT_COUNT ||
        s->access > CGM_SI_ATOMIC)
        return -1;
    if (s->unit == CGM_SI_WAITCNT) {
        if (end - q < 3)
            return -1;
        s->vmcnt = q[0];
        s->expcnt = q[1];
        s->lgkmcnt = q[2];
        q += 3;
    }
    if (end - q < s->size)
        return -1;
    memcpy(s->bytes, q, s->size);
    *p = q + s->size;
    return 0;
}

size_t cgm_si_kernel_info_encode(char *out, const struct cgm_si_kernel_info *k)
{
    /* A line per key: a name cannot hold a line break (symbols may). */
    char name[sizeof k->name];
    size_t i = 0;
    for (; i + 1 < sizeof name && k->name[i]; i++)
        name[i] = k->name[i] == '\n' || k->name[i] == '\r' ? '?' : k->name[i];
    name[i] = 0;
    int n = snprintf(out, CGM_SI_KERNEL_TEXT_MAX,
                     "kernel=%u\nprogram=%u\nname=%s\nentry=%u\nvgprs=%u\nsgprs=%u\n"
                     "lds_bytes=%u\nprivate_bytes=%u\n", k->kernel, k->program, name, k->entry,
                     k->vgprs, k->sgprs, k->lds_bytes, k->private_bytes);
    return n < 0 ? 0 : (size_t)n < CGM_SI_KERNEL_TEXT_MAX ? (size_t)n : CGM_SI_KERNEL_TEXT_MAX - 1;
}

/* Parses a decimal number that fits 32 bits, the whole of [p, end). */
static int parse_u32(const uint8_t *p, const uint8_t *end, uint32_t *out)
{
    uint64_t v = 0;
    if (p == end)
        return -1;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9' || (v = v * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
            return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int cgm_si_kernel_info_decode(const uint8_t *text, size_t len, struct cgm_si_kernel_info *k)
{
    static const struct { const char *key; size_t off; } nums[] = {
        { "kernel", offsetof(struct cgm_si_kernel_info, kernel) },
        { "program", offsetof(struct cgm_si_kernel_info, program) },
        { "entry", offsetof(struct cgm_si_kernel_info, entry) },
        { "vgprs", offsetof(struct cgm_si_kernel_info, vgprs) },
        { "sgprs", offsetof(struct cgm_si_kernel_info, sgprs) },
        { "lds_bytes", offsetof(struct cgm_si_kernel_info, lds_bytes) },
        { "private_bytes", offsetof(struct cgm_si_kernel_info, private_bytes) },
    };
    memset(k, 0, sizeof *k);
    const uint8_t *p = text, *end = text + len;
    while (p < end) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
        const uint8_t *eq = memchr(p, '=', (size_t)(eol - p));
        if (!eq)
            return -1;
        size_t klen = (size_t)(eq - p);
        if (klen == 4 && !memcmp(p, "name", 4)) {
            size_t vlen = (size_t)(eol - eq - 1);
            if (vlen >= sizeof k->name)
                return -1;
            memcpy(k->name, eq + 1, vlen);
            k->name[vlen] = 0;
        }
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
            if (strlen(nums[i].key) == klen && !memcmp(p, nums[i].key, klen) &&
                parse_u32(eq + 1, eol, (uint32_t *)((char *)k + nums[i].off)))
                return -1;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

int cgm_si_codec_init(struct cgm_si_codec *c, const struct cgm_si_static *table, size_t n)
{
    memset(c, 0, sizeof *c);
    c->table = table;
    c->n = n;
    c->slot = calloc(n ? n : 1, sizeof *c->slot);
    if (!c->slot)
        return -1;
    /* A direct index when the table is dense enough (it comes from a file:
     * a sparse one falls back to binary search instead of a huge array). */
    if (n) {
        uint64_t words = ((uint64_t)table[n - 1].offset - table[0].offset) / 4 + 1;
        if (table[n - 1].offset >= table[0].offset && words <= 4 * (uint64_t)n + 1024) {
            c->index = malloc(words * sizeof *c->index);
            if (c->index) {
                c->owns_index = 1;
                c->index_words = (uint32_t)words;
                for (uint64_t i = 0; i < words; i++)
                    c->index[i] = -1;
                for (size_t i = 0; i < n; i++) {
                    uint64_t wi = ((uint64_t)table[i].offset - table[0].offset) / 4;
                    if (wi < words && (table[i].offset & 3) == (table[0].offset & 3))
                        c->index[wi] = (int32_t)i;
                }
            }
        }
    }
    return 0;
}

int cgm_si_codec_init_like(struct cgm_si_codec *c, const struct cgm_si_codec *proto)
{
    memset(c, 0, sizeof *c);
    c->table = proto->table;
    c->n = proto->n;
    c->index = proto->index;
    c->index_words = proto->index_words;
    c->slot = calloc(c->n ? c->n : 1, sizeof *c->slot);
    return c->slot ? 0 : -1;
}

void cgm_si_codec_free(struct cgm_si_codec *c)
{
    free(c->slot);
    if (c->owns_index)
        free(c->index);
    memset(c, 0, sizeof *c);
}

long cgm_si_static_find(const struct cgm_si_codec *c, uint32_t offset)
{
    if (c->index) {
        uint32_t base = c->table[0].offset;
        if (offset < base || ((offset - base) & 3) || (offset - base) / 4 >= c->index_words)
            return -1;
        int32_t k = c->index[(offset - base) / 4];
        return k >= 0 && c->table[k].offset == offset ? k : -1;
    }
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->table[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->table[lo].offset == offset ? (long)lo : -1;
}

static int has_addresses(const struct cgm_si_static *s)
{
    return s->access != CGM_SI_NONE;
}

/* Chooses the address mode for the active lanes of one instruction. */
static unsigned address_mode(const struct cgm_si_static *s, const struct cgm_si_dyn *d,
                             uint64_t *base, uint64_t *stride)
{
    if (s->unit == CGM_SI_SMEM && has_addresses(s)) {   /* scalar loads ignore EXEC */
        *base = d->addr[0];
        return 1;
    }
    if (!has_addresses(s) || d->exec == 0)
        return 0;
    int first = __builtin_ctzll(d->exec), second = -1;
    uint64_t rest = d->exec & (d->exec - 1);
    if (rest)
        second = __builtin_ctzll(rest);
    if (second < 0) {
        *stride = 0;
        *base = d->addr[first];
        return 2;
    }
    uint64_t diff = d->addr[second] - d->addr[first];
    unsigned gap = (unsigned)(second - first);
    if (diff % gap == 0) {
        uint64_t st = diff / gap;
        /* signed strides divide too: check every lane against base + l * stride */
        uint64_t b = d->addr[first] - st * (uint64_t)first;
        int ok = 1;
        for (uint64_t m = d->exec; m && ok; m &= m - 1) {
            int l = __builtin_ctzll(m);
            ok = d->addr[l] == b + st * (uint64_t)l;
        }
        if (ok) {
            *base = b;
            *stride = st;
            return 2;
        }
    }
    int64_t sdiff = (int64_t)diff;
    if (sdiff % (int64_t)gap == 0) {
        uint64_t st = (uint64_t)(sdiff / (int64_t)gap);
        uint64_t b = d->addr[first] - st * (uint64_t)first;
        int ok = 1;
        for (uint64_t m = d->exec; m && ok; m &= m - 1) {
            int l = __builtin_ctzll(m);
            ok = d->addr[l] == b + st * (uint64_t)l;
        }
        if (ok) {
            *base = b;
            *stride = st;
            return 2;
        }
    }
    *base = d->addr[first];
    return 3;
}

size_t cgm_si_wave_encode(struct cgm_si_codec *c, uint8_t *out, unsigned wave,
                          const struct cgm_si_dyn *insts, unsigned n)
{
    if (wave >= CGM_SI_WAVES_MAX || n == 0 || n > CGM_SI_RUN_MAX)
        return 0;
    size_t len = 0;
    out[len++] = CGM_SI_REC_WAVE;
    len += cgm_put_varint(out + len, wave);
    len += cgm_put_varint(out + len, n);
    for (unsigned i = 0; i < n; i++) {
        const struct cgm_si_dyn *d = &insts[i];
        long k = cgm_si_static_find(c, d->offset);
        if (k < 0)
            return 0;
        const struct cgm_si_static *s = &c->table[k];
        unsigned jump = d->offset != c->next[wave];
        unsigned exec_mode = d->exec == c->exec[wave] ? 0 : d->exec == ~0ull ? 1
                           : d->exec == 0 ? 3 : 2;
        uint64_t base = 0, stride = 0;
        unsigned amode = address_mode(s, d, &base, &stride);
        len += cgm_put_varint(out + len, jump | exec_mode << 1 | amode << 3);
        if (jump)
            len += cgm_put_varint(out + len,
                                  cgm_zigzag(((int64_t)d->offset - (int64_t)c->next[wave]) / 4));
        if (exec_mode == 2) {
            cgm_put_le64(out + len, d->exec);
            len += 8;
        }
        if (amode)
            len += cgm_put_delta(out + len, &c->slot[k], base);
        if (amode == 2)
            len += cgm_put_varint(out + len, cgm_zigzag((int64_t)stride));
        if (amode == 3) {
            uint64_t prev = base;
            for (uint64_t m = d->exec & (d->exec - 1); m; m &= m - 1)
                len += cgm_put_delta(out + len, &prev, d->addr[__builtin_ctzll(m)]);
        }
        c->exec[wave] = d->exec;
        c->next[wave] = d->offset + s->size;
    }
    return len;
}

size_t cgm_si_mark_encode(uint8_t *out, uint8_t type, unsigned wave)
{
    out[0] = type;
    return 1 + cgm_put_varint(out + 1, wave);
}

int cgm_si_run_open(const uint8_t *rec, size_t len, uint8_t *type, struct cgm_si_run *run)
{
    const uint8_t *p = rec + 1, *end = rec + len;
    uint64_t w, count = 0;
    *run = (struct cgm_si_run){ 0 };
    if (len < 2)
        return -1;
    *type = rec[0];
    if (cgm_get_varint(&p, end, &w) || w >= CGM_SI_WAVES_MAX)
        return -1;
    run->wave = (unsigned)w;
    if (*type == CGM_SI_REC_BARRIER || *type == CGM_SI_REC_END)
        return p == end ? 0 : -1;
    if (*type != CGM_SI_REC_WAVE || cgm_get_varint(&p, end, &count) || count == 0 ||
        count > CGM_SI_RUN_MAX)
        return -1;
    run->p = p;
    run->end = end;
    run->left = (unsigned)count;
    return 0;
}

/* Decodes the next instruction of RUN; lane addresses only when D->addr is
 * wanted (ADDRS), the codec's state always. Returns the static index, or -1. */
static long run_next(struct cgm_si_codec *c, struct cgm_si_run *run, struct cgm_si_dyn *d, int addrs)
{
    const uint8_t *p = run->p, *end = run->end;
    unsigned w = run->wave;
    uint64_t h, v;
    if (!run->left || cgm_get_varint(&p, end, &h) || h >= 32)
        return -1;
    uint32_t offset = c->next[w];
    if (h & 1) {
        if (cgm_get_varint(&p, end, &v))
            return -1;
        /* a jump of any size in a hostile file: only one that lands on a
         * 32-bit offset is one the encoder could have written */
        int64_t words = cgm_unzigzag(v);
        if (words > (int64_t)UINT32_MAX || words < -(int64_t)UINT32_MAX)
            return -1;
        int64_t to = (int64_t)offset + words * 4;
        if (to < 0 || to > (int64_t)UINT32_MAX)
            return -1;
        offset = (uint32_t)to;
    }
    long k = cgm_si_static_find(c, offset);
    if (k < 0)
        return -1;
    const struct cgm_si_static *s = &c->table[k];
    uint64_t exec;
    switch ((h >> 1) & 3) {
    case 0: exec = c->exec[w]; break;
    case 1: exec = ~0ull; break;
    case 2:
        if (end - p < 8)
            return -1;
        exec = cgm_get_le64(p);
        p += 8;
        break;
    default: exec = 0; break;
    }
    d->offset = offset;
    d->exec = exec;
    unsigned amode = (unsigned)(h >> 3) & 3;
    unsigned want = !has_addresses(s) ? 0 : s->unit == CGM_SI_SMEM ? 1 : exec ? 2 : 0;
    if (want == 2 ? amode < 2 : amode != want)
        return -1;
    uint64_t base = 0, stride = 0;
    if (amode && cgm_get_delta(&p, end, &c->slot[k], &base))
        return -1;
    if (amode == 1) {
        d->addr[0] = base;
    } else if (amode == 2) {
        if (cgm_get_varint(&p, end, &v))
            return -1;
        stride = (uint64_t)cgm_unzigzag(v);
        for (uint64_t m = addrs ? exec : 0; m; m &= m - 1) {
            int l = __builtin_ctzll(m);
            d->addr[l] = base + stride * (uint64_t)l;
        }
    } else if (amode == 3) {
        uint64_t prev = base, lane_addr;
        if (addrs)
            d->addr[__builtin_ctzll(exec)] = base;
        for (uint64_t m = exec & (exec - 1); m; m &= m - 1) {
            if (cgm_get_delta(&p, end, &prev, &lane_addr))
                return -1;
            if (addrs)
                d->addr[__builtin_ctzll(m)] = lane_addr;
        }
    }
    c->exec[w] = exec;
    c->next[w] = offset + s->size;
    run->p = p;
    if (--run->left == 0 && p != end)
        return -1;                      /* bytes after the record's last instruction */
    return k;
}

long cgm_si_run_next(struct cgm_si_codec *c, struct cgm_si_run *run, struct cgm_si_dyn *d)
{
    return run_next(c, run, d, 1);
}

int cgm_si_run_skip(struct cgm_si_codec *c, struct cgm_si_run *run)
{
    struct cgm_si_dyn d;
    while (run->left)
        if (run_next(c, run, &d, 0) < 0)
            return -1;
    return 0;
}

int cgm_si_record_decode(struct cgm_si_codec *c, const uint8_t *rec, size_t len,
                         uint8_t *type, unsigned *wave, struct cgm_si_dyn *insts,
                         unsigned *n)
{
    struct cgm_si_run run;
    *n = 0;
    if (cgm_si_run_open(rec, len, type, &run))
        return -1;
    *wave = run.wave;
    unsigned count = run.left;
    for (unsigned i = 0; i < count; i++)
        if (cgm_si_run_next(c, &run, &insts[i]) < 0)
            return -1;
    *n = count;
    return 0;
}
