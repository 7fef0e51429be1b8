/* libFuzzer target for the DRAM trace reader (`replay --dram-trace`): any
 * text must be refused with a message naming the line, or be simulated to
 * the end, never crash or run unbounded. Seed it with lines such as
 * "0x1000 READ 10". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgm/dram.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    FILE *in = fmemopen((void *)data, size, "r");
    if (!in)
        return 0;
    struct cgm_dram_config cfg;
    if (cgm_dram_preset("DDR3-1600", &cfg)) {
        fclose(in);
        return 0;
    }
    char err[512] = "";
    struct cgm_dram *d = cgm_dram_create(&cfg, err, sizeof err);
    if (d) {
        err[0] = 0;
        if (cgm_dram_run_trace(d, in, "fuzz.trace", err, sizeof err) && !err[0])
            abort(); /* a refusal must say why */
        cgm_dram_destroy(d);
    }
    fclose(in);
    return 0;
}
