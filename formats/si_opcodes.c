/* Southern Islands opcode names per encoding format (SI ISA manual,
 * chapter 12 "Microcode Formats"), spelled as LLVM's AMDGPU assembler does,
 * and the register widths of their operands. */
#include "cgm/si_isa.h"

#include <string.h>

static const char *const sop2_names[128] = {
    [0] = "s_add_u32", "s_sub_u32", "s_add_i32", "s_sub_i32", "s_addc_u32", "s_subb_u32",
    "s_min_i32", "s_min_u32", "s_max_i32", "s_max_u32", "s_cselect_b32", "s_cselect_b64",
    [14] = "s_and_b32", "s_and_b64", "s_or_b32", "s_or_b64", "s_xor_b32", "s_xor_b64",
    "s_andn2_b32", "s_andn2_b64", "s_orn2_b32", "s_orn2_b64", "s_nand_b32", "s_nand_b64",
    "s_nor_b32", "s_nor_b64", "s_xnor_b32", "s_xnor_b64", "s_lshl_b32", "s_lshl_b64",
    "s_lshr_b32", "s_lshr_b64", "s_ashr_i32", "s_ashr_i64", "s_bfm_b32", "s_bfm_b64",
    "s_mul_i32", "s_bfe_u32", "s_bfe_i32", "s_bfe_u64", "s_bfe_i64", "s_cbranch_g_fork",
    "s_absdiff_i32",
};

static const char *const sopk_names[32] = {
    [0] = "s_movk_i32", [2] = "s_cmovk_i32",
    [3] = "s_cmpk_eq_i32", "s_cmpk_lg_i32", "s_cmpk_gt_i32", "s_cmpk_ge_i32",
    "s_cmpk_lt_i32", "s_cmpk_le_i32", "s_cmpk_eq_u32", "s_cmpk_lg_u32", "s_cmpk_gt_u32",
    "s_cmpk_ge_u32", "s_cmpk_lt_u32", "s_cmpk_le_u32",
    [15] = "s_addk_i32", "s_mulk_i32", "s_cbranch_i_fork", "s_getreg_b32", "s_setreg_b32",
    [21] = "s_setreg_imm32_b32",
};

static const char *const sop1_names[256] = {
    [3] = "s_mov_b32", "s_mov_b64", "s_cmov_b32", "s_cmov_b64", "s_not_b32", "s_not_b64",
    "s_wqm_b32", "s_wqm_b64", "s_brev_b32", "s_brev_b64", "s_bcnt0_i32_b32", "s_bcnt0_i32_b64",
    "s_bcnt1_i32_b32", "s_bcnt1_i32_b64", "s_ff0_i32_b32", "s_ff0_i32_b64", "s_ff1_i32_b32",
    "s_ff1_i32_b64", "s_flbit_i32_b32", "s_flbit_i32_b64", "s_flbit_i32", "s_flbit_i32_i64",
    "s_sext_i32_i8", "s_sext_i32_i16", "s_bitset0_b32", "s_bitset0_b64", "s_bitset1_b32",
    "s_bitset1_b64", "s_getpc_b64", "s_setpc_b64", "s_swappc_b64", "s_rfe_b64",
    [36] = "s_and_saveexec_b64", "s_or_saveexec_b64", "s_xor_saveexec_b64",
    "s_andn2_saveexec_b64", "s_orn2_saveexec_b64", "s_nand_saveexec_b64",
    "s_nor_saveexec_b64", "s_xnor_saveexec_b64", "s_quadmask_b32", "s_quadmask_b64",
    "s_movrels_b32", "s_movrels_b64", "s_movreld_b32", "s_movreld_b64", "s_cbranch_join",
    [52] = "s_abs_i32",
};

static const char *const sopc_names[128] = {
    [0] = "s_cmp_eq_i32", "s_cmp_lg_i32", "s_cmp_gt_i32", "s_cmp_ge_i32", "s_cmp_lt_i32",
    "s_cmp_le_i32", "s_cmp_eq_u32", "s_cmp_lg_u32", "s_cmp_gt_u32", "s_cmp_ge_u32",
    "s_cmp_lt_u32", "s_cmp_le_u32", "s_bitcmp0_b32", "s_bitcmp1_b32", "s_bitcmp0_b64",
    "s_bitcmp1_b64", "s_setvskip",
};

