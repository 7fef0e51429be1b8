/* The instruction-set extension of an instruction tracegen cannot run,
 * named from capstone's instruction groups, so the message of an
 * unimplemented instruction tells the user whether rebuilding for an
 * older processor helps (the extension lies beyond x86-64-v3, the newest
 * level tracegen emulates) or the instruction is a gap in a level it
 * implements. */
#include "tracegen/x86/decode.h"

#include <stdio.h>

struct extension {
    uint8_t group;       /* x86_insn_group */
    uint8_t beyond_v3;   /* 1: not part of any x86-64 level up to v3 */
    const char *name;
};

static const struct extension extensions[] = {
    { X86_GRP_AVX512, 1, "AVX-512" }, { X86_GRP_CDI, 1, "AVX-512" },
    { X86_GRP_ERI, 1, "AVX-512" },    { X86_GRP_DQI, 1, "AVX-512" },
    { X86_GRP_BWI, 1, "AVX-512" },    { X86_GRP_PFI, 1, "AVX-512" },
    { X86_GRP_VLX, 1, "AVX-512" },    { X86_GRP_AES, 1, "AES-NI" },
    { X86_GRP_PCLMUL, 1, "PCLMULQDQ" }, { X86_GRP_SHA, 1, "SHA" },
    { X86_GRP_SSE4A, 1, "SSE4a" },    { X86_GRP_XOP, 1, "XOP" },
    { X86_GRP_FMA4, 1, "FMA4" },      { X86_GRP_TBM, 1, "TBM" },
    { X86_GRP_3DNOW, 1, "3DNow!" },   { X86_GRP_ADX, 1, "ADX" },
    { X86_GRP_RTM, 1, "TSX" },        { X86_GRP_HLE, 1, "TSX" },
    { X86_GRP_SGX, 1, "SGX" },        { X86_GRP_FSGSBASE, 1, "FSGSBASE" },
    { X86_GRP_VM, 1, "VMX/SVM" },
    { X86_GRP_AVX2, 0, "AVX2" },      { X86_GRP_AVX, 0, "AVX" },
    { X86_GRP_FMA, 0, "FMA" },        { X86_GRP_F16C, 0, "F16C" },
    { X86_GRP_BMI2, 0, "BMI2" },      { X86_GRP_BMI, 0, "BMI1" },
    { X86_GRP_SSE42, 0, "SSE4.2" },   { X86_GRP_SSE41, 0, "SSE4.1" },
    { X86_GRP_SSSE3, 0, "SSSE3" },    { X86_GRP_SSE3, 0, "SSE3" },
    { X86_GRP_SSE2, 0, "SSE2" },      { X86_GRP_SSE1, 0, "SSE" },
    { X86_GRP_MMX, 0, "MMX" },        { X86_GRP_FPU, 0, "x87" },
};

void x86_unimplemented_note(csh h, const uint8_t *bytes, size_t n, char *out, size_t outlen)
{
    out[0] = 0;
    cs_insn *ci = NULL;
    if (cs_disasm(h, bytes, n, 0, 1, &ci) != 1)
        return;
    const struct extension *found = NULL;
    const cs_detail *d = ci->detail;
    /* the table lists the newest extensions first: vpxord is AVX-512
     * before it is AVX */
    for (size_t e = 0; !found && e < sizeof extensions / sizeof extensions[0]; e++)
        for (unsigned g = 0; !found && d && g < d->groups_count; g++)
            if (d->groups[g] == extensions[e].group)
                found = &extensions[e];
    if (found && found->beyond_v3)
        snprintf(out, outlen, " (%s, beyond the x86-64-v3 processor tracegen emulates: "
                 "rebuild with -march=x86-64-v3 or lower)", found->name);
    else if (found)
        snprintf(out, outlen, " (%s, an extension tracegen implements, but not this "
                 "instruction)", found->name);
    cs_free(ci, 1);
}
