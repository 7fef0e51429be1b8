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

static void note_access(struct si_ctx *c, enum cgm_si_access kind, int lds, unsigned size)
{
    c->step.access = kind;
    c->step.lds = lds;
    c->step.access_size = size;
}

/* ---- scalar loads ----------------------------------------------------------- */

/* s_buffer_load_*: the base is a buffer resource (V#) in four SGPRs. */
static int is_scalar_buffer_load(unsigned op)
{
    switch (op) {
    case CGM_SI_s_buffer_load_dword: case CGM_SI_s_buffer_load_dwordx2:
    case CGM_SI_s_buffer_load_dwordx4: case CGM_SI_s_buffer_load_dwordx8:
    case CGM_SI_s_buffer_load_dwordx16:
        return 1;
    default:
        return 0;
    }
}

int si_exec_smrd(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    if (in->opcode == CGM_SI_s_dcache_inv)
        return 0;
    if (in->opcode == CGM_SI_s_memtime) {               /* a deterministic clock */
        uint64_t t = c->stats->wave_instructions;
        if (si_write_scalar(c, w, in, in->dst, (uint32_t)t) ||
            si_write_scalar(c, w, in, in->dst + 1, (uint32_t)(t >> 32)))
            return -1;
        return 0;
    }
    unsigned n = cgm_si_info(in)->widths.dst;
    if (n == 0 || in->dst + n > CGM_SI_OP_SGPR_LAST + 1)
        return si_fault(c, w, in, -1, "scalar load destination out of range");
    uint64_t off = in->smrd_imm ? (uint64_t)in->smrd_offset * 4 : w->s[in->smrd_offset];
    uint64_t base = (uint64_t)w->s[in->sbase] | (uint64_t)w->s[in->sbase + 1] << 32;
    uint32_t limit = ~0u;
    if (is_scalar_buffer_load(in->opcode))
        limit = w->s[in->sbase + 2];       /* num_records, in bytes; stride is not used */
    base &= SI_ADDRESS_MASK;               /* the upper bits of a V# word 1 are not base */
    c->addr[0] = (base + off) & SI_ADDRESS_MASK;
    note_access(c, CGM_SI_LOAD, 0, 4 * n);
    for (unsigned i = 0; i < n; i++) {
        uint64_t byte = off + 4 * i;
        uint32_t v = 0;
        if (byte + 4 <= limit) {
            const uint8_t *p = si_map(c, w, in, -1, (base + byte) & SI_ADDRESS_MASK, 4, 0);
            if (!p)
                return -1;
            v = rd32(p);
        }
        w->s[in->dst + i] = v;
    }
    return 0;
}

/* ---- atomics ------------------------------------------------------------------ */

/* What an LDS or buffer instruction does at each address it reaches; the
 * 32- and 64-bit and the value-returning forms share one. */
enum mem_op {
    MEM_UNIMPLEMENTED, MEM_READ, MEM_SWAP, MEM_CMPSWAP, MEM_ADD, MEM_SUB, MEM_RSUB, MEM_INC,
    MEM_DEC, MEM_MIN_I, MEM_MAX_I, MEM_MIN_U, MEM_MAX_U, MEM_AND, MEM_OR, MEM_XOR, MEM_MSKOR,
    MEM_FCMPSWAP, MEM_FMIN, MEM_FMAX
};

/* The new memory value: DATA is the operand, CMP the value the compare-swaps
 * compare with and mskor's OR mask. */