static const char *const sopp_names[128] = {
    [0] = "s_nop", "s_endpgm", "s_branch", [4] = "s_cbranch_scc0", "s_cbranch_scc1",
    "s_cbranch_vccz", "s_cbranch_vccnz", "s_cbranch_execz", "s_cbranch_execnz", "s_barrier",
    "s_setkill", "s_waitcnt", "s_sethalt", "s_sleep", "s_setprio", "s_sendmsg",
    "s_sendmsghalt", "s_trap", "s_icache_inv", "s_incperflevel", "s_decperflevel",
    "s_ttracedata", "s_cbranch_cdbgsys", "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user",
    "s_cbranch_cdbgsys_and_user",
};

static const char *const smrd_names[32] = {
    [0] = "s_load_dword", "s_load_dwordx2", "s_load_dwordx4", "s_load_dwordx8",
    "s_load_dwordx16", [8] = "s_buffer_load_dword", "s_buffer_load_dwordx2",
    "s_buffer_load_dwordx4", "s_buffer_load_dwordx8", "s_buffer_load_dwordx16",
    [30] = "s_memtime", "s_dcache_inv",
};

static const char *const vop2_names[64] = {
    [0] = "v_cndmask_b32", "v_readlane_b32", "v_writelane_b32", "v_add_f32", "v_sub_f32",
    "v_subrev_f32", "v_mac_legacy_f32", "v_mul_legacy_f32", "v_mul_f32", "v_mul_i32_i24",
    "v_mul_hi_i32_i24", "v_mul_u32_u24", "v_mul_hi_u32_u24", "v_min_legacy_f32",
    "v_max_legacy_f32", "v_min_f32", "v_max_f32", "v_min_i32", "v_max_i32", "v_min_u32",
    "v_max_u32", "v_lshr_b32", "v_lshrrev_b32", "v_ashr_i32", "v_ashrrev_i32", "v_lshl_b32",
    "v_lshlrev_b32", "v_and_b32", "v_or_b32", "v_xor_b32", "v_bfm_b32", "v_mac_f32",
    "v_madmk_f32", "v_madak_f32", "v_bcnt_u32_b32", "v_mbcnt_lo_u32_b32",
    "v_mbcnt_hi_u32_b32", "v_add_i32", "v_sub_i32", "v_subrev_i32", "v_addc_u32",
    "v_subb_u32", "v_subbrev_u32", "v_ldexp_f32", "v_cvt_pkaccum_u8_f32",
    "v_cvt_pknorm_i16_f32", "v_cvt_pknorm_u16_f32", "v_cvt_pkrtz_f16_f32",
    "v_cvt_pk_u16_u32", "v_cvt_pk_i16_i32",
};

static const char *const vop1_names[256] = {
    [0] = "v_nop", "v_mov_b32", "v_readfirstlane_b32", "v_cvt_i32_f64", "v_cvt_f64_i32",
    "v_cvt_f32_i32", "v_cvt_f32_u32", "v_cvt_u32_f32", "v_cvt_i32_f32", "v_mov_fed_b32",
    "v_cvt_f16_f32", "v_cvt_f32_f16", "v_cvt_rpi_i32_f32", "v_cvt_flr_i32_f32",
    "v_cvt_off_f32_i4", "v_cvt_f32_f64", "v_cvt_f64_f32", "v_cvt_f32_ubyte0",
    "v_cvt_f32_ubyte1", "v_cvt_f32_ubyte2", "v_cvt_f32_ubyte3", "v_cvt_u32_f64",
    "v_cvt_f64_u32",
    [32] = "v_fract_f32", "v_trunc_f32", "v_ceil_f32", "v_rndne_f32", "v_floor_f32",
    "v_exp_f32", "v_log_clamp_f32", "v_log_f32", "v_rcp_clamp_f32", "v_rcp_legacy_f32",
    "v_rcp_f32", "v_rcp_iflag_f32", "v_rsq_clamp_f32", "v_rsq_legacy_f32", "v_rsq_f32",
    "v_rcp_f64", "v_rcp_clamp_f64", "v_rsq_f64", "v_rsq_clamp_f64", "v_sqrt_f32",
    "v_sqrt_f64", "v_sin_f32", "v_cos_f32", "v_not_b32", "v_bfrev_b32", "v_ffbh_u32",
    "v_ffbl_b32", "v_ffbh_i32", "v_frexp_exp_i32_f64", "v_frexp_mant_f64", "v_fract_f64",
    "v_frexp_exp_i32_f32", "v_frexp_mant_f32", "v_clrexcp", "v_movreld_b32",
    "v_movrels_b32", "v_movrelsd_b32",
};

