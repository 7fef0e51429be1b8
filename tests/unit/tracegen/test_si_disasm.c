/* The Southern Islands disassembler against LLVM: every line of
 * tests/data/si/corpus.txt (made by make_corpus.sh with llvm-mc for tahiti)
 * holds an encoding and LLVM's text for it; decoding the bytes must consume
 * all of them and print the same text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/si_isa.h"
#include "tracegen/si/si_program.h"
#include "tests/unit/si_files.h"

static void corpus_round_trip(void **state)
{
    (void)state;
    FILE *f = si_test_open_corpus();
    char line[512];
    unsigned lines = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        const char *want = tab + 1;
        uint8_t bytes[16];
        size_t n = si_test_parse_hex(line, bytes, sizeof bytes);
        struct cgm_si_inst in;
        char got[256];
        size_t used = cgm_si_decode(bytes, n, &in);
        if (used)
            cgm_si_disasm(&in, got, sizeof got);
        else
            snprintf(got, sizeof got, "<decode failed>");
        lines++;
        if (used != n || strcmp(got, want) != 0) {
            if (bad < 40)
                print_message("%s: want \"%s\" got \"%s\" (%zu of %zu bytes)\n", line, want,
                              got, used, n);
            bad++;
        }
    }
    fclose(f);
    print_message("%u corpus lines, %u mismatches\n", lines, bad);
    assert_true(lines > 2000);
    assert_int_equal(bad, 0);
}

/* Real compiler output: each kernel of basic.co, disassembled from its entry,
 * against LLVM's own listing basic.s of the same source (branch targets are
 * labels there, so branches compare by mnemonic). */
static int next_listing_inst(FILE *f, char *out, size_t n)
{
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, ".Lfunc_end", 10) == 0)
            return 0;
        if (line[0] != '\t' || line[1] < 'a' || line[1] > 'z')
            continue;
        line[strcspn(line, ";\n")] = '\0';
        size_t len = strlen(line);
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        for (char *t = line + 1; *t; t++)
            if (*t == '\t')
                *t = ' ';
        snprintf(out, n, "%s", line + 1);
        return 1;
    }
    return 0;
}

/* Checks one code object against its listing; returns the instruction count. */
static unsigned check_listing(const char *co, const char *lst, unsigned *bad)
{
    char err[512];
    struct si_program prog;
    if (si_program_load(co, &prog, err, sizeof err))
        fail_msg("%s", err);
    FILE *f = fopen(lst, "r");
    if (!f)
        fail_msg("cannot open %s", lst);
    unsigned kernels = 0, insts = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strstr(line, ":");
        if (!colon || line[0] == '.' || line[0] == '\t' || line[0] == ';' || colon[1] == ':')
            continue;
        *colon = '\0';
        const struct si_kernel *k = si_program_kernel(&prog, line);
        if (!k)
            continue;
        kernels++;
        uint64_t pc = k->entry;
        char want[512], got[512];
        while (next_listing_inst(f, want, sizeof want)) {
            struct cgm_si_inst in;
            size_t n = cgm_si_decode(prog.image + pc, prog.image_size - pc, &in);
            if (n)
                cgm_si_disasm(&in, got, sizeof got);
            else
                snprintf(got, sizeof got, "<decode failed>");
            pc += n ? n : 4;
            insts++;
            /* Operands the listing gives as symbols (branch labels,
             * sym@rel32@lo+4) are compared up to where the symbol begins. */
            int branch = strncmp(want, "s_branch", 8) == 0 || strncmp(want, "s_cbranch", 9) == 0;
            size_t cmp = branch ? strcspn(want, " ") + 1 : sizeof want;
            const char *sym = strchr(want, '@');
            if (sym) {
                const char *p = sym;
                while (p > want && p[-1] != ' ')
                    p--;
                cmp = (size_t)(p - want);
            }
            if (strncmp(want, got, cmp) != 0 && (*bad)++ < 20)
                print_message("%s %s+0x%llx: want \"%s\" got \"%s\"\n", co, k->name,
                              (unsigned long long)(pc - k->entry), want, got);
        }
    }
    fclose(f);
    assert_int_equal(kernels, prog.nkernels);
    si_program_free(&prog);
    return insts;
}

