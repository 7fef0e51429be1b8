/* Southern Islands disassembler printing LLVM's AMDGPU assembler syntax, so
 * that its text can be compared with `llvm-mc -mcpu=tahiti -show-encoding`. */
#include "cgm/si_isa.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A bounded text buffer that keeps counting past its end like snprintf. */
struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->size ? o->size - o->len : 0;
    int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static int starts_with(const char *s, const char *head)
{
    return strncmp(s, head, strlen(head)) == 0;
}

static void reg_range(struct out *o, const char *prefix, unsigned first, unsigned width)
{
    if (width <= 1)
        put(o, "%s%u", prefix, first);
    else
        put(o, "%s[%u:%u]", prefix, first, first + width - 1);
}

/* A named register pair: "vcc" for both halves, "vcc_lo"/"vcc_hi" alone. */
static void pair(struct out *o, const char *name, unsigned half, unsigned width)
{
    if (width >= 2 && half == 0)
        put(o, "%s", name);
    else
        put(o, "%s_%s", name, half ? "hi" : "lo");
}

static void operand(struct out *o, const struct cgm_si_inst *in, unsigned code, unsigned width)
{
    static const char *const fconst[8] = { "0.5", "-0.5", "1.0", "-1.0",
                                           "2.0", "-2.0", "4.0", "-4.0" };
    if (width == 0)
        width = 1;
    if (code <= CGM_SI_OP_SGPR_LAST)
        reg_range(o, "s", code, width);
    else if (code >= CGM_SI_OP_VGPR0)
        reg_range(o, "v", code - CGM_SI_OP_VGPR0, width);
    else if (code == CGM_SI_OP_VCC_LO || code == CGM_SI_OP_VCC_HI)
        pair(o, "vcc", code - CGM_SI_OP_VCC_LO, width);
    else if (code == CGM_SI_OP_TBA_LO || code == CGM_SI_OP_TBA_HI)
        pair(o, "tba", code - CGM_SI_OP_TBA_LO, width);
    else if (code == CGM_SI_OP_TMA_LO || code == CGM_SI_OP_TMA_HI)
        pair(o, "tma", code - CGM_SI_OP_TMA_LO, width);
    else if (code >= CGM_SI_OP_TTMP0 && code <= CGM_SI_OP_TTMP11)
        reg_range(o, "ttmp", code - CGM_SI_OP_TTMP0, width);
    else if (code == CGM_SI_OP_M0)
        put(o, "m0");
    else if (code == CGM_SI_OP_EXEC_LO || code == CGM_SI_OP_EXEC_HI)
        pair(o, "exec", code - CGM_SI_OP_EXEC_LO, width);
    else if (code >= CGM_SI_OP_ZERO && code <= CGM_SI_OP_INT_POS_LAST)
        put(o, "%d", (int)code - CGM_SI_OP_ZERO);
    else if (code >= CGM_SI_OP_INT_NEG_FIRST && code <= CGM_SI_OP_INT_NEG_LAST)
        put(o, "%d", CGM_SI_OP_INT_POS_LAST - (int)code);
    else if (code >= CGM_SI_OP_HALF && code <= CGM_SI_OP_NEG_FOUR)
        put(o, "%s", fconst[code - CGM_SI_OP_HALF]);
    else if (code == CGM_SI_OP_VCCZ)
        put(o, "src_vccz");
    else if (code == CGM_SI_OP_EXECZ)
        put(o, "src_execz");
    else if (code == CGM_SI_OP_SCC)
        put(o, "src_scc");
    else if (code == CGM_SI_OP_LDS_DIRECT)
        put(o, "src_lds_direct");
    else if (code == CGM_SI_OP_LITERAL)
        put(o, "0x%x", in->literal);
    else
        put(o, "invalid_operand_%u", code);
}

/* ---- scalar --------------------------------------------------------------- */