#define CMP_FP(p, t) p "_f_" t, p "_lt_" t, p "_eq_" t, p "_le_" t, p "_gt_" t, p "_lg_" t, \
    p "_ge_" t, p "_o_" t, p "_u_" t, p "_nge_" t, p "_nlg_" t, p "_ngt_" t, p "_nle_" t,   \
    p "_neq_" t, p "_nlt_" t, p "_tru_" t
#define CMP_INT(p, t) p "_f_" t, p "_lt_" t, p "_eq_" t, p "_le_" t, p "_gt_" t, p "_ne_" t, \
    p "_ge_" t, p "_t_" t

static const char *const vopc_names[256] = {
    [0x00] = CMP_FP("v_cmp", "f32"),   [0x10] = CMP_FP("v_cmpx", "f32"),
    [0x20] = CMP_FP("v_cmp", "f64"),   [0x30] = CMP_FP("v_cmpx", "f64"),
    [0x40] = CMP_FP("v_cmps", "f32"),  [0x50] = CMP_FP("v_cmpsx", "f32"),
    [0x60] = CMP_FP("v_cmps", "f64"),  [0x70] = CMP_FP("v_cmpsx", "f64"),
    [0x80] = CMP_INT("v_cmp", "i32"),  [0x88] = "v_cmp_class_f32",
    [0x90] = CMP_INT("v_cmpx", "i32"), [0x98] = "v_cmpx_class_f32",
    [0xa0] = CMP_INT("v_cmp", "i64"),  [0xa8] = "v_cmp_class_f64",
    [0xb0] = CMP_INT("v_cmpx", "i64"), [0xb8] = "v_cmpx_class_f64",
    [0xc0] = CMP_INT("v_cmp", "u32"),  [0xd0] = CMP_INT("v_cmpx", "u32"),
    [0xe0] = CMP_INT("v_cmp", "u64"),  [0xf0] = CMP_INT("v_cmpx", "u64"),
};

/* Opcodes that exist only in the VOP3 encoding (320..). */
static const char *const vop3_only_names[64] = {
    [0] = "v_mad_legacy_f32", "v_mad_f32", "v_mad_i32_i24", "v_mad_u32_u24", "v_cubeid_f32",
    "v_cubesc_f32", "v_cubetc_f32", "v_cubema_f32", "v_bfe_u32", "v_bfe_i32", "v_bfi_b32",
    "v_fma_f32", "v_fma_f64", "v_lerp_u8", "v_alignbit_b32", "v_alignbyte_b32",
    "v_mullit_f32", "v_min3_f32", "v_min3_i32", "v_min3_u32", "v_max3_f32", "v_max3_i32",
    "v_max3_u32", "v_med3_f32", "v_med3_i32", "v_med3_u32", "v_sad_u8", "v_sad_hi_u8",
    "v_sad_u16", "v_sad_u32", "v_cvt_pk_u8_f32", "v_div_fixup_f32", "v_div_fixup_f64",
    "v_lshl_b64", "v_lshr_b64", "v_ashr_i64", "v_add_f64", "v_mul_f64", "v_min_f64",
    "v_max_f64", "v_ldexp_f64", "v_mul_lo_u32", "v_mul_hi_u32", "v_mul_lo_i32",
    "v_mul_hi_i32", "v_div_scale_f32", "v_div_scale_f64", "v_div_fmas_f32",
    "v_div_fmas_f64", "v_msad_u8", "v_qsad_pk_u16_u8", "v_mqsad_pk_u16_u8",
    "v_trig_preop_f64",
};

