/* AVX, AVX2, FMA and F16C against the host processor (x86_isa.h): the VEX
 * forms of the SSE operations over 256 bits (three operands, the upper
 * half of every written register cleared by the 128-bit forms),
 * broadcasts, permutes, 128-bit inserts and extracts, variable shifts,
 * masked moves, gathers (indices small enough to stay in the memory
 * operand, random masks), fused multiply-add in every order and sign, and
 * half-precision conversions in every rounding mode. ymm1 is the
 * destination, ymm2 the first source, ymm3 the second (and a gather's
 * mask), ymm0 a blend mask, [rbx] the memory operand; the whole of
 * ymm0-ymm3, MXCSR and RFLAGS are compared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tests/unit/x86_isa.h"
#include "tracegen/x86/fma_host.h"

#define C X86_ISA_CASE

static const struct x86_isa_case cases[] = {
    C("vaddps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x58, 0xcb),
    C("vaddpd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xed, 0x58, 0xcb),
    C("vaddss xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x58, 0xcb),
    C("vaddsd xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x58, 0xcb),
    C("vsubps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x5c, 0xcb),
    C("vsubsd xmm1, xmm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x5c, 0x0b),
    C("vmulpd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xed, 0x59, 0xcb),
    C("vmulss xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x59, 0xcb),
    C("vdivps ymm1, ymm2, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x5e, 0x0b),
    C("vdivsd xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x5e, 0xcb),
    C("vminps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x5d, 0xcb),
    C("vmaxpd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xed, 0x5f, 0xcb),
    C("vminsd xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x5d, 0xcb),
    C("vsqrtps ymm1, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x51, 0xcb),
    C("vsqrtpd ymm1, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfd, 0x51, 0xcb),
    C("vsqrtsd xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x51, 0xcb),
    C("vrcpps ymm1, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x53, 0xcb),
    C("vrsqrtps ymm1, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x52, 0xcb),
    C("vrcpss xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x53, 0xcb),
    C("vandps ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x54, 0xcb),
    C("vandnpd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xed, 0x55, 0xcb),
    C("vorps ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x56, 0xcb),
    C("vxorpd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xed, 0x57, 0xcb),
    C("vaddsubps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xef, 0xd0, 0xcb),
    C("vhaddpd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xed, 0x7c, 0xcb),
    C("vhsubps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xef, 0x7d, 0xcb),
    C("vcmpps ymm1, ymm2, ymm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 31, 0xc5, 0xec, 0xc2, 0xcb, 0x00),
    C("vcmppd ymm1, ymm2, ymm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 31, 0xc5, 0xed, 0xc2, 0xcb, 0x00),
    C("vcmpss xmm1, xmm2, xmm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 31, 0xc5, 0xea, 0xc2, 0xcb, 0x00),
    C("vcmpsd xmm1, xmm2, xmm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 31, 0xc5, 0xeb, 0xc2, 0xcb, 0x00),
    C("vblendps ymm1, ymm2, ymm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 255, 0xc4, 0xe3, 0x6d, 0x0c, 0xcb, 0x00),
    C("vblendpd ymm1, ymm2, ymm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 15, 0xc4, 0xe3, 0x6d, 0x0d, 0xcb, 0x00),
    C("vblendvps ymm1, ymm2, ymm3, ymm0", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc4, 0xe3, 0x6d, 0x4a, 0xcb, 0x00),
    C("vblendvpd xmm1, xmm2, xmm3, xmm0", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc4, 0xe3, 0x69, 0x4b, 0xcb, 0x00),
    C("vdpps ymm1, ymm2, ymm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 255, 0xc4, 0xe3, 0x6d, 0x40, 0xcb, 0x00),
    C("vdppd xmm1, xmm2, xmm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 255, 0xc4, 0xe3, 0x69, 0x41, 0xcb, 0x00),
    C("vroundps ymm1, ymm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 15, 0xc4, 0xe3, 0x7d, 0x08, 0xcb, 0x00),
    C("vroundpd ymm1, ymm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 15, 0xc4, 0xe3, 0x7d, 0x09, 0xcb, 0x00),
    C("vroundsd xmm1, xmm2, xmm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 15, 0xc4, 0xe3, 0x69, 0x0b, 0xcb, 0x00),
    C("vshufps ymm1, ymm2, ymm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 255, 0xc5, 0xec, 0xc6, 0xcb, 0x00),
    C("vshufpd ymm1, ymm2, ymm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 15, 0xc5, 0xed, 0xc6, 0xcb, 0x00),
    C("vunpcklps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x14, 0xcb),
    C("vunpckhpd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xed, 0x15, 0xcb),
    C("vmovups ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x10, 0x0b),
    C("vmovups [rbx], ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x11, 0x1b),
    C("vmovaps ymm1, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x28, 0xcb),
    C("vmovdqu xmm1, xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0x6f, 0xcb),
    C("vmovss xmm1, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0x10, 0x0b),
    C("vmovss xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x10, 0xcb),
    C("vmovsd [rbx], xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfb, 0x11, 0x1b),
    C("vmovhps xmm1, xmm2, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xe8, 0x16, 0x0b),
    C("vmovlpd [rbx], xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xf9, 0x13, 0x1b),
    C("vmovhlps xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xe8, 0x12, 0xcb),
    C("vmovlhps xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xe8, 0x16, 0xcb),
    C("vmovddup ymm1, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xff, 0x12, 0xcb),
    C("vmovshdup ymm1, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfe, 0x16, 0xcb),
    C("vmovsldup ymm1, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfe, 0x12, 0xcb),
    C("vmovmskps eax, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x50, 0xc3),
    C("vmovmskpd eax, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfd, 0x50, 0xc3),
    C("vmovd xmm1, eax", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xf9, 0x6e, 0xc8),
    C("vmovq rax, xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe1, 0xf9, 0x7e, 0xd8),
    C("vmovq xmm1, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0x7e, 0x0b),
    C("vcvtdq2ps ymm1, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x5b, 0xcb),
    C("vcvtps2dq ymm1, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfd, 0x5b, 0xcb),
    C("vcvttps2dq ymm1, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfe, 0x5b, 0xcb),
    C("vcvtdq2pd ymm1, xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfe, 0xe6, 0xcb),
    C("vcvtps2pd ymm1, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x5a, 0xcb),
    C("vcvtpd2ps xmm1, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfd, 0x5a, 0xcb),
    C("vcvtpd2ps xmm1, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfd, 0x5a, 0x0b),
    C("vcvtpd2dq xmm1, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xff, 0xe6, 0xcb),
    C("vcvttpd2dq xmm1, ymm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfd, 0xe6, 0xcb),
    C("vcvtsd2ss xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x5a, 0xcb),
    C("vcvtss2sd xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x5a, 0xcb),
    C("vcvtsi2sd xmm1, xmm2, rax", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc4, 0xe1, 0xeb, 0x2a, 0xc8),
    C("vcvtsi2ss xmm1, xmm2, eax", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x2a, 0xc8),
    C("vcvttsd2si rax, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc4, 0xe1, 0xfb, 0x2c, 0xc3),
    C("vcvtss2si eax, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0x2d, 0xc3),
    C("vucomisd xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xf9, 0x2e, 0xd3),
    C("vcomiss xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xf8, 0x2f, 0xd3),
    C("vbroadcastss ymm1, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x7d, 0x18, 0x0b),
    C("vbroadcastsd ymm1, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x7d, 0x19, 0x0b),
    C("vbroadcastf128 ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x7d, 0x1a, 0x0b),
    C("vinsertf128 ymm1, ymm2, xmm3, imm", X86_ISA_INT, X86_ISA_AVX, 1, 0xc4, 0xe3, 0x6d, 0x18, 0xcb, 0x00),
    C("vextractf128 xmm1, ymm3, imm", X86_ISA_INT, X86_ISA_AVX, 1, 0xc4, 0xe3, 0x7d, 0x19, 0xd9, 0x00),
    C("vextractf128 [rbx], ymm3, imm", X86_ISA_INT, X86_ISA_AVX, 1, 0xc4, 0xe3, 0x7d, 0x19, 0x1b, 0x00),
    C("vperm2f128 ymm1, ymm2, ymm3, imm", X86_ISA_INT, X86_ISA_AVX, 255, 0xc4, 0xe3, 0x6d, 0x06, 0xcb, 0x00),
    C("vpermilps ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x6d, 0x0c, 0xcb),
    C("vpermilps ymm1, ymm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 255, 0xc4, 0xe3, 0x7d, 0x04, 0xcb, 0x00),
    C("vpermilpd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x6d, 0x0d, 0xcb),
    C("vpermilpd ymm1, ymm3, imm", X86_ISA_DOUBLE, X86_ISA_AVX, 15, 0xc4, 0xe3, 0x7d, 0x05, 0xcb, 0x00),
    C("vtestps ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x7d, 0x0e, 0xd3),
    C("vtestpd xmm2, xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x79, 0x0f, 0xd3),
    C("vptest ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x7d, 0x17, 0xd3),
    C("vmaskmovps ymm1, ymm2, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x6d, 0x2c, 0x0b),
    C("vmaskmovps [rbx], ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x6d, 0x2e, 0x1b),
    C("vmaskmovpd xmm1, xmm2, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x69, 0x2d, 0x0b),
    C("vzeroupper", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xf8, 0x77),
    C("vzeroall", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfc, 0x77),
    C("vpextrb eax, xmm3, imm", X86_ISA_INT, X86_ISA_AVX, 15, 0xc4, 0xe3, 0x79, 0x14, 0xd8, 0x00),
    C("vpinsrd xmm1, xmm2, eax, imm", X86_ISA_INT, X86_ISA_AVX, 3, 0xc4, 0xe3, 0x69, 0x22, 0xc8, 0x00),
    C("vinsertps xmm1, xmm2, xmm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 255, 0xc4, 0xe3, 0x69, 0x21, 0xcb, 0x00),
    C("vextractps eax, xmm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 3, 0xc4, 0xe3, 0x79, 0x17, 0xd8, 0x00),
    C("vpcmpistri xmm2, xmm3, imm", X86_ISA_STR8, X86_ISA_AVX, 126, 0xc4, 0xe3, 0x79, 0x63, 0xd3, 0x00),
    C("vlddqu ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xff, 0xf0, 0x0b),
    C("vstmxcsr [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xf8, 0xae, 0x1b),
    C("vpaddb ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xfc, 0xcb),
    C("vpaddq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xd4, 0xcb),
    C("vpsubw ymm1, ymm2, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xf9, 0x0b),
    C("vpaddusb ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xdc, 0xcb),
    C("vpaddsw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xed, 0xcb),
    C("vpcmpeqb ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0x74, 0xcb),
    C("vpcmpgtq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x37, 0xcb),
    C("vpminsd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x39, 0xcb),
    C("vpmaxub ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xde, 0xcb),
    C("vpavgb ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xe0, 0xcb),
    C("vpmullw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xd5, 0xcb),
    C("vpmulld ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x40, 0xcb),
    C("vpmulhuw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xe4, 0xcb),
    C("vpmuludq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xf4, 0xcb),
    C("vpmuldq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x28, 0xcb),
    C("vpmaddwd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xf5, 0xcb),
    C("vpmaddubsw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x04, 0xcb),
    C("vpmulhrsw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x0b, 0xcb),
    C("vpsadbw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xf6, 0xcb),
    C("vpabsb ymm1, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x1c, 0xcb),
    C("vpsignw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x09, 0xcb),
    C("vpand ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xdb, 0xcb),
    C("vpandn ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xdf, 0xcb),
    C("vpor ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xeb, 0xcb),
    C("vpxor ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xef, 0xcb),
    C("vpsllw ymm1, ymm2, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xf1, 0xcb),
    C("vpsrld ymm1, ymm2, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc5, 0xf5, 0x72, 0xd2, 0x00),
    C("vpsraw ymm1, ymm2, imm", X86_ISA_INT, X86_ISA_AVX2, 31, 0xc5, 0xf5, 0x71, 0xe2, 0x00),
    C("vpsllq ymm1, ymm2, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xf3, 0x0b),
    C("vpslldq ymm1, ymm2, imm", X86_ISA_INT, X86_ISA_AVX2, 31, 0xc5, 0xf5, 0x73, 0xfa, 0x00),
    C("vpsrldq ymm1, ymm2, imm", X86_ISA_INT, X86_ISA_AVX2, 31, 0xc5, 0xf5, 0x73, 0xda, 0x00),
    C("vpsllvd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x47, 0xcb),
    C("vpsllvq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0xed, 0x47, 0xcb),
    C("vpsrlvd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x45, 0xcb),
    C("vpsrlvq xmm1, xmm2, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0xe9, 0x45, 0xcb),
    C("vpsravd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x46, 0xcb),
    C("vpshufb ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x00, 0xcb),
    C("vpshufd ymm1, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc5, 0xfd, 0x70, 0xcb, 0x00),
    C("vpshufhw ymm1, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc5, 0xfe, 0x70, 0xcb, 0x00),
    C("vpshuflw ymm1, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc5, 0xff, 0x70, 0xcb, 0x00),
    C("vpalignr ymm1, ymm2, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc4, 0xe3, 0x6d, 0x0f, 0xcb, 0x00),
    C("vpunpcklbw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0x60, 0xcb),
    C("vpunpckhqdq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0x6d, 0xcb),
    C("vpunpckldq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0x62, 0xcb),
    C("vpacksswb ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0x63, 0xcb),
    C("vpackusdw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x2b, 0xcb),
    C("vphaddw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x01, 0xcb),
    C("vphsubd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x06, 0xcb),
    C("vpblendw ymm1, ymm2, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc4, 0xe3, 0x6d, 0x0e, 0xcb, 0x00),
    C("vpblendd ymm1, ymm2, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc4, 0xe3, 0x6d, 0x02, 0xcb, 0x00),
    C("vpblendd xmm1, xmm2, xmm3, imm", X86_ISA_INT, X86_ISA_AVX2, 15, 0xc4, 0xe3, 0x69, 0x02, 0xcb, 0x00),
    C("vpblendvb ymm1, ymm2, ymm3, ymm0", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe3, 0x6d, 0x4c, 0xcb, 0x00),
    C("vpmovzxbw ymm1, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x30, 0xcb),
    C("vpmovsxdq ymm1, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x25, 0xcb),
    C("vpmovzxbd ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x31, 0x0b),
    C("vpmovsxwq ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x24, 0x0b),
    C("vpbroadcastb ymm1, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x78, 0xcb),
    C("vpbroadcastw xmm1, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x79, 0x79, 0xcb),
    C("vpbroadcastd ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x58, 0x0b),
    C("vpbroadcastq ymm1, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x59, 0xcb),
    C("vbroadcastss ymm1, xmm3", X86_ISA_FLOAT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x18, 0xcb),
    C("vbroadcastsd ymm1, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x19, 0xcb),
    C("vpermd ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x36, 0xcb),
    C("vpermps ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x16, 0xcb),
    C("vpermq ymm1, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc4, 0xe3, 0xfd, 0x00, 0xcb, 0x00),
    C("vpermpd ymm1, [rbx], imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc4, 0xe3, 0xfd, 0x01, 0x0b, 0x00),
    C("vperm2i128 ymm1, ymm2, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc4, 0xe3, 0x6d, 0x46, 0xcb, 0x00),
    C("vinserti128 ymm1, ymm2, [rbx], imm", X86_ISA_INT, X86_ISA_AVX2, 1, 0xc4, 0xe3, 0x6d, 0x38, 0x0b, 0x00),
    C("vextracti128 xmm1, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 1, 0xc4, 0xe3, 0x7d, 0x39, 0xd9, 0x00),
    C("vbroadcasti128 ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x5a, 0x0b),
    C("vpmaskmovd ymm1, ymm2, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x8c, 0x0b),
    C("vpmaskmovq [rbx], xmm2, xmm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0xe9, 0x8e, 0x1b),
    C("vpmovmskb eax, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xfd, 0xd7, 0xc3),
    C("vmpsadbw ymm1, ymm2, ymm3, imm", X86_ISA_INT, X86_ISA_AVX2, 63, 0xc4, 0xe3, 0x6d, 0x42, 0xcb, 0x00),
    C("vmovntdqa ymm1, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x7d, 0x2a, 0x0b),
    C("vgatherdps ymm1, [rbx + 4*ymm2], ymm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x65, 0x92, 0x0c, 0x93),
    C("vgatherdpd ymm1, [rbx + 8*xmm2], ymm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0xe5, 0x92, 0x0c, 0xd3),
    C("vgatherqps xmm1, [rbx + 4*ymm2], xmm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x65, 0x93, 0x0c, 0x93),
    C("vgatherqpd ymm1, [rbx + 8*ymm2], ymm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0xe5, 0x93, 0x0c, 0xd3),
    C("vpgatherdd xmm1, [rbx + 4*xmm2], xmm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x61, 0x90, 0x0c, 0x93),
    C("vpgatherdq ymm1, [rbx + 8*xmm2], ymm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0xe5, 0x90, 0x0c, 0xd3),
    C("vpgatherqd xmm1, [rbx + 4*xmm2], xmm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x61, 0x91, 0x0c, 0x93),
    C("vpgatherqq ymm1, [rbx + 8*ymm2], ymm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0xe5, 0x91, 0x0c, 0xd3),
    C("vgatherdps ymm1, [rbx + 2*ymm2 + 8], ymm3", X86_ISA_INDEX, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x65, 0x92, 0x4c, 0x53, 0x08),
    C("vfmadd132ps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x6d, 0x98, 0xcb),
    C("vfmadd213pd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xed, 0xa8, 0xcb),
    C("vfmadd231ss xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x69, 0xb9, 0xcb),
    C("vfmadd231sd xmm1, xmm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xe9, 0xb9, 0x0b),
    C("vfmsub231sd xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xe9, 0xbb, 0xcb),
    C("vfmsub132ps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x6d, 0x9a, 0xcb),
    C("vfnmadd213ps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x6d, 0xac, 0xcb),
    C("vfnmsub132pd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xed, 0x9e, 0xcb),
    C("vfnmadd231sd xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xe9, 0xbd, 0xcb),
    C("vfmaddsub213ps ymm1, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x6d, 0xa6, 0xcb),
    C("vfmsubadd231pd ymm1, ymm2, ymm3", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xed, 0xb7, 0xcb),
    C("vfmadd231ps ymm1, ymm2, [rbx]", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x6d, 0xb8, 0x0b),
    C("vcvtph2ps ymm1, xmm3", X86_ISA_HALF, X86_ISA_F16C, 0, 0xc4, 0xe2, 0x7d, 0x13, 0xcb),
    C("vcvtph2ps xmm1, [rbx]", X86_ISA_HALF, X86_ISA_F16C, 0, 0xc4, 0xe2, 0x79, 0x13, 0x0b),
    C("vcvtps2ph xmm1, ymm3, imm", X86_ISA_FLOAT, X86_ISA_F16C, 7, 0xc4, 0xe3, 0x7d, 0x1d, 0xd9, 0x00),
    C("vcvtps2ph xmm1, xmm3, imm", X86_ISA_FLOAT, X86_ISA_F16C, 7, 0xc4, 0xe3, 0x79, 0x1d, 0xd9, 0x00),
    C("vcvtps2ph [rbx], ymm3, imm", X86_ISA_FLOAT, X86_ISA_F16C, 7, 0xc4, 0xe3, 0x7d, 0x1d, 0x1b, 0x00),
};

/* The operand shapes the VEX run forms read themselves (sse_forms.c,
 * avx.c x86_vex_fma): the second source as a register, as 4, 8, 16 or 32
 * bytes of memory or as a general register, at 128 and 256 bits, an imm8
 * after a memory source, a destination that is also a source, the moves
 * into a register and to memory of every size, FMA with each source kind,
 * and the SSE4.1 element operations that became lane functions. */
