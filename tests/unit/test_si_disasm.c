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

static FILE *open_corpus(void)
{
    const char *root = getenv("CGM_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/si/corpus.txt", root ? root : ".");
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    return f;
}

static size_t parse_hex(const char *s, uint8_t *out, size_t max)
{
    size_t n = 0;
    while (s[0] && s[1] && n < max) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void corpus_round_trip(void **state)
{
    (void)state;
    FILE *f = open_corpus();
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
        size_t n = parse_hex(line, bytes, sizeof bytes);
        struct si_inst in;
        char got[256];
        size_t used = si_decode(bytes, n, &in);
        if (used)
            si_disasm(&in, got, sizeof got);
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

/* Truncated input and words of no format decode to nothing, never read past
 * the end. */
static void rejects_short_and_invalid(void **state)
{
    (void)state;
    struct si_inst in;
    const uint8_t vop3[8] = { 0x01, 0x00, 0x06, 0xd2, 0x02, 0x07, 0x02, 0x00 };
    assert_int_equal(si_decode(vop3, 8, &in), 8);
    for (size_t n = 0; n < 8; n++)
        assert_int_equal(si_decode(vop3, n, &in), 0);
    /* s_mov_b32 s1, literal needs 8 bytes */
    const uint8_t lit[8] = { 0xff, 0x03, 0x81, 0xbe, 0x78, 0x56, 0x34, 0x12 };
    assert_int_equal(si_decode(lit, 4, &in), 0);
    assert_int_equal(si_decode(lit, 8, &in), 8);
    assert_int_equal(in.literal, 0x12345678u);
    /* 0xf4000000 is SMEM on gfx8+, no SI format */
    const uint8_t none[8] = { 0, 0, 0, 0xf4, 0, 0, 0, 0 };
    assert_int_equal(si_decode(none, 8, &in), 0);
    /* SOP2 opcode 127 does not exist */
    const uint8_t noop[4] = { 0x01, 0x02, 0x80, 0xbf ^ 0x40 };
    assert_int_equal(si_decode(noop, 4, &in), 0);
}

/* A tiny buffer gets a truncated, terminated string and the full length. */
static void disasm_truncates(void **state)
{
    (void)state;
    const uint8_t add[4] = { 0x01, 0x02, 0x00, 0x80 };   /* s_add_u32 s0, s1, s2 */
    struct si_inst in;
    char buf[6];
    assert_int_equal(si_decode(add, 4, &in), 4);
    int n = si_disasm(&in, buf, sizeof buf);
    assert_int_equal(n, (int)strlen("s_add_u32 s0, s1, s2"));
    assert_string_equal(buf, "s_add");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_round_trip),
        cmocka_unit_test(rejects_short_and_invalid),
        cmocka_unit_test(disasm_truncates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