static const char *const vintrp_names[4] = {
    "v_interp_p1_f32", "v_interp_p2_f32", "v_interp_mov_f32",
};

static const char *const ds_names[256] = {
    [0] = "ds_add_u32", "ds_sub_u32", "ds_rsub_u32", "ds_inc_u32", "ds_dec_u32", "ds_min_i32",
    "ds_max_i32", "ds_min_u32", "ds_max_u32", "ds_and_b32", "ds_or_b32", "ds_xor_b32",
    "ds_mskor_b32", "ds_write_b32", "ds_write2_b32", "ds_write2st64_b32", "ds_cmpst_b32",
    "ds_cmpst_f32", "ds_min_f32", "ds_max_f32",
    [25] = "ds_gws_init", "ds_gws_sema_v", "ds_gws_sema_br", "ds_gws_sema_p",
    "ds_gws_barrier", "ds_write_b8", "ds_write_b16", "ds_add_rtn_u32", "ds_sub_rtn_u32",
    "ds_rsub_rtn_u32", "ds_inc_rtn_u32", "ds_dec_rtn_u32", "ds_min_rtn_i32",
    "ds_max_rtn_i32", "ds_min_rtn_u32", "ds_max_rtn_u32", "ds_and_rtn_b32", "ds_or_rtn_b32",
    "ds_xor_rtn_b32", "ds_mskor_rtn_b32", "ds_wrxchg_rtn_b32", "ds_wrxchg2_rtn_b32",
    "ds_wrxchg2st64_rtn_b32", "ds_cmpst_rtn_b32", "ds_cmpst_rtn_f32", "ds_min_rtn_f32",
    "ds_max_rtn_f32", [53] = "ds_swizzle_b32", "ds_read_b32", "ds_read2_b32",
    "ds_read2st64_b32", "ds_read_i8", "ds_read_u8", "ds_read_i16", "ds_read_u16",
    "ds_consume", "ds_append", "ds_ordered_count",
    "ds_add_u64", "ds_sub_u64", "ds_rsub_u64", "ds_inc_u64", "ds_dec_u64", "ds_min_i64",
    "ds_max_i64", "ds_min_u64", "ds_max_u64", "ds_and_b64", "ds_or_b64", "ds_xor_b64",
    "ds_mskor_b64", "ds_write_b64", "ds_write2_b64", "ds_write2st64_b64", "ds_cmpst_b64",
    "ds_cmpst_f64", "ds_min_f64", "ds_max_f64",
    [96] = "ds_add_rtn_u64", "ds_sub_rtn_u64", "ds_rsub_rtn_u64", "ds_inc_rtn_u64",
    "ds_dec_rtn_u64", "ds_min_rtn_i64", "ds_max_rtn_i64", "ds_min_rtn_u64", "ds_max_rtn_u64",
    "ds_and_rtn_b64", "ds_or_rtn_b64", "ds_xor_rtn_b64", "ds_mskor_rtn_b64",
    "ds_wrxchg_rtn_b64", "ds_wrxchg2_rtn_b64", "ds_wrxchg2st64_rtn_b64", "ds_cmpst_rtn_b64",
    "ds_cmpst_rtn_f64", "ds_min_rtn_f64", "ds_max_rtn_f64",
    [118] = "ds_read_b64", "ds_read2_b64", "ds_read2st64_b64",
    [128] = "ds_add_src2_u32", "ds_sub_src2_u32", "ds_rsub_src2_u32", "ds_inc_src2_u32",
    "ds_dec_src2_u32", "ds_min_src2_i32", "ds_max_src2_i32", "ds_min_src2_u32",
    "ds_max_src2_u32", "ds_and_src2_b32", "ds_or_src2_b32", "ds_xor_src2_b32",
    [141] = "ds_write_src2_b32", [146] = "ds_min_src2_f32", "ds_max_src2_f32",
    [192] = "ds_add_src2_u64", "ds_sub_src2_u64", "ds_rsub_src2_u64", "ds_inc_src2_u64",
    "ds_dec_src2_u64", "ds_min_src2_i64", "ds_max_src2_i64", "ds_min_src2_u64",
    "ds_max_src2_u64", "ds_and_src2_b64", "ds_or_src2_b64", "ds_xor_src2_b64",
    [205] = "ds_write_src2_b64", [210] = "ds_min_src2_f64", "ds_max_src2_f64",
};

