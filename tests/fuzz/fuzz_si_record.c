/* libFuzzer target for the SI record codec: the input's first two bytes give
 * the length of a static table section, the rest is a sequence of records
 * (2-byte length each).  Any bytes must decode or be refused cleanly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/sirec.h"
#include "cgm/sistats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t table_len = (size_t)(data[0] | data[1] << 8);
    data += 2;
    size -= 2;
    if (table_len > size)
        table_len = size;
    struct cgm_si_static *table = malloc((table_len / 5 + 1) * sizeof *table);
    if (!table)
        return 0;
    size_t n = 0;
    uint32_t prev = 0;
    const uint8_t *p = data, *end = data + table_len;
    while (p < end && cgm_si_static_decode(&p, end, &prev, &table[n]) == 0) {
        if (n && table[n].offset <= table[n - 1].offset)
            break;                          /* the table must be sorted */
        n++;
    }
    struct cgm_si_codec codec;
    static struct cgm_si_dyn insts[CGM_SI_RUN_MAX];
    struct cgm_si_stats st;
    memset(&st, 0, sizeof st);
    if (cgm_si_codec_init(&codec, table, n) == 0) {
        const uint8_t *q = data + table_len, *qend = data + size;
        while (qend - q >= 2) {
            size_t len = (size_t)(q[0] | q[1] << 8);
            q += 2;
            if (len > (size_t)(qend - q))
                break;
            uint8_t type;
            unsigned wave, count;
            if (cgm_si_record_decode(&codec, q, len, &type, &wave, insts, &count) == 0)
                for (unsigned i = 0; i < count; i++) {
                    long k = cgm_si_static_find(&codec, insts[i].offset);
                    if (k >= 0)
                        cgm_si_stats_add(&st, &table[k], &insts[i]);
                }
            q += len;
        }
        cgm_si_codec_free(&codec);
    }
    free(table);
    return 0;
}
