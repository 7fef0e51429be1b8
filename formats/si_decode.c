/* Southern Islands instruction decoder: picks the encoding format from the
 * leading bits of the first dword and splits the fields (SI ISA manual,
 * chapter 12).  Little-endian dwords, a 32-bit literal after the words when
 * a source operand is 255 (never for VOP3 on SI) or the opcode takes one. */
#include "cgm/si_isa.h"

#include <string.h>

static uint32_t bits(uint32_t w, unsigned hi, unsigned lo)
{
    return (w >> lo) & ((hi - lo == 31) ? 0xffffffffu : ((1u << (hi - lo + 1)) - 1));
}

static uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static enum cgm_si_format format_of(uint32_t w)
{
    if (!(w >> 31)) {
        if (bits(w, 31, 25) == 0x3f) return CGM_SI_FMT_VOP1;
        if (bits(w, 31, 25) == 0x3e) return CGM_SI_FMT_VOPC;
        return CGM_SI_FMT_VOP2;
    }
    if (bits(w, 31, 30) == 2) {
        switch (bits(w, 31, 23)) {
        case 0x17d: return CGM_SI_FMT_SOP1;
        case 0x17e: return CGM_SI_FMT_SOPC;
        case 0x17f: return CGM_SI_FMT_SOPP;
        default: break;
        }
        return bits(w, 31, 28) == 0xb ? CGM_SI_FMT_SOPK : CGM_SI_FMT_SOP2;
    }
    if (bits(w, 31, 27) == 0x18) return CGM_SI_FMT_SMRD;
    switch (bits(w, 31, 26)) {
    case 0x32: return CGM_SI_FMT_VINTRP;
    case 0x34: return CGM_SI_FMT_VOP3;
    case 0x36: return CGM_SI_FMT_DS;
    case 0x38: return CGM_SI_FMT_MUBUF;
    case 0x3a: return CGM_SI_FMT_MTBUF;
    case 0x3c: return CGM_SI_FMT_MIMG;
    case 0x3e: return CGM_SI_FMT_EXP;
    default:   return CGM_SI_FMT_INVALID;
    }
}

/* Formats whose first word is followed by a second one. */
static int has_second_word(enum cgm_si_format f)
{
    return f == CGM_SI_FMT_VOP3 || f == CGM_SI_FMT_DS || f == CGM_SI_FMT_MUBUF ||
           f == CGM_SI_FMT_MTBUF ||
           f == CGM_SI_FMT_MIMG || f == CGM_SI_FMT_EXP;
}

/* The opcode field: also names the instruction from the table. */
static void set_code(struct cgm_si_inst *in, uint32_t code)
{
    in->code = (uint16_t)code;
    in->opcode = (uint16_t)cgm_si_opcode_of((enum cgm_si_format)in->fmt, code);
}

static void decode_scalar(struct cgm_si_inst *in, uint32_t w)
{
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2:
        set_code(in, bits(w, 29, 23));
        in->dst = bits(w, 22, 16);
        in->src[0] = bits(w, 7, 0);
        in->src[1] = bits(w, 15, 8);
        break;
    case CGM_SI_FMT_SOPK:
        set_code(in, bits(w, 27, 23));
        in->dst = bits(w, 22, 16);
        in->simm16 = (int16_t)bits(w, 15, 0);
        break;
    case CGM_SI_FMT_SOP1:
        set_code(in, bits(w, 15, 8));
        in->dst = bits(w, 22, 16);
        in->src[0] = bits(w, 7, 0);
        break;
    case CGM_SI_FMT_SOPC:
        set_code(in, bits(w, 22, 16));
        in->src[0] = bits(w, 7, 0);
        in->src[1] = bits(w, 15, 8);
        break;
    case CGM_SI_FMT_SOPP:
        set_code(in, bits(w, 22, 16));
        in->simm16 = (int16_t)bits(w, 15, 0);
        break;
    case CGM_SI_FMT_SMRD:
        set_code(in, bits(w, 26, 22));
        in->dst = bits(w, 21, 15);
        in->sbase = bits(w, 14, 9) * 2;
        in->smrd_imm = bits(w, 8, 8);
        in->smrd_offset = bits(w, 7, 0);
        break;
    default:
        break;
    }
}

