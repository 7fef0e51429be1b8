/* Memory instructions: scalar loads (SMRD), LDS (DS) and buffer accesses
 * (MUBUF/MTBUF) with the SI buffer addressing (ISA chapter 8: index, offset,
 * addr64, swizzled private memory with ADD_TID).  Lanes are served in lane
 * order, so atomics are deterministic. */
#include "tracegen/si/si_wave.h"

#include <math.h>

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Row of VGPR n, or a fault when the kernel did not allocate it. */
static uint32_t *vrow(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in,
                      unsigned n, unsigned width)
{
    if (n + width > w->vgprs) {
        si_fault(c, w, in, -1, "v%u..v%u beyond the %u VGPRs the kernel allocates", n,
                 n + width - 1, w->vgprs);
        return NULL;
    }
    return w->v + (size_t)n * SI_LANES;
}

static void note_access(struct si_ctx *c, enum si_access_kind kind, int lds, unsigned size)
{
    c->step.access = kind;
    c->step.lds = lds;
    c->step.access_size = size;
}

/* ---- scalar loads ----------------------------------------------------------- */

int si_exec_smrd(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    if (in->op == 31)                                   /* s_dcache_inv */
        return 0;
    if (in->op == 30) {                                 /* s_memtime: a deterministic clock */
        uint64_t t = c->stats->wave_instructions;
        if (si_write_scalar(c, w, in, in->dst, (uint32_t)t) ||
            si_write_scalar(c, w, in, in->dst + 1, (uint32_t)(t >> 32)))
            return -1;
        return 0;
    }
    static const unsigned dwords[8] = { 1, 2, 4, 8, 16, 0, 0, 0 };
    unsigned n = dwords[in->op & 7];
    if (n == 0 || in->dst + n > CGM_SI_OP_SGPR_LAST + 1)
        return si_fault(c, w, in, -1, "scalar load destination out of range");
    uint64_t off = in->smrd_imm ? (uint64_t)in->smrd_offset * 4 : w->s[in->smrd_offset];
    uint64_t base = (uint64_t)w->s[in->sbase] | (uint64_t)w->s[in->sbase + 1] << 32;
    uint32_t limit = ~0u;
    if (in->op >= 8) {                                  /* s_buffer_load: a V# in 4 SGPRs */
        base &= 0xffffffffffffull;
        limit = w->s[in->sbase + 2];
    }
    c->addr[0] = base + off;
    note_access(c, SI_ACCESS_LOAD, 0, 4 * n);
    for (unsigned i = 0; i < n; i++) {
        uint64_t byte = off + 4 * i;
        uint32_t v = 0;
        if (byte + 4 <= limit) {
            const uint8_t *p = si_map(c, w, in, -1, base + byte, 4, 0);
            if (!p)
                return -1;
            v = rd32(p);
        }
        w->s[in->dst + i] = v;
    }
    return 0;
}

/* ---- LDS -------------------------------------------------------------------- */

static uint8_t *lds_at(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in, int lane,
                       uint64_t addr, unsigned size)
{
    if (addr > c->lds_size || c->lds_size - addr < size) {
        si_fault(c, w, in, lane, "LDS access of %u bytes at 0x%llx outside the %u-byte LDS",
                 size, (unsigned long long)addr, c->lds_size);
        return NULL;
    }
    return c->lds + addr;
}

/* The read-modify-write of DS opcodes 0..19 (and their 32/64-bit twins):
 * returns the new memory value. */
