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

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
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
    if (!strcmp(name, "s_barrier") || !strcmp(name, "s_icache_inv") ||
        !strcmp(name, "s_ttracedata") || (!strcmp(name, "s_endpgm") && u == 0))
        return;
    put(o, " ");
    if (!strcmp(name, "s_endpgm"))
        put(o, "%u", u);
    else if (!strcmp(name, "s_branch") || starts_with(name, "s_cbranch_"))
        put(o, "%d", in->simm16);
    else if (!strcmp(name, "s_waitcnt"))
        waitcnt(o, u);
    else if (starts_with(name, "s_sendmsg"))
        sendmsg(o, u);
    else if (u <= 64)
        put(o, "%u", u);
    else
        put(o, "0x%x", u);
}

static void sopk(struct out *o, const struct cgm_si_inst *in, const char *name)
{
    uint32_t u = (uint16_t)in->simm16;
    put(o, " ");
    if (!strcmp(name, "s_getreg_b32")) {
        operand(o, in, in->dst, 1);
        put(o, ", ");
        hwreg(o, u);
    } else if (!strcmp(name, "s_setreg_b32")) {
        hwreg(o, u);
        put(o, ", ");
        operand(o, in, in->dst, 1);
    } else if (!strcmp(name, "s_setreg_imm32_b32")) {
        hwreg(o, u);
        put(o, ", %d", (int32_t)in->literal);
    } else if (!strcmp(name, "s_cbranch_i_fork")) {
        operand(o, in, in->dst, 2);
        put(o, ", %d", in->simm16);
    } else {
        operand(o, in, in->dst, 1);
        put(o, ", 0x%x", u);
    }
}