static void hwreg(struct out *o, uint32_t imm)
{
    static const char *const names[8] = { NULL, "HW_REG_MODE", "HW_REG_STATUS",
        "HW_REG_TRAPSTS", "HW_REG_HW_ID", "HW_REG_GPR_ALLOC", "HW_REG_LDS_ALLOC",
        "HW_REG_IB_STS" };
    unsigned id = imm & 0x3f, offset = (imm >> 6) & 0x1f, size = ((imm >> 11) & 0x1f) + 1;
    put(o, "hwreg(");
    if (id < 8 && names[id])
        put(o, "%s", names[id]);
    else
        put(o, "%u", id);
    if (offset != 0 || size != 32)
        put(o, ", %u, %u", offset, size);
    put(o, ")");
}

static void sendmsg(struct out *o, uint32_t imm)
{
    static const char *const gs_ops[4] = { "GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT",
                                           "GS_OP_EMIT_CUT" };
    static const char *const sys_ops[5] = { NULL, "SYSMSG_OP_ECC_ERR_INTERRUPT",
        "SYSMSG_OP_REG_RD", "SYSMSG_OP_HOST_TRAP_ACK", "SYSMSG_OP_TTRACE_PC" };
    unsigned id = imm & 0xf, op = (imm >> 4) & 7, stream = (imm >> 8) & 3;
    if (imm & ~0x37fu) {
        put(o, "%u", imm);
        return;
    }
    if (id == 1 && op == 0 && stream == 0) {
        put(o, "sendmsg(MSG_INTERRUPT)");
        return;
    }
    if ((id == 2 || id == 3) && op < 4) {
        const char *msg = id == 2 ? "MSG_GS" : "MSG_GS_DONE";
        if (op == 0 && id == 3 && stream == 0) {
            put(o, "sendmsg(%s, GS_OP_NOP)", msg);
            return;
        }
        if (op != 0) {
            put(o, "sendmsg(%s, %s, %u)", msg, gs_ops[op], stream);
            return;
        }
    }
    if (id == 15 && op >= 1 && op <= 4 && stream == 0) {
        put(o, "sendmsg(MSG_SYSMSG, %s)", sys_ops[op]);
        return;
    }
    put(o, "sendmsg(%u, %u, %u)", id, op, stream);
}

static void waitcnt(struct out *o, uint32_t imm)
{
    unsigned vm = imm & 0xf, exp = (imm >> 4) & 7, lgkm = (imm >> 8) & 0xf;
    int all = vm == 0xf && exp == 7 && lgkm == 0xf;
    const char *sep = "";
    if (vm != 0xf || all) { put(o, "vmcnt(%u)", vm); sep = " "; }
    if (exp != 7 || all) { put(o, "%sexpcnt(%u)", sep, exp); sep = " "; }
    if (lgkm != 0xf || all) put(o, "%slgkmcnt(%u)", sep, lgkm);
}

static void sopp(struct out *o, const struct cgm_si_inst *in, const char *name)
{
    uint32_t u = (uint16_t)in->simm16;
    unsigned op = in->opcode;
    if (op == CGM_SI_s_barrier || op == CGM_SI_s_icache_inv || op == CGM_SI_s_ttracedata ||
        (op == CGM_SI_s_endpgm && u == 0))
        return;
    put(o, " ");
    if (op == CGM_SI_s_endpgm)
        put(o, "%u", u);
    else if (op == CGM_SI_s_branch || starts_with(name, "s_cbranch_"))
        put(o, "%d", in->simm16);
    else if (op == CGM_SI_s_waitcnt)
        waitcnt(o, u);
    else if (op == CGM_SI_s_sendmsg || op == CGM_SI_s_sendmsghalt)
        sendmsg(o, u);
    else if (u <= 64)
        put(o, "%u", u);
    else
        put(o, "0x%x", u);
}