static uint64_t ds_rmw(unsigned kind, uint64_t old, uint64_t d0, uint64_t d1, int wide)
{
    uint64_t mask = wide ? ~0ull : 0xffffffffull;
    int64_t so = wide ? (int64_t)old : (int32_t)old, sd = wide ? (int64_t)d0 : (int32_t)d0;
    switch (kind) {
    case 0: return (old + d0) & mask;
    case 1: return (old - d0) & mask;
    case 2: return (d0 - old) & mask;
    case 3: return old >= d0 ? 0 : (old + 1) & mask;
    case 4: return (old == 0 || old > d0) ? d0 : old - 1;
    case 5: return so < sd ? old : d0;
    case 6: return so > sd ? old : d0;
    case 7: return old < d0 ? old : d0;
    case 8: return old > d0 ? old : d0;
    case 9: return old & d0;
    case 10: return old | d0;
    case 11: return old ^ d0;
    case 12: return (old & ~d0) | d1;
    case 13: return d0;                                   /* write / wrxchg */
    case 16: return old == d0 ? d1 : old;                 /* cmpst */
    case 17:
        if (wide) return si_u2d(old) == si_u2d(d0) ? d1 : old;
        return si_u2f((uint32_t)old) == si_u2f((uint32_t)d0) ? d1 : old;
    case 18:
        if (wide) return si_d2u(fmin(si_u2d(old), si_u2d(d0)));
        return si_f2u(fminf(si_u2f((uint32_t)old), si_u2f((uint32_t)d0)));
    case 19:
        if (wide) return si_d2u(fmax(si_u2d(old), si_u2d(d0)));
        return si_f2u(fmaxf(si_u2f((uint32_t)old), si_u2f((uint32_t)d0)));
    default: return old;
    }
}

static int ds_swizzle(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    uint32_t *src = vrow(c, w, in, in->vaddr, 1), *dst = vrow(c, w, in, in->vdst, 1);
    if (!src || !dst)
        return -1;
    uint32_t tmp[SI_LANES];
    uint64_t exec = si_exec(w);
    unsigned pat = in->offset;
    for (int l = 0; l < SI_LANES; l++) {
        int from;
        if (pat & 0x8000)                                  /* quad permute */
            from = (l & ~3) | ((pat >> (2 * (l & 3))) & 3);
        else {                                             /* bit masks within 32 lanes */
            unsigned and_m = pat & 0x1f, or_m = (pat >> 5) & 0x1f, xor_m = (pat >> 10) & 0x1f;
            from = (l & 0x20) | ((((unsigned)l & and_m) | or_m) ^ xor_m);
        }
        tmp[l] = (exec >> from & 1) ? src[from] : 0;
    }
    for (int l = 0; l < SI_LANES; l++)
        if (exec >> l & 1)
            dst[l] = tmp[l];
    return 0;
}

