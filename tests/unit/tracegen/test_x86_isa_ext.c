/* The note an unimplemented instruction's message carries names its
 * extension (the vendors' names: AES-NI, SHA, AVX-512 are not part of the
 * psABI's x86-64-v3 level; AVX and SSE4.1 are) and says whether rebuilding
 * for x86-64-v3 helps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tracegen/x86/decode.h"

static void expect_note(csh h, const uint8_t *bytes, size_t n, const char *want)
{
    char note[160];
    x86_unimplemented_note(h, bytes, n, note, sizeof note);
    if (want[0] ? !strstr(note, want) : note[0] != 0)
        fail_msg("note '%s', want '%s'", note, want);
}

static void test_notes(void **state)
{
    (void)state;
    csh h;
    assert_int_equal(x86_decoder_open(&h), 0);
    static const uint8_t aesenc[] = { 0x66, 0x0f, 0x38, 0xdc, 0xc1 };
    static const uint8_t sha1rnds4[] = { 0x0f, 0x3a, 0xcc, 0xc1, 0x00 };
    static const uint8_t vpxord_zmm[] = { 0x62, 0xf1, 0x7d, 0x48, 0xef, 0xc0 };
    static const uint8_t vaddps_ymm[] = { 0xc5, 0xf4, 0x58, 0xda };
    static const uint8_t pminsd[] = { 0x66, 0x0f, 0x38, 0x39, 0xc1 };
    static const uint8_t add[] = { 0x01, 0xd8 };
    static const uint8_t garbage[] = { 0x0f, 0xff };
    expect_note(h, aesenc, sizeof aesenc, "(AES-NI, beyond the x86-64-v3 processor");
    expect_note(h, sha1rnds4, sizeof sha1rnds4, "(SHA, beyond the x86-64-v3 processor");
    expect_note(h, vpxord_zmm, sizeof vpxord_zmm, "(AVX-512, beyond the x86-64-v3 processor");
    expect_note(h, vaddps_ymm, sizeof vaddps_ymm, "(AVX, an extension tracegen implements");
    expect_note(h, pminsd, sizeof pminsd, "(SSE4.1, an extension tracegen implements");
    expect_note(h, add, sizeof add, "");
    expect_note(h, garbage, sizeof garbage, "");
    cs_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_notes) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