static void sopk(struct out *o, const struct cgm_si_inst *in)
{
    uint32_t u = (uint16_t)in->simm16;
    unsigned width = cgm_si_info(in)->widths.dst;
    put(o, " ");
    switch (in->opcode) {
    case CGM_SI_s_getreg_b32:
        operand(o, in, in->dst, width);
        put(o, ", ");
        hwreg(o, u);
        break;
    case CGM_SI_s_setreg_b32:
        hwreg(o, u);
        put(o, ", ");
        operand(o, in, in->dst, width);
        break;
    case CGM_SI_s_setreg_imm32_b32:
        hwreg(o, u);
        put(o, ", %d", (int32_t)in->literal);
        break;
    case CGM_SI_s_cbranch_i_fork:
        operand(o, in, in->dst, width);
        put(o, ", %d", in->simm16);
        break;
    default:
        operand(o, in, in->dst, width);
        put(o, ", 0x%x", u);
        break;
    }
}

/* SOP2, SOP1, SOPC: the operands the table gives widths to, in field order. */
static void scalar_operands(struct out *o, const struct cgm_si_inst *in)
{
    const struct cgm_si_widths *w = &cgm_si_info(in)->widths;
    const char *sep = " ";
    if (w->dst) {
        put(o, "%s", sep);
        operand(o, in, in->dst, w->dst);
        sep = ", ";
    }
    for (unsigned i = 0; i < 2; i++)
        if (w->src[i]) {
            put(o, "%s", sep);
            operand(o, in, in->src[i], w->src[i]);
            sep = ", ";
        }
}

static void scalar(struct out *o, const struct cgm_si_inst *in, const char *name)
{
    const struct cgm_si_opcode_info *info = cgm_si_info(in);
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2: case CGM_SI_FMT_SOP1: case CGM_SI_FMT_SOPC:
        scalar_operands(o, in);
        break;
    case CGM_SI_FMT_SOPK:
        sopk(o, in);
        break;
    case CGM_SI_FMT_SOPP:
        sopp(o, in, name);
        break;
    case CGM_SI_FMT_SMRD:
        if (!info->widths.dst)                 /* s_dcache_inv */
            break;
        put(o, " ");
        operand(o, in, in->dst, info->widths.dst);
        if (info->access == CGM_SI_NONE)       /* s_memtime: no address */
            break;
        put(o, ", ");
        operand(o, in, in->sbase, starts_with(name, "s_buffer") ? 4 : 2);
        put(o, ", ");
        if (in->smrd_imm)
            put(o, "0x%x", in->smrd_offset);
        else
            operand(o, in, in->smrd_offset, 1);
        break;
    default:
        break;
    }
}

/* ---- vector ALU ---------------------------------------------------------- */

/* Opcodes LLVM prints without the _e32/_e64 encoding suffix. */
static int no_suffix(unsigned op)
{
    switch (op) {
    case CGM_SI_v_nop: case CGM_SI_v_clrexcp: case CGM_SI_v_readfirstlane_b32:
    case CGM_SI_v_readlane_b32: case CGM_SI_v_writelane_b32: case CGM_SI_v_madmk_f32:
    case CGM_SI_v_madak_f32:
        return 1;
    default:
        return 0;
    }
}

static void source(struct out *o, const struct cgm_si_inst *in, unsigned i, unsigned width)
{
    int neg = in->fmt == CGM_SI_FMT_VOP3 && (in->neg >> i & 1);
    int abs = in->fmt == CGM_SI_FMT_VOP3 && (in->abs >> i & 1);
    put(o, "%s%s", neg ? "-" : "", abs ? "|" : "");
    operand(o, in, in->src[i], width);
    if (abs)
        put(o, "|");
}