static void decode_vector(struct cgm_si_inst *in, uint32_t w, uint32_t w1)
{
    switch (in->fmt) {
    case CGM_SI_FMT_VOP2:
        set_code(in, bits(w, 30, 25));
        in->src[0] = bits(w, 8, 0);
        in->src[1] = CGM_SI_OP_VGPR0 + bits(w, 16, 9);
        in->dst = CGM_SI_OP_VGPR0 + bits(w, 24, 17);
        /* the lane select is an SGPR or constant, readlane's result an SGPR */
        if (in->opcode == CGM_SI_v_readlane_b32 || in->opcode == CGM_SI_v_writelane_b32)
            in->src[1] = bits(w, 16, 9);
        if (in->opcode == CGM_SI_v_readlane_b32)
            in->dst = bits(w, 24, 17);
        break;
    case CGM_SI_FMT_VOP1:
        set_code(in, bits(w, 16, 9));
        in->src[0] = bits(w, 8, 0);
        in->dst = CGM_SI_OP_VGPR0 + bits(w, 24, 17);
        if (in->opcode == CGM_SI_v_readfirstlane_b32)
            in->dst = bits(w, 24, 17);
        break;
    case CGM_SI_FMT_VOPC:
        set_code(in, bits(w, 24, 17));
        in->src[0] = bits(w, 8, 0);
        in->src[1] = CGM_SI_OP_VGPR0 + bits(w, 16, 9);
        in->dst = CGM_SI_OP_VCC_LO;
        break;
    case CGM_SI_FMT_VOP3:
        set_code(in, bits(w, 25, 17));
        in->dst = CGM_SI_OP_VGPR0 + bits(w, 7, 0);
        if (cgm_si_info(in)->fmt == CGM_SI_FMT_VOPC || in->opcode == CGM_SI_v_readlane_b32 ||
            in->opcode == CGM_SI_v_readfirstlane_b32)
            in->dst = bits(w, 7, 0);
        if (cgm_si_is_vop3b((enum cgm_si_opcode)in->opcode)) {
            in->sdst = bits(w, 14, 8);
        } else {
            in->abs = bits(w, 10, 8);
            in->clamp = bits(w, 11, 11);
        }
        in->src[0] = bits(w1, 8, 0);
        in->src[1] = bits(w1, 17, 9);
        in->src[2] = bits(w1, 26, 18);
        in->omod = bits(w1, 28, 27);
        in->neg = bits(w1, 31, 29);
        break;
    case CGM_SI_FMT_VINTRP:
        set_code(in, bits(w, 17, 16));
        in->dst = CGM_SI_OP_VGPR0 + bits(w, 25, 18);
        in->src[0] = bits(w, 7, 0);    /* VGPR number, or the parameter for mov */
        in->attr = bits(w, 15, 10);
        in->attrchan = bits(w, 9, 8);
        break;
    default:
        break;
    }
}

