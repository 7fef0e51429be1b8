s_mov_b32 s1, 0
s_mov_b32 s1, 64
s_mov_b32 s1, -16
s_mov_b32 s1, -1
s_mov_b32 s1, 0x12345678
s_mov_b32 s1, 0xffff8000
s_mov_b32 s1, 0.5
s_mov_b32 s1, -4.0
s_mov_b32 s1, vcc_lo
s_mov_b32 s1, vcc_hi
s_mov_b32 s1, exec_lo
s_mov_b32 s1, exec_hi
s_mov_b32 s1, m0
s_mov_b32 m0, s1
s_mov_b32 s1, tba_lo
s_mov_b32 s1, tma_hi
s_mov_b32 s1, ttmp0
s_mov_b32 ttmp11, s103
s_mov_b32 s1, scc
s_mov_b32 s1, vccz
s_mov_b32 s1, execz
s_mov_b64 vcc, exec
s_mov_b64 exec, s[2:3]
s_mov_b64 s[2:3], tba
s_mov_b64 tma, s[2:3]
s_mov_b64 ttmp[2:3], s[4:5]
s_mov_b64 s[2:3], 0x12345678
s_mov_b64 s[2:3], 1.0
s_add_u32 s1, s2, 0xdeadbeef
s_add_u32 s1, 0xdeadbeef, s2
s_and_b64 exec, exec, vcc
s_cselect_b64 s[2:3], -1, 0
s_lshl_b64 s[2:3], s[4:5], 3
s_movk_i32 s1, 0xffff
s_movk_i32 s1, 0x0
s_addk_i32 s1, 0x8000
s_cbranch_i_fork s[2:3], -4
s_getreg_b32 s1, hwreg(HW_REG_STATUS)
s_getreg_b32 s1, hwreg(HW_REG_TRAPSTS, 4, 8)
s_getreg_b32 s1, hwreg(HW_REG_HW_ID)
s_getreg_b32 s1, hwreg(HW_REG_GPR_ALLOC)
s_getreg_b32 s1, hwreg(HW_REG_LDS_ALLOC)
s_getreg_b32 s1, hwreg(HW_REG_IB_STS)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 1)
s_getreg_b32 s1, hwreg(0)
s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s1
s_setreg_imm32_b32 hwreg(HW_REG_MODE), 0xffffffff
s_nop 0
s_nop 7
s_branch -1
s_branch 0
s_branch 32767
s_branch -32768
s_cbranch_scc0 -2
s_cbranch_execz 10
s_waitcnt vmcnt(0)
s_waitcnt expcnt(0)
s_waitcnt lgkmcnt(0)
s_waitcnt vmcnt(15) expcnt(7) lgkmcnt(15)
s_waitcnt vmcnt(1) lgkmcnt(2)
s_waitcnt 0xffff
s_sendmsg sendmsg(MSG_INTERRUPT)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 0)
s_sendmsg sendmsg(MSG_GS, GS_OP_CUT, 1)
s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)
s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_ECC_ERR_INTERRUPT)
s_sendmsg sendmsg(15)
s_sendmsghalt sendmsg(MSG_INTERRUPT)
s_setprio 3
s_sleep 2
s_trap 2
s_endpgm
s_load_dword s1, s[2:3], 0xff
s_load_dwordx2 s[2:3], s[4:5], 0x10
s_load_dwordx4 s[4:7], s[96:97], s1
s_load_dword vcc_lo, s[2:3], 0x1
s_buffer_load_dword s1, s[4:7], m0
s_buffer_load_dwordx8 s[8:15], s[100:103], 0x0
s_memtime s[100:101]
v_mov_b32 v1, s1
v_mov_b32 v255, v0
v_mov_b32 v1, 0x12345678
v_mov_b32 v1, -1
v_mov_b32 v1, 1.0
v_mov_b32 v1, vcc_lo
v_mov_b32 v1, exec_hi
v_mov_b32 v1, m0
v_mov_b32 v1, scc
v_mov_b32 v1, lds_direct
v_mov_b32_e64 v1, s1
v_mov_b32_e64 v1, 0.5
v_add_f32 v1, s1, v2
v_add_f32 v1, 0x41200000, v2
v_add_f32 v1, 2.0, v2
v_add_f32 v1, -2.0, v2
v_add_f32_e64 v1, s1, s1
v_add_f32_e64 v1, -v2, v3
v_add_f32_e64 v1, |v2|, v3
v_add_f32_e64 v1, -|v2|, -|v3|
v_add_f32_e64 v1, v2, v3 clamp
v_add_f32_e64 v1, v2, v3 mul:2
v_add_f32_e64 v1, v2, v3 mul:4
v_add_f32_e64 v1, v2, v3 div:2
v_add_f32_e64 v1, v2, v3 clamp div:2
v_add_f32_e64 v1, 0.5, -4.0
v_mul_f32_e64 v255, -s103, |v0|
v_add_f64 v[2:3], v[4:5], 1.0
v_add_f64 v[2:3], s[4:5], -v[6:7]
v_add_f64 v[2:3], |v[4:5]|, v[6:7] clamp mul:2
v_add_f64 v[2:3], vcc, v[4:5]
v_mul_f64 v[254:255], v[0:1], -0.5
v_fma_f32 v1, v2, -v3, |v4|
v_fma_f32 v1, s2, v3, s2
v_fma_f64 v[2:3], v[4:5], v[6:7], 1.0 div:2
v_mad_f32 v1, -v2, -v3, -v4 clamp mul:4
v_bfe_u32 v1, v2, 8, 5
v_bfe_u32 v1, s2, 0, 16
v_bfi_b32 v1, v2, v3, -1
v_mul_lo_u32 v1, v2, s3
v_mul_hi_u32 v1, 64, v3
v_lshl_b64 v[2:3], v[4:5], 1
v_lshr_b64 v[2:3], s[4:5], v6
v_ashr_i64 v[2:3], 0, v6
v_ldexp_f64 v[2:3], v[4:5], -1
v_div_scale_f32 v1, s[2:3], v2, v3, v4
v_div_scale_f64 v[2:3], s[10:11], v[4:5], v[6:7], v[4:5]
v_div_fmas_f32 v1, v2, v3, v4 clamp
v_div_fixup_f32 v1, -v2, v3, |v4|
v_cndmask_b32 v1, 0, v3, vcc
v_cndmask_b32_e64 v1, 0, -1, s[2:3]
v_cndmask_b32_e64 v1, v2, v3, vcc
v_cndmask_b32_e64 v1, s2, v3, exec
v_add_i32 v1, vcc, s2, v3
v_add_i32 v1, vcc, 0x10, v3
v_add_i32 v1, vcc, 0x12345, v3
v_add_i32_e64 v1, s[4:5], v2, v3
v_add_i32_e64 v1, s[4:5], s2, v3
v_addc_u32 v1, vcc, 0, v3, vcc
v_addc_u32_e64 v1, s[2:3], v2, 0, vcc
v_sub_i32_e64 v1, vcc, v2, v3
v_subrev_i32_e64 v1, s[100:101], v2, v3
v_madmk_f32 v1, v2, 0x41200000, v3
v_madak_f32 v1, v2, v3, 0x41200000
v_madmk_f32 v1, 1.0, 0x3f800000, v3
v_mac_f32 v1, -1.0, v3
v_readlane_b32 s1, v2, s3
v_readlane_b32 s1, v2, m0
v_readlane_b32 s1, v2, 5
v_writelane_b32 v1, s2, 3
v_writelane_b32 v1, 0x11, s3
v_writelane_b32 v1, m0, s3
v_readfirstlane_b32 s1, v2
v_readfirstlane_b32 vcc_lo, v255
v_readfirstlane_b32 m0, v1
v_cmp_lt_f32 vcc, 1.0, v2
v_cmp_lt_f32 vcc, s1, v2
v_cmp_lt_f32 vcc, 0x41200000, v2
v_cmp_lt_f32_e64 s[2:3], -v1, |v2|
v_cmp_lt_f32_e64 vcc, v1, s2
v_cmp_lt_f32_e64 s[2:3], v1, v2 clamp
v_cmp_eq_u32_e64 s[2:3], 0, v3
v_cmp_eq_u32_e64 exec, v1, v2
v_cmpx_eq_u32_e64 s[2:3], v1, 7
v_cmp_class_f32 vcc, v1, 3
v_cmp_class_f32_e64 s[2:3], -v1, v2
v_cmp_eq_f64 vcc, 0.5, v[2:3]
v_cmp_eq_f64_e64 s[2:3], -v[2:3], |v[4:5]|
v_cmp_lt_u64_e64 s[2:3], v[4:5], s[6:7]
v_cvt_f32_f64 v1, -v[2:3]
v_cvt_f32_f64_e64 v1, -v[2:3] clamp
v_cvt_f64_f32 v[2:3], s1
v_cvt_f64_i32_e64 v[2:3], v1 mul:2
v_rcp_f64 v[2:3], 1.0
v_rcp_f64 v[2:3], s[4:5]
v_rcp_f64_e64 v[2:3], -|v[4:5]|
v_sqrt_f32_e64 v1, |v2| div:2
v_nop_e64
v_clrexcp_e64
v_frexp_exp_i32_f64 v1, s[2:3]
v_movrels_b32 v1, v2
v_interp_p1_f32 v1, v2, attr31.w
v_interp_p2_f32 v255, v0, attr7.y
v_interp_mov_f32 v1, p20, attr1.z
v_interp_mov_f32 v1, p0, attr2.y
ds_write_b32 v1, v2 offset:65535
ds_write_b32 v1, v2 offset:256
ds_write_b32 v255, v254 gds
ds_read_b32 v1, v2 offset:4 gds
ds_read_b64 v[254:255], v0 offset:8
ds_read2_b32 v[1:2], v3 offset1:255
ds_read2_b32 v[1:2], v3 offset0:255
ds_read2st64_b64 v[1:4], v3 offset0:3 offset1:4
ds_write2_b32 v1, v2, v3 offset0:4 offset1:8
ds_write2_b64 v1, v[2:3], v[4:5] offset0:1 offset1:2 gds
ds_cmpst_rtn_b32 v1, v2, v3, v4 offset:100
ds_swizzle_b32 v1, v2 offset:0xffff
ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,0,1,2,3)
ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,"01pip")
ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,8,1)
ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)
ds_swizzle_b32 v1, v2 offset:swizzle(REVERSE,8)
ds_gws_sema_v gds
ds_gws_sema_p gds
ds_gws_init v1 offset:4 gds
ds_gws_barrier v1 offset:4 gds
ds_append v1 gds
ds_ordered_count v1, v2 offset:4 gds
buffer_load_dword v1, off, s[4:7], 0
buffer_load_dword v1, off, s[4:7], -1 offset:4095
buffer_load_dword v1, off, s[4:7], m0
buffer_load_dword v1, off, s[4:7], 0.5
buffer_load_dword v1, off, s[96:99], s103 offset:1 glc slc
buffer_load_dword v1, off, s[4:7], s1 tfe
buffer_load_dword v[1:2], off, s[4:7], s1 tfe
buffer_load_dwordx4 v[1:5], off, s[4:7], s1 tfe
buffer_load_dword v1, v[2:3], s[4:7], 0 idxen offen
buffer_load_dword v1, v[2:3], s[4:7], 0 addr64
buffer_load_dword v1, v[2:3], s[4:7], 0 addr64 glc slc
buffer_load_dword v1, v[2:3], s[4:7], 0 addr64 slc
buffer_load_ubyte v1, v2, s[4:7], 0 offen offset:4095 glc
buffer_store_dword v1, off, s[4:7], 0 offset:8 glc
buffer_store_dwordx4 v[1:4], v[2:3], s[4:7], 0 addr64 slc
buffer_store_byte v255, v[254:255], s[100:103], s0 addr64
buffer_load_dword off, s[4:7], s1 offset:16 lds
buffer_load_dword off, s[4:7], s1 lds
buffer_load_ubyte off, s[4:7], s1 offset:4 lds
buffer_load_format_x off, s[4:7], s1 lds
buffer_atomic_add v1, v[2:3], s[4:7], 0 addr64 glc
buffer_atomic_cmpswap v[1:2], v[2:3], s[4:7], 0 addr64 glc
buffer_atomic_cmpswap_x2 v[1:4], v[2:3], s[4:7], 0 addr64 glc slc
buffer_atomic_add v1, off, s[4:7], 0 slc
buffer_wbinvl1
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_UNORM]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_UNORM]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_INVALID,BUF_NUM_FORMAT_UNORM]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SNORM]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_USCALED]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_11_11_10,BUF_NUM_FORMAT_SSCALED]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_10_10_10_2,BUF_NUM_FORMAT_UINT]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_2_10_10_10,BUF_NUM_FORMAT_SINT]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_FLOAT]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16_16_16,BUF_NUM_FORMAT_FLOAT]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT]
tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_RESERVED_15,BUF_NUM_FORMAT_FLOAT]
tbuffer_load_format_x v1, off, s[4:7], 0 format:78
tbuffer_load_format_x v1, off, s[4:7], 0 format:127
tbuffer_load_format_x v1, off, s[4:7], 0 format:1
tbuffer_load_format_x v1, off, s[4:7], 0
tbuffer_load_format_xyzw v[1:4], v2, s[4:7], s1 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen offset:4 glc slc
tbuffer_load_format_xyzw v[1:4], v2, s[4:7], s1 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] idxen
tbuffer_store_format_x v1, v[2:3], s[4:7], s1 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] addr64
tbuffer_store_format_xy v[1:2], v[2:3], s[4:7], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] idxen offen tfe
image_load v[0:3], v[4:7], s[8:15] dmask:0xf unorm glc slc
image_load v[0:1], v[4:7], s[8:15] dmask:0x5 unorm da
image_load v0, v[4:7], s[8:15] dmask:0x8
image_load v[0:2], v[4:7], s[8:15] dmask:0x7 unorm r128
image_load v[0:4], v[4:7], s[8:15] dmask:0xf unorm tfe
image_load v[0:1], v[4:7], s[8:15] dmask:0x1 unorm tfe lwe
image_store v[0:3], v[4:7], s[12:19] dmask:0xf unorm glc
image_sample v[0:3], v[4:7], s[8:15], s[16:19] dmask:0xf da
image_sample v1, v[4:7], s[8:15], s[96:99] dmask:0x2 unorm
image_sample_c_lz v[0:1], v[4:7], s[8:15], s[16:19] dmask:0x3 glc slc
image_gather4 v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_cl v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x2
image_gather4_l v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x4
image_gather4_b v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x8
image_gather4_b_cl v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_lz v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_cl v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_l v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_b v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_b_cl v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_lz v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_cl_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_l_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_b_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_b_cl_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_lz_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_cl_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_l_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_b_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_b_cl_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_gather4_c_lz_o v[0:3], v[4:7], s[8:15], s[16:19] dmask:0x1
image_atomic_cmpswap v[0:1], v[4:7], s[8:15] dmask:0x3 unorm glc
image_atomic_add v0, v[4:7], s[8:15] dmask:0x1 unorm glc
exp mrt0 v1, v2, v3, v4 done vm
exp mrt7 v1, off, off, off
exp mrtz off, v2, off, v4 done
exp null off, off, off, off
exp pos0 v1, v2, v3, v4 done
exp pos3 v1, v2, v3, v4
exp param0 v1, v2, v3, v4
exp param31 v1, v2, v3, v4 vm
exp mrt1 v1, v1, v3, v3 compr
exp mrt1 v1, v1, v3, v3 done compr vm
ds_wrxchg2_rtn_b32 v[2:3], v1, v2, v3 offset0:1 offset1:2
ds_wrxchg2_rtn_b64 v[2:5], v1, v[2:3], v[4:5] offset1:3
ds_wrxchg2st64_rtn_b32 v[2:3], v1, v2, v3 offset0:1 gds
ds_wrxchg2st64_rtn_b64 v[2:5], v1, v[2:3], v[4:5]