static void vector(struct out *o, const struct cgm_si_inst *in)
{
    const struct cgm_si_opcode_info *info = cgm_si_info(in);
    struct cgm_si_widths w = info->widths;
    int e64 = in->fmt == CGM_SI_FMT_VOP3;
    unsigned op = in->opcode;
    int from_vopc = info->fmt == CGM_SI_FMT_VOPC;
    int vop3_only = info->fmt == CGM_SI_FMT_VOP3;
    /* A VOP2 opcode's third source is its lane mask: VCC in the short
     * encoding, SRC2 in VOP3; it prints after the others. */
    int lane_mask = info->fmt == CGM_SI_FMT_VOP2 && w.src[2];
    unsigned nsrc = 0;
    while (nsrc < 3 && w.src[nsrc] && !(lane_mask && nsrc == 2))
        nsrc++;

    if (!no_suffix(op) && !vop3_only)
        put(o, e64 ? "_e64" : "_e32");
    if (op == CGM_SI_v_nop || op == CGM_SI_v_clrexcp)
        return;
    put(o, " ");
    if (from_vopc) {
        if (e64)
            operand(o, in, in->dst, 2);
        else
            put(o, "vcc");
    } else {
        operand(o, in, in->dst, w.dst);
    }
    if (cgm_si_is_vop3b((enum cgm_si_opcode)op)) {   /* the carry or flag mask */
        put(o, ", ");
        if (e64)
            operand(o, in, in->sdst, 2);
        else
            put(o, "vcc");
    }
    if (op == CGM_SI_v_madmk_f32) {
        put(o, ", ");
        operand(o, in, in->src[0], 1);
        put(o, ", 0x%x, ", in->literal);
        operand(o, in, in->src[1], 1);
        return;
    }
    for (unsigned i = 0; i < nsrc; i++) {
        put(o, ", ");
        source(o, in, i, w.src[i]);
    }
    if (op == CGM_SI_v_madak_f32)
        put(o, ", 0x%x", in->literal);
    if (lane_mask) {
        put(o, ", ");
        if (e64)
            operand(o, in, in->src[2], w.src[2]);
        else
            put(o, "vcc");
    }
    if (e64) {
        static const char *const omod[4] = { "", " mul:2", " mul:4", " div:2" };
        if (in->clamp)
            put(o, " clamp");
        put(o, "%s", omod[in->omod & 3]);
    }
}

static void vintrp(struct out *o, const struct cgm_si_inst *in)
{
    static const char *const params[4] = { "p10", "p20", "p0", "invalid_param_3" };
    put(o, " ");
    operand(o, in, in->dst, 1);
    if (in->opcode == CGM_SI_v_interp_mov_f32)
        put(o, ", %s", params[in->src[0] & 3]);
    else
        put(o, ", v%u", in->src[0]);
    put(o, ", attr%u.%c", in->attr, "xyzw"[in->attrchan & 3]);
}

/* ---- memory --------------------------------------------------------------- */

static void swizzle(struct out *o, unsigned imm)
{
    if ((imm & 0xff00) == 0x8000) {
        put(o, " offset:swizzle(QUAD_PERM,%u,%u,%u,%u)", imm & 3, (imm >> 2) & 3,
            (imm >> 4) & 3, (imm >> 6) & 3);
        return;
    }
    if (imm & 0x8000) {
        put(o, " offset:%u", imm);
        return;
    }
    unsigned and_mask = imm & 0x1f, or_mask = (imm >> 5) & 0x1f, xor_mask = (imm >> 10) & 0x1f;
    unsigned group = 0x1f - and_mask + 1;
    if (and_mask == 0x1f && or_mask == 0 && xor_mask && !(xor_mask & (xor_mask - 1))) {
        put(o, " offset:swizzle(SWAP,%u)", xor_mask);
    } else if (and_mask == 0x1f && or_mask == 0 && xor_mask && !((xor_mask + 1) & xor_mask)) {
        put(o, " offset:swizzle(REVERSE,%u)", xor_mask + 1);
    } else if (group > 1 && !(group & (group - 1)) && or_mask < group && xor_mask == 0) {
        put(o, " offset:swizzle(BROADCAST,%u,%u)", group, or_mask);
    } else {
        put(o, " offset:swizzle(BITMASK_PERM,\"");
        for (unsigned m = 0x10; m; m >>= 1)
            put(o, "%c", (and_mask & m) ? ((xor_mask & m) ? 'i' : 'p')
                                        : ((or_mask & m) ? '1' : '0'));
        put(o, "\")");
    }
}