static void scalar(struct out *o, const struct cgm_si_inst *in, const char *name)
{
    struct cgm_si_widths w = cgm_si_inst_widths(in);
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2:
        put(o, " ");
        if (strcmp(name, "s_cbranch_g_fork") != 0) {
            operand(o, in, in->dst, w.dst);
            put(o, ", ");
        }
        operand(o, in, in->src[0], w.src[0]);
        put(o, ", ");
        operand(o, in, in->src[1], w.src[1]);
        break;
    case CGM_SI_FMT_SOP1:
        put(o, " ");
        if (!strcmp(name, "s_getpc_b64")) {
            operand(o, in, in->dst, 2);
        } else if (!strcmp(name, "s_setpc_b64") || !strcmp(name, "s_rfe_b64") ||
                   !strcmp(name, "s_cbranch_join")) {
            operand(o, in, in->src[0], w.src[0]);
        } else {
            operand(o, in, in->dst, w.dst);
            put(o, ", ");
            operand(o, in, in->src[0], w.src[0]);
        }
        break;
    case CGM_SI_FMT_SOPC:
        put(o, " ");
        operand(o, in, in->src[0], w.src[0]);
        put(o, ", ");
        operand(o, in, in->src[1], w.src[1]);
        break;
    case CGM_SI_FMT_SOPK:
        sopk(o, in, name);
        break;
    case CGM_SI_FMT_SOPP:
        sopp(o, in, name);
        break;
    case CGM_SI_FMT_SMRD:
        if (!strcmp(name, "s_dcache_inv"))
            break;
        put(o, " ");
        operand(o, in, in->dst, w.dst);
        if (!strcmp(name, "s_memtime"))
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

static int no_suffix(const char *name)
{
    return !strcmp(name, "v_nop") || !strcmp(name, "v_clrexcp") ||
           !strcmp(name, "v_readfirstlane_b32") || !strcmp(name, "v_readlane_b32") ||
           !strcmp(name, "v_writelane_b32") || !strcmp(name, "v_madmk_f32") ||
           !strcmp(name, "v_madak_f32");
}

/* Carry-in/out adds print the carry mask; VOP3b names it in SDST. */
static int is_carry_out(const char *name)
{
    return !strcmp(name, "v_add_i32") || !strcmp(name, "v_sub_i32") ||
           !strcmp(name, "v_subrev_i32") || !strcmp(name, "v_addc_u32") ||
           !strcmp(name, "v_subb_u32") || !strcmp(name, "v_subbrev_u32");
}

static int is_carry_in(const char *name)
{
    return !strcmp(name, "v_addc_u32") || !strcmp(name, "v_subb_u32") ||
           !strcmp(name, "v_subbrev_u32");
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

/* Number of sources of the VOP3-only opcodes (320..383). */
static unsigned vop3_only_sources(unsigned op)
{
    if ((op >= 353 && op <= 364) || op == 372)
        return 2;
    return 3;
}

static void vector(struct out *o, const struct cgm_si_inst *in, const char *name)
{
    struct cgm_si_widths w = cgm_si_inst_widths(in);
    int e64 = in->fmt == CGM_SI_FMT_VOP3;
    unsigned op = in->op;
    int from_vopc = e64 ? op < CGM_SI_VOP3_FROM_VOP2 : in->fmt == CGM_SI_FMT_VOPC;
    int from_vop1 = e64 ? op >= CGM_SI_VOP3_FROM_VOP1 : in->fmt == CGM_SI_FMT_VOP1;
    int vop3_only = e64 && op >= CGM_SI_VOP3_ONLY_FIRST && op < CGM_SI_VOP3_FROM_VOP1;
    unsigned nsrc = from_vop1 ? 1 : vop3_only ? vop3_only_sources(op) : 2;

    if (!no_suffix(name) && !vop3_only)
        put(o, e64 ? "_e64" : "_e32");
    if (!strcmp(name, "v_nop") || !strcmp(name, "v_clrexcp"))
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
    if (is_carry_out(name) || op == 365 || op == 366) {
        put(o, ", ");
        if (e64)
            operand(o, in, in->sdst, 2);
        else
            put(o, "vcc");
    }
    if (!strcmp(name, "v_madmk_f32")) {
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
    if (!strcmp(name, "v_madak_f32"))
        put(o, ", 0x%x", in->literal);
    if (!strcmp(name, "v_cndmask_b32") || is_carry_in(name)) {
        put(o, ", ");
        if (e64)
            operand(o, in, in->src[2], 2);
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
    if (in->op == 2)
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

static void ds(struct out *o, const struct cgm_si_inst *in, const char *name)
{
    int wide = ends_with(name, "64");
    int two = strstr(name, "read2") || strstr(name, "write2") || strstr(name, "wrxchg2");
    int rtn = strstr(name, "_rtn_") != NULL;
    int read = starts_with(name, "ds_read");
    int ndata = 1;
    unsigned vdst_w = wide ? 2 : 1;
    if (two && (read || rtn))
        vdst_w *= 2;
    if (read || strstr(name, "_src2_") || starts_with(name, "ds_gws") ||
        !strcmp(name, "ds_append") || !strcmp(name, "ds_consume") ||
        !strcmp(name, "ds_ordered_count") || !strcmp(name, "ds_swizzle_b32"))
        ndata = 0;
    else if (strstr(name, "mskor") || strstr(name, "cmpst") || (two && !read))
        ndata = 2;

    const char *sep = " ";
    if (rtn || read || !strcmp(name, "ds_append") || !strcmp(name, "ds_consume") ||
        !strcmp(name, "ds_ordered_count") || !strcmp(name, "ds_swizzle_b32")) {
        put(o, "%s", sep);
        reg_range(o, "v", in->vdst, vdst_w);
        sep = ", ";
    }
    if (strcmp(name, "ds_append") && strcmp(name, "ds_consume") &&
        strcmp(name, "ds_gws_sema_v") && strcmp(name, "ds_gws_sema_p")) {
        put(o, "%sv%u", sep, in->vaddr);
        sep = ", ";
    }
    if (ndata >= 1) {
        put(o, ", ");
        reg_range(o, "v", in->data0, wide ? 2 : 1);
    }
    if (ndata >= 2) {
        put(o, ", ");
        reg_range(o, "v", in->data1, wide ? 2 : 1);
    }
    if (two) {
        if (in->offset0)
            put(o, " offset0:%u", in->offset0);
        if (in->offset1)
            put(o, " offset1:%u", in->offset1);
    } else if (!strcmp(name, "ds_swizzle_b32")) {
        if (in->offset)
            swizzle(o, in->offset);
    } else if (in->offset) {
        put(o, " offset:%u", in->offset);
    }
    if (in->gds)
        put(o, " gds");
}

static unsigned buffer_data_width(const char *name)
{
    unsigned w = 1;
    if (ends_with(name, "_xy")) w = 2;
    else if (ends_with(name, "_xyz") || ends_with(name, "x3")) w = 3;
    else if (ends_with(name, "_xyzw") || ends_with(name, "x4")) w = 4;
    else if (ends_with(name, "x2")) w = 2;
    if (strstr(name, "cmpswap"))
        w *= 2;
    return w;
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
    if (in->op >= 32)
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
    const char *name = cgm_si_opcode_name((enum cgm_si_format)in->fmt, in->op);
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
        vector(&o, in, name);
        break;
    case CGM_SI_FMT_VINTRP:
        vintrp(&o, in);
        break;
    case CGM_SI_FMT_DS:
        ds(&o, in, name);
        break;
    case CGM_SI_FMT_MUBUF:
        if (starts_with(name, "buffer_wbinvl1"))
            break;
        put(&o, " ");
        reg_range(&o, "v", in->vdata, buffer_data_width(name));
        buffer_address(&o, in);
        buffer_flags(&o, in);
        break;
    case CGM_SI_FMT_MTBUF:
        put(&o, " ");
        reg_range(&o, "v", in->vdata, buffer_data_width(name));
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