int si_exec_ds(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    unsigned op = in->op;
    if (op == 53)
        return ds_swizzle(c, w, in);
    int wide = (op >= 64 && op < 128);
    unsigned base_op = op & ~(64u | 32u);                /* 0..31 */
    int rtn = (op & 32) != 0;
    int is_read = (op >= 54 && op <= 60) || (op >= 118 && op <= 120);
    int two = (!rtn && (base_op == 14 || base_op == 15)) || (rtn && (base_op == 14 || base_op == 15)) ||
              op == 55 || op == 56 || op == 119 || op == 120;
    int st64 = op == 15 || op == 47 || op == 56 || op == 79 || op == 111 || op == 120;
    unsigned size = wide ? 8 : 4;
    if (op == 30 || op == 57 || op == 58) size = 1;
    if (op == 31 || op == 59 || op == 60) size = 2;
    if (!(op <= 19 || op == 30 || op == 31 || (op >= 32 && op <= 51) || is_read ||
          (op >= 64 && op <= 83) || (op >= 96 && op <= 115)))
        return si_fault(c, w, in, -1, "unimplemented LDS instruction");
    if (rtn && (base_op == 14 || base_op == 15))           /* wrxchg2 */
        base_op = 13;

    unsigned dw = wide ? 2 : 1;
    uint32_t *addr = vrow(c, w, in, in->vaddr, 1);
    uint32_t *d0 = vrow(c, w, in, in->data0, dw), *d1 = vrow(c, w, in, in->data1, dw);
    uint32_t *dst = (rtn || is_read) ? vrow(c, w, in, in->vdst, dw * (two ? 2 : 1)) : NULL;
    if (!addr || !d0 || !d1 || ((rtn || is_read) && !dst))
        return -1;
    uint64_t exec = si_exec(w);
    unsigned scale = size * (st64 ? 64 : 1);
    note_access(c, is_read ? SI_ACCESS_LOAD : (base_op == 13 || base_op == 14 || base_op == 15 ||
                                               op == 30 || op == 31) && !rtn
                                                  ? SI_ACCESS_STORE : SI_ACCESS_ATOMIC,
                1, size);
    for (int l = 0; l < SI_LANES; l++) {
        if (!(exec >> l & 1))
            continue;
        unsigned nslots = two ? 2 : 1;
        uint64_t lane_addr = addr[l];          /* before a result may overwrite it */
        for (unsigned k = 0; k < nslots; k++) {
            uint64_t a = two ? lane_addr + (uint64_t)(k ? in->offset1 : in->offset0) * scale
                             : lane_addr + in->offset;
            if (k == 0)
                c->addr[l] = a;
            uint8_t *p = lds_at(c, w, in, l, a, size);
            if (!p)
                return -1;
            uint32_t *src = (two && k) ? d1 : d0;
            uint64_t v0 = src[l] | (wide ? (uint64_t)src[SI_LANES + l] << 32 : 0);
            uint64_t v1 = d1[l] | (wide ? (uint64_t)d1[SI_LANES + l] << 32 : 0);
            uint64_t old;
            switch (size) {
            case 1: old = *p; break;
            case 2: old = (uint16_t)(p[0] | p[1] << 8); break;
            case 4: old = rd32(p); break;
            default: old = rd64(p); break;
            }
            if (is_read) {
                uint32_t val = (uint32_t)old;
                if (op == 57) val = (uint32_t)(int32_t)(int8_t)old;
                if (op == 59) val = (uint32_t)(int32_t)(int16_t)old;
                dst[(size_t)(k * dw) * SI_LANES + l] = val;
                if (wide)
                    dst[(size_t)(k * dw + 1) * SI_LANES + l] = (uint32_t)(old >> 32);
                continue;
            }
            uint64_t nv = (op == 30 || op == 31) ? v0 : ds_rmw(base_op, old, two ? v0 : v0, v1, wide);
            if (two)
                nv = v0;
            switch (size) {
            case 1: *p = (uint8_t)nv; break;
            case 2: p[0] = (uint8_t)nv; p[1] = (uint8_t)(nv >> 8); break;
            case 4: wr32(p, (uint32_t)nv); break;
            default: wr64(p, nv); break;
            }
            if (rtn) {
                dst[(size_t)(k * dw) * SI_LANES + l] = (uint32_t)old;
                if (wide)
                    dst[(size_t)(k * dw + 1) * SI_LANES + l] = (uint32_t)(old >> 32);
            }
        }
    }
    return 0;
}

/* ---- buffers ------------------------------------------------------------------ */

struct srd {
    uint64_t base;
    uint32_t stride, num_records;
    int swizzle, add_tid;
    unsigned element_size, index_stride;
    unsigned data_format;
};

static struct srd read_srd(const struct si_wave *w, unsigned s)
{
    struct srd r;
    uint32_t d1 = w->s[s + 1], d3 = w->s[s + 3];
    r.base = (uint64_t)w->s[s] | (uint64_t)(d1 & 0xffff) << 32;
    r.stride = (d1 >> 16) & 0x3fff;
    r.swizzle = (d1 >> 31) & 1;
    r.num_records = w->s[s + 2];
    r.data_format = (d3 >> 15) & 0xf;
    r.element_size = 2u << ((d3 >> 19) & 3);
    r.index_stride = 8u << ((d3 >> 21) & 3);
    r.add_tid = (d3 >> 23) & 1;
    return r;
}

/* Address of dword k of lane l, or ~0 when the range check drops it. */
static uint64_t buffer_address(const struct cgm_si_inst *in, const struct srd *r, uint64_t soff,
                               const uint32_t *va, int l, unsigned byte)
{
    if (in->addr64) {
        uint64_t v = va[l] | (uint64_t)va[SI_LANES + l] << 32;
        return r->base + v + soff + in->offset + byte;
    }
    uint64_t index = 0, offset = in->offset + byte;
    if (in->idxen && in->offen) {
        index = va[l];
        offset += va[SI_LANES + l];
    } else if (in->idxen) {
        index = va[l];
    } else if (in->offen) {
        offset += va[l];
    }
    if (r->add_tid)
        index += (unsigned)l;
    if (r->swizzle) {
        uint64_t imsb = index / r->index_stride, ilsb = index % r->index_stride;
        uint64_t omsb = offset / r->element_size, olsb = offset % r->element_size;
        return r->base + soff +
               (imsb * r->stride + omsb * r->element_size) * r->index_stride +
               ilsb * r->element_size + olsb;
    }
    if (r->stride == 0 ? offset >= r->num_records : index >= r->num_records)
        return ~0ull;
    return r->base + soff + offset + index * r->stride;
}