/* DS operands as the table gives them: VDST, ADDR, DATA0, DATA1. */
static void ds(struct out *o, const struct cgm_si_inst *in)
{
    const struct cgm_si_widths *w = &cgm_si_info(in)->widths;
    const char *sep = " ";
    if (w->dst) {
        put(o, "%s", sep);
        reg_range(o, "v", in->vdst, w->dst);
        sep = ", ";
    }
    if (w->src[0]) {
        put(o, "%sv%u", sep, in->vaddr);
        sep = ", ";
    }
    if (w->src[1]) {
        put(o, ", ");
        reg_range(o, "v", in->data0, w->src[1]);
    }
    if (w->src[2]) {
        put(o, ", ");
        reg_range(o, "v", in->data1, w->src[2]);
    }
    if (cgm_si_ds_pair_stride((enum cgm_si_opcode)in->opcode)) {
        if (in->offset0)
            put(o, " offset0:%u", in->offset0);
        if (in->offset1)
            put(o, " offset1:%u", in->offset1);
    } else if (in->opcode == CGM_SI_ds_swizzle_b32) {
        if (in->offset)
            swizzle(o, in->offset);
    } else if (in->offset) {
        put(o, " offset:%u", in->offset);
    }
    if (in->gds)
        put(o, " gds");
}

static void buffer_address(struct out *o, const struct cgm_si_inst *in)
{
    if (in->addr64 || (in->offen && in->idxen))
        put(o, ", v[%u:%u]", in->vaddr, in->vaddr + 1);
    else if (in->offen || in->idxen)
        put(o, ", v%u", in->vaddr);
    else
        put(o, ", off");
    put(o, ", s[%u:%u], ", in->srsrc, in->srsrc + 3);
    operand(o, in, in->soffset, 1);
}

static void buffer_flags(struct out *o, const struct cgm_si_inst *in)
{
    if (in->idxen) put(o, " idxen");
    if (in->offen) put(o, " offen");
    if (in->addr64) put(o, " addr64");
    if (in->offset) put(o, " offset:%u", in->offset);
    if (in->glc) put(o, " glc");
    if (in->slc) put(o, " slc");
    if (in->lds) put(o, " lds");
    if (in->tfe) put(o, " tfe");
}

static void mtbuf_format(struct out *o, const struct cgm_si_inst *in)
{
    static const char *const dfmt[16] = { "INVALID", "8", "16", "8_8", "32", "16_16",
        "10_11_11", "11_11_10", "10_10_10_2", "2_10_10_10", "8_8_8_8", "32_32",
        "16_16_16_16", "32_32_32", "32_32_32_32", "RESERVED_15" };
    static const char *const nfmt[8] = { "UNORM", "SNORM", "USCALED", "SSCALED", "UINT",
        "SINT", NULL, "FLOAT" };
    if (in->dfmt == 1 && in->nfmt == 0)
        return;
    if (!nfmt[in->nfmt]) {
        put(o, " format:%u", in->dfmt | in->nfmt << 4);
        return;
    }
    put(o, " format:[");
    if (in->dfmt != 1)
        put(o, "BUF_DATA_FORMAT_%s%s", dfmt[in->dfmt], in->nfmt ? "," : "");
    if (in->nfmt)
        put(o, "BUF_NUM_FORMAT_%s", nfmt[in->nfmt]);
    put(o, "]");
}