static uint64_t atomic_apply(enum mem_op kind, uint64_t old, uint64_t data, uint64_t cmp,
                             int wide)
{
    uint64_t mask = wide ? ~0ull : 0xffffffffull;
    int64_t so = wide ? (int64_t)old : (int32_t)old, sd = wide ? (int64_t)data : (int32_t)data;
    switch (kind) {
    case MEM_SWAP: return data;
    case MEM_CMPSWAP: return old == cmp ? data : old;
    case MEM_ADD: return (old + data) & mask;
    case MEM_SUB: return (old - data) & mask;
    case MEM_RSUB: return (data - old) & mask;
    case MEM_INC: return old >= data ? 0 : (old + 1) & mask;
    case MEM_DEC: return (old == 0 || old > data) ? data : old - 1;
    case MEM_MIN_I: return so < sd ? old : data;
    case MEM_MAX_I: return so > sd ? old : data;
    case MEM_MIN_U: return old < data ? old : data;
    case MEM_MAX_U: return old > data ? old : data;
    case MEM_AND: return old & data;
    case MEM_OR: return old | data;
    case MEM_XOR: return old ^ data;
    case MEM_MSKOR: return (old & ~data) | cmp;
    case MEM_FCMPSWAP:
        if (wide) return si_u2d(old) == si_u2d(cmp) ? data : old;
        return si_u2f((uint32_t)old) == si_u2f((uint32_t)cmp) ? data : old;
    case MEM_FMIN:
        if (wide) return si_d2u(fmin(si_u2d(old), si_u2d(data)));
        return si_f2u(fminf(si_u2f((uint32_t)old), si_u2f((uint32_t)data)));
    case MEM_FMAX:
        if (wide) return si_d2u(fmax(si_u2d(old), si_u2d(data)));
        return si_f2u(fmaxf(si_u2f((uint32_t)old), si_u2f((uint32_t)data)));
    default: return old;
    }
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

static enum mem_op ds_op(unsigned op)
{
    switch (op) {
    case CGM_SI_ds_read_b32: case CGM_SI_ds_read2_b32: case CGM_SI_ds_read2st64_b32:
    case CGM_SI_ds_read_i8: case CGM_SI_ds_read_u8: case CGM_SI_ds_read_i16:
    case CGM_SI_ds_read_u16: case CGM_SI_ds_read_b64: case CGM_SI_ds_read2_b64:
    case CGM_SI_ds_read2st64_b64:
        return MEM_READ;
    case CGM_SI_ds_write_b32: case CGM_SI_ds_write2_b32: case CGM_SI_ds_write2st64_b32:
    case CGM_SI_ds_write_b8: case CGM_SI_ds_write_b16: case CGM_SI_ds_wrxchg_rtn_b32:
    case CGM_SI_ds_wrxchg2_rtn_b32: case CGM_SI_ds_wrxchg2st64_rtn_b32:
    case CGM_SI_ds_write_b64: case CGM_SI_ds_write2_b64: case CGM_SI_ds_write2st64_b64:
    case CGM_SI_ds_wrxchg_rtn_b64: case CGM_SI_ds_wrxchg2_rtn_b64:
    case CGM_SI_ds_wrxchg2st64_rtn_b64:
        return MEM_SWAP;
    case CGM_SI_ds_add_u32: case CGM_SI_ds_add_rtn_u32: case CGM_SI_ds_add_u64:
    case CGM_SI_ds_add_rtn_u64:
        return MEM_ADD;
    case CGM_SI_ds_sub_u32: case CGM_SI_ds_sub_rtn_u32: case CGM_SI_ds_sub_u64:
    case CGM_SI_ds_sub_rtn_u64:
        return MEM_SUB;
    case CGM_SI_ds_rsub_u32: case CGM_SI_ds_rsub_rtn_u32: case CGM_SI_ds_rsub_u64:
    case CGM_SI_ds_rsub_rtn_u64:
        return MEM_RSUB;
    case CGM_SI_ds_inc_u32: case CGM_SI_ds_inc_rtn_u32: case CGM_SI_ds_inc_u64:
    case CGM_SI_ds_inc_rtn_u64:
        return MEM_INC;
    case CGM_SI_ds_dec_u32: case CGM_SI_ds_dec_rtn_u32: case CGM_SI_ds_dec_u64:
    case CGM_SI_ds_dec_rtn_u64:
        return MEM_DEC;
    case CGM_SI_ds_min_i32: case CGM_SI_ds_min_rtn_i32: case CGM_SI_ds_min_i64:
    case CGM_SI_ds_min_rtn_i64:
        return MEM_MIN_I;
    case CGM_SI_ds_max_i32: case CGM_SI_ds_max_rtn_i32: case CGM_SI_ds_max_i64:
    case CGM_SI_ds_max_rtn_i64:
        return MEM_MAX_I;
    case CGM_SI_ds_min_u32: case CGM_SI_ds_min_rtn_u32: case CGM_SI_ds_min_u64:
    case CGM_SI_ds_min_rtn_u64:
        return MEM_MIN_U;
    case CGM_SI_ds_max_u32: case CGM_SI_ds_max_rtn_u32: case CGM_SI_ds_max_u64:
    case CGM_SI_ds_max_rtn_u64:
        return MEM_MAX_U;
    case CGM_SI_ds_and_b32: case CGM_SI_ds_and_rtn_b32: case CGM_SI_ds_and_b64:
    case CGM_SI_ds_and_rtn_b64:
        return MEM_AND;
    case CGM_SI_ds_or_b32: case CGM_SI_ds_or_rtn_b32: case CGM_SI_ds_or_b64:
    case CGM_SI_ds_or_rtn_b64:
        return MEM_OR;
    case CGM_SI_ds_xor_b32: case CGM_SI_ds_xor_rtn_b32: case CGM_SI_ds_xor_b64:
    case CGM_SI_ds_xor_rtn_b64:
        return MEM_XOR;
    case CGM_SI_ds_mskor_b32: case CGM_SI_ds_mskor_rtn_b32: case CGM_SI_ds_mskor_b64:
    case CGM_SI_ds_mskor_rtn_b64:
        return MEM_MSKOR;
    case CGM_SI_ds_cmpst_b32: case CGM_SI_ds_cmpst_rtn_b32: case CGM_SI_ds_cmpst_b64:
    case CGM_SI_ds_cmpst_rtn_b64:
        return MEM_CMPSWAP;
    case CGM_SI_ds_cmpst_f32: case CGM_SI_ds_cmpst_rtn_f32: case CGM_SI_ds_cmpst_f64:
    case CGM_SI_ds_cmpst_rtn_f64:
        return MEM_FCMPSWAP;
    case CGM_SI_ds_min_f32: case CGM_SI_ds_min_rtn_f32: case CGM_SI_ds_min_f64:
    case CGM_SI_ds_min_rtn_f64:
        return MEM_FMIN;
    case CGM_SI_ds_max_f32: case CGM_SI_ds_max_rtn_f32: case CGM_SI_ds_max_f64:
    case CGM_SI_ds_max_rtn_f64:
        return MEM_FMAX;
    default:
        return MEM_UNIMPLEMENTED;
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
    const struct cgm_si_opcode_info *info = cgm_si_info(in);
    unsigned op = in->opcode;
    if (op == CGM_SI_ds_swizzle_b32)
        return ds_swizzle(c, w, in);
    enum mem_op kind = ds_op(op);
    if (kind == MEM_UNIMPLEMENTED)
        return si_fault(c, w, in, -1, "unimplemented LDS instruction");
    unsigned size = info->bytes, stride = cgm_si_ds_pair_stride((enum cgm_si_opcode)op);
    int wide = size == 8, two = stride != 0, is_read = kind == MEM_READ;
    int rtn = !is_read && info->widths.dst;             /* returns the value before the op */
    /* compare-stores name the compare value first (DATA0), then the new one */
    int cmp_first = kind == MEM_CMPSWAP || kind == MEM_FCMPSWAP;

    unsigned dw = wide ? 2 : 1;
    uint32_t *addr = vrow(c, w, in, in->vaddr, 1);
    uint32_t *d0 = vrow(c, w, in, in->data0, dw), *d1 = vrow(c, w, in, in->data1, dw);
    uint32_t *dst = info->widths.dst ? vrow(c, w, in, in->vdst, info->widths.dst) : NULL;
    if (!addr || !d0 || !d1 || (info->widths.dst && !dst))
        return -1;
    uint64_t exec = si_exec(w);
    unsigned scale = size * stride;
    note_access(c, (enum cgm_si_access)info->access, 1, size);
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
                if (op == CGM_SI_ds_read_i8) val = (uint32_t)(int32_t)(int8_t)old;
                if (op == CGM_SI_ds_read_i16) val = (uint32_t)(int32_t)(int16_t)old;
                dst[(size_t)(k * dw) * SI_LANES + l] = val;
                if (wide)
                    dst[(size_t)(k * dw + 1) * SI_LANES + l] = (uint32_t)(old >> 32);
                continue;
            }
            uint64_t nv = cmp_first ? atomic_apply(kind, old, v1, v0, wide)
                                    : atomic_apply(kind, old, v0, v1, wide);
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

/* Address of byte BYTE of lane l's access (SI ISA manual 8.1, "Buffer
 * addressing"): addr64 adds the 64-bit VGPR address to the base; otherwise
 * index = VGPR index (IDXEN) + lane (ADD_TID_ENABLE) and offset = VGPR offset
 * (OFFEN) + instruction offset, laid out linearly (base + soffset + offset
 * + index * stride) or swizzled.  Stride and swizzle are not used by addr64,
 * whose base compilers build with s_mov_b64 from a negative offset. */
static uint64_t buffer_address(const struct cgm_si_inst *in, const struct srd *r, uint64_t soff,
                               const uint32_t *va, int l, unsigned byte)
{
    if (in->addr64) {
        uint64_t v = va[l] | (uint64_t)va[SI_LANES + l] << 32;
        return (r->base + v + soff + in->offset + byte) & SI_ADDRESS_MASK;
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
    uint64_t at;
    if (r->swizzle) {
        uint64_t imsb = index / r->index_stride, ilsb = index % r->index_stride;
        uint64_t omsb = offset / r->element_size, olsb = offset % r->element_size;
        at = r->base + soff + (imsb * r->stride + omsb * r->element_size) * r->index_stride +
             ilsb * r->element_size + olsb;
    } else {
        at = r->base + soff + offset + index * r->stride;
    }
    return at & SI_ADDRESS_MASK;
}

/* The manual's range check ("Range checking", 8.1) of the component at BYTE:
 * a private (scratch) buffer, ADD_TID_ENABLE without IDXEN, is not checked;
 * a structured buffer (IDXEN) is out of range when the VGPR index is at or
 * past num_records; a raw buffer when instruction offset + VGPR offset is.
 * The scalar offset never counts, and neither does addr64 (compilers give
 * its resource 0 records).  The offset is not wrapped, which is the
 * saturating compare the hardware makes. */
static int buffer_out_of_range(const struct cgm_si_inst *in, const struct srd *r,
                               const uint32_t *va, int l, unsigned byte)
{
    if (in->addr64 || (r->add_tid && !in->idxen))
        return 0;
    if (in->idxen)
        return va[l] >= r->num_records;
    uint64_t offset = (uint64_t)in->offset + byte + (in->offen ? va[l] : 0);
    return offset >= r->num_records;
}

/* The buffer atomics, by what they do. */
static enum mem_op buffer_atomic_op(unsigned op)
{
    switch (op) {
    case CGM_SI_buffer_atomic_swap: case CGM_SI_buffer_atomic_swap_x2: return MEM_SWAP;
    case CGM_SI_buffer_atomic_cmpswap: case CGM_SI_buffer_atomic_cmpswap_x2: return MEM_CMPSWAP;
    case CGM_SI_buffer_atomic_add: case CGM_SI_buffer_atomic_add_x2: return MEM_ADD;
    case CGM_SI_buffer_atomic_sub: case CGM_SI_buffer_atomic_sub_x2: return MEM_SUB;
    case CGM_SI_buffer_atomic_rsub: case CGM_SI_buffer_atomic_rsub_x2: return MEM_RSUB;
    case CGM_SI_buffer_atomic_smin: case CGM_SI_buffer_atomic_smin_x2: return MEM_MIN_I;
    case CGM_SI_buffer_atomic_umin: case CGM_SI_buffer_atomic_umin_x2: return MEM_MIN_U;
    case CGM_SI_buffer_atomic_smax: case CGM_SI_buffer_atomic_smax_x2: return MEM_MAX_I;
    case CGM_SI_buffer_atomic_umax: case CGM_SI_buffer_atomic_umax_x2: return MEM_MAX_U;
    case CGM_SI_buffer_atomic_and: case CGM_SI_buffer_atomic_and_x2: return MEM_AND;
    case CGM_SI_buffer_atomic_or: case CGM_SI_buffer_atomic_or_x2: return MEM_OR;
    case CGM_SI_buffer_atomic_xor: case CGM_SI_buffer_atomic_xor_x2: return MEM_XOR;
    case CGM_SI_buffer_atomic_inc: case CGM_SI_buffer_atomic_inc_x2: return MEM_INC;
    case CGM_SI_buffer_atomic_dec: case CGM_SI_buffer_atomic_dec_x2: return MEM_DEC;
    case CGM_SI_buffer_atomic_fcmpswap: case CGM_SI_buffer_atomic_fcmpswap_x2:
        return MEM_FCMPSWAP;
    case CGM_SI_buffer_atomic_fmin: case CGM_SI_buffer_atomic_fmin_x2: return MEM_FMIN;
    case CGM_SI_buffer_atomic_fmax: case CGM_SI_buffer_atomic_fmax_x2: return MEM_FMAX;
    default: return MEM_UNIMPLEMENTED;
    }
}

/* MUBUF accesses whose data format comes from the resource descriptor. */
static int is_format_access(unsigned op)
{
    switch (op) {
    case CGM_SI_buffer_load_format_x: case CGM_SI_buffer_load_format_xy:
    case CGM_SI_buffer_load_format_xyz: case CGM_SI_buffer_load_format_xyzw:
    case CGM_SI_buffer_store_format_x: case CGM_SI_buffer_store_format_xy:
    case CGM_SI_buffer_store_format_xyz: case CGM_SI_buffer_store_format_xyzw:
        return 1;
    default:
        return 0;
    }
}

/* Only 32-bit components are converted (BUF_DATA_FORMAT_32, 32_32,
 * 32_32_32, 32_32_32_32). */
static int is_32bit_format(unsigned dfmt)
{
    return dfmt == 4 || dfmt == 11 || dfmt == 13 || dfmt == 14;
}

/* Bytes per lane, dwords, sign extension, direction, a format access (the
 * data format converts, the range check takes the whole element), atomic
 * operation. */
struct buf_op { unsigned bytes; unsigned dwords; int sext, store, format; enum mem_op atomic; };

static int buf_op_of(const struct cgm_si_inst *in, const struct srd *r, struct buf_op *b)
{
    const struct cgm_si_opcode_info *info = cgm_si_info(in);
    memset(b, 0, sizeof *b);
    if (in->fmt == CGM_SI_FMT_MTBUF ? !is_32bit_format(in->dfmt)
                                    : is_format_access(in->opcode) &&
                                          !is_32bit_format(r->data_format))
        return -1;
    if (info->access == CGM_SI_NONE)
        return -1;
    b->bytes = info->bytes;
    b->dwords = info->bytes < 4 ? 1 : info->bytes / 4;
    b->sext = in->opcode == CGM_SI_buffer_load_sbyte || in->opcode == CGM_SI_buffer_load_sshort;
    b->store = info->access == CGM_SI_STORE;
    b->format = in->fmt == CGM_SI_FMT_MTBUF || is_format_access(in->opcode);
    if (info->access == CGM_SI_ATOMIC)
        b->atomic = buffer_atomic_op(in->opcode);
    return 0;
}

int si_exec_buffer(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    if (in->opcode == CGM_SI_buffer_wbinvl1 || in->opcode == CGM_SI_buffer_wbinvl1_sc)
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
    int cmpswap = b.atomic == MEM_CMPSWAP || b.atomic == MEM_FCMPSWAP;
    unsigned data_regs = cgm_si_info(in)->widths.dst;   /* the compare-swaps: data, then cmp */
    unsigned addr_regs = (in->addr64 || (in->idxen && in->offen)) ? 2 : 1;
    uint32_t *va = (in->addr64 || in->idxen || in->offen) ? vrow(c, w, in, in->vaddr, addr_regs)
                                                          : w->v;
    uint32_t *vd = vrow(c, w, in, in->vdata, data_regs);
    if (!va || !vd)
        return -1;
    uint64_t soff = si_read_scalar(c, w, in, in->soffset);
    uint64_t exec = si_exec(w);
    note_access(c, (enum cgm_si_access)cgm_si_info(in)->access, 0, b.bytes);
    for (int l = 0; l < SI_LANES; l++) {
        if (!(exec >> l & 1))
            continue;
        /* Format accesses and atomics are in or out of range as a whole,
         * by their first byte; dword accesses component by component. */
        int whole_out = buffer_out_of_range(in, &r, va, l, 0);
        c->addr[l] = whole_out ? ~0ull : buffer_address(in, &r, soff, va, l, 0);
        if (b.atomic) {
            int wide = b.dwords == 2;
            uint64_t a = c->addr[l];
            if (a == ~0ull) {              /* dropped; what it returns is a read: 0 */
                if (in->glc) {
                    vd[l] = 0;
                    if (wide)
                        vd[SI_LANES + l] = 0;
                }
                continue;
            }
            uint8_t *p = si_map(c, w, in, l, a, b.bytes, 1);
            if (!p)
                return -1;
            uint64_t old = wide ? rd64(p) : rd32(p);
            uint64_t data = vd[l] | (wide ? (uint64_t)vd[SI_LANES + l] << 32 : 0);
            uint64_t cmp = 0;
            if (cmpswap)
                cmp = vd[(size_t)b.dwords * SI_LANES + l] |
                      (wide ? (uint64_t)vd[(size_t)(b.dwords + 1) * SI_LANES + l] << 32 : 0);
            uint64_t nv = atomic_apply(b.atomic, old, data, cmp, wide);
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
        for (unsigned k = 0; k < b.dwords; k++) {
            int out = b.format ? whole_out : buffer_out_of_range(in, &r, va, l, 4 * k);
            addr[k] = out ? ~0ull : buffer_address(in, &r, soff, va, l, 4 * k);
        }
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
