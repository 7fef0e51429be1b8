/* A WAVE record's jump (a zigzag delta of instruction words) may hold any
 * 64-bit value in a hostile file: the decoder refuses what leads outside
 * the static table without overflowing (make check-asan runs this under
 * UBSan, where the overflow ended the program). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "cgm/codec.h"
#include "cgm/sirec.h"

static void test_huge_jumps_are_refused(void **state)
{
    (void)state;
    struct cgm_si_static table[2];
    memset(table, 0, sizeof table);
    table[0].offset = 0;
    table[0].size = 4;
    table[1].offset = 4;
    table[1].size = 4;
    struct cgm_si_codec c;
    assert_int_equal(cgm_si_codec_init(&c, table, 2), 0);
    static struct cgm_si_dyn insts[CGM_SI_RUN_MAX];
    /* zigzag values whose delta times 4 overflows int64_t either way, and
     * ones that wrap the 32-bit offset */
    const uint64_t jumps[] = { UINT64_MAX, UINT64_MAX - 1, 1ull << 62, (1ull << 62) + 1,
                               1ull << 33, (1ull << 33) + 1 };
    for (size_t i = 0; i < sizeof jumps / sizeof jumps[0]; i++) {
        uint8_t rec[32];
        size_t n = 0;
        rec[n++] = CGM_SI_REC_WAVE;
        n += cgm_put_varint(rec + n, 0);      /* wave */
        n += cgm_put_varint(rec + n, 1);      /* one instruction */
        n += cgm_put_varint(rec + n, 1);      /* header: a jump follows */
        n += cgm_put_varint(rec + n, jumps[i]);
        uint8_t type;
        unsigned wave, count;
        assert_int_equal(cgm_si_record_decode(&c, rec, n, &type, &wave, insts, &count), -1);
    }
    /* a jump of one word still decodes */
    uint8_t ok[16];
    size_t n = 0;
    ok[n++] = CGM_SI_REC_WAVE;
    n += cgm_put_varint(ok + n, 0);
    n += cgm_put_varint(ok + n, 1);
    n += cgm_put_varint(ok + n, 1);
    n += cgm_put_varint(ok + n, cgm_zigzag(1));
    uint8_t type;
    unsigned wave, count;
    assert_int_equal(cgm_si_record_decode(&c, ok, n, &type, &wave, insts, &count), 0);
    assert_int_equal(count, 1);
    assert_int_equal(insts[0].offset, 4);
    cgm_si_codec_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_jumps_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