static void mimg(struct out *o, const struct cgm_si_inst *in, const char *name)
{
    unsigned w = (unsigned)__builtin_popcount(in->dmask);
    if (starts_with(name, "image_gather4"))
        w = 4;
    if (w == 0)
        w = 1;
    put(o, " ");
    reg_range(o, "v", in->vdata, w + in->tfe);
    put(o, ", v[%u:%u], s[%u:%u]", in->vaddr, in->vaddr + 3, in->srsrc, in->srsrc + 7);
    if (starts_with(name, "image_sample") || starts_with(name, "image_gather4") ||
        in->opcode == CGM_SI_image_get_lod)
        put(o, ", s[%u:%u]", in->ssamp, in->ssamp + 3);
    if (in->dmask) put(o, " dmask:0x%x", in->dmask);
    if (in->unorm) put(o, " unorm");
    if (in->glc) put(o, " glc");
    if (in->slc) put(o, " slc");
    if (in->r128) put(o, " r128");
    if (in->tfe) put(o, " tfe");
    if (in->lwe) put(o, " lwe");
    if (in->da) put(o, " da");
}

static void exp_target(struct out *o, unsigned t)
{
    if (t <= 7) put(o, "mrt%u", t);
    else if (t == 8) put(o, "mrtz");
    else if (t == 9) put(o, "null");
    else if (t >= 12 && t <= 15) put(o, "pos%u", t - 12);
    else if (t >= 32) put(o, "param%u", t - 32);
    else put(o, "invalid_target_%u", t);
}

static void export(struct out *o, const struct cgm_si_inst *in)
{
    put(o, " ");
    exp_target(o, in->exp_tgt);
    for (unsigned i = 0; i < 4; i++) {
        unsigned reg = in->exp_compr ? in->vsrc[i / 2] : in->vsrc[i];
        if (in->exp_en >> i & 1)
            put(o, "%s v%u", i ? "," : "", reg);
        else
            put(o, "%s off", i ? "," : "");
    }
    if (in->exp_done) put(o, " done");
    if (in->exp_compr) put(o, " compr");
    if (in->exp_vm) put(o, " vm");
}

int cgm_si_disasm(const struct cgm_si_inst *in, char *buf, size_t size)
{
    struct out o = { buf, size, 0 };
    const char *name = cgm_si_info(in)->name;
    if (size)
        buf[0] = '\0';
    if (!name) {
        put(&o, "invalid_instruction");
        return (int)o.len;
    }
    put(&o, "%s", name);
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2: case CGM_SI_FMT_SOPK: case CGM_SI_FMT_SOP1: case CGM_SI_FMT_SOPC:
    case CGM_SI_FMT_SOPP: case CGM_SI_FMT_SMRD:
        scalar(&o, in, name);
        break;
    case CGM_SI_FMT_VOP2: case CGM_SI_FMT_VOP1: case CGM_SI_FMT_VOPC: case CGM_SI_FMT_VOP3:
        vector(&o, in);
        break;
    case CGM_SI_FMT_VINTRP:
        vintrp(&o, in);
        break;
    case CGM_SI_FMT_DS:
        ds(&o, in);
        break;
    case CGM_SI_FMT_MUBUF:
        if (!cgm_si_info(in)->widths.dst)      /* buffer_wbinvl1* */
            break;
        put(&o, " ");
        reg_range(&o, "v", in->vdata, cgm_si_info(in)->widths.dst);
        buffer_address(&o, in);
        buffer_flags(&o, in);
        break;
    case CGM_SI_FMT_MTBUF:
        put(&o, " ");
        reg_range(&o, "v", in->vdata, cgm_si_info(in)->widths.dst);
        buffer_address(&o, in);
        mtbuf_format(&o, in);
        buffer_flags(&o, in);
        break;
    case CGM_SI_FMT_MIMG:
        mimg(&o, in, name);
        break;
    case CGM_SI_FMT_EXP:
        export(&o, in);
        break;
    default:
        break;
    }
    return (int)o.len;
}