static const struct x86_isa_case run_form_cases[] = {
    C("vmovsd xmm1, xmm2, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x10, 0xcb),
    C("vmovsd xmm1, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfb, 0x10, 0x0b),
    C("vmovss xmm1, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0x10, 0x0b),
    C("vmovaps [rbx], xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xf8, 0x29, 0x1b),
    C("vmovdqa [rbx], ymm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfd, 0x7f, 0x1b),
    C("vmovd [rbx], xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xf9, 0x7e, 0x1b),
    C("vmovq [rbx], xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xf9, 0xd6, 0x1b),
    C("vmovss [rbx], xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0x11, 0x1b),
    C("vmovapd ymm1, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xfd, 0x28, 0x0b),
    C("vmovdqa xmm1, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xf9, 0x6f, 0x0b),
    C("vmulss xmm1, xmm2, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x59, 0x0b),
    C("vaddsd xmm1, xmm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x58, 0x0b),
    C("vsubss xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x5c, 0xcb),
    C("vaddps xmm1, xmm2, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xe8, 0x58, 0x0b),
    C("vsqrtss xmm1, xmm2, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xea, 0x51, 0x0b),
    C("vminsd xmm1, xmm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x5d, 0x0b),
    C("vpaddd ymm1, ymm2, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc5, 0xed, 0xfe, 0x0b),
    C("vpxor xmm1, xmm2, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xe9, 0xef, 0x0b),
    C("vpshufd ymm1, [rbx], imm", X86_ISA_INT, X86_ISA_AVX2, 255, 0xc5, 0xfd, 0x70, 0x0b, 0x00),
    C("vshufps ymm1, ymm2, [rbx], imm", X86_ISA_FLOAT, X86_ISA_AVX, 255, 0xc5, 0xec, 0xc6, 0x0b, 0x00),
    C("vunpckhpd ymm1, ymm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xed, 0x15, 0x0b),
    C("vcvttps2dq ymm1, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xfe, 0x5b, 0x0b),
    C("vsubps ymm3, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xec, 0x5c, 0xdb),
    C("vshufps ymm2, ymm2, ymm3, imm", X86_ISA_FLOAT, X86_ISA_AVX, 255, 0xc5, 0xec, 0xc6, 0xd3, 0x00),
    C("vaddsd xmm2, xmm2, xmm2", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x58, 0xd2),
    C("vpmaxsd ymm1, ymm2, [rbx]", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x3d, 0x0b),
    C("vpmaxsd xmm1, xmm2, xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x69, 0x3d, 0xcb),
    C("vpminsb ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x38, 0xcb),
    C("vpmaxuw ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x3e, 0xcb),
    C("vpminud xmm1, xmm2, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x69, 0x3b, 0x0b),
    C("vpcmpeqq ymm1, ymm2, ymm3", X86_ISA_INT, X86_ISA_AVX2, 0, 0xc4, 0xe2, 0x6d, 0x29, 0xcb),
    C("vpcmpgtq xmm1, xmm2, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x69, 0x37, 0x0b),
    C("vpmulld xmm1, xmm2, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe2, 0x69, 0x40, 0x0b),
    C("vcvtps2pd xmm1, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xf8, 0x5a, 0x0b),
    C("vcvtdq2pd xmm1, xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0xe6, 0xcb),
    C("vcvtpd2ps xmm1, xmm3", X86_ISA_DOUBLE, X86_ISA_AVX, 0, 0xc5, 0xf9, 0x5a, 0xcb),
    C("vcvtsi2sd xmm1, xmm2, dword [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xeb, 0x2a, 0x0b),
    C("vcvtsi2ss xmm1, xmm2, qword [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe1, 0xea, 0x2a, 0x0b),
    C("vmovlps xmm1, xmm2, [rbx]", X86_ISA_FLOAT, X86_ISA_AVX, 0, 0xc5, 0xe8, 0x12, 0x0b),
    C("vmovq xmm1, xmm3", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xfa, 0x7e, 0xcb),
    C("vmovd xmm1, [rbx]", X86_ISA_INT, X86_ISA_AVX, 0, 0xc5, 0xf9, 0x6e, 0x0b),
    C("vmovq xmm1, rax", X86_ISA_INT, X86_ISA_AVX, 0, 0xc4, 0xe1, 0xf9, 0x6e, 0xc8),
    C("vfmadd132ss xmm1, xmm2, [rbx]", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x69, 0x99, 0x0b),
    C("vfmadd231pd xmm1, xmm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xe9, 0xb8, 0x0b),
    C("vfnmadd213ps xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x69, 0xac, 0xcb),
    C("vfmsub213sd xmm1, xmm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xe9, 0xab, 0x0b),
    C("vfmadd132pd ymm1, ymm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xed, 0x98, 0x0b),
    C("vfnmsub231ss xmm1, xmm2, xmm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x69, 0xbf, 0xcb),
    C("vfmaddsub132pd xmm1, xmm2, [rbx]", X86_ISA_DOUBLE, X86_ISA_FMA, 0, 0xc4, 0xe2, 0xe9, 0x96, 0x0b),
    C("vfmadd231ps ymm3, ymm2, ymm3", X86_ISA_FLOAT, X86_ISA_FMA, 0, 0xc4, 0xe2, 0x6d, 0xb8, 0xdb),
    C("pmaxsd xmm1, [rbx]", X86_ISA_INT, X86_ISA_SSE41, 0, 0x66, 0x0f, 0x38, 0x3d, 0x0b),
    C("pminuw xmm1, xmm3", X86_ISA_INT, X86_ISA_SSE41, 0, 0x66, 0x0f, 0x38, 0x3a, 0xcb),
    C("pcmpeqq xmm1, [rbx]", X86_ISA_INT, X86_ISA_SSE41, 0, 0x66, 0x0f, 0x38, 0x29, 0x0b),
    C("pmulld xmm1, [rbx]", X86_ISA_INT, X86_ISA_SSE41, 0, 0x66, 0x0f, 0x38, 0x40, 0x0b),
};

static void test_avx_matches_host(void **state)
{
    (void)state;
    assert_int_equal(x86_isa_run(cases, sizeof cases / sizeof cases[0], 1, 120), 0);
}

static void test_avx_run_forms_match_host(void **state)
{
    (void)state;
    assert_int_equal(x86_isa_run(run_form_cases, sizeof run_form_cases / sizeof run_form_cases[0],
                                 1, 250),
                     0);
}

/* FMA runs on the host's FMA unit when it has one: the software path that
 * runs elsewhere is held to the host too, on every FMA case above. */
static void test_fma_software_matches_host(void **state)
{
    (void)state;
    struct x86_isa_case fma[sizeof cases / sizeof cases[0] +
                           sizeof run_form_cases / sizeof run_form_cases[0]];
    size_t n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (cases[i].feature == X86_ISA_FMA)
            fma[n++] = cases[i];
    for (size_t i = 0; i < sizeof run_form_cases / sizeof run_form_cases[0]; i++)
        if (run_form_cases[i].feature == X86_ISA_FMA)
            fma[n++] = run_form_cases[i];
    assert_true(n >= 20);
    x86_fma_host_use(0);
    int failed = x86_isa_run(fma, n, 1, 250);
    x86_fma_host_use(1);
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avx_matches_host),
        cmocka_unit_test(test_avx_run_forms_match_host),
        cmocka_unit_test(test_fma_software_matches_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