#define BUF_ATOMICS(sfx) "buffer_atomic_swap" sfx, "buffer_atomic_cmpswap" sfx,               \
    "buffer_atomic_add" sfx, "buffer_atomic_sub" sfx, "buffer_atomic_rsub" sfx,                 \
    "buffer_atomic_smin" sfx, "buffer_atomic_umin" sfx, "buffer_atomic_smax" sfx,               \
    "buffer_atomic_umax" sfx, "buffer_atomic_and" sfx, "buffer_atomic_or" sfx,                  \
    "buffer_atomic_xor" sfx, "buffer_atomic_inc" sfx, "buffer_atomic_dec" sfx,                  \
    "buffer_atomic_fcmpswap" sfx, "buffer_atomic_fmin" sfx, "buffer_atomic_fmax" sfx

static const char *const mubuf_names[128] = {
    [0] = "buffer_load_format_x", "buffer_load_format_xy", "buffer_load_format_xyz",
    "buffer_load_format_xyzw", "buffer_store_format_x", "buffer_store_format_xy",
    "buffer_store_format_xyz", "buffer_store_format_xyzw", "buffer_load_ubyte",
    "buffer_load_sbyte", "buffer_load_ushort", "buffer_load_sshort", "buffer_load_dword",
    "buffer_load_dwordx2", "buffer_load_dwordx4", "buffer_load_dwordx3",
    [24] = "buffer_store_byte", [26] = "buffer_store_short", [28] = "buffer_store_dword",
    "buffer_store_dwordx2", "buffer_store_dwordx4", "buffer_store_dwordx3",
    [48] = BUF_ATOMICS(""), [80] = BUF_ATOMICS("_x2"),
    [112] = "buffer_wbinvl1_sc", "buffer_wbinvl1",
};

static const char *const mtbuf_names[8] = {
    "tbuffer_load_format_x", "tbuffer_load_format_xy", "tbuffer_load_format_xyz",
    "tbuffer_load_format_xyzw", "tbuffer_store_format_x", "tbuffer_store_format_xy",
    "tbuffer_store_format_xyz", "tbuffer_store_format_xyzw",
};

#define SAMPLE16(p, s) p s, p "_cl" s, p "_d" s, p "_d_cl" s, p "_l" s, p "_b" s, p "_b_cl" s, \
    p "_lz" s, p "_c" s, p "_c_cl" s, p "_c_d" s, p "_c_d_cl" s, p "_c_l" s, p "_c_b" s,    \
    p "_c_b_cl" s, p "_c_lz" s
#define GATHER16(s) "image_gather4" s, "image_gather4_cl" s, NULL, NULL, "image_gather4_l" s,  \
    "image_gather4_b" s, "image_gather4_b_cl" s, "image_gather4_lz" s, "image_gather4_c" s,  \
    "image_gather4_c_cl" s, NULL, NULL, "image_gather4_c_l" s, "image_gather4_c_b" s,        \
    "image_gather4_c_b_cl" s, "image_gather4_c_lz" s

