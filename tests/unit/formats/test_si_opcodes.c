/* The Southern Islands opcode table (cgm/si_opcodes.def): every row is found
 * again from its encoding, the VOPC, VOP2 and VOP1 rows also from their VOP3
 * opcode (the ISA manual's offsets 0, 256, 384), no other opcode field
 * decodes, decoding LLVM's encodings (the disassembler corpus) names the
 * instruction LLVM names, whichever encoding carries it, and the branch
 * column marks the program-control instructions the ISA manual lists as
 * changing the program counter (s_branch, s_cbranch_*, s_setpc_b64,
 * s_swappc_b64, s_rfe_b64; Sec. 4.3-4.4) and no other. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cgm/si_isa.h"
#include "tests/unit/si_files.h"

enum { CODES = 512 };

/* Where the VOP3 encoding puts the opcodes of the shorter VALU encodings. */
static int vop3_offset(unsigned fmt)
{
    switch (fmt) {
    case CGM_SI_FMT_VOPC: return 0;
    case CGM_SI_FMT_VOP2: return 256;
    case CGM_SI_FMT_VOP1: return 384;
    case CGM_SI_FMT_VOP3: return 0;
    default: return -1;
    }
}

static void every_row_is_found_from_its_encoding(void **state)
{
    (void)state;
    for (unsigned op = 1; op < CGM_SI_OPCODE_COUNT; op++) {
        const struct cgm_si_opcode_info *r = &cgm_si_opcodes[op];
        assert_non_null(r->name);
        assert_int_equal(cgm_si_opcode_of((enum cgm_si_format)r->fmt, r->code), op);
        int off = vop3_offset(r->fmt);
        if (off >= 0)
            assert_int_equal(cgm_si_opcode_of(CGM_SI_FMT_VOP3, r->code + (unsigned)off), op);
        if (r->fmt == CGM_SI_FMT_VOP3)              /* VOP3-only opcodes: 320..383 */
            assert_true(r->code >= 320 && r->code < 384);
    }
    assert_null(cgm_si_opcodes[CGM_SI_OPCODE_INVALID].name);
}

static void no_other_opcode_field_decodes(void **state)
{
    (void)state;
    unsigned rows[CGM_SI_FMT_COUNT] = { 0 }, found[CGM_SI_FMT_COUNT] = { 0 };
    for (unsigned op = 1; op < CGM_SI_OPCODE_COUNT; op++) {
        unsigned fmt = cgm_si_opcodes[op].fmt;
        rows[fmt]++;
        if (vop3_offset(fmt) >= 0 && fmt != CGM_SI_FMT_VOP3)
            rows[CGM_SI_FMT_VOP3]++;
    }
    for (unsigned fmt = CGM_SI_FMT_INVALID + 1; fmt < CGM_SI_FMT_COUNT; fmt++)
        for (unsigned code = 0; code < CODES; code++)
            found[fmt] += cgm_si_opcode_of((enum cgm_si_format)fmt, code) !=
                          CGM_SI_OPCODE_INVALID;
    for (unsigned fmt = CGM_SI_FMT_INVALID + 1; fmt < CGM_SI_FMT_COUNT; fmt++)
        assert_int_equal(found[fmt], rows[fmt]);
    assert_int_equal(cgm_si_opcode_of(CGM_SI_FMT_INVALID, 0), CGM_SI_OPCODE_INVALID);
    assert_int_equal(cgm_si_opcode_of(CGM_SI_FMT_SOP2, CODES), CGM_SI_OPCODE_INVALID);
}

static void mnemonics_are_unique(void **state)
{
    (void)state;
    for (unsigned a = 1; a < CGM_SI_OPCODE_COUNT; a++)
        for (unsigned b = a + 1; b < CGM_SI_OPCODE_COUNT; b++)
            if (strcmp(cgm_si_opcodes[a].name, cgm_si_opcodes[b].name) == 0)
                fail_msg("%s is listed twice", cgm_si_opcodes[a].name);
}

/* LLVM's text starts with the mnemonic, with _e32/_e64 for the VALU
 * encodings; the decoded opcode must be the row of that mnemonic. */
static void decoded_opcode_is_llvms_mnemonic(void **state)
{
    (void)state;
    FILE *f = si_test_open_corpus();
    char line[512];
    unsigned lines = 0, e64 = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        uint8_t bytes[16];
        size_t n = si_test_parse_hex(line, bytes, sizeof bytes);
        struct cgm_si_inst in;
        assert_int_equal(cgm_si_decode(bytes, n, &in), n);
        char want[128];
        size_t len = strcspn(tab + 1, " \n");
        snprintf(want, sizeof want, "%.*s", (int)len, tab + 1);
        len = strlen(want);
        if (len > 4 && (!strcmp(want + len - 4, "_e32") || !strcmp(want + len - 4, "_e64"))) {
            e64 += want[len - 2] == '6';
            want[len - 4] = '\0';
        }
        if (strcmp(cgm_si_info(&in)->name, want) != 0)
            fail_msg("%.*s: decoded %s, LLVM says %s", (int)(tab - line), line,
                     cgm_si_info(&in)->name, want);
        lines++;
    }
    fclose(f);
    assert_true(lines > 2000);
    assert_true(e64 > 500);      /* the VOP3 forms of the shorter encodings were met */
}

static void branch_column_marks_program_control(void **state)
{
    (void)state;
    unsigned marked = 0;
    for (unsigned op = 1; op < CGM_SI_OPCODE_COUNT; op++) {
        const char *n = cgm_si_opcodes[op].name;
        bool control = !strcmp(n, "s_branch") || !strncmp(n, "s_cbranch_", 10) || !strcmp(n, "s_setpc_b64") ||
                       !strcmp(n, "s_swappc_b64") || !strcmp(n, "s_rfe_b64");
        if (cgm_si_opcodes[op].branch != control)
            fail_msg("%s: branch column %u", n, cgm_si_opcodes[op].branch);
        marked += control;
    }
    assert_int_equal(marked, 17);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_is_found_from_its_encoding),
        cmocka_unit_test(no_other_opcode_field_decodes),
        cmocka_unit_test(mnemonics_are_unique),
        cmocka_unit_test(decoded_opcode_is_llvms_mnemonic),
        cmocka_unit_test(branch_column_marks_program_control),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