/* Opcode -> (bytes per lane, dwords, sign-extend, store, atomic kind). */
struct buf_op { unsigned bytes; unsigned dwords; int sext, store, atomic; };

static int buf_op_of(const struct cgm_si_inst *in, const struct srd *r, struct buf_op *b)
{
    unsigned op = in->op;
    memset(b, 0, sizeof *b);
    if (in->fmt == CGM_SI_FMT_MTBUF) {
        unsigned dfmt = in->dfmt;
        if (dfmt != 4 && dfmt != 11 && dfmt != 13 && dfmt != 14)
            return -1;
        b->dwords = (op & 3) + 1;
        b->store = op >= 4;
    } else if (op <= 7) {                                  /* load/store_format */
        if (r->data_format != 4 && r->data_format != 11 && r->data_format != 13 &&
            r->data_format != 14)
            return -1;
        b->dwords = (op & 3) + 1;
        b->store = op >= 4;
    } else if (op >= 8 && op <= 11) {
        b->bytes = op <= 9 ? 1 : 2;
        b->sext = op == 9 || op == 11;
        b->dwords = 1;
    } else if (op >= 12 && op <= 15) {
        static const unsigned n[4] = { 1, 2, 4, 3 };
        b->dwords = n[op - 12];
    } else if (op == 24 || op == 26) {
        b->bytes = op == 24 ? 1 : 2;
        b->dwords = 1;
        b->store = 1;
    } else if (op >= 28 && op <= 31) {
        static const unsigned n[4] = { 1, 2, 4, 3 };
        b->dwords = n[op - 28];
        b->store = 1;
    } else if ((op >= 48 && op <= 64) || (op >= 80 && op <= 96)) {
        b->atomic = 1;
        b->dwords = op >= 80 ? 2 : 1;
    } else {
        return -1;
    }
    if (!b->bytes)
        b->bytes = 4 * b->dwords;
    return 0;
}

static uint64_t buffer_atomic(unsigned kind, uint64_t old, uint64_t data, uint64_t cmp, int wide)
{
    uint64_t mask = wide ? ~0ull : 0xffffffffull;
    int64_t so = wide ? (int64_t)old : (int32_t)old, sd = wide ? (int64_t)data : (int32_t)data;
    switch (kind) {
    case 0: return data;                                   /* swap */
    case 1: return old == cmp ? data : old;                /* cmpswap */
    case 2: return (old + data) & mask;
    case 3: return (old - data) & mask;
    case 4: return (data - old) & mask;                    /* rsub */
    case 5: return so < sd ? old : data;
    case 6: return old < data ? old : data;
    case 7: return so > sd ? old : data;
    case 8: return old > data ? old : data;
    case 9: return old & data;
    case 10: return old | data;
    case 11: return old ^ data;
    case 12: return old >= data ? 0 : (old + 1) & mask;    /* inc */
    case 13: return (old == 0 || old > data) ? data : old - 1;
    case 14:                                               /* fcmpswap */
        if (wide) return si_u2d(old) == si_u2d(cmp) ? data : old;
        return si_u2f((uint32_t)old) == si_u2f((uint32_t)cmp) ? data : old;
    case 15:
        if (wide) return si_d2u(fmin(si_u2d(old), si_u2d(data)));
        return si_f2u(fminf(si_u2f((uint32_t)old), si_u2f((uint32_t)data)));
    default:
        if (wide) return si_d2u(fmax(si_u2d(old), si_u2d(data)));
        return si_f2u(fmaxf(si_u2f((uint32_t)old), si_u2f((uint32_t)data)));
    }
}