static const char *const mimg_names[128] = {
    [0] = "image_load", "image_load_mip", "image_load_pck", "image_load_pck_sgn",
    "image_load_mip_pck", "image_load_mip_pck_sgn",
    [8] = "image_store", "image_store_mip", "image_store_pck", "image_store_mip_pck",
    [14] = "image_get_resinfo", "image_atomic_swap", "image_atomic_cmpswap",
    "image_atomic_add", "image_atomic_sub", "image_atomic_rsub", "image_atomic_smin",
    "image_atomic_umin", "image_atomic_smax", "image_atomic_umax", "image_atomic_and",
    "image_atomic_or", "image_atomic_xor", "image_atomic_inc", "image_atomic_dec",
    "image_atomic_fcmpswap", "image_atomic_fmin", "image_atomic_fmax",
    [32] = SAMPLE16("image_sample", ""), [48] = SAMPLE16("image_sample", "_o"),
    [64] = GATHER16(""), [80] = GATHER16("_o"),
    [96] = "image_get_lod",
    [104] = "image_sample_cd", "image_sample_cd_cl", "image_sample_c_cd",
    "image_sample_c_cd_cl", "image_sample_cd_o", "image_sample_cd_cl_o",
    "image_sample_c_cd_o", "image_sample_c_cd_cl_o",
};

const char *cgm_si_opcode_name(enum cgm_si_format fmt, unsigned op)
{
    switch (fmt) {
    case CGM_SI_FMT_SOP2:   return op < 128 ? sop2_names[op] : NULL;
    case CGM_SI_FMT_SOPK:   return op < 32 ? sopk_names[op] : NULL;
    case CGM_SI_FMT_SOP1:   return op < 256 ? sop1_names[op] : NULL;
    case CGM_SI_FMT_SOPC:   return op < 128 ? sopc_names[op] : NULL;
    case CGM_SI_FMT_SOPP:   return op < 128 ? sopp_names[op] : NULL;
    case CGM_SI_FMT_SMRD:   return op < 32 ? smrd_names[op] : NULL;
    case CGM_SI_FMT_VOP2:   return op < 64 ? vop2_names[op] : NULL;
    case CGM_SI_FMT_VOP1:   return op < 256 ? vop1_names[op] : NULL;
    case CGM_SI_FMT_VOPC:   return op < 256 ? vopc_names[op] : NULL;
    case CGM_SI_FMT_VINTRP: return op < 4 ? vintrp_names[op] : NULL;
    case CGM_SI_FMT_DS:     return op < 256 ? ds_names[op] : NULL;
    case CGM_SI_FMT_MUBUF:  return op < 128 ? mubuf_names[op] : NULL;
    case CGM_SI_FMT_MTBUF:  return op < 8 ? mtbuf_names[op] : NULL;
    case CGM_SI_FMT_MIMG:   return op < 128 ? mimg_names[op] : NULL;
    case CGM_SI_FMT_EXP:    return op == 0 ? "exp" : NULL;
    case CGM_SI_FMT_VOP3:
        if (op < CGM_SI_VOP3_FROM_VOP2)
            return vopc_names[op];
        if (op < CGM_SI_VOP3_ONLY_FIRST)
            return vop2_names[op - CGM_SI_VOP3_FROM_VOP2];
        if (op < CGM_SI_VOP3_FROM_VOP1)
            return vop3_only_names[op - CGM_SI_VOP3_ONLY_FIRST];
        return op < 512 ? vop1_names[op - CGM_SI_VOP3_FROM_VOP1] : NULL;
    default:
        return NULL;
    }
}

/* ---- operand widths ------------------------------------------------------ */

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static int starts_with(const char *s, const char *head)
{
    return strncmp(s, head, strlen(head)) == 0;
}

/* Width of a type suffix such as "f64" or "u32" starting at t. */
static uint8_t type_width(const char *t)
{
    return (strstr(t, "64") == t + 1) ? 2 : 1;
}

static struct cgm_si_widths make(uint8_t d, uint8_t a, uint8_t b, uint8_t c)
{
    struct cgm_si_widths w = { d, { a, b, c } };
    return w;
}

