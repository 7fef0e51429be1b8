/* The opcode table: the rows of cgm/si_opcodes.def indexed by enum
 * cgm_si_opcode, and the reverse map from an encoding's opcode field. */
#include "cgm/si_isa.h"

const struct cgm_si_opcode_info cgm_si_opcodes[CGM_SI_OPCODE_COUNT] = {
#define CGM_SI_OPCODE(name, fmt, code, d, s0, s1, s2, access, bytes, branch)               \
    [CGM_SI_##name] = { #name, CGM_SI_FMT_##fmt, code, { d, { s0, s1, s2 } }, CGM_SI_##access, \
                        bytes, branch },
#include "cgm/si_opcodes.def"
#undef CGM_SI_OPCODE
};

/* Opcode by format and opcode field; a row listed twice would be a
 * duplicate initializer, which the build (-Wextra -Werror) refuses. */
enum { CODE_LIMIT = 512 };
static const uint16_t by_code[CGM_SI_FMT_COUNT][CODE_LIMIT] = {
#define CGM_SI_OPCODE(name, fmt, code, ...) [CGM_SI_FMT_##fmt][code] = CGM_SI_##name,
#include "cgm/si_opcodes.def"
#undef CGM_SI_OPCODE
};

enum cgm_si_opcode cgm_si_opcode_of(enum cgm_si_format fmt, unsigned code)
{
    if (fmt == CGM_SI_FMT_VOP3) {          /* VOPC, VOP2 and VOP1 opcodes have a VOP3 form */
        if (code < CGM_SI_VOP3_FROM_VOP2) {
            fmt = CGM_SI_FMT_VOPC;
        } else if (code < CGM_SI_VOP3_ONLY_FIRST) {
            fmt = CGM_SI_FMT_VOP2;
            code -= CGM_SI_VOP3_FROM_VOP2;
        } else if (code >= CGM_SI_VOP3_FROM_VOP1) {
            fmt = CGM_SI_FMT_VOP1;
            code -= CGM_SI_VOP3_FROM_VOP1;
        }
    }
    if (fmt <= CGM_SI_FMT_INVALID || fmt >= CGM_SI_FMT_COUNT || code >= CODE_LIMIT)
        return CGM_SI_OPCODE_INVALID;
    return (enum cgm_si_opcode)by_code[fmt][code];
}

int cgm_si_is_vop3b(enum cgm_si_opcode op)
{
    switch (op) {
    case CGM_SI_v_add_i32: case CGM_SI_v_sub_i32: case CGM_SI_v_subrev_i32:
    case CGM_SI_v_addc_u32: case CGM_SI_v_subb_u32: case CGM_SI_v_subbrev_u32:
    case CGM_SI_v_div_scale_f32: case CGM_SI_v_div_scale_f64:
        return 1;
    default:
        return 0;
    }
}

unsigned cgm_si_ds_pair_stride(enum cgm_si_opcode op)
{
    switch (op) {
    case CGM_SI_ds_write2_b32: case CGM_SI_ds_wrxchg2_rtn_b32: case CGM_SI_ds_read2_b32:
    case CGM_SI_ds_write2_b64: case CGM_SI_ds_wrxchg2_rtn_b64: case CGM_SI_ds_read2_b64:
        return 1;
    case CGM_SI_ds_write2st64_b32: case CGM_SI_ds_wrxchg2st64_rtn_b32:
    case CGM_SI_ds_read2st64_b32: case CGM_SI_ds_write2st64_b64:
    case CGM_SI_ds_wrxchg2st64_rtn_b64: case CGM_SI_ds_read2st64_b64:
        return 64;
    default:
        return 0;
    }
}
