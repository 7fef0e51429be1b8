/* Reading the x86 static table: see cgm_x86_static_read in cgm/x86rec.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/trace.h"
#include "cgm/x86rec.h"

static int by_addr(const void *a, const void *b)
{
    uint64_t x = ((const struct cgm_x86_static *)a)->addr;
    uint64_t y = ((const struct cgm_x86_static *)b)->addr;
    return (x > y) - (x < y);
}

int cgm_x86_static_read(struct cgm_reader *r, size_t limit, struct cgm_x86_static **out,
                        size_t *n, char *err, size_t errlen)
{
    uint8_t *data;
    size_t len;
    *out = NULL;
    *n = 0;
    if (cgm_reader_read_section(r, CGM_X86_STATIC_SECTION, limit, &data, &len, err, errlen))
        return -1;
    /* an entry takes at least 12 bytes (address, length, class, operation,
     * memory operands, one instruction byte, micro-ops, loads, stores,
     * size, two list counts): a bound for the array */
    size_t cap = len / 12 + 1;
    struct cgm_x86_static *e = malloc(cap * sizeof *e);
    if (!e) {
        free(data);
        snprintf(err, errlen, "section %s: out of memory", CGM_X86_STATIC_SECTION);
        return -1;
    }
    int sorted = cgm_reader_version(r) < 2;
    const uint8_t *p = data, *end = data + len;
    uint64_t prev = 0;
    size_t k = 0;
    const char *why = NULL;
    while (p < end && !why) {
        size_t at = (size_t)(p - data);
        if (k == cap || cgm_x86_static_decode(&p, end, &prev, &e[k]) != 0)
            why = "is malformed";
        else if (sorted && k && e[k].addr <= e[k - 1].addr)
            why = "is out of address order (a version 1 table is sorted)";
        if (why)
            snprintf(err, errlen, "section %s: entry %zu (byte %zu) %s", CGM_X86_STATIC_SECTION, k,
                     at, why);
        else
            k++;
    }
    free(data);
    if (!why && !sorted && k) {
        qsort(e, k, sizeof *e, by_addr);
        for (size_t i = 1; i < k && !why; i++)
            if (e[i].addr == e[i - 1].addr) {
                why = "twice";
                snprintf(err, errlen, "section %s: address 0x%llx is described twice",
                         CGM_X86_STATIC_SECTION, (unsigned long long)e[i].addr);
            }
    }
    if (why) {
        free(e);
        return -1;
    }
    if (!k) {
        free(e);
        e = NULL;
    }
    *out = e;
    *n = k;
    return 0;
}