static struct cgm_si_widths scalar_widths(const struct cgm_si_inst *in, const char *name)
{
    int wide = ends_with(name, "64");
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2:
        if (starts_with(name, "s_lshl") || starts_with(name, "s_lshr") ||
            starts_with(name, "s_ashr") || starts_with(name, "s_bfe"))
            return wide ? make(2, 2, 1, 0) : make(1, 1, 1, 0);
        if (strcmp(name, "s_bfm_b64") == 0)
            return make(2, 1, 1, 0);
        if (strcmp(name, "s_cbranch_g_fork") == 0)
            return make(0, 2, 2, 0);
        return wide ? make(2, 2, 2, 0) : make(1, 1, 1, 0);
    case CGM_SI_FMT_SOP1:
        if (ends_with(name, "_i32_b64") || ends_with(name, "_i32_i64"))
            return make(1, 2, 0, 0);
        if (starts_with(name, "s_bitset"))
            return wide ? make(2, 1, 0, 0) : make(1, 1, 0, 0);
        return wide ? make(2, 2, 0, 0) : make(1, 1, 0, 0);
    case CGM_SI_FMT_SOPC:
        if (starts_with(name, "s_bitcmp"))
            return wide ? make(0, 2, 1, 0) : make(0, 1, 1, 0);
        return make(0, 1, 1, 0);
    case CGM_SI_FMT_SMRD: {
        static const uint8_t dwords[] = { 1, 2, 4, 8, 16 };
        if (in->op == 30)            /* s_memtime */
            return make(2, 0, 0, 0);
        if ((in->op & 7) > 4)        /* s_dcache_inv */
            return make(0, 0, 0, 0);
        return make(dwords[in->op & 7], 0, 0, 0);
    }
    default:
        return make(1, 1, 1, 0);
    }
}

/* VOP widths follow the type suffix, with the exceptions the ISA lists:
 * conversions (dst type first), shifts and ldexp (32-bit amount), compares
 * (a 64-bit lane mask), class tests (32-bit class mask). */
static struct cgm_si_widths vector_widths(const char *name, int is_cmp)
{
    if (is_cmp) {
        const char *t = name + strlen(name) - 3;
        uint8_t w = type_width(t);
        return make(2, w, strstr(name, "_class_") ? 1 : w, 0);
    }
    if (starts_with(name, "v_cvt_") && !starts_with(name, "v_cvt_pk")) {
        const char *to = name + 6;
        const char *from = strchr(to, '_');
        return make(type_width(to), from ? type_width(from + 1) : 1, 1, 1);
    }
    if (strcmp(name, "v_frexp_exp_i32_f64") == 0)
        return make(1, 2, 0, 0);
    if (strcmp(name, "v_mqsad_pk_u16_u8") == 0 || strcmp(name, "v_qsad_pk_u16_u8") == 0)
        return make(2, 2, 1, 2);
    if (ends_with(name, "64")) {
        if (starts_with(name, "v_lshl") || starts_with(name, "v_lshr") ||
            starts_with(name, "v_ashr") || strcmp(name, "v_ldexp_f64") == 0 ||
            strcmp(name, "v_trig_preop_f64") == 0)
            return make(2, 2, 1, 0);
        return make(2, 2, 2, 2);
    }
    return make(1, 1, 1, 1);
}

struct cgm_si_widths cgm_si_inst_widths(const struct cgm_si_inst *in)
{
    const char *name = cgm_si_opcode_name((enum cgm_si_format)in->fmt, in->op);
    if (!name)
        return make(0, 0, 0, 0);
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2: case CGM_SI_FMT_SOP1: case CGM_SI_FMT_SOPC: case CGM_SI_FMT_SMRD:
        return scalar_widths(in, name);
    case CGM_SI_FMT_VOPC:
        return vector_widths(name, 1);
    case CGM_SI_FMT_VOP3:
        return vector_widths(name, in->op < CGM_SI_VOP3_FROM_VOP2);
    case CGM_SI_FMT_VOP1: case CGM_SI_FMT_VOP2:
        return vector_widths(name, 0);
    default:
        return make(1, 1, 1, 1);
    }
}