int si_exec_buffer(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    if (in->fmt == CGM_SI_FMT_MUBUF && (in->op == 112 || in->op == 113))  /* wbinvl1 */
        return 0;
    if (in->lds || in->tfe)
        return si_fault(c, w, in, -1, "buffer access with %s is not supported",
                        in->lds ? "lds" : "tfe");
    if (in->srsrc + 4 > CGM_SI_OP_SGPR_LAST + 1)
        return si_fault(c, w, in, -1, "resource descriptor beyond s103");
    struct srd r = read_srd(w, in->srsrc);
    struct buf_op b;
    if (buf_op_of(in, &r, &b))
        return si_fault(c, w, in, -1, "unimplemented buffer instruction or data format");
    int cmpswap = b.atomic && (in->op == 49 || in->op == 62 || in->op == 81 || in->op == 94);
    unsigned data_regs = b.dwords * (cmpswap ? 2 : 1);
    unsigned addr_regs = (in->addr64 || (in->idxen && in->offen)) ? 2 : 1;
    uint32_t *va = (in->addr64 || in->idxen || in->offen) ? vrow(c, w, in, in->vaddr, addr_regs)
                                                          : w->v;
    uint32_t *vd = vrow(c, w, in, in->vdata, data_regs);
    if (!va || !vd)
        return -1;
    uint64_t soff = si_read_scalar(c, w, in, in->soffset);
    uint64_t exec = si_exec(w);
    note_access(c, b.atomic ? SI_ACCESS_ATOMIC : b.store ? SI_ACCESS_STORE : SI_ACCESS_LOAD, 0,
                b.bytes);
    for (int l = 0; l < SI_LANES; l++) {
        if (!(exec >> l & 1))
            continue;
        c->addr[l] = buffer_address(in, &r, soff, va, l, 0);
        if (b.atomic) {
            int wide = b.dwords == 2;
            uint64_t a = c->addr[l];
            if (a == ~0ull)
                continue;
            uint8_t *p = si_map(c, w, in, l, a, b.bytes, 1);
            if (!p)
                return -1;
            uint64_t old = wide ? rd64(p) : rd32(p);
            uint64_t data = vd[l] | (wide ? (uint64_t)vd[SI_LANES + l] << 32 : 0);
            uint64_t cmp = 0;
            if (cmpswap)
                cmp = vd[(size_t)b.dwords * SI_LANES + l] |
                      (wide ? (uint64_t)vd[(size_t)(b.dwords + 1) * SI_LANES + l] << 32 : 0);
            uint64_t nv = buffer_atomic((in->op & 31) - 16, old, data, cmp, wide);
            if (wide) wr64(p, nv); else wr32(p, (uint32_t)nv);
            if (in->glc) {
                vd[l] = (uint32_t)old;
                if (wide)
                    vd[SI_LANES + l] = (uint32_t)(old >> 32);
            }
            continue;
        }
        if (b.bytes < 4) {
            uint64_t a = c->addr[l];
            if (a == ~0ull) {
                if (!b.store) vd[l] = 0;
                continue;
            }
            uint8_t *p = si_map(c, w, in, l, a, b.bytes, b.store);
            if (!p)
                return -1;
            if (b.store) {
                p[0] = (uint8_t)vd[l];
                if (b.bytes == 2) p[1] = (uint8_t)(vd[l] >> 8);
            } else {
                uint32_t v = b.bytes == 1 ? p[0] : (uint32_t)(p[0] | p[1] << 8);
                if (b.sext) v = b.bytes == 1 ? (uint32_t)(int8_t)v : (uint32_t)(int16_t)v;
                vd[l] = v;
            }
            continue;
        }
        /* All addresses first: the data registers may overlap the address. */
        uint64_t addr[4];
        for (unsigned k = 0; k < b.dwords; k++)
            addr[k] = k ? buffer_address(in, &r, soff, va, l, 4 * k) : c->addr[l];
        for (unsigned k = 0; k < b.dwords; k++) {
            uint64_t a = addr[k];
            uint32_t *reg = &vd[(size_t)k * SI_LANES + l];
            if (a == ~0ull) {
                if (!b.store) *reg = 0;
                continue;
            }
            uint8_t *p = si_map(c, w, in, l, a, 4, b.store);
            if (!p)
                return -1;
            if (b.store) wr32(p, *reg); else *reg = rd32(p);
        }
    }
    return 0;
}