/* Every code object the build made (workloads and test kernels). */
static void compiled_kernels_match_llvm_listing(void **state)
{
    (void)state;
    const char *b = getenv("CGM_BUILD");
    static const char *const objects[] = { "test/basic", "test/half", "backprop", "bfs", "hotspot", "kmeans",
                                           "lud", "nw", "collab_backprop", "block_matmul",
                                           "edge_detect", "knn", "write" };
    unsigned insts = 0, bad = 0;
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++) {
        char co[1024], lst[1024];
        snprintf(co, sizeof co, "%s/kernels/%s.co", b ? b : "build", objects[i]);
        snprintf(lst, sizeof lst, "%s/kernels/%s.s", b ? b : "build", objects[i]);
        insts += check_listing(co, lst, &bad);
    }
    print_message("%u instructions in %zu code objects, %u mismatches\n", insts,
                  sizeof objects / sizeof objects[0], bad);
    assert_true(insts > 1000);
    assert_int_equal(bad, 0);
}

/* Truncated input and words of no format decode to nothing, never read past
 * the end. */
static void rejects_short_and_invalid(void **state)
{
    (void)state;
    struct cgm_si_inst in;
    const uint8_t vop3[8] = { 0x01, 0x00, 0x06, 0xd2, 0x02, 0x07, 0x02, 0x00 };
    assert_int_equal(cgm_si_decode(vop3, 8, &in), 8);
    for (size_t n = 0; n < 8; n++)
        assert_int_equal(cgm_si_decode(vop3, n, &in), 0);
    /* s_mov_b32 s1, literal needs 8 bytes */
    const uint8_t lit[8] = { 0xff, 0x03, 0x81, 0xbe, 0x78, 0x56, 0x34, 0x12 };
    assert_int_equal(cgm_si_decode(lit, 4, &in), 0);
    assert_int_equal(cgm_si_decode(lit, 8, &in), 8);
    assert_int_equal(in.literal, 0x12345678u);
    /* 0xf4000000 is SMEM on gfx8+, no SI format */
    const uint8_t none[8] = { 0, 0, 0, 0xf4, 0, 0, 0, 0 };
    assert_int_equal(cgm_si_decode(none, 8, &in), 0);
    /* SOP2 opcode 127 does not exist */
    const uint8_t noop[4] = { 0x01, 0x02, 0x80, 0xbf ^ 0x40 };
    assert_int_equal(cgm_si_decode(noop, 4, &in), 0);
}

/* Any bytes either decode to an instruction of the size the format implies,
 * whose text is non-empty, or are refused; nothing reads out of bounds. */
static void random_words_are_safe(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned decoded = 0;
    for (int i = 0; i < 200000; i++) {
        uint8_t b[12];
        for (int k = 0; k < 12; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            b[k] = (uint8_t)x;
        }
        struct cgm_si_inst in;
        size_t avail = 4 + (size_t)(x % 9);
        size_t n = cgm_si_decode(b, avail, &in);
        if (!n)
            continue;
        decoded++;
        assert_true(n <= avail && (n == 4 || n == 8 || n == 12));
        assert_int_equal(n, in.size);
        char text[256];
        assert_true(cgm_si_disasm(&in, text, sizeof text) > 0);
        assert_true(text[0] >= 'a' && text[0] <= 'z');
    }
    assert_true(decoded > 50000);
}

/* A tiny buffer gets a truncated, terminated string and the full length. */
static void disasm_truncates(void **state)
{
    (void)state;
    const uint8_t add[4] = { 0x01, 0x02, 0x00, 0x80 };   /* s_add_u32 s0, s1, s2 */
    struct cgm_si_inst in;
    char buf[6];
    assert_int_equal(cgm_si_decode(add, 4, &in), 4);
    int n = cgm_si_disasm(&in, buf, sizeof buf);
    assert_int_equal(n, (int)strlen("s_add_u32 s0, s1, s2"));
    assert_string_equal(buf, "s_add");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_round_trip),
        cmocka_unit_test(compiled_kernels_match_llvm_listing),
        cmocka_unit_test(rejects_short_and_invalid),
        cmocka_unit_test(disasm_truncates),
        cmocka_unit_test(random_words_are_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