static void decode_memory(struct cgm_si_inst *in, uint32_t w, uint32_t w1)
{
    switch (in->fmt) {
    case CGM_SI_FMT_DS:
        set_code(in, bits(w, 25, 18));
        in->offset0 = bits(w, 7, 0);
        in->offset1 = bits(w, 15, 8);
        in->offset = bits(w, 15, 0);
        in->gds = bits(w, 17, 17);
        in->vaddr = bits(w1, 7, 0);
        in->data0 = bits(w1, 15, 8);
        in->data1 = bits(w1, 23, 16);
        in->vdst = bits(w1, 31, 24);
        break;
    case CGM_SI_FMT_MUBUF:
    case CGM_SI_FMT_MTBUF:
        in->offset = bits(w, 11, 0);
        in->offen = bits(w, 12, 12);
        in->idxen = bits(w, 13, 13);
        in->glc = bits(w, 14, 14);
        in->addr64 = bits(w, 15, 15);
        if (in->fmt == CGM_SI_FMT_MUBUF) {
            in->lds = bits(w, 16, 16);
            set_code(in, bits(w, 24, 18));
        } else {
            set_code(in, bits(w, 18, 16));
            in->dfmt = bits(w, 22, 19);
            in->nfmt = bits(w, 25, 23);
        }
        in->vaddr = bits(w1, 7, 0);
        in->vdata = bits(w1, 15, 8);
        in->srsrc = bits(w1, 20, 16) * 4;
        in->slc = bits(w1, 22, 22);
        in->tfe = bits(w1, 23, 23);
        in->soffset = bits(w1, 31, 24);
        break;
    case CGM_SI_FMT_MIMG:
        in->dmask = bits(w, 11, 8);
        in->unorm = bits(w, 12, 12);
        in->glc = bits(w, 13, 13);
        in->da = bits(w, 14, 14);
        in->r128 = bits(w, 15, 15);
        in->tfe = bits(w, 16, 16);
        in->lwe = bits(w, 17, 17);
        set_code(in, bits(w, 24, 18));
        in->slc = bits(w, 25, 25);
        in->vaddr = bits(w1, 7, 0);
        in->vdata = bits(w1, 15, 8);
        in->srsrc = bits(w1, 20, 16) * 4;
        in->ssamp = bits(w1, 25, 21) * 4;
        break;
    case CGM_SI_FMT_EXP:
        set_code(in, 0);
        in->exp_en = bits(w, 3, 0);
        in->exp_tgt = bits(w, 9, 4);
        in->exp_compr = bits(w, 10, 10);
        in->exp_done = bits(w, 11, 11);
        in->exp_vm = bits(w, 12, 12);
        for (int i = 0; i < 4; i++)
            in->vsrc[i] = bits(w1, 8 * i + 7, 8 * i);
        break;
    default:
        break;
    }
}

static int needs_literal(const struct cgm_si_inst *in)
{
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2: case CGM_SI_FMT_SOPC:
        return in->src[0] == CGM_SI_OP_LITERAL || in->src[1] == CGM_SI_OP_LITERAL;
    case CGM_SI_FMT_SOP1: case CGM_SI_FMT_VOP1: case CGM_SI_FMT_VOPC:
        return in->src[0] == CGM_SI_OP_LITERAL;
    case CGM_SI_FMT_VOP2:
        return in->src[0] == CGM_SI_OP_LITERAL || in->opcode == CGM_SI_v_madmk_f32 ||
               in->opcode == CGM_SI_v_madak_f32 ||
               ((in->opcode == CGM_SI_v_readlane_b32 || in->opcode == CGM_SI_v_writelane_b32) &&
                in->src[1] == CGM_SI_OP_LITERAL);
    case CGM_SI_FMT_SOPK:
        return in->opcode == CGM_SI_s_setreg_imm32_b32;
    default:
        return 0;
    }
}

size_t cgm_si_decode(const uint8_t *bytes, size_t avail, struct cgm_si_inst *out)
{
    memset(out, 0, sizeof *out);
    if (avail < 4)
        return 0;
    uint32_t w = load32(bytes), w1 = 0;
    enum cgm_si_format fmt = format_of(w);
    if (fmt == CGM_SI_FMT_INVALID)
        return 0;
    out->fmt = (uint8_t)fmt;
    out->size = 4;
    if (has_second_word(fmt)) {
        if (avail < 8)
            return 0;
        w1 = load32(bytes + 4);
        out->size = 8;
    }
    decode_scalar(out, w);
    decode_vector(out, w, w1);
    decode_memory(out, w, w1);
    if (needs_literal(out)) {
        if (avail < (size_t)out->size + 4)
            return 0;
        out->literal = load32(bytes + out->size);
        out->has_literal = 1;
        out->size += 4;
    }
    if (out->opcode == CGM_SI_OPCODE_INVALID)
        return 0;
    return out->size;
}
